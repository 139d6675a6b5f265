"""Parent inheritance: nested merge, array replace, explicit null, Tags by key, provenance."""

from __future__ import annotations

from model.biomes import load_biome_set
from tests.model.biomes.biome_sets import messages, origins, write_set


def test_deep_chain_resolves_level_by_level_with_provenance(tmp_path) -> None:
    folders = write_set(tmp_path, {
        "Root": {"Type": "Tile", "SeedName": "root-seed", "MapColor": "#112233", "Weight": 1.5,
                 "Fade": {"FadeStart": 1.0, "FadeLength": 2.0, "TerrainStart": 3.0},
                 "Layers": {"Default": "Stone", "Environment": "Cave"},
                 "Zones": [{"Zone": "Plains", "Order": 0, "ConvertedPin": False}]},
        "Level1": {"Type": "Tile", "Parent": "Root", "Fade": {"FadeLength": 20.0},
                   "Tags": {"Climate": ["Cold"]}},
        "Level2": {"Type": "Tile", "Parent": "Level1", "Layers": {"Default": "Dirt"}, "Weight": 3.0},
        "Level3": {"Type": "Tile", "Parent": "Level2", "Fade": {"TerrainStart": 30.0},
                   "Tags": {"Biome": ["Taiga"]}},
        "Level4": {"Type": "Tile", "Parent": "Level3", "SeedName": "leaf",
                   "Zones": [{"Zone": "Tundra"}]},
    })
    s = load_biome_set(folders)
    leaf = s["Level4"]
    assert leaf.chain == ["Level4", "Level3", "Level2", "Level1", "Root"]
    assert s["Level2"].chain == ["Level2", "Level1", "Root"]
    assert leaf.value == {
        "Type": "Tile", "Parent": "Level3", "SeedName": "leaf",
        "Zones": [{"Zone": "Tundra"}],
        "Layers": {"Default": "Dirt", "Environment": "Cave"},
        "Fade": {"FadeStart": 1.0, "FadeLength": 20.0, "TerrainStart": 30.0},
        "MapColor": "#112233",
        "Tags": {"Climate": ["Cold"], "Biome": ["Taiga"]},
        "Weight": 3.0,
    }
    assert origins(leaf) == {
        "Type": "base/Level4.json", "Parent": "base/Level4.json", "SeedName": "base/Level4.json",
        "Zones": "base/Level4.json",
        "Layers": "base/Root.json", "Layers.Default": "base/Level2.json",
        "Layers.Environment": "base/Root.json",
        "Fade": "base/Root.json", "Fade.FadeStart": "base/Root.json",
        "Fade.FadeLength": "base/Level1.json", "Fade.TerrainStart": "base/Level3.json",
        "MapColor": "base/Root.json",
        "Tags": "base/Level1.json", "Tags.Climate": "base/Level1.json", "Tags.Biome": "base/Level3.json",
        "Weight": "base/Level2.json",
    }
    # Each intermediate level resolves to its own view of the chain.
    assert s["Level2"].value["Fade"] == {"FadeStart": 1.0, "FadeLength": 20.0, "TerrainStart": 3.0}
    assert s["Level2"].value["Weight"] == 3.0
    assert s["Level1"].value["Weight"] == 1.5
    assert s.errors == [] and s.warnings == []


def test_nested_objects_merge_but_arrays_replace_whole(tmp_path) -> None:
    folders = write_set(tmp_path, {
        "Parent": {"Type": "Custom",
                   "CustomBiomeGenerator": {"Noise": "Caves", "Threshold": [0.1, 0.4], "Priority": 2,
                                            "BiomeMask": ["Forest", "Desert"]},
                   "Water": [{"SeedIndex": 0, "Block": "Water"}, {"SeedIndex": 1, "Fluid": "Lava"}],
                   "TerrainHeightThreshold": {"Type": "Basic", "Positions": [0, 64, 128],
                                              "Values": [0.0, 0.5, 1.0]}},
        "Child": {"Type": "Custom", "Parent": "Parent",
                  "CustomBiomeGenerator": {"Threshold": [[0.0, 0.2], [0.6, 0.7]], "BiomeMask": ["Forest"]},
                  "Water": [{"SeedIndex": 5}],
                  "TerrainHeightThreshold": {"Positions": [10, 20], "Values": [0.3, 0.6]}},
        "Forest": {"Type": "Tile"},
        "Desert": {"Type": "Tile"},
    })
    s = load_biome_set(folders)
    child = s["Child"].value
    assert child["CustomBiomeGenerator"] == {"Noise": "Caves", "Threshold": [[0.0, 0.2], [0.6, 0.7]],
                                             "Priority": 2, "BiomeMask": ["Forest"]}
    assert child["Water"] == [{"SeedIndex": 5}]  # the array replaces; no element merge
    assert child["TerrainHeightThreshold"] == {"Type": "Basic", "Positions": [10, 20],
                                               "Values": [0.3, 0.6]}
    o = origins(s["Child"])
    assert o["CustomBiomeGenerator.Noise"] == "base/Parent.json"
    assert o["CustomBiomeGenerator.BiomeMask"] == "base/Child.json"
    assert o["TerrainHeightThreshold.Type"] == "base/Parent.json"
    assert o["Water"] == "base/Child.json"
    assert s.errors == []


