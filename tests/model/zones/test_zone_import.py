"""A zone imported as a scene: terrain heights, ground-type layers, plant tiles as foliage."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model.formats.scene_file import load_scene, save_scene
from model.plants.rule import PlantRule
from model.zones import GROUND_TYPES, PLANT_TYPES
from model.zones.sample import sample_zone
from model.zones.scene_import import ImportCancelled, blocking_types, zone_to_scene


@pytest.fixture(scope="module")
def zone():
    return sample_zone(12, 40, height=30, seed=9)


def test_altitude_becomes_heights_in_metres(zone) -> None:
    scene = zone_to_scene(zone, tile_size=2.0)
    t = scene.terrain
    assert (t.columns, t.rows, t.spacing) == (40, 30, 2.0)
    for y, x in ((0, 0), (29, 39), (7, 21)):
        assert t.heights[y, x] == np.float32(int(zone.altitude[y, x]) / 32)
    assert t.height_at(21 * 2.0, 7 * 2.0) == pytest.approx(int(zone.altitude[7, 21]) / 32, abs=1e-4)
    assert scene.name == "zone 0012"


def test_ground_types_become_named_layers(zone) -> None:
    terrain = zone_to_scene(zone).terrain
    ground = zone.plants["groundType"]
    present = sorted({int(v) for v in ground.ravel()})
    assert [n for n in (layer.name for layer in terrain.layers) if not n.startswith("plants: ")] == \
        [GROUND_TYPES[v] for v in present]
    for y in range(zone.height):
        for x in range(zone.width):
            layer = terrain.layer(GROUND_TYPES[int(ground[y, x])])
            assert layer.weights[y, x] == 255
    assert sum(terrain.layer(GROUND_TYPES[v]).weights.astype(int) for v in present).max() == 255


def test_blocking_plants_are_stored_instances_and_grass_is_derived(zone) -> None:
    scene = zone_to_scene(zone)
    foliage = scene.sections["foliage"]
    kinds = zone.plants["type"]
    present = sorted({int(v) for v in kinds.ravel()} - {0})
    assert foliage.palette.names() == [PLANT_TYPES[k] for k in present]  # one entry per type
    blocks = blocking_types(zone)
    for k in present:
        ftype = foliage.palette[PLANT_TYPES[k]]
        tiles = kinds == k
        ever_blocks = bool(((zone.blocks["height"][tiles] > 0) & (zone.blocks["flags"][tiles] & 2 > 0)).any())
        assert blocks[k] == ever_blocks
        if ever_blocks:
            assert ftype.stored
            records = foliage.volume.all_records(ftype.name)
            assert len(records) == int(tiles.sum())
            got = sorted(zip(records[:, 2].astype(int), records[:, 0].astype(int), strict=True))
            assert got == sorted(zip(*np.nonzero(tiles), strict=True))
            ys, xs = records[:, 2].astype(int), records[:, 0].astype(int)
            np.testing.assert_allclose(records[:, 1], zone.altitude[ys, xs] / 32, atol=1e-3)
        else:
            assert ftype.derived and ftype.layer is not None
            weights = scene.terrain.layer(ftype.layer.name).weights
            np.testing.assert_array_equal(weights == 255, tiles)
            assert foliage.volume.count(ftype.name) == 0
    assert {"PineTree", "Wall"} <= set(foliage.palette.stored_names())
    assert not foliage.palette["GrassA"].stored


def test_import_is_deterministic_and_survives_save_and_open(zone, tmp_path: Path) -> None:
    a = zone_to_scene(zone).sections["foliage"].volume
    b = zone_to_scene(zone).sections["foliage"].volume
    for name in a.type_names():
        assert a.all_records(name).tobytes() == b.all_records(name).tobytes()
    scene = zone_to_scene(zone)
    save_scene(scene, tmp_path / "zone.boscage")
    loaded = load_scene(tmp_path / "zone.boscage")
    assert loaded.sections["foliage"].volume.counts() == a.counts()
    assert [layer.name for layer in loaded.terrain.layers] == [layer.name for layer in scene.terrain.layers]


def test_rules_decide_blocking_and_names(zone) -> None:
    rules = {1: PlantRule(index=1, name="Meadow grass", blocking_height=(0, 0, 3)),
             3: PlantRule(index=3, name="Pine", blocking_height=(0, 0))}
    scene = zone_to_scene(zone, rules=rules)
    palette = scene.sections["foliage"].palette
    assert palette["Meadow grass"].stored  # a later state blocks
    assert palette["Pine"].derived
    assert palette["Meadow grass"].mesh == "builtin:grass"  # the mesh follows the species, not the name
    assert "PineTree" not in palette


def test_progress_can_cancel(zone) -> None:
    seen = []

    def progress(fraction: float, what: str) -> bool:
        seen.append(what)
        return not what.startswith("plants")

    with pytest.raises(ImportCancelled):
        zone_to_scene(zone, progress=progress)
    assert seen[:2] == ["terrain", "plants"]


def test_a_zone_without_altitude_says_which_layer_is_missing(tmp_path: Path) -> None:
    from model.errors import FormatError
    from model.zones import read_zone, write_zone

    zone = sample_zone(3, 16)
    del zone.layers["altitude"]
    write_zone(zone, tmp_path)
    with pytest.raises(FormatError) as e:
        zone_to_scene(read_zone(tmp_path, 3))
    assert e.value.path == str(tmp_path)
    assert "zone 3 has no altitude layer (altitude.0003.bin[.gz])" in str(e.value)


def test_a_zone_without_plants_gets_an_empty_palette_that_survives_save(tmp_path: Path) -> None:
    zone = sample_zone(4, 16)
    del zone.layers["plants"]
    scene = zone_to_scene(zone)
    foliage = scene.sections["foliage"]
    assert list(foliage.palette) == [] and foliage.volume.count() == 0
    save_scene(scene, tmp_path / "z.boscage")
    again = load_scene(tmp_path / "z.boscage")
    assert "foliage" in again.sections and list(again.sections["foliage"].palette) == []


def test_the_palette_holds_only_the_zones_plant_types(zone) -> None:
    palette = zone_to_scene(zone).sections["foliage"].palette
    present = {int(v) for v in np.unique(zone.plants["type"]) if v}
    assert sorted(t.name for t in palette) == sorted(PLANT_TYPES[v] for v in present)
