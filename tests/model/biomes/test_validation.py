"""Every validation of the biome spec, each with its exact file, JSON path and message."""

from __future__ import annotations

import os

import pytest

from model.biomes import load_biome_set
from tests.model.biomes.biome_sets import messages, write_set


def errors_of(tmp_path, *folders) -> list[str]:
    return messages(load_biome_set(write_set(tmp_path, *folders)).errors)


def warnings_of(tmp_path, *folders) -> list[str]:
    return messages(load_biome_set(write_set(tmp_path, *folders)).warnings)


def test_type_must_be_custom_or_tile(tmp_path) -> None:
    assert errors_of(tmp_path, {
        "NoType": {"Weight": 1.0},
        "Wrong": {"Type": "Ocean"},
        "Lower": {"Type": "tile"},
        "Null": {"Type": None},
    }) == [
        'Lower | base/Lower.json | Type | Type must be "Custom" or "Tile", got \'tile\' '
        "(did you mean 'Tile'? the value is case-sensitive)",
        'NoType | base/NoType.json | Type | Type is required ("Custom" or "Tile")',
        'Null | base/Null.json | Type | Type must be "Custom" or "Tile", got null',
        'Wrong | base/Wrong.json | Type | Type must be "Custom" or "Tile", got \'Ocean\'',
    ]


def test_zone_memberships(tmp_path) -> None:
    assert errors_of(tmp_path, {"Z": {"Type": "Tile", "Zones": [
        {"Zone": "Plains", "Order": 0, "ConvertedPin": True},
        {"Zone": ""},
        {"Zone": " \t "},
        {"Order": 1},
        {"Zone": 12},
        {"Zone": "Hills", "Order": -1},
        {"Zone": "Hills", "Order": 1.5, "ConvertedPin": True},
        {"Zone": "Hills", "ConvertedPin": True},
        {"Zone": "Hills", "Order": 2, "ConvertedPin": "yes"},
        "Plains",
    ]}}) == [
        "Z | base/Z.json | Zones[1].Zone | Zone must contain a non-space character, got ''",
        "Z | base/Z.json | Zones[2].Zone | Zone must contain a non-space character, got ' \\t '",
        "Z | base/Z.json | Zones[3].Zone | Zone is required: the key of a zone asset",
        "Z | base/Z.json | Zones[4].Zone | Zone must be a string, got 12",
        "Z | base/Z.json | Zones[5].Order | Order must be a non-negative integer, got -1",
        "Z | base/Z.json | Zones[6].Order | Order must be a non-negative integer, got 1.5",
        "Z | base/Z.json | Zones[7].Order | Order is required when ConvertedPin is true",
        "Z | base/Z.json | Zones[8].ConvertedPin | ConvertedPin must be true or false, got 'yes'",
        "Z | base/Z.json | Zones[9] | Zones[9] must be an object, got a string",
    ]


def test_converted_orders_share_one_domain_per_zone(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {
        "Forest": {"Type": "Tile", "Zones": [{"Zone": "Z1", "Order": 0, "ConvertedPin": True},
                                             {"Zone": "Z2", "Order": 3, "ConvertedPin": True}]},
        "Cave": {"Type": "Custom", "Zones": [{"Zone": "Z1", "Order": 0, "ConvertedPin": True},
                                             {"Zone": "Z2", "Order": 4, "ConvertedPin": True}]},
        # Order without the pin is not honoured, so it cannot conflict.
        "Meadow": {"Type": "Tile", "Zones": [{"Zone": "Z1", "Order": 0}, {"Zone": "Z2", "Order": 3}]},
        "Swamp": {"Type": "Tile", "Zones": [{"Zone": "Z1", "Order": 1, "ConvertedPin": True},
                                            {"Zone": "Z1", "Order": 1, "ConvertedPin": True}]},
    }))
    assert messages(s.errors) == [
        "Cave | base/Cave.json | Zones[0].Order | "
        "zone 'Z1': converted Order 0 is also used by Forest Zones[0]",
        "Forest | base/Forest.json | Zones[0].Order | "
        "zone 'Z1': converted Order 0 is also used by Cave Zones[0]",
        "Swamp | base/Swamp.json | Zones[0].Order | "
        "zone 'Z1': converted Order 1 is also used by Swamp Zones[1]",
        "Swamp | base/Swamp.json | Zones[1].Order | "
        "zone 'Z1': converted Order 1 is also used by Swamp Zones[0]",
    ]
    table = {z: [(r.asset, r.index, r.order, r.converted, r.conflict) for r in rows]
             for z, rows in s.zones.items()}
    assert table == {
        "Z1": [("Cave", 0, 0, True, True), ("Forest", 0, 0, True, True),
               ("Swamp", 0, 1, True, True), ("Swamp", 1, 1, True, True),
               ("Meadow", 0, 0, False, False)],
        "Z2": [("Forest", 1, 3, True, False), ("Cave", 1, 4, True, False),
               ("Meadow", 1, 3, False, False)],
    }


