"""Derived grass on the GPU: the same candidates as the CPU reference, only where its layer is painted."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, LayerFilter, foliage_of
from model.foliage.derived_grass import grass_candidates, tiles_near
from model.scene import Scene
from model.terrain import Terrain
from tests.gui_helpers import render

GRASS = FoliageType("grass", mesh="builtin:grass", storage="derived", density=400.0, scale=(1.6, 2.4),
                    layer=LayerFilter("meadow", 0.3), cull=(60.0, 80.0))


def half_painted(size: int = 65, spacing: float = 1.0, hilly: bool = False) -> Scene:
    z, x = np.mgrid[0:size, 0:size].astype(np.float64)
    h = 4 * np.sin(x / 6) * np.cos(z / 9) if hilly else np.zeros((size, size))
    terrain = Terrain(h.astype(np.float32), spacing, (-(size - 1) * spacing / 2, -(size - 1) * spacing / 2))
    meadow = np.zeros((size, size), np.uint8)
    meadow[:, : size // 2] = 255  # west half painted
    if hilly:
        meadow[:, : size // 2] = np.clip(x[:, : size // 2] * 9, 0, 255).astype(np.uint8)
    terrain.add_layer("soil", (120, 100, 80), np.full((size, size), 255, np.uint8))
    terrain.add_layer("meadow", (120, 100, 80), meadow)  # same colour: only the grass shows the paint
    return Scene(terrain=terrain, name="Half")


def test_gpu_grass_candidates_equal_the_cpu_reference(viewport, qtbot) -> None:
    scene = half_painted(hilly=True)
    foliage_of(scene).palette.add(GRASS)
    viewport.set_scene(scene)
    render(viewport, qtbot)
    t = scene.terrain
    tile0, tiles = tiles_near(t, 3.0, -2.0, 30.0)
    cpu = grass_candidates(t, GRASS, tile0, tiles)
    viewport.makeCurrent()
    try:
        gpu = viewport.grass_renderer.gpu_candidates("grass", tile0, tiles)
    finally:
        viewport.doneCurrent()
    assert len(gpu["grows"]) == len(cpu.grows) > 10000
    assert 0.1 < cpu.grows.mean() < 0.6
    assert np.array_equal(gpu["grows"], cpu.grows)  # exactly the same candidates grow
    g = cpu.grows
    assert np.abs(gpu["position"][g] - cpu.position[g]).max() < 1e-3  # to float32 rounding
    assert np.abs(gpu["yaw"][g] - cpu.yaw[g]).max() < 1e-4
    assert np.abs(gpu["scale"][g] - cpu.scale[g]).max() < 1e-5


def test_grass_appears_only_where_its_layer_is_painted(viewport, qtbot) -> None:
    scene = half_painted()
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.target = np.array([0.0, 0.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(70.0), 40.0
    bare = render(viewport, qtbot).astype(int)
    foliage_of(scene).palette.add(GRASS)
    grown = render(viewport, qtbot).astype(int)
    changed = np.abs(grown - bare).sum(axis=-1) > 40
    assert viewport.stats.grass > 0
    # the boundary x = 0 runs up the middle of the screen (looking along -Z)
    edge = viewport.world_to_screen(np.array([[0.0, 0.0, -15.0], [0.0, 0.0, 15.0]]))
    h, w = changed.shape
    cols = np.arange(w)[None, :].repeat(h, 0)
    west = changed & (cols < edge[:, 0].min() - 4)
    east = changed & (cols > edge[:, 0].max() + 4)
    assert west.sum() > 2000
    assert east.sum() == 0
    # repainting moves it: clear the meadow and the grass goes
    t = scene.terrain
    t.layers[1].weights[:] = 0
    t.layer_weights_changed.emit(1, slice(0, t.rows), slice(0, t.columns))
    cleared = render(viewport, qtbot).astype(int)
    assert (np.abs(cleared - bare).sum(axis=-1) > 40).sum() == 0


def test_no_grass_when_the_camera_is_far_above(viewport, qtbot) -> None:
    scene = half_painted()
    foliage_of(scene).palette.add(GRASS)
    viewport.set_scene(scene, frame=False)
    viewport.camera.target = np.zeros(3)
    viewport.camera.pitch, viewport.camera.distance = np.radians(80.0), 500.0
    render(viewport, qtbot)
    assert viewport.stats.grass == 0


def test_grass_textures_hold_a_window_of_a_big_terrain_and_follow_its_edits(viewport, qtbot,
                                                                           monkeypatch) -> None:
    """Past WHOLE_TEXELS the heights and weights textures hold only a window around the grass's
    reach (moved when it leaves it): the GPU still grows exactly the CPU reference's candidates."""
    from rendering import grass_renderer

    monkeypatch.setattr(grass_renderer, "WHOLE_TEXELS", 32 * 32)
    monkeypatch.setattr(grass_renderer, "WINDOW_MARGIN", 4)
    scene = half_painted(size=129, hilly=True)
    foliage_of(scene).palette.add(GRASS)
    viewport.set_scene(scene)
    render(viewport, qtbot)
    t = scene.terrain
    g = viewport.grass_renderer
    for x, z in [(-40.0, -30.0), (-20.0, 35.0), (-40.0, -30.0)]:
        tile0, tiles = tiles_near(t, x, z, 12.0)
        viewport.makeCurrent()
        try:
            gpu = g.gpu_candidates("grass", tile0, tiles)
        finally:
            viewport.doneCurrent()
        r0, r1, c0, c1 = g._window
        assert (r1 - r0) * (c1 - c0) < t.rows * t.columns / 4  # a window, not the grid
        cpu = grass_candidates(t, GRASS, tile0, tiles)
        assert cpu.grows.sum() > 100 and np.array_equal(gpu["grows"], cpu.grows)
        assert np.abs(gpu["position"][cpu.grows] - cpu.position[cpu.grows]).max() < 1e-3
    moves = g.window_moves
    assert moves >= 3  # each place needed its own window
    # an edit reaches the window's textures in place (no new window)
    t.layers[1].weights[:, :] = 0
    t.layer_weights_changed.emit(1, slice(0, t.rows), slice(0, t.columns))
    tile0, tiles = tiles_near(t, -40.0, -30.0, 12.0)
    viewport.makeCurrent()
    try:
        gpu = g.gpu_candidates("grass", tile0, tiles)
    finally:
        viewport.doneCurrent()
    assert g.window_moves == moves and not gpu["grows"].any()
