"""Growing a forest on a scene's terrain."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model.plants.forest import ground_of_layer, grow_forest, zone_from_terrain
from model.plants.growth import GrowthOptions
from model.plants.loader import load_rules
from model.scene import Scene
from model.terrain import Terrain

SAMPLE = Path(__file__).resolve().parents[3] / "resources" / "plants"


@pytest.fixture(scope="module")
def rules() -> dict:
    return load_rules(SAMPLE)


def _scene(size: int = 64) -> Scene:
    z, x = np.mgrid[0:size, 0:size].astype(np.float32)
    terrain = Terrain(2.0 + 0.05 * x, spacing=2.0, origin=(100.0, -50.0))
    terrain.add_layer("LowlandA", (0, 200, 0), np.where(x < size / 2, 255, 0).astype(np.uint8))
    terrain.add_layer("sand", (200, 200, 0), np.where(x >= size / 2, 200, 0).astype(np.uint8))
    return Scene(terrain=terrain, name="hill")


def test_terrain_becomes_a_zone() -> None:
    scene = _scene()
    zone = zone_from_terrain(scene.terrain, lowest_units=60)
    assert (zone.width, zone.height) == (64, 64)
    units = zone.altitude / 32
    assert units.min() == pytest.approx(60) and units[0, 63] == pytest.approx(60 + 0.05 * 63, abs=0.04)
    assert set(np.unique(zone.plants["groundType"])) == {1, 8}
    assert np.all(zone.plants["spawn"] == 131) and not zone.plants["type"].any()
    assert ground_of_layer("HighlandB") == 6 and ground_of_layer("Forest_Floor") == 3
    assert ground_of_layer("paint") is None


def test_grown_forest_is_a_new_scene_with_stored_trees_and_derived_grass(rules: dict) -> None:
    scene = _scene()
    before = scene.terrain.heights.copy()
    out = grow_forest(scene, rules, passes=6, seed=3, options=GrowthOptions(fertility=15))
    assert out is not scene and not scene.sections and len(scene.terrain.layers) == 2
    assert np.array_equal(scene.terrain.heights, before)
    foliage = out.sections["foliage"]
    stored = foliage.volume.counts()
    assert stored and all(n > 0 for n in stored.values())
    derived = [t.name for t in foliage.palette if t.derived]
    assert "Grass A" in derived and out.terrain.layer_index("plants: Grass A") is not None
    rec = foliage.volume.all_records(next(iter(stored)))
    x0, z0 = scene.terrain.origin
    cols, rows = (rec[:, 0] - x0) / 2.0, (rec[:, 2] - z0) / 2.0
    assert np.allclose(cols, np.round(cols)) and np.allclose(rows, np.round(rows))  # on tile centres
    assert np.allclose(rec[:, 1], scene.terrain.height_at(rec[:, 0], rec[:, 2]))
    again = grow_forest(scene, rules, passes=6, seed=3, options=GrowthOptions(fertility=15))
    assert again.sections["foliage"].volume.counts() == stored
    assert np.array_equal(again.sections["foliage"].volume.all_records(next(iter(stored))), rec)


def test_forest_saves_and_opens(rules: dict, tmp_path: Path) -> None:
    from model.formats.scene_file import load_scene, save_scene

    out = grow_forest(_scene(32), rules, passes=4, seed=1)
    save_scene(out, tmp_path / "forest.boscage")
    back = load_scene(tmp_path / "forest.boscage")
    assert back.sections["foliage"].volume.counts() == out.sections["foliage"].volume.counts()


def test_a_grown_forest_has_the_palette_of_its_plants_only(rules: dict) -> None:
    from model.foliage import builtin_palette, foliage_of

    scene = _scene()
    foliage_of(scene, builtin_palette())  # the open scene carries the sample types
    out = grow_forest(scene, rules, passes=4, seed=2, options=GrowthOptions(fertility=15))
    palette = out.sections["foliage"].palette.names()
    assert palette and not set(palette) & set(builtin_palette().names())
    grown = set(out.sections["foliage"].volume.counts()) | {t.name for t in out.sections["foliage"].palette
                                                              if t.derived}
    assert set(palette) == grown
