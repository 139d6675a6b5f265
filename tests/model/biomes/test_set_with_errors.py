"""A set with errors still loads every valid asset and lists every error."""

from __future__ import annotations

from model.biomes import load_biome_set
from tests.model.biomes.biome_sets import messages, write_set


def test_every_valid_asset_loads_and_every_error_is_listed(tmp_path) -> None:
    folders = write_set(
        tmp_path,
        {
            "Forest": {"Type": "Tile", "SeedName": "forest", "MapColor": "#228B22", "Weight": 2.0,
                       "Zones": [{"Zone": "Temperate", "Order": 0, "ConvertedPin": True}],
                       "Tags": {"Flora": ["Trees"]}},
            "Birch": {"Type": "Tile", "Parent": "Forest", "MapColor": "#DDDDAA",
                      "Zones": [{"Zone": "Temperate", "Order": 1, "ConvertedPin": True}]},
            "Cavern": {"Type": "Custom", "CustomBiomeGenerator": {"Threshold": 0.5, "BiomeMask": ["Forest"]},
                       "Zones": [{"Zone": "Temperate", "Order": 2, "ConvertedPin": True}]},
            "Pine": {"Type": "Tile", "Parent": "Birch", "Zones": [{"Zone": "Boreal"}]},
            "Broken": "{ not json",
            "Orphan": {"Type": "Tile", "Parent": "Nowhere"},
            "Loop1": {"Type": "Custom", "Parent": "Loop2"},
            "Loop2": {"Type": "Custom", "Parent": "Loop1"},
            "Heavy": {"Type": "Tile", "Weight": 0, "MapColor": "red",
                      "Water": [{"SeedIndex": 1}, {"SeedIndex": 1}]},
            "Clash": {"Type": "Custom", "Zones": [{"Zone": "Temperate", "Order": 1, "ConvertedPin": True}],
                      "CustomBiomeGenerator": {"BiomeMask": ["Cavern"]}},
        },
        {"Forest": {"Type": "Tile", "Weight": 3.0}, "Untyped": {"Weight": 1.0}},
    )
    s = load_biome_set(folders)
    assert sorted(k for k, a in s.assets.items() if a.valid) == ["Cavern", "Forest", "Pine"]
    assert s["Forest"].value == {"Type": "Tile", "SeedName": "forest",
                                 "Zones": [{"Zone": "Temperate", "Order": 0, "ConvertedPin": True}],
                                 "MapColor": "#228B22", "Tags": {"Flora": ["Trees"]}, "Weight": 3.0}
    assert s["Birch"].value == {"Type": "Tile", "Parent": "Forest",
                                "Zones": [{"Zone": "Temperate", "Order": 1, "ConvertedPin": True}],
                                "MapColor": "#DDDDAA", "Tags": {"Flora": ["Trees"]}, "Weight": 3.0}
    assert s["Pine"].value == {"Type": "Tile", "Parent": "Birch", "Zones": [{"Zone": "Boreal"}],
                               "MapColor": "#DDDDAA", "Tags": {"Flora": ["Trees"]}, "Weight": 3.0}
    assert s["Pine"].tags == ["Flora", "Trees", "Flora=Trees"]
    # Resolved but invalid assets are still there to inspect.
    assert s["Heavy"].resolved and not s["Heavy"].valid
    assert s["Birch"].resolved and not s["Birch"].valid
    assert messages(s.errors) == [
        "Birch | base/Birch.json | Zones[0].Order | "
        "zone 'Temperate': converted Order 1 is also used by Clash Zones[0]",
        "Broken | base/Broken.json | line 1 column 3 | "
        "invalid JSON: Expecting property name enclosed in double quotes",
        "Clash | base/Clash.json | CustomBiomeGenerator.BiomeMask[0] | "
        "BiomeMask names 'Cavern', which is a Custom biome, not a Tile biome",
        "Clash | base/Clash.json | Zones[0].Order | "
        "zone 'Temperate': converted Order 1 is also used by Birch Zones[0]",
        "Heavy | base/Heavy.json | MapColor | "
        "MapColor must be a hex colour (#RRGGBB, 0xRRGGBB or RRGGBB), got 'red'",
        "Heavy | base/Heavy.json | Water[1].SeedIndex | "
        "SeedIndex 1 repeats Water[0].SeedIndex; each must be unique within the biome",
        "Heavy | base/Heavy.json | Weight | Weight must be a number greater than 0, got 0",
        "Loop1 | base/Loop1.json | Parent | Parent chain Loop1 → Loop2 → Loop1: cycle back to 'Loop1'",
        "Loop2 | base/Loop2.json | Parent | Parent chain Loop2 → Loop1 → Loop2: cycle back to 'Loop2'",
        "Orphan | base/Orphan.json | Parent | Parent chain Orphan → Nowhere: no asset named 'Nowhere'",
        'Untyped | overlay1/Untyped.json | Type | Type is required ("Custom" or "Tile")',
    ]
    assert [(r.asset, r.order, r.conflict) for r in s.zones["Temperate"]] == [
        ("Forest", 0, False), ("Birch", 1, True), ("Clash", 1, True), ("Cavern", 2, False)]


def test_loading_is_deterministic(tmp_path) -> None:
    folders = write_set(tmp_path, {"A": {"Type": "Tile", "Parent": "B", "Tags": {"x": ["1"]}},
                                   "B": {"Type": "Tile", "Zones": [{"Zone": "Z", "Order": 0}]},
                                   "C": "{"})
    first, second = load_biome_set(folders), load_biome_set(folders)
    assert [i.message for i in first.issues] == [i.message for i in second.issues]
    assert {k: a.value for k, a in first.assets.items()} == {k: a.value for k, a in second.assets.items()}
