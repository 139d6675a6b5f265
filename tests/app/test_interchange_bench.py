"""Interchange bench cases: registered, and their quick runs meet their budgets."""

from __future__ import annotations

import numpy as np

from app.bench import all_cases, interchange


def test_cases_are_registered_and_pass_quick() -> None:
    names = {c.name for c in all_cases()}
    assert {c.name for c in interchange.CASES} <= names
    for case in interchange.CASES:
        ratio = case.run(True)
        assert np.isfinite(ratio) and case.ok(ratio), (case.name, ratio)


def test_the_bench_scene_keeps_sixty_instances_a_chunk() -> None:
    scene = interchange.bench_scene(40_000)
    volume = scene.sections["foliage"].volume
    assert len(volume) == 40_000
    assert 40 < len(volume) / len(volume.keys()) < 90
