"""`boscage terrain auto-paint` run in-process against scenes written by the project's own writers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import run_cli
from model.auto_paint import AutoPaintRule, apply_auto_paint
from model.formats.scene_file import load_scene, save_scene
from model.layer_ops import LayerPaintStroke
from model.scene import Scene
from model.terrain import Terrain


def hill() -> Scene:
    """Flat west half, a 45° ramp east, painted grass; an empty 'rock' layer."""
    x = np.tile(np.arange(65, dtype=np.float64), (65, 1))
    terrain = Terrain(np.where(x < 32, 0.0, x - 32).astype(np.float32), 1.0, (0.0, 0.0))
    terrain.add_layer("grass", (0, 200, 0), np.full((65, 65), 255, np.uint8))
    terrain.add_layer("rock", (120, 120, 120))
    return Scene(terrain, "Hill")


@pytest.fixture
def scene_path(tmp_path):
    path = tmp_path / "hill.boscage"
    save_scene(hill(), path)
    return path


def files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_auto_paint_saves_the_model_s_weights_and_reports_them(scene_path, capsys) -> None:
    code = run_cli(["terrain", "auto-paint", str(scene_path), "--layer", "rock", "--slope", "30,90",
                    "--height=-1,20", "--feather", "0.2", "--save", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    expected = hill()
    summary = apply_auto_paint(expected.terrain, AutoPaintRule("rock", (30.0, 90.0), (-1.0, 20.0), None, 0.2),
                               LayerPaintStroke(expected.terrain, "rock"))
    back = load_scene(scene_path)
    for name in ("grass", "rock"):
        assert np.array_equal(back.terrain.layer(name).weights, expected.terrain.layer(name).weights), name
    rock = back.terrain.layer("rock").weights
    assert rock[:, 40:46].min() == 255 and rock[:, :30].max() == 0  # the ramp, not the flat
    assert doc == {"layer": "rock", "bands": {"slope": [30.0, 90.0], "height": [-1.0, 20.0]}, "feather": 0.2,
                   "replace": False, "changed_samples": summary.changed,
                   "painted_share": pytest.approx(np.count_nonzero(rock) / rock.size),
                   "took_from": ["grass"], "saved": True}


def test_without_save_nothing_is_written_and_the_same_rule_gives_the_same_bytes(scene_path, tmp_path,
                                                                                 capsys) -> None:
    before = files(tmp_path)
    assert run_cli(["terrain", "auto-paint", str(scene_path), "--layer", "rock", "--curvature=-1,-0.5"]) == 0
    out = capsys.readouterr().out
    assert "not saved" in out and files(tmp_path) == before
    args = ["terrain", "auto-paint", str(scene_path), "--layer", "rock", "--slope", "20,90", "--save"]
    assert run_cli(args) == 0
    once = files(tmp_path)
    save_scene(hill(), scene_path)
    assert run_cli(args) == 0
    assert files(tmp_path) == once


@pytest.mark.parametrize("argv, code, words", [
    (["--layer", "lava", "--slope", "0,10"], 2, "no layer named 'lava'"),
    (["--layer", "rock"], 2, "at least one band"),
    (["--layer", "rock", "--slope", "10"], 2, "MIN,MAX"),
    (["--layer", "rock", "--height", "9,3"], 2, "MIN <= MAX"),
    (["--layer", "rock", "--slope", "0,120"], 2, "degrees from 0 to 90"),
    (["--layer", "rock", "--slope", "0,10", "--feather", "2"], 2, "feather"),
])
def test_bad_options_are_usage_errors(scene_path, capsys, argv, code, words) -> None:
    assert run_cli(["terrain", "auto-paint", str(scene_path), *argv]) == code
    assert words in capsys.readouterr().err


def test_a_bad_scene_is_bad_input_naming_the_file(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.boscage"
    bad.write_text("format = 'boscage-scene'\nversion = 99\n")
    assert run_cli(["terrain", "auto-paint", str(bad), "--layer", "rock", "--slope", "0,10"]) == 1
    assert "bad.boscage" in capsys.readouterr().err
