"""Whole-grid commands on a paged scene. Replacing a whole grid (an imported heightmap or layer
weights) writes it tile by tile into the grid's own tiles: one copy of the values, none kept by
undo; undo puts back the tiles it replaced (read from their files again) and redo the new ones,
exactly. A new layer is zero tiles made only where painted."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from app.terrain_commands import ReplaceGridCommand
from model import paged
from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.volume import FoliageVolume
from model.formats import tiles
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.sculpt import HEIGHTS
from model.terrain import Terrain

N, TILE = 1000, 256  # 4 x 4 tiles, the last row and column smaller; 4 MB of heights


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", TILE)


def opened(tmp_path: Path):
    rng = np.random.default_rng(2)
    t = Terrain(rng.normal(0, 5, (N, N)).astype(np.float32), 1.0)
    t.add_layer("grass", (0, 200, 0), rng.integers(0, 256, (N, N), dtype=np.uint8))
    t.add_layer("rock", (90, 90, 90), rng.integers(0, 256, (N, N), dtype=np.uint8))
    path = tmp_path / "r.boscage"
    save_scene(Scene(terrain=t, name="r"), path)
    return t, load_scene(path)


def whole(scene) -> tuple[bytes, ...]:
    t = scene.terrain
    everything = (slice(0, t.rows), slice(0, t.columns))
    return (t.read_heights(*everything).tobytes(), *(la.read(*everything).tobytes() for la in t.layers))


def test_importing_heights_into_a_paged_scene_costs_one_copy_and_undoes_to_the_files(tmp_path: Path) -> None:
    original, scene = opened(tmp_path)
    t = scene.terrain
    grid = t.paged_heights.grid
    before = whole(scene)
    new = np.linspace(0, 50, N * N, dtype=np.float32).reshape(N, N)
    changed = []
    t.heights_changed.connect(lambda rows, cols: changed.append((rows, cols)))
    assemblies = paged.assemblies
    tracemalloc.start()
    try:
        command = ReplaceGridCommand(t, HEIGHTS, new, "Import heightmap")
        command.redo()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1.25 * new.nbytes  # the grid's new tiles; old code: about 4 times the grid
    assert t.read_heights(slice(0, N), slice(0, N)).tobytes() == new.tobytes()
    assert changed == [(slice(0, N), slice(0, N))]
    assert t.height_range() == (0.0, 50.0)
    del new  # the command keeps no copy: undo and redo move tiles
    command.undo()
    assert whole(scene) == before and grid.written_tiles == 0  # every tile reads its file again
    assert t.height_range() == original.height_range()
    command.redo()
    assert t.read_heights(slice(0, N), slice(0, N)).tobytes() == \
        np.linspace(0, 50, N * N, dtype=np.float32).reshape(N, N).tobytes()
    assert paged.assemblies == assemblies and t.paged_heights is not None


def test_importing_weights_keeps_the_other_layers_and_the_earlier_strokes_exactly(tmp_path: Path) -> None:
    _, scene = opened(tmp_path)
    t = scene.terrain
    t.layers[1].grid()[10:20, 300:310] = 7  # a tile written before the import (rock's)
    before = whole(scene)
    weights = np.full((N, N), 200, np.uint8)
    command = ReplaceGridCommand(t, "grass", weights, "Import weights")
    command.redo()
    after = whole(scene)
    assert after[1] == weights.tobytes() and after[0] == before[0] and after[2] == before[2]
    command.undo()
    assert whole(scene) == before
    command.redo()
    assert whole(scene) == after
    save_scene(scene, tmp_path / "r.boscage")
    assert whole(load_scene(tmp_path / "r.boscage")) == after


def test_an_imported_heightmap_lifts_the_stored_foliage_with_the_ground(tmp_path: Path) -> None:
    _, scene = opened(tmp_path)
    t = scene.terrain
    volume = FoliageVolume(Palette([FoliageType("tree")]), 32.0)
    x, z = np.array([100.5, 600.25]), np.array([200.5, 900.75])
    ground = t.height_at(x, z)
    records = np.zeros((2, 7), np.float32)
    records[:, 0], records[:, 1], records[:, 2], records[:, 6] = x, ground + 1.0, z, 1.0
    volume.add("tree", records)
    command = ReplaceGridCommand(t, HEIGHTS, np.full((N, N), 40.0, np.float32), "Import", volume)
    command.redo()
    ys = np.sort(np.concatenate([c.records[:, 1] for _, c in volume.chunks()]))
    np.testing.assert_allclose(ys, [41.0, 41.0], atol=1e-4)
    command.undo()
    ys = np.sort(np.concatenate([c.records[:, 1] for _, c in volume.chunks()]))
    np.testing.assert_allclose(ys, np.sort(ground + 1.0), atol=1e-4)


def test_a_grid_of_the_wrong_size_is_refused(tmp_path: Path) -> None:
    _, scene = opened(tmp_path)
    with pytest.raises(ValueError, match="999 x 1000"):
        ReplaceGridCommand(scene.terrain, HEIGHTS, np.zeros((N, N - 1), np.float32), "Import")


def test_add_layer_on_a_paged_scene_is_zero_tiles_and_undoes_and_redoes_exactly(tmp_path: Path) -> None:
    from app.terrain_commands import AddLayerCommand, DeleteLayerCommand
    from model.brush import Brush
    from model.sculpt import TerrainStroke, paint_layer

    _, scene = opened(tmp_path)
    t = scene.terrain
    tracemalloc.start()
    try:
        add = AddLayerCommand(t, "snow", (250, 250, 250))
        add.redo()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 0.1 * N * N  # a whole zero array would be N² bytes
    snow = t.layer("snow")
    stroke = TerrainStroke(t, "snow")
    stroke.apply(paint_layer(t, "snow", Brush(radius=5.0), 300.0, 300.0))
    stroke.finish()
    painted = whole(scene)
    assert snow.paged.grid.written_tiles == 1 and snow.weight_sum() > 0
    stroke.undo()
    add.undo()
    assert t.layer("snow") is None
    add.redo()
    assert t.layer("snow") is snow and snow.weight_sum() == 0
    stroke.redo()
    assert whole(scene) == painted
    delete = DeleteLayerCommand(t, "snow")
    delete.redo()
    assert t.layer("snow") is None
    delete.undo()
    assert whole(scene) == painted
    save_scene(scene, tmp_path / "r.boscage")
    assert whole(load_scene(tmp_path / "r.boscage")) == painted


def test_importing_heights_beneath_edit_layers_refreshes_the_composite(tmp_path: Path) -> None:
    from model.edit_layers import grid_from, stack_of

    _, scene = opened(tmp_path)
    t = scene.terrain
    stack = stack_of(t, create=True)
    bump = np.full((40, 40), 5.0, np.float32)
    layer = stack.new_layer("bump", "stamp")
    layer.deltas = grid_from(bump, slice(300, 340), slice(500, 540), (N, N))
    stack.insert(layer)
    stack.selected = "bump"  # a brush paints into the layer; an import still replaces the ground beneath
    before = whole(scene)
    changed = []
    t.heights_changed.connect(lambda rows, cols: changed.append((rows, cols)))
    new = np.linspace(0, 50, N * N, dtype=np.float32).reshape(N, N)
    command = ReplaceGridCommand(t, HEIGHTS, new, "Import heightmap")
    command.redo()
    want = new.copy()
    want[300:340, 500:540] = (new[300:340, 500:540].astype(np.float64) + 5.0).astype(np.float32)
    assert t.read_heights(slice(0, N), slice(0, N)).tobytes() == want.tobytes()  # what the view reads
    assert changed == [(slice(0, N), slice(0, N))]  # announced once, over the whole grid
    assert layer.read(slice(0, N), slice(0, N)).max() == 5.0  # the layer keeps its deltas
    command.undo()
    assert whole(scene) == before
    command.redo()
    assert t.read_heights(slice(0, N), slice(0, N)).tobytes() == want.tobytes()
