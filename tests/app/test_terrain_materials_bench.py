"""The textured terrain bench cases run (quick sizes) and are measured; the open case meets its budget."""

from __future__ import annotations

import numpy as np
import pytest

from app.bench import terrain_materials


def test_the_bench_terrain_has_two_or_three_layers_at_a_point_adding_to_full() -> None:
    t = terrain_materials.layered_terrain(65, 8)
    stack = np.stack([la.weights for la in t.layers]).astype(int)
    present = (stack > 0).sum(axis=0)
    assert present.max() <= 3 and present.min() >= 1
    assert stack.sum(axis=0).max() <= 255 and stack.sum(axis=0).min() >= 250


@pytest.mark.slow
def test_opening_16_textures_of_2048_adds_at_most_half_a_second_to_the_first_frame(qapp) -> None:
    (case,) = [c for c in terrain_materials.CASES if c.name.startswith("terrain_materials.open")]
    extra = case.run(True)
    assert extra == extra, "the case could not run (no display?)"
    assert case.ok(extra), f"{extra:.2f} s more than without the textures"


@pytest.mark.slow
def test_the_textured_layers_frame_is_measured(qapp) -> None:
    (case,) = [c for c in terrain_materials.CASES if c.name.startswith("viewport.terrain_8")]
    ratio = case.run(True)
    assert np.isfinite(ratio) and ratio > 1.0  # sampling costs something; its budget is pending
