"""Foliage mode bench cases: quick runs meet their budgets; undo memory follows the edit."""

from __future__ import annotations

import numpy as np
import pytest

from app.bench import foliage_mode
from app.bench.foliage import _records
from model.foliage.volume import FoliageVolume


def test_cases_are_registered() -> None:
    from app.bench import all_cases

    assert {c.name for c in foliage_mode.CASES} <= {c.name for c in all_cases()}


@pytest.mark.slow
def test_quick_budgets() -> None:
    for case in foliage_mode.CASES:
        ratio = case.run(True)
        assert np.isfinite(ratio) and case.ok(ratio, quick=True), (case.name, ratio)


def test_undo_memory_is_a_record_and_an_address_per_touched_instance() -> None:
    terrain, empty, full = foliage_mode._volumes(True)
    before = {k: c.records.tobytes() for k, c in full.chunks()}
    per_full, touched_full = foliage_mode.stroke_bytes_per_instance(full, terrain)
    per_empty, touched_empty = foliage_mode.stroke_bytes_per_instance(empty, terrain)
    assert touched_full > 1000 and touched_empty > 1000
    assert per_full == per_empty == 7 * 4 + 8  # 28-byte record + one int64 index, whatever the scene
    assert {k: c.records.tobytes() for k, c in full.chunks()} == before  # the strokes were undone exactly


@pytest.mark.slow
def test_full_size_budgets() -> None:
    for case in foliage_mode.CASES:
        ratio = case.run(False)
        assert case.ok(ratio), (case.name, ratio)


def test_the_view_stand_in_copies_only_what_changed() -> None:
    volume = FoliageVolume(foliage_mode._volumes(True)[1].palette)
    volume.add("tree", _records(50_000))
    view = foliage_mode.ViewStandIn(volume)
    rec = _records(10, 4, span=5.0)
    volume.add("tree", rec)
    view.frame()
    changed = {volume.cell_of(float(r[0]), float(r[2])) for r in rec}
    expected = sum(len(volume.chunk(c, "tree")) * 28 for c in changed)
    assert view.uploaded == expected < len(volume) * 28 / 10
