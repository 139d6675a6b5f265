"""Derived grass: a group's rules become derived foliage types by Boscage's own mapping."""

from __future__ import annotations

import math
import struct

import pytest

from model.grasslib import derive_group, parse_library
from tests.model.grasslib import fixtures as fx


@pytest.fixture(scope="module")
def lib():
    return parse_library(fx.small_library_bytes())


def expected(rule, weight: int = 127) -> dict:
    """Plain restatement of the mapping, rule by rule."""
    lo = hi = 1.0
    if rule["scaling"]:
        a, b = float(rule["scale_a"]), float(rule["scale_b"])
        lo, hi = lo * min(a, b), hi * max(a, b)
    if rule["height_scaling"]:
        a, b = float(rule["height_scale_a"]), float(rule["height_scale_b"])
        lo, hi = lo * min(a, b), hi * max(a, b)
    return {"density": float(rule["density"]) * 100 * weight / 127,
            "tilt": [0.0, 90 * min(max(float(rule["tilt"]), 0), 1)], "scale": [lo, hi]}


def test_each_rule_becomes_one_derived_type(lib) -> None:
    d = derive_group(lib, 3)
    rules = lib.groups[3].rules
    assert d.rule_indices == [0, 1, 2] and len(d.types) == 3 and d.notes == []
    for doc, rule in zip(d.types, rules, strict=True):
        want = expected(rule)
        assert doc["storage"] == "derived" and doc["mesh"] == "builtin:grass"
        assert doc["density"] == pytest.approx(want["density"], abs=1e-5)
        assert doc["tilt"] == pytest.approx(want["tilt"], abs=1e-5)
        assert doc["scale"] == pytest.approx(want["scale"], abs=1e-5)
    assert len({doc["name"] for doc in d.types}) == 3


def test_weight_scales_density(lib) -> None:
    full = derive_group(lib, 2).types
    half = derive_group(lib, 2, weight=48).types
    for a, b in zip(full, half, strict=True):
        assert b["density"] == pytest.approx(a["density"] * 48 / 127, rel=1e-5)
    assert derive_group(lib, 2, weight=0).types == []


def test_rules_naming_missing_models_are_left_out_with_a_note(lib) -> None:
    d = derive_group(lib, 4)
    assert d.types == [] and "model 9" in d.notes[0]
    with pytest.raises(IndexError):
        derive_group(lib, 5)


def test_non_finite_values_are_replaced_and_noted() -> None:
    data = bytearray(fx.small_library_bytes())
    at = parse_library(bytes(data)).groups[1].offset + 17
    struct.pack_into("<f", data, at + 0xF, math.nan)
    struct.pack_into("<f", data, at + 0x13, math.inf)
    d = derive_group(parse_library(bytes(data)), 1)
    assert d.types[0]["density"] == 0.0 and d.types[0]["tilt"] == [0.0, 0.0]
    assert any("density" in n for n in d.notes) and any("tilt" in n for n in d.notes)