def test_a_different_threshold_variant_merges_field_by_field_and_says_so(tmp_path) -> None:
    # The spec: TerrainHeightThreshold merges field by field like every nested object; it states no
    # exception when its Type changes, so the Basic fields stay and a warning names them.
    folders = write_set(tmp_path, {
        "Hills": {"Type": "Tile", "TerrainHeightThreshold": {"Type": "Basic", "Positions": [0, 100],
                                                             "Values": [0.0, 1.0]}},
        "NoisyHills": {"Type": "Tile", "Parent": "Hills",
                       "TerrainHeightThreshold": {"Type": "Noise", "Noise": "Ridges", "Keys": [0.5],
                                                  "Thresholds": [{"Type": "Basic", "Positions": [5],
                                                                  "Values": [0.2]}]}},
        "Clean": {"Type": "Tile", "Parent": "Hills",
                  "TerrainHeightThreshold": {"Type": "Noise", "Positions": None, "Values": None,
                                             "Keys": [], "Thresholds": []}},
    })
    s = load_biome_set(folders)
    assert s["NoisyHills"].value["TerrainHeightThreshold"] == {
        "Type": "Noise", "Positions": [0, 100], "Values": [0.0, 1.0], "Noise": "Ridges", "Keys": [0.5],
        "Thresholds": [{"Type": "Basic", "Positions": [5], "Values": [0.2]}]}
    o = origins(s["NoisyHills"])
    assert o["TerrainHeightThreshold.Type"] == "base/NoisyHills.json"
    assert o["TerrainHeightThreshold.Positions"] == "base/Hills.json"
    assert s.errors == []
    assert messages(s.warnings) == [
        "NoisyHills | base/NoisyHills.json | TerrainHeightThreshold | Type changes from 'Basic' to "
        "'Noise'; nested objects merge field by field, so Positions, Values stay from the Basic below "
        "(set them to null to drop them)"]
    assert s["Clean"].value["TerrainHeightThreshold"] == {
        "Type": "Noise", "Positions": None, "Values": None, "Keys": [], "Thresholds": []}


def test_explicit_null_sets_null_and_a_later_object_starts_fresh(tmp_path) -> None:
    folders = write_set(tmp_path, {
        "A": {"Type": "Tile", "Fade": {"FadeStart": 4.0, "FadeLength": 8.0}, "MapColor": "#00FF00",
              "Layers": {"Default": "Grass", "Environment": "Meadow"}, "Tags": {"Soil": ["Loam"]}},
        "B": {"Type": "Tile", "Parent": "A", "Fade": None, "MapColor": None,
              "Layers": {"Environment": None}, "Tags": {"Soil": None}},
        "C": {"Type": "Tile", "Parent": "B", "Fade": {"TerrainLength": 9.0}},
    })
    s = load_biome_set(folders)
    b, c = s["B"], s["C"]
    assert b.value["Fade"] is None and b.value["MapColor"] is None
    assert b.value["Layers"] == {"Default": "Grass", "Environment": None}
    assert b.color == (255, 0, 0)  # null MapColor draws in the default red
    assert origins(b)["Fade"] == "base/B.json"
    assert origins(b)["Layers.Environment"] == "base/B.json"
    # Over null there is nothing to merge with: C's Fade holds only what C wrote.
    assert c.value["Fade"] == {"TerrainLength": 9.0}
    assert origins(c)["Fade.TerrainLength"] == "base/C.json"
    # A tag key mapped to null is an error (a tag maps to an array of strings), named at B's file.
    assert messages(s.errors) == [
        "B | base/B.json | Tags.Soil | tag 'Soil' must map to an array of strings, got null",
        "C | base/B.json | Tags.Soil | tag 'Soil' must map to an array of strings, got null",
    ]


def test_tags_merge_by_key(tmp_path) -> None:
    folders = write_set(tmp_path, {
        "P": {"Type": "Tile", "Tags": {"Material": ["Solid", "Stone"], "Ore": [], "Climate": ["Dry"]}},
        "K": {"Type": "Tile", "Parent": "P", "Tags": {"Climate": ["Wet", "Cold"], "Flora": ["Moss"]}},
    })
    k = load_biome_set(folders)["K"]
    assert k.value["Tags"] == {"Material": ["Solid", "Stone"], "Ore": [], "Climate": ["Wet", "Cold"],
                               "Flora": ["Moss"]}
    assert k.tags == ["Ore", "Material", "Climate", "Flora", "Solid", "Stone", "Wet", "Cold", "Moss",
                      "Material=Solid", "Material=Stone", "Climate=Wet", "Climate=Cold", "Flora=Moss"]


def test_seed_name_never_passes_through_parent(tmp_path) -> None:
    folders = write_set(tmp_path, {
        "Forest": {"Type": "Tile", "SeedName": "forest", "Weight": 2.0},
        "DarkForest": {"Type": "Tile", "Parent": "Forest"},
        "PineForest": {"Type": "Tile", "Parent": "Forest", "SeedName": "pines"},
    })
    s = load_biome_set(folders)
    assert "SeedName" not in s["DarkForest"].value
    assert s["DarkForest"].value["Weight"] == 2.0
    assert s["PineForest"].value["SeedName"] == "pines"
    assert "SeedName" not in origins(s["DarkForest"])


def test_very_deep_chains_resolve_without_recursion(tmp_path) -> None:
    depth = 1500
    assets = {"L0": {"Type": "Tile", "Weight": 1.0, "Fade": {"FadeStart": 0.0}}}
    for i in range(1, depth):
        assets[f"L{i}"] = {"Type": "Tile", "Parent": f"L{i - 1}", "Fade": {f"Extra{i % 3}": i}}
    s = load_biome_set(write_set(tmp_path, assets))
    last = s[f"L{depth - 1}"]
    assert len(last.chain) == depth
    assert all(s[f"L{i}"].chain == [f"L{j}" for j in range(i, -1, -1)] for i in range(0, depth, 97))
    assert last.value["Fade"] == {"FadeStart": 0.0, "Extra0": 1497, "Extra1": 1498, "Extra2": 1499}
    assert s.errors == []
