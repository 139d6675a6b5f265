"""`boscage bench scene_import`: a heightmap imported tile by tile versus writing its bytes raw."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.bench import scene_import
from app.bench.scene_import import import_figures
from app.cli import run_cli
from model.formats import tiles


def test_the_figures_time_both_sides_of_the_same_bytes(monkeypatch) -> None:
    """The raw sides write the heights' bytes, once as one file and once as the scene's tiles."""
    written: dict[str, int] = {}
    write = scene_import.atomic_write

    def recorded(path, data) -> None:
        write(path, data)
        written[Path(path).name] = Path(path).stat().st_size

    monkeypatch.setattr(scene_import, "atomic_write", recorded)
    size = 1025  # three tiles of 512 a side: nine files
    figures = import_figures(size, ".npy", rounds=1)
    assert figures["samples"] == size
    assert written.pop("raw.bin") == size * size * 4
    layout = tiles.tiles_of(size, size, tiles.TILE)
    assert sorted(written) == sorted(f"raw_{i}_{j}.bin" for i, j, _, _ in layout)
    assert sum(written.values()) == size * size * 4 and len(written) == 9
    assert all(np.isfinite(figures[k]) and figures[k] > 0
               for k in ("import_s", "raw_write_s", "raw_tile_writes_s", "ratio", "tile_ratio"))


@pytest.mark.slow
def test_bench_quick_runs_the_npy_case_within_its_budget(capsys) -> None:
    code = run_cli(["bench", "--quick", "--json", "scene_import.npy"])
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["scene_import.npy_vs_raw_write"]["budget"] == 20.0
    assert rows["scene_import.npy_vs_raw_tile_writes"]["budget"] == 2.0
    assert code == 0 and all(np.isfinite(r["ratio"]) for r in rows.values()), rows