def test_inherited_memberships_take_part_in_the_order_domain(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {
        "Parent": {"Type": "Tile", "Zones": [{"Zone": "Z", "Order": 2, "ConvertedPin": True}]},
        "Inherits": {"Type": "Tile", "Parent": "Parent"},
        "Overrides": {"Type": "Tile", "Parent": "Parent",
                      "Zones": [{"Zone": "Z", "Order": 5, "ConvertedPin": True}]},
    }))
    # Inherits has Parent's membership, so both sit at Order 2; the file to edit is Parent.json.
    assert messages(s.errors) == [
        "Inherits | base/Parent.json | Zones[0].Order | "
        "zone 'Z': converted Order 2 is also used by Parent Zones[0]",
        "Parent | base/Parent.json | Zones[0].Order | "
        "zone 'Z': converted Order 2 is also used by Inherits Zones[0]",
    ]
    assert [(r.asset, r.order) for r in s.zones["Z"]] == [("Inherits", 2), ("Parent", 2), ("Overrides", 5)]


def test_height_threshold_lengths_and_types(tmp_path) -> None:
    assert errors_of(tmp_path, {
        "Basic": {"Type": "Tile", "TerrainHeightThreshold": {"Type": "Basic", "Positions": [0, 10, 20],
                                                            "Values": [0.0, 1.0]}},
        "BasicTypes": {"Type": "Tile", "TerrainHeightThreshold": {"Type": "Basic", "Positions": [0, 1.5],
                                                                 "Values": ["high", 1]}},
        "Noise": {"Type": "Tile", "TerrainHeightThreshold": {
            "Type": "Noise", "Noise": "N", "Keys": [0.1, 0.9],
            "Thresholds": [{"Type": "Basic", "Positions": [1], "Values": [0.5, 0.6]}]}},
        "NoType": {"Type": "Tile", "TerrainHeightThreshold": {"Positions": [], "Values": []}},
        "BadType": {"Type": "Tile", "TerrainHeightThreshold": {"Type": "Curve"}},
        "NotObject": {"Type": "Tile", "TerrainHeightThreshold": [0, 1]},
        "OnlyOne": {"Type": "Tile", "TerrainHeightThreshold": {"Type": "Basic", "Positions": [4]}},
    }) == [
        'BadType | base/BadType.json | TerrainHeightThreshold.Type | '
        'Type must be "Basic" or "Noise", got \'Curve\'',
        "Basic | base/Basic.json | TerrainHeightThreshold.Values | "
        "Positions has 3 entries but Values has 2; they must match",
        "BasicTypes | base/BasicTypes.json | TerrainHeightThreshold.Positions[1] | "
        "TerrainHeightThreshold.Positions[1] must be an integer, got 1.5",
        "BasicTypes | base/BasicTypes.json | TerrainHeightThreshold.Values[0] | "
        "TerrainHeightThreshold.Values[0] must be a number, got 'high'",
        'NoType | base/NoType.json | TerrainHeightThreshold.Type | Type is required ("Basic" or "Noise")',
        "Noise | base/Noise.json | TerrainHeightThreshold.Thresholds | "
        "Keys has 2 entries but Thresholds has 1; they must match",
        "Noise | base/Noise.json | TerrainHeightThreshold.Thresholds[0].Values | "
        "Positions has 1 entries but Values has 2; they must match",
        "NotObject | base/NotObject.json | TerrainHeightThreshold | "
        "TerrainHeightThreshold must be an object or null, got an array",
        "OnlyOne | base/OnlyOne.json | TerrainHeightThreshold.Values | "
        "Positions has 1 entries but Values has 0; they must match",
    ]


