"""Interchange bench cases: registered, and their quick runs meet their budgets."""

from __future__ import annotations

import numpy as np
import pytest

from app.bench import all_cases, interchange


def test_cases_are_registered() -> None:
    assert {c.name for c in interchange.CASES} <= {c.name for c in all_cases()}


@pytest.mark.slow
def test_quick_budgets() -> None:
    for case in interchange.CASES:
        ratio = case.run(True)
        assert np.isfinite(ratio) and case.ok(ratio, quick=True), (case.name, ratio)


def test_the_bench_scene_keeps_sixty_instances_a_chunk() -> None:
    scene = interchange.bench_scene(40_000)
    volume = scene.sections["foliage"].volume
    assert len(volume) == 40_000
    assert 40 < len(volume) / len(volume.keys()) < 90
