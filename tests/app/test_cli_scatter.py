"""`boscage scatter` run in-process against scenes written by the project's own writers."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pytest

from app.cli import run_cli
from model.foliage import FoliageType, LayerFilter, foliage_of
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.terrain import Terrain


@pytest.fixture
def scene_path(tmp_path):
    """A 64 m cone-free hill: flat west half painted 'grass', a 45° ramp on the east half."""
    xs = np.arange(65, dtype=np.float64)
    x, _ = np.meshgrid(xs, xs)
    heights = np.where(x < 32, 0.0, (x - 32) * 1.0).astype(np.float32)
    terrain = Terrain(heights, 1.0, (0.0, 0.0))
    w = np.zeros(heights.shape, np.uint8)
    w[:, :32] = 255
    terrain.add_layer("grass", (0, 200, 0), w)
    scene = Scene(terrain, "Hill")
    foliage_of(scene).palette.add(FoliageType("oak", density=4.0, spacing=1.0, slope=(0.0, 30.0),
                                              layer=LayerFilter("grass", 0.5)))
    path = tmp_path / "hill.boscage"
    save_scene(scene, path)
    return path


def run_json(capsys, *argv):
    code = run_cli(["scatter", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_json_reports_candidates_placed_and_each_refusal(scene_path, capsys):
    code, doc = run_json(capsys, str(scene_path), "--type", "oak", "--at", "32,32", "--radius", "20",
                         "--seed", "3")
    assert code == 0
    assert set(doc["refused"]) == {"NO_GROUND", "SLOPE", "ALTITUDE", "LAYER", "SPACING", "BRUSH", "HOLE"}
    # density × strength × brush area (π r²) / 100 m², the fraction rounded down or up
    expected = 4 * np.pi * 20 * 20 / 100
    assert doc["candidates"] in (int(np.floor(expected)), int(np.ceil(expected)))
    assert doc["placed"] + sum(doc["refused"].values()) == doc["candidates"]
    assert doc["refused"]["SLOPE"] > 0 and doc["placed"] > 0 and doc["saved"] is False
    # nothing was written without --save
    assert foliage_of(load_scene(scene_path)).volume.count() == 0
    # the same stamp and seed give the same answer
    assert run_json(capsys, str(scene_path), "--type", "oak", "--at", "32,32", "--radius", "20",
                    "--seed", "3")[1] == doc


def test_save_writes_the_instances_back(scene_path, capsys):
    code, doc = run_json(capsys, str(scene_path), "--type", "oak", "--at", "16,32", "--radius", "10",
                         "--save")
    assert code == 0 and doc["placed"] > 0 and doc["saved"]
    assert foliage_of(load_scene(scene_path)).volume.count("oak") == doc["placed"]


def test_human_output_and_builtin_types(scene_path, capsys):
    assert run_cli(["scatter", str(scene_path), "--type", "rock", "--at", "48,32", "--radius", "10"]) == 0
    out = capsys.readouterr().out
    assert "candidates:" in out and "LAYER" in out and "built-in palette" in out


def test_bad_arguments_and_bad_files(scene_path, tmp_path, capsys):
    assert run_cli(["scatter", str(scene_path), "--type", "palm", "--at", "1,1", "--radius", "5"]) == 2
    assert "no foliage type named 'palm'" in capsys.readouterr().err
    assert run_cli(["scatter", str(scene_path), "--type", "oak", "--at", "1", "--radius", "5"]) == 2
    assert run_cli(["scatter", str(scene_path), "--type", "oak", "--at", "1,1", "--radius", "-5"]) == 2
    capsys.readouterr()
    side = scene_path.with_name(tomllib.loads(scene_path.read_text())["foliage"]["instances"])
    side.write_bytes(b"garbage")
    assert run_cli(["scatter", str(scene_path), "--type", "oak", "--at", "1,1", "--radius", "5"]) == 1
    assert side.name in capsys.readouterr().err


@pytest.mark.slow
def test_foliage_bench_cases_meet_their_quick_budgets(capsys):
    from app.bench import all_cases

    names = [c.name for c in all_cases() if c.name.startswith("foliage.")]
    assert len(names) == 4
    code = run_cli(["bench", "--quick", "--json", "foliage"])
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == names
    assert code == 0 and all(r["ok"] for r in rows), rows


def test_a_missing_layer_is_named(tmp_path, capsys):
    terrain = Terrain(np.zeros((33, 33), np.float32), 1.0, (0.0, 0.0))
    scene = Scene(terrain, "Bare")
    foliage_of(scene).palette.add(FoliageType("fern", density=5.0, layer=LayerFilter("forest_floor")))
    save_scene(scene, tmp_path / "bare.boscage")
    code, doc = run_json(capsys, str(tmp_path / "bare.boscage"), "--type", "fern", "--at", "16,16",
                         "--radius", "8")
    assert code == 0 and doc["placed"] == 0 and doc["missing_layer"] == "forest_floor"
    assert doc["refused"]["LAYER"] > 0


def test_a_derived_type_cannot_be_painted(scene_path, capsys):
    scene = load_scene(scene_path)
    foliage_of(scene).palette.add(FoliageType("turf", mesh="builtin:grass", storage="derived", density=50.0))
    save_scene(scene, scene_path)
    before = scene_path.read_bytes()
    assert run_cli(["scatter", str(scene_path), "--type", "turf", "--at", "16,32", "--radius", "5",
                    "--save"]) != 0
    assert "derived" in capsys.readouterr().err
    assert scene_path.read_bytes() == before


def test_whole_scene_scatter_reports_each_rule_and_adds_painted_foliage(scene_path, capsys):
    code, doc = run_json(capsys, str(scene_path), "--type", "oak", "--whole", "--seed", "5", "--save")
    assert code == 0 and doc["whole"] and doc["saved"] and doc["region"] == [0.0, 0.0, 64.0, 64.0]
    assert doc["placed"] + sum(r["count"] for r in doc["refused"]) == doc["candidates"]
    # 4 per 100 m² over 64 m × 64 m, on the hashed 32 m grid
    assert abs(doc["candidates"] - 4 * 64 * 64 / 100) < 40
    reasons = {r["reason"] for r in doc["refused"]}
    assert "outside oak's slope 0–30°" in reasons and "spacing 1 m" in reasons
    scene = load_scene(scene_path)
    assert foliage_of(scene).volume.count("oak") == doc["placed"] == doc["added"] > 0
    # painted foliage: no spawner owns it (an owned instance is listed in NAME.spawned.<crc>.bin)
    assert not list(scene_path.parent.glob("*.spawned.*")) and "spawned" not in scene_path.read_text()
    # Again with the same seed: every candidate now stands too close to the first run's instances.
    code, again = run_json(capsys, str(scene_path), "--type", "oak", "--whole", "--seed", "5")
    assert code == 0 and again["placed"] == 0 and not again["saved"]


def test_whole_scene_scatter_and_a_stamp_take_their_own_options(scene_path, capsys):
    assert run_cli(["scatter", str(scene_path), "--type", "oak"]) == 2
    assert "--whole for the whole scene" in capsys.readouterr().err
    assert run_cli(["scatter", str(scene_path), "--type", "oak", "--whole", "--at", "1,1"]) == 2
    assert "takes no --at or --radius" in capsys.readouterr().err
    assert run_cli(["scatter", str(scene_path), "--type", "oak", "--at", "1,1", "--radius", "5",
                    "--workers", "2"]) == 2
    assert "go with --whole" in capsys.readouterr().err
    assert run_cli(["scatter", str(scene_path), "--type", "grass", "--whole"]) == 2  # built-in, derived
    assert "derived type" in capsys.readouterr().err
