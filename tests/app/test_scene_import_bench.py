"""`boscage bench scene_import`: a heightmap imported tile by tile versus writing its bytes raw."""

from __future__ import annotations

import json

import numpy as np

from app.bench.scene_import import import_figures
from app.cli import run_cli


def test_the_figures_time_both_sides_of_the_same_bytes() -> None:
    figures = import_figures(257, ".npy", rounds=1)
    assert figures["samples"] == 257 and figures["import_s"] > 0 and figures["raw_write_s"] > 0
    assert figures["ratio"] == figures["import_s"] / figures["raw_write_s"]
    assert figures["tile_ratio"] == figures["import_s"] / figures["raw_tile_writes_s"]


def test_bench_quick_runs_the_npy_case_within_its_budget(capsys) -> None:
    code = run_cli(["bench", "--quick", "--json", "scene_import.npy"])
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["scene_import.npy_vs_raw_write"]["budget"] == 20.0
    assert rows["scene_import.npy_vs_raw_tile_writes"]["budget"] == 2.0
    assert code == 0 and all(np.isfinite(r["ratio"]) for r in rows.values()), rows
