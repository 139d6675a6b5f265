"""Same-key overlays from later folders, and how they meet Parent inheritance."""

from __future__ import annotations

from model.biomes import load_biome_set
from tests.model.biomes.biome_sets import messages, origins, write_set


def test_overlay_merges_over_its_base_and_keeps_the_base_seed_name(tmp_path) -> None:
    folders = write_set(
        tmp_path,
        {"Forest": {"Type": "Tile", "SeedName": "forest-v1", "Weight": 2.0, "MapColor": "#228B22",
                    "Fade": {"FadeStart": 1.0, "FadeLength": 2.0}, "Zones": [{"Zone": "A"}]}},
        {"Forest": {"Type": "Tile", "Weight": 4.0, "Fade": {"FadeLength": 6.0},
                    "Zones": [{"Zone": "B"}, {"Zone": "C"}]}},
    )
    forest = load_biome_set(folders)["Forest"]
    assert [f.folder for f in forest.files] == [0, 1]
    assert forest.value == {"Type": "Tile", "SeedName": "forest-v1", "Zones": [{"Zone": "B"}, {"Zone": "C"}],
                            "Fade": {"FadeStart": 1.0, "FadeLength": 6.0}, "MapColor": "#228B22",
                            "Weight": 4.0}
    assert origins(forest) == {
        "Type": "overlay1/Forest.json", "SeedName": "base/Forest.json", "Zones": "overlay1/Forest.json",
        "Fade": "base/Forest.json", "Fade.FadeStart": "base/Forest.json",
        "Fade.FadeLength": "overlay1/Forest.json", "MapColor": "base/Forest.json",
        "Weight": "overlay1/Forest.json",
    }


def test_overlay_seed_name_vs_parent_seed_name(tmp_path) -> None:
    folders = write_set(
        tmp_path,
        {"Forest": {"Type": "Tile", "SeedName": "forest"},
         "Grove": {"Type": "Tile", "Parent": "Forest", "SeedName": "grove"},
         "Copse": {"Type": "Tile", "Parent": "Forest"}},
        {"Forest": {"Type": "Tile", "Weight": 3.0},   # same key: inherits SeedName from its base
         "Grove": {"Type": "Tile", "MapColor": "00FF00"},  # same key: keeps "grove"
         "Copse": {"Type": "Tile", "SeedName": None}},  # explicit null stays null
        {"Forest": {"Type": "Tile", "SeedName": "forest-2"}},  # a later overlay may change it
    )
    s = load_biome_set(folders)
    assert s["Forest"].value["SeedName"] == "forest-2"
    assert origins(s["Forest"])["SeedName"] == "overlay2/Forest.json"
    assert s["Grove"].value["SeedName"] == "grove"
    assert s["Grove"].value["Weight"] == 3.0  # other fields of the overlaid parent do inherit
    assert s["Copse"].value["SeedName"] is None
    assert origins(s["Copse"])["SeedName"] == "overlay1/Copse.json"
    assert s.errors == []


def test_parent_overlays_apply_before_the_child(tmp_path) -> None:
    folders = write_set(
        tmp_path,
        {"Base": {"Type": "Tile", "Layers": {"Default": "Stone"}, "Weight": 1.0},
         "Child": {"Type": "Tile", "Parent": "Base", "Weight": 5.0}},
        {"Base": {"Type": "Tile", "Layers": {"Default": "Sand"}, "Weight": 9.0}},
    )
    child = load_biome_set(folders)["Child"]
    assert child.value["Layers"] == {"Default": "Sand"}
    assert child.value["Weight"] == 5.0  # the child's own keys come last
    assert origins(child)["Layers.Default"] == "overlay1/Base.json"


def test_overlay_may_change_the_parent_and_add_new_keys(tmp_path) -> None:
    folders = write_set(
        tmp_path,
        {"Wet": {"Type": "Tile", "Tags": {"Climate": ["Wet"]}},
         "Dry": {"Type": "Tile", "Tags": {"Climate": ["Dry"]}},
         "Marsh": {"Type": "Tile", "Parent": "Dry"}},
        {"Marsh": {"Type": "Tile", "Parent": "Wet"},
         "Lagoon": {"Type": "Tile", "Parent": "Marsh"}},  # a key only an overlay folder has
    )
    s = load_biome_set(folders)
    assert s["Marsh"].chain == ["Marsh", "Wet"]
    assert s["Marsh"].value["Tags"] == {"Climate": ["Wet"]}
    assert s["Lagoon"].chain == ["Lagoon", "Marsh", "Wet"]
    assert [f.folder for f in s["Lagoon"].files] == [1]


def test_overlay_changing_the_type_is_an_error_and_leaves_the_key_unresolved(tmp_path) -> None:
    folders = write_set(
        tmp_path,
        {"Cave": {"Type": "Custom"}, "Field": {"Type": "Tile"}},
        {"Cave": {"Type": "Tile"}},
    )
    s = load_biome_set(folders)
    assert not s["Cave"].resolved and s["Field"].resolved
    base = str(folders[0] / "Cave.json")
    assert messages(s.errors) == [
        f"Cave | overlay1/Cave.json | Type | overlay changes Type from 'Custom' (set by {base}) to 'Tile'",
    ]