def test_length_mismatch_names_the_file_applied_last(tmp_path) -> None:
    # The parent is fine; the child changed Positions only, so the child's file is at fault.
    assert errors_of(tmp_path, {
        "P": {"Type": "Tile", "TerrainHeightThreshold": {"Type": "Basic", "Positions": [0, 1],
                                                        "Values": [0.0, 1.0]}},
        "C": {"Type": "Tile", "Parent": "P", "TerrainHeightThreshold": {"Positions": [0, 1, 2]}},
    }) == ["C | base/C.json | TerrainHeightThreshold.Values | "
           "Positions has 3 entries but Values has 2; they must match"]


def test_water_seed_indices_unique_and_non_negative(tmp_path) -> None:
    assert errors_of(tmp_path, {"W": {"Type": "Tile", "Water": [
        {"SeedIndex": 0, "Block": "Water"},
        {"SeedIndex": 2, "Fluid": "Lava"},
        {"SeedIndex": 0},
        {"SeedIndex": -3},
        {"SeedIndex": "1"},
        {"SeedIndex": None},
        {"SeedIndex": None},
        {"SeedIndex": 2, "DirectEntry": 1},
    ]}, "Other": {"Type": "Tile", "Water": [{"SeedIndex": 0}]}}) == [
        "W | base/W.json | Water[2].SeedIndex | SeedIndex 0 repeats Water[0].SeedIndex; "
        "each must be unique within the biome",
        "W | base/W.json | Water[3].SeedIndex | SeedIndex must be non-negative, got -3",
        "W | base/W.json | Water[4].SeedIndex | SeedIndex must be an integer, got '1'",
        "W | base/W.json | Water[7].DirectEntry | DirectEntry must be true or false, got 1",
        "W | base/W.json | Water[7].SeedIndex | SeedIndex 2 repeats Water[1].SeedIndex; "
        "each must be unique within the biome",
    ]


@pytest.mark.parametrize("text, rgb", [("#1A2b3C", (0x1A, 0x2B, 0x3C)), ("0x00FF80", (0, 255, 128)),
                                       ("0XABCDEF", (0xAB, 0xCD, 0xEF)), ("FFFFFF", (255, 255, 255)),
                                       (None, (255, 0, 0))])
def test_map_colour_forms(tmp_path, text, rgb) -> None:
    doc = {"Type": "Tile"} if text is None else {"Type": "Tile", "MapColor": text}
    s = load_biome_set(write_set(tmp_path, {"M": doc}))
    assert s["M"].color == rgb and s.errors == []


def test_bad_map_colours(tmp_path) -> None:
    assert errors_of(tmp_path, {
        "Short": {"Type": "Tile", "MapColor": "#FFF"},
        "Named": {"Type": "Custom", "MapColor": "green"},
        "Number": {"Type": "Tile", "MapColor": 16711680},
        "Alpha": {"Type": "Tile", "MapColor": "#FF000080"},
    }) == [
        "Alpha | base/Alpha.json | MapColor | MapColor must be a hex colour (#RRGGBB, 0xRRGGBB or RRGGBB), "
        "got '#FF000080'",
        "Named | base/Named.json | MapColor | MapColor must be a hex colour (#RRGGBB, 0xRRGGBB or RRGGBB), "
        "got 'green'",
        "Number | base/Number.json | MapColor | MapColor must be a hex colour (#RRGGBB, 0xRRGGBB or RRGGBB), "
        "got 16711680",
        "Short | base/Short.json | MapColor | MapColor must be a hex colour (#RRGGBB, 0xRRGGBB or RRGGBB), "
        "got '#FFF'",
    ]


def test_tile_weight_and_size_modifier(tmp_path) -> None:
    assert errors_of(tmp_path, {
        "Zero": {"Type": "Tile", "Weight": 0},
        "Negative": {"Type": "Tile", "Weight": -2.5},
        "Text": {"Type": "Tile", "Weight": "heavy", "SizeModifier": "big"},
        "Null": {"Type": "Tile", "Weight": None},
        "Fine": {"Type": "Tile", "Weight": 0.25, "SizeModifier": 3},
    }) == [
        "Negative | base/Negative.json | Weight | Weight must be a number greater than 0, got -2.5",
        "Null | base/Null.json | Weight | Weight must be a number greater than 0, got null",
        "Text | base/Text.json | SizeModifier | SizeModifier must be a number, got 'big'",
        "Text | base/Text.json | Weight | Weight must be a number greater than 0, got 'heavy'",
        "Zero | base/Zero.json | Weight | Weight must be a number greater than 0, got 0",
    ]


