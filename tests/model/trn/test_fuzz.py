"""Damaged files: every truncation and random byte damage gives a document or one FormatError."""

from __future__ import annotations

import numpy as np

from model.errors import FormatError
from model.trn import build, document
from tests.model.trn.builders import kitchen_sink


def _try(data: bytes) -> str:
    try:
        doc = document.parse(data, "fuzz.trn")
    except FormatError as e:
        assert isinstance(e.place, int) and 0 <= e.place <= len(data), e
        return "error"
    assert doc.to_bytes() == data  # whatever reads, writes back unchanged
    return "ok"


def test_every_truncation_is_refused_cleanly():
    data = build.to_bytes(kitchen_sink("0015"))
    outcomes = {_try(data[:n]) for n in range(0, len(data), 7)}
    assert outcomes == {"error"}


def test_random_damage_never_raises_anything_else():
    data = bytearray(build.to_bytes(kitchen_sink("0014")))
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(400):
        bad = bytearray(data)
        for pos in rng.integers(0, len(bad), rng.integers(1, 4)):
            bad[pos] = int(rng.integers(0, 256))
        seen.add(_try(bytes(bad)))
    assert seen == {"ok", "error"}
