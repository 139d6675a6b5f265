"""Tags expansion, flattening to standalone JSON, and Tile biomes as terrain paint layers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from model.biomes import add_biome_layers, expand_tags, export_flattened, flatten, load_biome_set
from model.errors import FormatError
from model.terrain import Terrain
from tests.model.biomes.biome_sets import origins, write_set


def test_tag_expansion_of_the_seed_example() -> None:
    assert expand_tags({"Material": ["Solid", "Stone"], "Ore": []}) == [
        "Ore", "Material", "Solid", "Stone", "Material=Solid", "Material=Stone"]


def test_tag_expansion_lists_each_tag_once_and_skips_bad_values() -> None:
    assert expand_tags({"A": ["B", "x"], "B": [], "C": "not-a-list", "D": ["x", 3]}) == [
        "B", "C", "A", "D", "x", "A=B", "A=x", "D=x"]
    assert expand_tags(None) == [] and expand_tags(["A"]) == []


def test_flattened_asset_loads_alone_to_the_same_fields(tmp_path) -> None:
    folders = write_set(
        tmp_path,
        {"P": {"Type": "Tile", "SeedName": "p", "Fade": {"FadeStart": 1.0}, "Tags": {"K": ["v"]}},
         "C": {"Type": "Tile", "Parent": "P", "SeedName": "c", "Fade": {"FadeLength": 2.0}}},
        {"C": {"Type": "Tile", "Weight": 7.0}},
    )
    child = load_biome_set(folders)["C"]
    flat = flatten(child)
    assert flat == {"Type": "Tile", "SeedName": "c", "Fade": {"FadeStart": 1.0, "FadeLength": 2.0},
                    "Tags": {"K": ["v"]}, "Weight": 7.0}
    out = tmp_path / "flat" / "C.json"
    export_flattened(child, out)
    assert json.loads(out.read_text(encoding="utf-8")) == flat
    alone = load_biome_set([out.parent])["C"]
    assert alone.value == flat and alone.chain == ["C"]
    assert set(origins(alone).values()) == {"flat/C.json"}


def test_an_unresolved_asset_cannot_be_flattened(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {"Orphan": {"Type": "Tile", "Parent": "Ghost"}}))
    with pytest.raises(FormatError,
                       match=r"Orphan.json: Parent: cannot flatten 'Orphan': Parent chain Orphan"):
        flatten(s["Orphan"])


def test_tile_biomes_become_empty_named_layers_in_map_colours(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {
        "Forest": {"Type": "Tile", "MapColor": "#228B22"},
        "Desert": {"Type": "Tile", "MapColor": "0xEDC9AF"},
        "Plain": {"Type": "Tile"},
        "Cave": {"Type": "Custom", "MapColor": "#000000"},
        "Orphan": {"Type": "Tile", "Parent": "Ghost"},
    }))
    terrain = Terrain(np.zeros((4, 5), np.float32))
    terrain.add_layer("Forest", (1, 2, 3), np.full((4, 5), 9, np.uint8))
    changes = []
    terrain.layers_changed.connect(lambda: changes.append(1))
    assert add_biome_layers(terrain, s.assets.values()) == ["Desert", "Plain"]
    assert [(layer.name, layer.color) for layer in terrain.layers] == [
        ("Forest", (1, 2, 3)), ("Desert", (0xED, 0xC9, 0xAF)), ("Plain", (255, 0, 0))]
    assert terrain.layer("Desert").weights.shape == (4, 5) and not terrain.layer("Desert").weights.any()
    assert int(terrain.layer("Forest").weights.sum()) == 9 * 20  # existing painting kept
    assert len(changes) == 2
    # Foliage filters find the layer by the biome's name.
    assert terrain.layer_weight_at("Desert", 1.0, 1.0) == 0.0