def test_custom_generator(tmp_path) -> None:
    assert errors_of(tmp_path, {
        "Forest": {"Type": "Tile"},
        "Cave": {"Type": "Custom"},
        "Good": {"Type": "Custom", "CustomBiomeGenerator": {
            "Noise": "N", "Threshold": [[0.0, 0.2], [0.5, 0.6]], "BiomeMask": ["Forest"], "Priority": 3}},
        "Single": {"Type": "Custom", "CustomBiomeGenerator": {"Threshold": 0.4}},
        "Range": {"Type": "Custom", "CustomBiomeGenerator": {"Threshold": [0.1, 0.3]}},
        "Bad": {"Type": "Custom", "CustomBiomeGenerator": {
            "Threshold": [0.1, 0.2, 0.3], "BiomeMask": ["Forest", "Nowhere", "Cave", 4],
            "Priority": 1.5, "Noise": 3}},
        "BadRanges": {"Type": "Custom", "CustomBiomeGenerator": {"Threshold": [[0.1], [0.2, "x"]]}},
        "Text": {"Type": "Custom", "CustomBiomeGenerator": {"Threshold": "high"}},
    }) == [
        "Bad | base/Bad.json | CustomBiomeGenerator.BiomeMask[1] | "
        "BiomeMask names 'Nowhere', which is not a biome in this set",
        "Bad | base/Bad.json | CustomBiomeGenerator.BiomeMask[2] | "
        "BiomeMask names 'Cave', which is a Custom biome, not a Tile biome",
        "Bad | base/Bad.json | CustomBiomeGenerator.BiomeMask[3] | "
        "BiomeMask entries must be biome names, got 4",
        "Bad | base/Bad.json | CustomBiomeGenerator.Noise | "
        "CustomBiomeGenerator.Noise must name a noise asset (a string or an object), got 3",
        "Bad | base/Bad.json | CustomBiomeGenerator.Priority | Priority must be an integer, got 1.5",
        "Bad | base/Bad.json | CustomBiomeGenerator.Threshold | "
        "Threshold must be a number, a [min, max] range or a list of ranges, got [0.1, 0.2, 0.3]",
        "BadRanges | base/BadRanges.json | CustomBiomeGenerator.Threshold | "
        "Threshold must be a number, a [min, max] range or a list of ranges, got [[0.1], [0.2, 'x']]",
        "Text | base/Text.json | CustomBiomeGenerator.Threshold | "
        "Threshold must be a number, a [min, max] range or a list of ranges, got 'high'",
    ]


def test_inverted_threshold_range_is_a_warning(tmp_path) -> None:
    doc = {"Type": "Custom", "CustomBiomeGenerator": {"Threshold": [0.9, 0.1]}}
    assert warnings_of(tmp_path, {"C": doc}) == ["C | base/C.json | CustomBiomeGenerator.Threshold | "
            "range [0.9, 0.1] has its minimum above its maximum; it matches nothing"]


def test_nested_shapes_tags_and_strings(tmp_path) -> None:
    assert errors_of(tmp_path, {"N": {
        "Type": "Tile", "SeedName": 5, "Layers": {"Default": 1, "Environment": "Env"},
        "Fade": {"FadeStart": "near", "FadeHeightmap": 2}, "Interpolation": {"DefaultRadius": 2.5},
        "Tint": [], "Environment": {"Entries": {}}, "Water": {}, "Zones": "Plains",
        "Tags": {"Good": ["a"], "Bad": "b", "Mixed": ["a", 1]}, "HeightmapNoise": 12,
    }}) == [
        "N | base/N.json | Environment.Entries | Environment.Entries must be an array or null, got an object",
        "N | base/N.json | Fade.FadeStart | Fade.FadeStart must be a number, got 'near'",
        "N | base/N.json | HeightmapNoise | HeightmapNoise must name a noise asset (a string or an object), "
        "got 12",
        "N | base/N.json | Interpolation.DefaultRadius | "
        "Interpolation.DefaultRadius must be an integer, got 2.5",
        "N | base/N.json | Layers.Default | Layers.Default must be a string, got 1",
        "N | base/N.json | SeedName | SeedName must be a string, got 5",
        "N | base/N.json | Tags.Bad | tag 'Bad' must map to an array of strings, got 'b'",
        "N | base/N.json | Tags.Mixed | tag 'Mixed' must map to an array of strings, got ['a', 1]",
        "N | base/N.json | Tint | Tint must be an object or null, got an array",
        "N | base/N.json | Water | Water must be an array or null, got an object",
        "N | base/N.json | Zones | Zones must be an array or null, got a string",
    ]


