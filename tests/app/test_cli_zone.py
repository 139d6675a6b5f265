"""`boscage zone info` and `boscage zone slope` on zones written by the model's writer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import run_cli
from model.formats.png import decode_png
from model.zones import derive_slope, write_zone
from model.zones.sample import sample_zone


@pytest.fixture()
def zone_dir(tmp_path: Path) -> Path:
    write_zone(sample_zone(106, 64, seed=2), tmp_path, gz=True)
    return tmp_path


def test_info_json_reports_dimensions_and_statistics(zone_dir: Path, capsys) -> None:
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    zone = sample_zone(106, 64, seed=2)
    assert (doc["width"], doc["height"]) == (64, 64)
    assert doc["plants"]["plant_tiles"] == int(np.count_nonzero(zone.plants["type"]))
    assert doc["slope"]["max"] == int(derive_slope(zone.altitude).max())
    assert doc["control"]["bit_counts"]["Highway"] == int(np.count_nonzero(zone.control & 128))


def test_info_text_names_types_and_flags(zone_dir: Path, capsys) -> None:
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--size", "64"]) == 0
    out = capsys.readouterr().out
    assert "zone 106: 64 x 64 tiles" in out
    for word in ("PineTree", "Obstacle", "Highway", "PlantAllowed", "MidlandA", "slope: "):
        assert word in out


def test_slope_writes_the_derived_layer_as_png(zone_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "png" / "slope.png"
    assert run_cli(["zone", "slope", str(zone_dir), "--id", "106", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    np.testing.assert_array_equal(decode_png(out.read_bytes()).pixels,
                                  derive_slope(sample_zone(106, 64, seed=2).altitude))


def test_bad_inputs_exit_1_with_the_file_and_reason(zone_dir: Path, capsys) -> None:
    assert run_cli(["zone", "info", str(zone_dir), "--id", "5"]) == 1
    assert "unknown zone id 5" in capsys.readouterr().err
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--size", "60", "--json"]) == 1
    captured = capsys.readouterr()
    assert "altitude.0106.bin.gz" in json.loads(captured.out)["error"]
    assert "more than the expected 7200 bytes (its trailer says 8192)" in captured.err


def test_usage_errors_exit_2(zone_dir: Path, capsys) -> None:
    assert run_cli(["zone", "info", str(zone_dir), "--id", "x"]) == 2
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--size", "0x5"]) == 2
    assert run_cli(["zone", "slope", str(zone_dir), "--id", "106"]) == 2


def test_info_names_plant_types_from_a_rules_folder(zone_dir: Path, capsys) -> None:
    rules = Path(__file__).resolve().parents[2] / "resources" / "plants"
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--rules", str(rules), "--json"]) == 0
    types = json.loads(capsys.readouterr().out)["plants"]["type_counts"]
    assert "Pine" in types and "PineTree" not in types
    assert "GrassB" in types  # no rule for it: the built-in name stays
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--rules", str(zone_dir / "none")]) == 1
    assert "plant rules folder not found" in capsys.readouterr().err


def test_to_scene_writes_an_openable_scene(zone_dir: Path, tmp_path: Path, capsys) -> None:
    from model.formats.scene_file import load_scene

    out = tmp_path / "scene" / "zone.boscage"
    rules = Path(__file__).resolve().parents[2] / "resources" / "plants"
    args = ["zone", "to-scene", str(zone_dir), "--id", "106", "--out", str(out), "--tile", "2",
            "--rules", str(rules), "--json"]
    assert run_cli(args) == 0
    doc = json.loads(capsys.readouterr().out)
    scene = load_scene(out)
    assert (scene.terrain.columns, scene.terrain.spacing) == (64, 2.0)
    assert scene.sections["foliage"].volume.counts() == doc["stored"]
    assert "Pine" in doc["stored"] and "Grass A" in doc["derived"]
    assert run_cli(["zone", "to-scene", str(zone_dir), "--id", "106", "--out", str(out), "--tile", "0"]) == 2


def test_to_scene_without_altitude_names_the_missing_layer(tmp_path: Path, capsys) -> None:
    zone = sample_zone(9, 32)
    del zone.layers["altitude"]
    write_zone(zone, tmp_path / "zone")
    out = tmp_path / "z.boscage"
    assert run_cli(["zone", "to-scene", str(tmp_path / "zone"), "--id", "9", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "KeyError" not in err
    assert "zone 9 has no altitude layer (altitude.0009.bin[.gz]); it has blocks, control, plants" in err
    assert not out.exists()
    args = ["zone", "to-scene", str(tmp_path / "zone"), "--id", "9", "--out", str(out), "--json"]
    assert run_cli(args) == 1
    assert "has no altitude layer" in json.loads(capsys.readouterr().out)["error"]


def off_size_blend(folder: Path, zone_id: int, side: int) -> Path:
    """An altitude blend sized for a zone twice as wide, as Perpetuum's zone 45 ships it."""
    path = folder / f"altitude_blend.{zone_id:04d}.bin"
    path.write_bytes(np.zeros(4 * side * side, "<u2").tobytes())
    return path


def test_a_layer_of_the_wrong_size_is_left_out_with_a_warning(zone_dir: Path, tmp_path: Path,
                                                              capsys) -> None:
    blend = off_size_blend(zone_dir, 106, 64)
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106"]) == 0
    captured = capsys.readouterr()
    warning = (f"boscage: warning: {blend}: holds 32768 bytes, expected 8192 (64x64 tiles x 2 bytes); "
               "layer left out")
    assert captured.err.strip() == warning
    assert "zone 106: 64 x 64 tiles" in captured.out and "altitude_blend" not in captured.out
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["warnings"] == [warning.removeprefix("boscage: warning: ")] and not captured.err
    out = tmp_path / "z.boscage"
    assert run_cli(["zone", "to-scene", str(zone_dir), "--id", "106", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert out.exists() and doc["warnings"] and str(blend) in doc["warnings"][0]


def test_naming_plants_from_a_folder_without_rules_is_an_error(zone_dir: Path, tmp_path: Path,
                                                               capsys) -> None:
    (tmp_path / "empty").mkdir()
    assert run_cli(["zone", "info", str(zone_dir), "--id", "106", "--rules", str(tmp_path / "empty")]) == 1
    assert "no plant rules here" in capsys.readouterr().err


def test_to_scene_writes_tile_by_tile_the_bytes_of_the_whole_scene(zone_dir: Path, tmp_path: Path,
                                                                   monkeypatch) -> None:
    from model.formats import tiles
    from model.formats.scene_file import save_scene
    from model.plants.loader import load_rules
    from model.zones import read_zone
    from model.zones.scene_import import zone_to_scene

    monkeypatch.setattr(tiles, "TILE", 16)  # 4 x 4 tiles of the 64² zone
    rules_dir = Path(__file__).resolve().parents[2] / "resources" / "plants"
    zone = read_zone(zone_dir, 106)
    save_scene(zone_to_scene(zone, 2.0, rules=load_rules(rules_dir), name="zone"),
               tmp_path / "a" / "zone.boscage")
    out = tmp_path / "b" / "zone.boscage"
    assert run_cli(["zone", "to-scene", str(zone_dir), "--id", "106", "--out", str(out), "--tile", "2",
                    "--rules", str(rules_dir)]) == 0
    files = {p.name: p.read_bytes() for p in sorted(out.parent.iterdir())}
    assert files == {p.name: p.read_bytes() for p in sorted((tmp_path / "a").iterdir())}
    assert len(files) > 16
