"""`boscage biomes info` and `boscage biomes export` on biome sets written by the tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.cli import run_cli
from tests.model.biomes.biome_sets import write_set


@pytest.fixture()
def folders(tmp_path: Path) -> list[Path]:
    return write_set(
        tmp_path,
        {"Forest": {"Type": "Tile", "SeedName": "forest", "MapColor": "#228B22",
                    "Zones": [{"Zone": "Temperate", "Order": 0, "ConvertedPin": True}],
                    "Tags": {"Material": ["Solid", "Stone"], "Ore": []}},
         "Birch": {"Type": "Tile", "Parent": "Forest", "Fade": {"FadeStart": 2.0},
                   "Zones": [{"Zone": "Temperate", "Order": 1, "ConvertedPin": True}]},
         "Cave": {"Type": "Custom", "CustomBiomeGenerator": {"BiomeMask": ["Forest"], "Threshold": 0.5}}},
        {"Birch": {"Type": "Tile", "Weight": 2.5, "Extra": 1}},
    )


def test_info_json_of_a_clean_set(folders, capsys) -> None:
    assert run_cli(["biomes", "info", *map(str, folders), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"] == {"assets": 3, "tile": 2, "custom": 1, "resolved": 3, "valid": 3,
                             "errors": 0, "warnings": 1}
    birch = next(a for a in doc["assets"] if a["key"] == "Birch")
    assert birch["chain"] == ["Birch", "Forest"]
    assert birch["resolved"] == {"Type": "Tile", "Parent": "Forest",
                                 "Zones": [{"Zone": "Temperate", "Order": 1, "ConvertedPin": True}],
                                 "Fade": {"FadeStart": 2.0}, "MapColor": "#228B22",
                                 "Tags": {"Material": ["Solid", "Stone"], "Ore": []},
                                 "Weight": 2.5, "Extra": 1}
    assert birch["provenance"]["MapColor"] == str(folders[0] / "Forest.json")
    assert birch["provenance"]["Weight"] == str(folders[1] / "Birch.json")
    assert birch["provenance"]["Fade.FadeStart"] == str(folders[0] / "Birch.json")
    assert birch["tags"] == ["Ore", "Material", "Solid", "Stone", "Material=Solid", "Material=Stone"]
    assert birch["map_color"] == "#228B22"
    assert [w["message"] for w in doc["warnings"]] == [
        f"{folders[1] / 'Birch.json'}: Extra: unknown key 'Extra' in a Tile biome; kept but not used"]
    assert [(r["asset"], r["order"], r["conflict"]) for r in doc["zones"]["Temperate"]] == [
        ("Forest", 0, False), ("Birch", 1, False)]


def test_info_exits_1_and_lists_every_error(tmp_path, capsys) -> None:
    folders = write_set(tmp_path, {"Good": {"Type": "Tile"}, "Bad": "{", "Orphan": {"Type": "Tile",
                                                                                    "Parent": "X"}})
    assert run_cli(["biomes", "info", str(folders[0])]) == 1
    out = capsys.readouterr().out
    assert "3 assets (2 Tile, 0 Custom), 1 resolved, 1 valid; 2 errors, 0 warnings" in out
    assert f"Bad: {folders[0] / 'Bad.json'}: line 1 column 2: invalid JSON" in out
    assert (f"Orphan: {folders[0] / 'Orphan.json'}: Parent: Parent chain Orphan → X: "
            "no asset named 'X'") in out


def test_info_text_shows_each_field_with_its_file(folders, capsys) -> None:
    assert run_cli(["biomes", "info", *map(str, folders), "--asset", "Birch"]) == 0
    out = capsys.readouterr().out
    assert "Birch  [Tile]  #228B22  chain: Birch → Forest  (0 errors)" in out
    assert f"  MapColor = \"#228B22\"   ← {folders[0] / 'Forest.json'}" in out
    assert f"  Weight = 2.5   ← {folders[1] / 'Birch.json'}" in out
    assert "Cave  [" not in out  # filtered to Birch
    assert "  Temperate: 0 Forest, 1 Birch" in out


def test_export_writes_the_flattened_asset(folders, tmp_path, capsys) -> None:
    out = tmp_path / "flat" / "Birch.json"
    argv = ["biomes", "export", *map(str, folders), "--asset", "Birch", "-o", str(out), "--json"]
    assert run_cli(argv) == 0
    assert json.loads(capsys.readouterr().out) == {"asset": "Birch", "chain": ["Birch", "Forest"],
                                                   "out": str(out)}
    flat = json.loads(out.read_text(encoding="utf-8"))
    assert "Parent" not in flat and "SeedName" not in flat
    assert flat["MapColor"] == "#228B22" and flat["Weight"] == 2.5


def test_bad_input_and_usage(tmp_path, folders, capsys) -> None:
    assert run_cli(["biomes", "info", str(tmp_path / "missing")]) == 1
    assert "missing: not a folder of biome assets" in capsys.readouterr().err
    assert run_cli(["biomes", "info", str(folders[0]), "--asset", "Nope"]) == 2
    assert run_cli(["biomes", "export", str(folders[0]), "--asset", "Nope", "-o", str(tmp_path / "x")]) == 2
    assert run_cli(["biomes"]) == 2
    orphan = write_set(tmp_path / "o", {"Orphan": {"Type": "Tile", "Parent": "X"}})
    assert run_cli(["biomes", "export", str(orphan[0]), "--asset", "Orphan", "-o", str(tmp_path / "y")]) == 1
    assert "cannot flatten 'Orphan'" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def _strict_json(text: str) -> object:
    """RFC 8259 and valid Unicode: no NaN/Infinity, no escaped lone surrogate."""
    def refuse(name: str) -> None:
        raise ValueError(f"non-standard constant {name}")
    doc = json.loads(text, parse_constant=refuse)
    json.dumps(doc, ensure_ascii=False).encode("utf-8")  # raises on a lone surrogate
    return doc


def test_lone_surrogate_and_huge_integer_give_one_clear_error(tmp_path, capsys) -> None:
    folders = write_set(tmp_path, {"Odd": '{"Type": "Tile", "Zones": [{"Zone": "a\\ud800"}]}',
                                   "Vast": '{"Type": "Tile", "Weight": ' + "9" * 400 + "}",
                                   "Far": '{"Type": "Tile", "Fade": {"FadeStart": -1e999}}'})
    out = tmp_path / "flat.json"
    assert run_cli(["biomes", "export", str(folders[0]), "--asset", "Odd", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == (f"boscage: error: {folders[0] / 'Odd.json'}: Zones[0].Zone: cannot flatten 'Odd': "
                   "string contains a lone surrogate (U+D800): not Unicode text\n")
    assert not out.exists()
    assert run_cli(["biomes", "export", str(folders[0]), "--asset", "Vast", "-o", str(out), "--json"]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "Weight: cannot flatten 'Vast': integer of 400 digits" in captured.err
    assert "Weight" in _strict_json(captured.out)["error"]
    assert run_cli(["biomes", "info", str(folders[0]), "--json"]) == 1
    doc = _strict_json(capsys.readouterr().out)
    places = sorted((e["asset"], e["place"]) for e in doc["errors"])
    assert places == [("Far", "Fade.FadeStart"), ("Odd", "Zones[0].Zone"), ("Vast", "Weight")]
    assert run_cli(["biomes", "info", str(folders[0])]) == 1
    assert f"Vast: {folders[0] / 'Vast.json'}: Weight: integer of 400 digits" in capsys.readouterr().out


def test_long_chains_are_elided_in_human_output_and_bounded_in_json(tmp_path, capsys) -> None:
    assets = {"L000": {"Type": "Tile"}}
    assets.update({f"L{i:03d}": {"Type": "Tile", "Parent": f"L{i - 1:03d}"} for i in range(1, 100)})
    folders = write_set(tmp_path, assets)
    assert run_cli(["biomes", "info", str(folders[0]), "--asset", "L099"]) == 0
    assert ("L099  [Tile]  #FF0000  chain: L099 → L098 → L097 → L096 → L095 → L094 → … 93 more … → L000"
            in capsys.readouterr().out)
    assert run_cli(["biomes", "info", str(folders[0]), "--asset", "L099", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["assets"]
    assert (row["chain_length"], row["parent"], row["chain_end"]) == (100, "L098", "L000")
    assert row["chain"] == [f"L{i:03d}" for i in range(99, 35, -1)]  # the first 64 links
    out = tmp_path / "flat.json"
    assert run_cli(["biomes", "export", str(folders[0]), "--asset", "L099", "-o", str(out), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["chain"]) == 100  # one asset: its whole chain


def test_a_file_name_that_is_not_utf8_is_named_in_strict_unicode_json(tmp_path, capsys) -> None:
    # A game's folder may hold a file named in a legacy code page: Python reads the byte 0xFF of
    # such a name as a lone surrogate, which strict JSON readers (and UTF-8 output) refuse.
    folder = tmp_path / "base"
    folder.mkdir()
    (folder / "Good.json").write_text('{"Type": "Tile"}')
    (folder / os.fsdecode(b"Caf\xe9.json")).write_text('{"Type": "Tile", "Parent": "Good"}')
    assert run_cli(["biomes", "info", str(folder), "--json"]) == 0
    out = capsys.readouterr().out
    out.encode("utf-8")  # no lone surrogate anywhere in the document
    doc = json.loads(out)
    assert sorted(a["key"] for a in doc["assets"]) == ["Caf\\xe9", "Good"]
    assert [(w["asset"], w["message"]) for w in doc["warnings"]] == [
        ("Caf\\xe9", f"{folder}/Caf\\xe9.json: the file name is not UTF-8: no asset's Parent "
                     "(JSON text) can name this asset")]