def test_unknown_keys_are_warnings_on_the_file_that_wrote_them(tmp_path) -> None:
    s = load_biome_set(write_set(
        tmp_path,
        {"T": {"Type": "Tile", "Foliage": [], "CustomBiomeGenerator": {},
               "Fade": {"FadeStart": 1, "Curve": "Smooth"}, "Zones": [{"Zone": "Z", "Weight": 2}],
               "Water": [{"SeedIndex": 0, "Depth": 3}],
               "TerrainHeightThreshold": {"Type": "Basic", "Positions": [], "Values": [], "Keys": []}},
         "C": {"Type": "Custom", "Weight": 2.0, "SizeModifier": 1.0, "Layers": {"Top": "Grass"}}},
        {"T": {"Type": "Tile", "Future": {"x": 1}}},
    ))
    assert s.errors == []
    assert messages(s.warnings) == [
        "C | base/C.json | Layers.Top | unknown key 'Top' in Layers; kept but not used",
        "C | base/C.json | SizeModifier | unknown key 'SizeModifier' in a Custom biome; kept but not used",
        "C | base/C.json | Weight | unknown key 'Weight' in a Custom biome; kept but not used",
        "T | base/T.json | CustomBiomeGenerator | unknown key 'CustomBiomeGenerator' in a Tile biome; "
        "kept but not used",
        "T | base/T.json | Fade.Curve | unknown key 'Curve' in Fade; kept but not used",
        "T | base/T.json | Foliage | unknown key 'Foliage' in a Tile biome; kept but not used",
        "T | base/T.json | TerrainHeightThreshold.Keys | unknown key 'Keys' in TerrainHeightThreshold; "
        "kept but not used",
        "T | base/T.json | Water[0].Depth | unknown key 'Depth' in Water[0]; kept but not used",
        "T | base/T.json | Zones[0].Weight | unknown key 'Weight' in Zones[0]; kept but not used",
        "T | overlay1/T.json | Future | unknown key 'Future' in a Tile biome; kept but not used",
    ]
    assert s["T"].value["Future"] == {"x": 1}  # forward compatible: kept in the resolved asset


def test_files_that_cannot_be_read(tmp_path) -> None:
    folders = write_set(tmp_path, {
        "Syntax": '{\n  "Type": "Tile",\n  "Weight": 1.0,,\n}',
        "List": '[{"Type": "Tile"}]',
        "NaN": '{"Type": "Tile", "Weight": NaN}',
        "Good": {"Type": "Tile"},
    })
    (folders[0] / "Latin1.json").write_bytes(b'{"Type": "Tile", "SeedName": "caf\xe9"}')
    (folders[0] / "Dup.json").write_text('{"Type": "Tile", "Weight": 1, "Weight": 2}')
    s = load_biome_set(folders)
    assert messages(s.errors) == [
        "Latin1 | base/Latin1.json | byte 33 | not UTF-8 text",
        "List | base/List.json |  | a biome asset must be a JSON object, not an array",
        "NaN | base/NaN.json |  | invalid JSON: NaN is not a JSON number",
        "Syntax | base/Syntax.json | line 3 column 17 | invalid JSON: Expecting property name enclosed "
        "in double quotes",
    ]
    assert messages(s.warnings) == [
        "Dup | base/Dup.json |  | key 'Weight' appears twice in one object; the last one wins"]
    assert s["Good"].valid and s["Dup"].value["Weight"] == 2


