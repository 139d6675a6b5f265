"""`boscage export` and `boscage import-foliage` run in-process on scenes saved by our writer; every
glTF written is checked by the Khronos glTF Validator."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from app.cli import family_names, run_cli
from model.foliage import foliage_of
from model.formats.scene_file import load_scene, save_scene
from tests.gltf_validator import assert_valid
from tests.model.interchange.conftest import small_scene


@pytest.fixture(autouse=True)
def every_gltf_is_valid(tmp_path):
    """After each test, the Khronos glTF Validator finds no error or warning in any glTF it wrote."""
    yield
    written = sorted(p for p in tmp_path.rglob("*") if p.suffix in (".glb", ".gltf"))
    if written:
        assert_valid(written)


@pytest.fixture
def scene_path(tmp_path):
    path = tmp_path / "forest.boscage"
    save_scene(small_scene(), path)
    return path


def run_json(capsys, *argv):
    code = run_cli([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def records(path, name):
    return foliage_of(load_scene(path)).volume.all_records(name)


def test_both_commands_are_families() -> None:
    assert {"export", "import-foliage"} <= set(family_names())


@pytest.mark.parametrize("extra", [[], ["--plain-nodes"], ["--no-terrain"], ["--terrain-step", "4"]])
def test_export_glb_reports_and_validates(scene_path, tmp_path, capsys, extra) -> None:
    out = tmp_path / "out.glb"
    code, doc = run_json(capsys, "export", str(scene_path), str(out), *extra)
    assert code == 0
    assert doc["instances"] == 65 and doc["types"] == {"conifer": 40, "rock": 25}
    assert doc["bytes"] == out.stat().st_size and doc["gpu_instancing"] == ("--plain-nodes" not in extra)
    expect_terrain = {"--no-terrain": 0, "--terrain-step": 11 * 11}.get(extra[0] if extra else "", 41 * 41)
    assert doc["terrain_vertices"] == expect_terrain
    assert_valid([out])


def test_engine_preset_and_overrides(scene_path, tmp_path, capsys) -> None:
    out = tmp_path / "ue.csv"
    code, doc = run_json(capsys, "export", str(scene_path), str(out), "--engine", "unreal",
                         "--types", "rock", "--matrix")
    assert code == 0 and doc["conventions"] == {"up": "z", "handedness": "left", "units": "cm"}
    rows = list(csv.DictReader(line for line in out.read_text().splitlines() if not line.startswith("#")))
    want = records(scene_path, "rock")
    assert len(rows) == 25 and "m00" in rows[0]
    assert float(rows[0]["z"]) == pytest.approx(want[0, 1] * 100, abs=1e-3)  # height is Unreal's Z, cm
    code, doc = run_json(capsys, "export", str(scene_path), str(tmp_path / "m.json"), "--engine", "Unreal",
                         "--units", "m")
    assert doc["conventions"]["units"] == "m"


def test_region_keeps_the_box(scene_path, tmp_path, capsys) -> None:
    out = tmp_path / "part.json"
    code, doc = run_json(capsys, "export", str(scene_path), str(out), "--region=-20,-20,20,10")
    assert code == 0
    pos = np.array([i["position"] for i in json.loads(out.read_text())["instances"]])
    assert len(pos) == doc["instances"] > 0
    assert (pos[:, 0] >= -20).all() and (pos[:, 0] < 20).all() and (pos[:, 2] < 10).all()


def test_usage_and_input_errors(scene_path, tmp_path, capsys) -> None:
    assert run_cli(["export", str(scene_path), str(tmp_path / "x.fbx")]) == 2
    assert "unknown format" in capsys.readouterr().err
    assert run_cli(["export", str(scene_path), str(tmp_path / "x.glb"), "--types", "oak"]) == 2
    assert "known: conifer, rock" in capsys.readouterr().err
    assert run_cli(["export", str(scene_path), str(tmp_path / "x.glb"), "--region", "1,2,3"]) == 2
    assert run_cli(["export", str(scene_path), str(tmp_path / "x.glb"), "--region=5,0,1,3"]) == 2
    assert run_cli(["export", str(scene_path), str(tmp_path / "x.glb"), "--engine", "cryengine"]) == 2
    assert run_cli(["export", str(scene_path), str(tmp_path / "x.glb"), "--terrain-step", "0"]) == 2
    capsys.readouterr()
    assert run_cli(["export", str(tmp_path / "missing.boscage"), str(tmp_path / "x.glb")]) == 1
    assert not (tmp_path / "x.glb").exists()
    bad = tmp_path / "bad.csv"
    bad.write_text("type,x,y\n")
    assert run_cli(["import-foliage", str(scene_path), str(bad)]) == 1
    assert "bad.csv" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".glb", ".gltf", ".csv", ".json"])
def test_import_round_trip_into_another_scene(scene_path, tmp_path, capsys, suffix) -> None:
    out = tmp_path / f"f{suffix}"
    assert run_cli(["export", str(scene_path), str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    empty = small_scene({})
    target = tmp_path / "target.boscage"
    save_scene(empty, target)
    code, doc = run_json(capsys, "import-foliage", str(target), str(out))
    assert code == 0 and doc["instances"] == 65 and doc["saved"] is False
    assert sorted(doc["new_types"]) == ["conifer", "rock"]
    assert foliage_of(load_scene(target)).volume.count() == 0  # nothing written without --save
    code, doc = run_json(capsys, "import-foliage", str(target), str(out), "--save")
    assert code == 0 and doc["saved"] is True
    for name in ("conifer", "rock"):
        assert np.array_equal(records(target, name), records(scene_path, name))
    capsys.readouterr()
    assert run_cli(["import-foliage", str(target), str(out)]) == 0
    assert "would add 65 instances" in capsys.readouterr().out.replace(" (use --save to write)", "")
