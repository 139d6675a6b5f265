"""Paths that used to read a whole grid of a paged scene now work tile by tile: filling a painted
layer, a layer's coverage (from the opening's pass), derived grass's CPU reference, and a new
layer (zeros that take memory only where painted). Each is checked on a paged scene against
`model.paged.assemblies` (and the mapped tiles or traced memory), and against the result of
reading the whole array."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from model import layer_ops, paged
from model.brush import Brush
from model.foliage import derived_grass, hashing, scatter
from model.foliage.foliage_type import FoliageType, LayerFilter
from model.foliage.hashing import Channel
from model.foliage.palette import Palette
from model.foliage.scatter import FoliageScatter, LayerRegion
from model.foliage.volume import FoliageVolume
from model.formats import tiles
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.sculpt import TerrainStroke, paint_layer
from model.terrain import Terrain
from tests.model.test_scene_file import files_of

ROWS, COLS, TILE = 70, 90, 32  # 3 x 3 tiles, the last row and column smaller


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", TILE)
    monkeypatch.setattr(scatter, "WINDOW", 24, raising=False)  # windows that do not line up with the tiles


def painted_scene() -> Scene:
    rng = np.random.default_rng(5)
    x, z = np.meshgrid(np.arange(COLS, dtype=np.float32), np.arange(ROWS, dtype=np.float32))
    heights = (3 * np.sin(x / 9) * np.cos(z / 7)).astype(np.float32)
    terrain = Terrain(heights, 1.0, (2.0, -3.0))
    grass = np.where(rng.random((ROWS, COLS)) < 0.4, rng.integers(0, 256, (ROWS, COLS)), 0)
    grass[40:, 10:50] = 255  # a solid patch across tile edges
    terrain.add_layer("grass", (0, 200, 0), grass.astype(np.uint8))
    terrain.add_layer("rock", (128, 128, 128), rng.integers(0, 256, (ROWS, COLS), dtype=np.uint8))
    return Scene(terrain=terrain, name="paged")


def opened(tmp_path: Path) -> tuple[Terrain, Scene]:
    original = painted_scene()
    path = tmp_path / "p.boscage"
    save_scene(original, path)
    return original.terrain, load_scene(path)


def whole_layer_positions(terrain: Terrain, region: LayerRegion, hashes: np.ndarray) -> np.ndarray:
    """What a layer fill's positions were when it read the whole layer (`flatnonzero`)."""
    painted = np.flatnonzero(terrain.layer(region.layer).weights.ravel() >= region.min_weight * 255.0)
    k = np.minimum((hashing.draw(hashes, Channel.X) * len(painted)).astype(np.int64), len(painted) - 1)
    row, col = np.divmod(painted[k], terrain.columns)
    x = terrain.origin[0] + (col + hashing.draw(hashes, Channel.Z) - 0.5) * terrain.spacing
    z = terrain.origin[1] + (row + hashing.draw(hashes, Channel.RETRY) - 0.5) * terrain.spacing
    x0, z0, x1, z1 = terrain.bounds()
    return np.stack([np.clip(x, x0, x1), np.clip(z, z0, z1)], axis=-1)


TREE = FoliageType("tree", density=40.0, spacing=0.7, slope=(0.0, 60.0), align=0.5,
                   layer=LayerFilter("grass", 0.3))


def test_filling_a_painted_layer_reads_it_by_tile_and_places_the_same_bytes(tmp_path: Path) -> None:
    original, scene = opened(tmp_path)
    t = scene.terrain
    before = paged.assemblies
    for min_weight in (0.5, 1.0 / 255.0, 1.0):
        region = LayerRegion("grass", min_weight, seed=9)
        hashes = hashing.candidate_hashes(9, "tree", 0, np.arange(5000))
        got = region.positions(hashes, t)
        assert got.tobytes() == whole_layer_positions(original, region, hashes).tobytes()
        assert region.area(t) == np.count_nonzero(original.layer("grass").weights >= min_weight * 255.0)
    fills = [FoliageScatter(terrain, FoliageVolume(Palette([TREE]), 16.0)).fill_layer(
        ["tree"], "grass", 0.5, 3) for terrain in (t, original)]
    assert fills[0].placed > 100
    assert fills[0].records("tree").tobytes() == fills[1].records("tree").tobytes()
    assert paged.assemblies == before and t.layers[0].paged is not None  # nothing assembled


def test_a_layer_with_nothing_painted_enough_gives_no_ground() -> None:
    t = painted_scene().terrain
    region = LayerRegion("rock", 2.0)
    assert region.area(t) == 0.0
    assert np.isnan(region.positions(np.arange(3, dtype=np.uint32), t)).all()
    assert LayerRegion("no such layer").area(t) == 0.0