def test_a_link_out_of_the_folder_is_refused(tmp_path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "Secret.json").write_text('{"Type": "Tile"}')
    folders = write_set(tmp_path, {"Good": {"Type": "Tile"}})
    os.symlink(outside / "Secret.json", folders[0] / "Secret.json")
    s = load_biome_set(folders)
    assert messages(s.errors) == [
        "Secret | base/Secret.json |  | the file links outside the biome folder; refused"]
    assert not s["Secret"].resolved and s["Good"].valid


def test_an_oversized_file_is_refused_before_reading(tmp_path, monkeypatch) -> None:
    import model.biomes.reader as reader

    monkeypatch.setattr(reader, "MAX_FILE_BYTES", 64)
    s = load_biome_set(write_set(tmp_path, {"Big": {"Type": "Tile", "SeedName": "x" * 100}}))
    size = os.path.getsize(tmp_path / "base" / "Big.json")
    assert messages(s.errors) == [
        f"Big | base/Big.json |  | file is {size} bytes; a biome asset may be at most 64"]


def test_a_missing_folder_raises_one_format_error(tmp_path) -> None:
    from model.errors import FormatError

    with pytest.raises(FormatError, match="not a folder of biome assets"):
        load_biome_set([tmp_path / "nope"])


def test_hand_edited_json_loads_with_warnings(tmp_path) -> None:
    text = ('\ufeff{\n'
            '  // a hand-written note\n'
            '  "Type": "Tile", /* block\n'
            '     comment */ "Weight": 2.5,\n'
            '  "SeedName": "a // not a comment, /* nor this */",\n'
            '  "Zones": [{"Zone": "Plains", "Order": 3, "ConvertedPin": true,},],\n'
            '}\n')
    folders = write_set(tmp_path, {"Hand": text})
    s = load_biome_set(folders)
    hand = s["Hand"]
    assert hand.valid
    assert hand.value["Weight"] == 2.5 and hand.value["SeedName"] == "a // not a comment, /* nor this */"
    assert hand.value["Zones"] == [{"Zone": "Plains", "Order": 3, "ConvertedPin": True}]
    assert messages(s.warnings) == [
        "Hand | base/Hand.json | line 2 column 3 | comment: not strict JSON; accepted",
        "Hand | base/Hand.json | line 3 column 19 | comment: not strict JSON; accepted",
        "Hand | base/Hand.json | line 6 column 64 | trailing comma before '}': not strict JSON; accepted",
        "Hand | base/Hand.json | line 6 column 66 | trailing comma before ']': not strict JSON; accepted",
        "Hand | base/Hand.json | line 6 column 68 | trailing comma before '}': not strict JSON; accepted",
    ]


def test_utf16_with_a_byte_order_mark_loads(tmp_path) -> None:
    folders = write_set(tmp_path, {"Good": {"Type": "Tile"}})
    (folders[0] / "Wide.json").write_bytes('{"Type": "Custom", "SeedName": "café"}'.encode("utf-16"))
    s = load_biome_set(folders)
    assert s["Wide"].valid and s["Wide"].value["SeedName"] == "café"


def test_keys_are_case_sensitive_and_near_misses_are_named(tmp_path) -> None:
    folders = write_set(tmp_path, {
        "P": {"Type": "Tile", "Weight": 2.0},
        "K": {"type": "Tile"},
        "C": {"Type": "Tile", "parent": "P", "Fade": {"fadeStart": 1.0}, "Zones": [{"zone": "Z"}]},
    })
    s = load_biome_set(folders)
    assert messages(s.errors) == [
        "C | base/C.json | Zones[0].Zone | Zone is required: the key of a zone asset",
        "K | base/K.json | Type | Type is required (\"Custom\" or \"Tile\") (found 'type': keys are "
        "case-sensitive)",
    ]
    assert messages(s.warnings) == [
        "C | base/C.json | Fade.fadeStart | unknown key 'fadeStart' in Fade; kept but not used; "
        "did you mean 'FadeStart'?",
        "C | base/C.json | Zones[0].zone | unknown key 'zone' in Zones[0]; kept but not used; "
        "did you mean 'Zone'?",
        "C | base/C.json | parent | unknown key 'parent' in a Tile biome; kept but not used; "
        "did you mean 'Parent'?",
    ]
    assert s["C"].chain == ["C"] and "Weight" not in s["C"].value  # 'parent' is not Parent
