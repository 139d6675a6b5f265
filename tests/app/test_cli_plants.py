"""`boscage plants inspect` and `boscage plants grow`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import run_cli
from model.zones import read_zone, write_zone
from model.zones.sample import sample_zone

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "plants"


def test_inspect_json_shows_origins_defaults_figures_and_lints(capsys) -> None:
    assert run_cli(["plants", "inspect", str(SAMPLE), "irontree_t2", "grass_a.txt", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    t2, grass = doc["rules"]
    assert t2["name"] == "irontree_t2" and t2["index"] == 7
    assert t2["fields"]["fruitAmount"] == {"value": 125, "raw": "n125", "type": "int",
                                           "from": "irontree_t2.txt", "line": 2}
    assert t2["fields"]["health"]["from"] == "irontree_lo.txt"
    assert grass["fields"]["blockingHeight"]["value"] == [0, 0, 0, 0]
    assert grass["defaults"]["killDistance"] == 0 and grass["defaults"]["damageScale"] == 1.0
    assert grass["figures"]["lifetime"] == 26.0 and grass["figures"]["ticks_to_fruit"] is None
    assert [s["next"] for s in grass["states"]] == [[0, 0, 1], [1, 1, 2], [2, 2, 3], [3]]
    assert any("also claimed" in lint["message"] for lint in t2["lints"])
    assert doc["errors"] == 0


def test_inspect_reports_bad_files_with_file_and_line_and_exits_1(tmp_path: Path, capsys) -> None:
    (tmp_path / "ok.txt").write_text("index=n1\nhealth=N1\nblockingHeight=N0\nstate_0=N0\naction_0=N1,0\n")
    (tmp_path / "bad.txt").write_text("index=n2\nfertility=nseven\n")
    (tmp_path / "hex.txt").write_text("index=n3\nhealth=N1,1\nblockingHeight=40,12\n"
                                      "state_0=N0,1\naction_0=N3\nstate_1=N1\naction_1=N3,0\n")
    assert run_cli(["plants", "inspect", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "ERROR" in out and "bad.txt: line 2: fertility" in out
    assert "bare array '40,12' is hex and reads as [0, 18]" in out
    assert run_cli(["plants", "inspect", str(tmp_path), "hex", "ok"]) == 0  # warnings only


def test_inspect_unknown_names_and_folders(tmp_path: Path, capsys) -> None:
    assert run_cli(["plants", "inspect", str(SAMPLE), "nope"]) == 1
    assert "no rule file nope.txt" in capsys.readouterr().err
    assert run_cli(["plants", "inspect", str(tmp_path / "missing"), "--json"]) == 1
    assert "not a folder" in json.loads(capsys.readouterr().out)["error"]


@pytest.fixture()
def zone_dir(tmp_path: Path) -> Path:
    write_zone(sample_zone(5, 128, seed=1), tmp_path / "zone")
    return tmp_path / "zone"


def test_grow_writes_a_grown_zone_deterministically(zone_dir: Path, tmp_path: Path, capsys) -> None:
    args = ["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--rules", str(SAMPLE),
            "--passes", "3", "--seed", "9", "--fertility", "15", "--json"]
    assert run_cli([*args, "--out", str(tmp_path / "a")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["passes"] == 3 and doc["fertility"] == 15
    assert doc["plants_before"] != doc["plants_after"]
    assert run_cli([*args, "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    a, b = read_zone(tmp_path / "a", 5), read_zone(tmp_path / "b", 5)
    original = read_zone(zone_dir, 5)
    assert np.array_equal(a.plants, b.plants) and np.array_equal(a.blocks, b.blocks)
    assert not np.array_equal(a.plants, original.plants)
    counts = np.bincount(a.plants["type"].ravel(), minlength=256)
    assert sum(doc["plants_after"].values()) == counts[1:].sum()


def test_grow_can_write_the_forest_as_a_scene(zone_dir: Path, tmp_path: Path, capsys) -> None:
    from model.formats.scene_file import load_scene

    scene_path = tmp_path / "forest.boscage"
    assert run_cli(["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--rules", str(SAMPLE),
                    "--passes", "2", "--seed", "1", "--out", str(tmp_path / "out"),
                    "--scene", str(scene_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    stored = doc["scene"]["stored"]
    assert stored and "Grass A" in doc["scene"]["derived"]
    scene = load_scene(scene_path)
    assert scene.sections["foliage"].volume.counts() == stored


def test_grow_refuses_bad_input(zone_dir: Path, tmp_path: Path, capsys) -> None:
    base = ["plants", "grow", "--zone", str(zone_dir), "--passes", "1", "--seed", "1",
            "--out", str(tmp_path / "o")]
    assert run_cli([*base, "--id", "6", "--rules", str(SAMPLE)]) == 1
    assert "unknown zone id 6" in capsys.readouterr().err
    bad_rules = tmp_path / "rules"
    bad_rules.mkdir()
    (bad_rules / "x.txt").write_text("index=n1\nstate_0=N0\n")
    assert run_cli([*base, "--id", "5", "--rules", str(bad_rules)]) == 1
    assert "x.txt" in capsys.readouterr().err
    assert run_cli([*base, "--id", "5", "--rules", str(SAMPLE), "--fertility", "140"]) == 2
    assert run_cli(["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--rules", str(SAMPLE),
                    "--passes", "1", "--seed", "1", "--out", str(zone_dir)]) == 2
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_quick_bench_meets_both_growth_budgets(capsys) -> None:
    code = run_cli(["bench", "--quick", "--json", "plants"])
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ["plants.growth_pass_2048_speedup_vs_reference",
                                         "plants.growth_pass_2048_vs_numpy_io"]
    assert code == 0 and all(np.isfinite(r["ratio"]) and r["ok"] for r in rows), rows


def test_grow_cancelled_with_ctrl_c_writes_nothing(zone_dir: Path, tmp_path: Path, monkeypatch,
                                                   capsys) -> None:
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("model.plants.zone_growth.grow_zone", interrupted)
    assert run_cli(["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--rules", str(SAMPLE),
                    "--passes", "3", "--seed", "1", "--out", str(tmp_path / "o")]) == 130
    assert "nothing written" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_grow_refuses_a_rules_folder_without_rules(zone_dir: Path, tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    base = ["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--passes", "1", "--seed", "1",
            "--out", str(tmp_path / "o")]
    assert run_cli([*base, "--rules", str(empty)]) == 1
    assert f"{empty}: no plant rules here" in capsys.readouterr().err
    # A zone folder given as the rules folder: no rule files in it either.
    assert run_cli([*base, "--rules", str(zone_dir), "--json"]) == 1
    assert "no plant rules here" in json.loads(capsys.readouterr().out)["error"]
    assert not (tmp_path / "o").exists()


def test_grow_reports_plants_without_a_rule_and_keeps_them(zone_dir: Path, tmp_path: Path,
                                                          capsys) -> None:
    from tests.model.plants.conftest import simple_rule, write_rules

    rules = write_rules(tmp_path / "one", {"grass.txt": simple_rule(1)})
    zone = read_zone(zone_dir, 5)
    kinds = zone.plants["type"]
    others = {int(k): int((kinds == k).sum()) for k in np.unique(kinds) if k not in (0, 1)}
    base = ["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--rules", str(rules),
            "--passes", "3", "--seed", "2"]
    assert run_cli([*base, "--out", str(tmp_path / "kept")]) == 0
    err = capsys.readouterr().err
    assert f"{rules}: no rule for {len(others)} plant types on the zone: " in err
    assert "kept as they are (--drop-unknown-plants removes them)" in err
    grown = read_zone(tmp_path / "kept", 5).plants
    # Every such plant is untouched, but where no plant may stand at all (Obstacle, Decor, Island
    # tiles, sterile tiles): those checks need no rule.
    natural = ((zone.blocks["flags"] & 13) == 0) & (zone.plants["spawn"] > 0)
    missing = np.isin(kinds, list(others)) & natural
    assert missing.sum() > 1000
    assert np.array_equal(grown[missing], zone.plants[missing])
    assert run_cli([*base, "--out", str(tmp_path / "dropped"), "--drop-unknown-plants", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    from model.zones.names import PLANT_TYPES

    assert doc["missing_rules"] == {PLANT_TYPES[k]: n for k, n in others.items()}
    assert doc["unknown_plants"] == "dropped" and "removed" in doc["warnings"][0]
    dropped = read_zone(tmp_path / "dropped", 5).plants["type"]
    assert not np.isin(dropped, list(others)).any()


def test_grow_leaves_a_broken_chain_out_and_grows_the_rest(zone_dir: Path, tmp_path: Path, capsys) -> None:
    import shutil

    rules = tmp_path / "rules"
    shutil.copytree(SAMPLE, rules)
    # ElectroPlant's rule inherits a file that is not there: only that rule is left out
    (rules / "electroplant_t2.txt").write_text("source=$electroplant_hi.txt\nindex=n14\nfertility=n5\n")
    base = ["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--rules", str(rules),
            "--passes", "3", "--seed", "2"]
    assert run_cli([*base, "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    said = next(line for line in err.splitlines() if "electroplant_t2.txt" in line)
    assert "missing rule file 'electroplant_hi.txt'" in said
    assert "plants left without a rule: ElectroPlant (type 14, electroplant_t2.txt)" in said
    assert run_cli([*base, "--out", str(tmp_path / "b"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc["broken_rules"]) == ["electroplant_t2.txt"]
    assert "missing rule file 'electroplant_hi.txt'" in doc["broken_rules"]["electroplant_t2.txt"]
    assert doc["plants_without_rule"] == {"electroplant_t2.txt": 14}
    assert any("electroplant_t2.txt" in w for w in doc["warnings"])
    # the rest grew exactly as with the sample folder alone
    assert run_cli(["plants", "grow", "--zone", str(zone_dir), "--id", "5", "--rules", str(SAMPLE),
                    "--passes", "3", "--seed", "2", "--out", str(tmp_path / "c")]) == 0
    capsys.readouterr()
    assert np.array_equal(read_zone(tmp_path / "b", 5).plants, read_zone(tmp_path / "c", 5).plants)
    # a batch of zones leaves it out the same way
    assert run_cli(["plants", "grow", "--zone", str(zone_dir), "--ids", "5", "--workers", "1",
                    "--rules", str(rules),
                    "--passes", "3", "--seed", "2", "--out", str(tmp_path / "d"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["plants_without_rule"] == {"electroplant_t2.txt": 14}
    assert "electroplant_hi.txt" in doc["rules_warning"]
    assert np.array_equal(read_zone(tmp_path / "d", 5).plants, read_zone(tmp_path / "c", 5).plants)
