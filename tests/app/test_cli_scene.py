"""`boscage scene info|new-demo` and the scene bench case, run in-process."""

from __future__ import annotations

import json

import numpy as np

from app.bench.scene import CASES
from app.cli import run_cli
from model.formats.scene_file import load_scene, save_scene
from resources import RESOURCES
from tests.conftest import make_small_scene


def test_info_json_reports_size_spacing_layers_coverage_and_foliage(tmp_path, capsys) -> None:
    scene = make_small_scene(rows=9, cols=10)
    save_scene(scene, tmp_path / "s.boscage")
    assert run_cli(["scene", "info", str(tmp_path / "s.boscage"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["columns"], doc["rows"], doc["spacing"]) == (10, 9, 2.0)
    assert doc["size_m"] == [18.0, 16.0]
    layers = {la["name"]: la for la in doc["layers"]}
    assert layers["red"]["coverage"] == 0.5 and layers["blue"]["coverage"] == 0.5
    assert layers["red"]["painted"] == 0.5 and layers["red"]["color"] == "#dc281e"
    assert doc["foliage"] == {"types": 0, "instances": 0, "by_type": {}, "derived_types": []}


def test_info_counts_foliage_from_the_scene_section(tmp_path) -> None:
    from app.cli.scene import scene_summary

    class Type:
        def __init__(self, name: str, storage: str = "stored") -> None:
            self.name = name
            self.storage = storage

    class Section:
        palette = [Type("pine"), Type("oak"), Type("birch"), Type("fern", "derived")]

        def counts(self):
            return {"pine": 3, "oak": 4}

    scene = make_small_scene()
    scene.sections["foliage"] = Section()
    assert scene_summary(scene)["foliage"] == {"types": 4, "instances": 7,
                                               "by_type": {"pine": 3, "oak": 4, "birch": 0, "fern": 0},
                                               "derived_types": ["fern"]}


def test_info_human_text(tmp_path, capsys) -> None:
    save_scene(make_small_scene(), tmp_path / "s.boscage")
    assert run_cli(["scene", "info", str(tmp_path / "s.boscage")]) == 0
    out = capsys.readouterr().out
    assert "41 x 33 samples" in out and "red" in out and "48.8 %" in out  # 20 of 41 columns
    assert "painted" in out and "mean weight" in out  # the two percentages say which is which


def test_info_text_marks_derived_types_instead_of_counting_none(tmp_path, capsys) -> None:
    from model.demo import build_demo_scene

    save_scene(build_demo_scene(foliage=True), tmp_path / "d.boscage")
    assert run_cli(["scene", "info", str(tmp_path / "d.boscage")]) == 0
    grass = [line for line in capsys.readouterr().out.splitlines() if line.split()[:1] == ["grass"]]
    assert grass and grass[-1].split()[1:] == ["derived", "(not", "stored)"]


def test_bad_input_exits_1_with_file_and_place(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.boscage"
    bad.write_text('format = "boscage-scene"\nversion = 3\n')
    assert run_cli(["scene", "info", str(bad), "--json"]) == 1
    captured = capsys.readouterr()
    assert "bad.boscage: version" in json.loads(captured.out)["error"]
    assert "bad.boscage" in captured.err


def test_usage_errors_exit_2(capsys) -> None:
    assert run_cli(["scene"]) == 2
    assert run_cli(["scene", "info"]) == 2


def test_new_demo_writes_the_demo(tmp_path, capsys) -> None:
    out = tmp_path / "demo.boscage"
    assert run_cli(["scene", "new-demo", str(out)]) == 0
    scene = load_scene(out)
    assert scene.terrain.heights.shape == (513, 513)
    assert [la.name for la in scene.terrain.layers] == ["grass", "forest_floor", "rock", "sand"]
    assert np.isfinite(scene.terrain.heights).all()
    # Regenerating gives the committed demo, byte for byte, foliage and layer textures included.
    shipped = RESOURCES / "demo"
    files = sorted(p.relative_to(shipped) for p in shipped.rglob("*") if p.is_file())
    assert any(name.parts[0] == "textures" for name in files)
    for name in files:
        assert (tmp_path / name).read_bytes() == (shipped / name).read_bytes(), name


def test_bench_selects_a_family_or_a_case_exactly_and_reports_json(capsys, monkeypatch) -> None:
    from dataclasses import replace

    from app import bench as bench_module
    from app.bench import BenchCase

    (case,) = CASES
    assert case.name == "scene.open_vs_raw_reads"
    cases = [replace(case, run=lambda quick: 2.0), BenchCase("scene_import.x", 1.0, lambda quick: 9.0),
             BenchCase("scene.y", 1.0, lambda quick: 0.5)]
    monkeypatch.setattr(bench_module, "all_cases", lambda: cases)
    assert run_cli(["bench", "--in-process", "--quick", "--json", "scene"]) == 0  # not scene_import
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ["scene.open_vs_raw_reads", "scene.y"]
    assert rows[0] == {"name": case.name, "ratio": 2.0, "budget": case.budget_for(True), "ok": True,
                       "pending": None}
    assert run_cli(["bench", "--in-process", "--json", "scene_import.x"]) == 1  # over its budget
    assert [r["name"] for r in json.loads(capsys.readouterr().out)] == ["scene_import.x"]
    assert run_cli(["bench", "--json", "no-such-case"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_bench_runs_a_case_in_its_own_process(capsys) -> None:
    # undo memory is counted in bytes, not timed: its ratio is the same on every machine
    name = "terrain.stroke_undo_memory_4096_vs_512"
    assert run_cli(["bench", "--quick", "--json", name]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["name"] == name and row["ratio"] == 1.0 and row["ok"]


def test_a_case_run_in_its_own_process_shows_what_it_says_of_its_figures(capsys) -> None:
    # a pending case that ran exits 0
    assert run_cli(["bench", "--quick", "--json", "erosion.droplet_steps_vs_python"]) == 0
    out, err = capsys.readouterr()
    (row,) = json.loads(out)
    assert row["name"] == "erosion.droplet_steps_vs_python" and row["ratio"] > 1
    assert "droplets: compiled" in err and "hand-written Python" in err
