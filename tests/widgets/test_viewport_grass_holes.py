"""Derived grass grows in no hole: the GPU drops the same candidates as the CPU reference, and a
hole painted later (or erased) reaches the GPU through the terrain's hole events."""

from __future__ import annotations

import numpy as np

from model.foliage import foliage_of
from model.foliage.derived_grass import grass_candidates, tiles_near
from model.holes import apply_patch, hole_at, paint_holes
from tests.gui_helpers import render
from tests.widgets.test_viewport_grass import GRASS, half_painted


def gpu_grows(viewport, tile0, tiles) -> np.ndarray:
    viewport.makeCurrent()
    try:
        return viewport.grass_renderer.gpu_candidates("grass", tile0, tiles)["grows"]
    finally:
        viewport.doneCurrent()


def test_no_grass_grows_in_a_hole_on_the_gpu_as_on_the_cpu(viewport, qtbot) -> None:
    scene = half_painted(hilly=True)
    foliage_of(scene).palette.add(GRASS)
    t = scene.terrain
    viewport.set_scene(scene)
    render(viewport, qtbot)
    tile0, tiles = tiles_near(t, -10.0, -2.0, 30.0)
    before = grass_candidates(t, GRASS, tile0, tiles)
    patch = paint_holes(t, -12.0, 0.0, 6.0)  # in the painted (west) half, after the first frame
    render(viewport, qtbot)
    cpu = grass_candidates(t, GRASS, tile0, tiles)
    in_hole = hole_at(t, cpu.position[:, 0], cpu.position[:, 2])
    assert (before.grows & in_hole).sum() > 50 and not (cpu.grows & in_hole).any()
    assert np.array_equal(cpu.grows, before.grows & ~in_hole)
    assert np.array_equal(gpu_grows(viewport, tile0, tiles), cpu.grows)
    apply_patch(t, patch, undo=True)  # the mask is gone again
    render(viewport, qtbot)
    assert np.array_equal(gpu_grows(viewport, tile0, tiles), before.grows)