def test_coverage_comes_from_the_opening_pass_without_mapping_a_tile(tmp_path: Path) -> None:
    original, scene = opened(tmp_path)
    t = scene.terrain
    grid = t.layers[0].paged.grid
    for mine, theirs in zip(t.layers, original.layers, strict=True):
        assert mine.weight_sum() == int(theirs.weights.sum())
    assert grid._maps == {}  # the sums were kept while the CRC check read the tiles
    for mine, theirs in zip(t.layers, original.layers, strict=True):
        assert mine.painted_count() == int(np.count_nonzero(theirs.weights))
    assert grid._maps == {}  # and the counts
    stroke = TerrainStroke(t, "grass")
    stroke.apply(paint_layer(t, "grass", Brush(radius=3.0), 50.0, 5.0))
    stroke.finish()
    painted = t.layers[0].read(slice(0, ROWS), slice(0, COLS))
    assert t.layers[0].weight_sum() == int(painted.sum())  # a written tile is summed afresh
    assert t.layers[0].painted_count() == int(np.count_nonzero(painted))


def test_a_damaged_layer_tile_is_still_refused_at_opening(tmp_path: Path) -> None:
    path = tmp_path / "p.boscage"
    save_scene(painted_scene(), path)
    victim = sorted(tmp_path.glob("p.layers_1_2.*.bin"))[0]
    data = bytearray(victim.read_bytes())
    data[7] ^= 0xFF
    victim.write_bytes(bytes(data))
    from model.errors import FormatError
    with pytest.raises(FormatError, match="checksum mismatch") as e:
        load_scene(path)
    assert victim.name in str(e.value)


def test_derived_grass_reads_the_weights_it_needs_by_tile(tmp_path: Path) -> None:
    original, scene = opened(tmp_path)
    grass = FoliageType("tufts", density=300.0, storage="derived", layer=LayerFilter("grass", 0.2))
    before = paged.assemblies
    got = derived_grass.grass_near(scene.terrain, grass, 40.0, 30.0, 25.0, seed=4)
    assert paged.assemblies == before
    want = derived_grass.grass_near(original, grass, 40.0, 30.0, 25.0, seed=4)
    assert got.grows.any() and np.array_equal(got.grows, want.grows)
    np.testing.assert_array_equal(got.position, want.position)


def test_a_new_layer_takes_memory_only_where_painted_and_saves_as_the_format_stores_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", 512)
    t = Terrain(np.zeros((4097, 4097), np.float32), 2.0)
    tracemalloc.start()
    try:
        layer_ops.add_layer(t, "snow", (250, 250, 250))
        t.add_layer("ice", (200, 220, 255))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20  # a full array would be 16.8 MB each
    snow = t.layer("snow")
    assert snow.weight_sum() == 0 and snow.painted_count() == 0 and snow.paged.grid.written_tiles == 0
    assert snow.read(slice(4000, 4097), slice(0, 10)).tobytes() == bytes(97 * 10)
    stroke = TerrainStroke(t, "snow")
    stroke.apply(paint_layer(t, "snow", Brush(radius=6.0), 1030.0, 1030.0))
    stroke.finish()
    assert snow.paged.grid.written_tiles == 1  # the one tile painted
    painted = snow.read(slice(0, 4097), slice(0, 4097))
    assert painted.any() and snow.weight_sum() == int(painted.sum())
    stroke.undo()
    assert snow.weight_sum() == 0 and not snow.read(slice(0, 4097), slice(0, 4097)).any()
    stroke.redo()
    assert snow.read(slice(0, 4097), slice(0, 4097)).tobytes() == painted.tobytes()


def test_a_new_layer_on_a_paged_scene_saves_the_bytes_of_a_zero_array(tmp_path: Path) -> None:
    original, scene = opened(tmp_path)
    for terrain in (scene.terrain, original):
        layer_ops.add_layer(terrain, "snow", (250, 250, 250), index=1)
    assert scene.terrain.layer("snow").paged is not None
    original.layers[1].weights = np.zeros((ROWS, COLS), np.uint8)  # what Add Layer used to make
    before = paged.assemblies
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    save_scene(scene, tmp_path / "a" / "s.boscage")
    assert paged.assemblies == before
    save_scene(Scene(terrain=original, name=scene.name), tmp_path / "b" / "s.boscage")
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")
    back = load_scene(tmp_path / "a" / "s.boscage").terrain
    assert [la.name for la in back.layers] == ["grass", "snow", "rock"]
    assert back.layers[1].weight_sum() == 0
