"""Bench budgets that hold on every run: the quick cases measure what the full ones do."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.bench import BenchCase, all_cases
from app.bench.foliage import FULL_N, QUICK_N, store_volume
from app.cli import run_cli


def test_a_quick_budget_applies_to_the_quick_run_only() -> None:
    case = BenchCase("x.y", budget=5.0, quick_budget=12.0, run=lambda quick: 0.0)
    assert case.budget_for(False) == 5.0 and case.budget_for(True) == 12.0
    assert case.ok(8.0, quick=True) and not case.ok(8.0)
    assert BenchCase("x.z", budget=2.0, run=lambda quick: 0.0).budget_for(True) == 2.0
    lower = BenchCase("x.w", budget=50.0, quick_budget=20.0, run=lambda quick: 0.0, at_least=True)
    assert lower.ok(30.0, quick=True) and not lower.ok(30.0)


def test_the_quick_store_case_packs_instances_as_densely_as_the_full_one() -> None:
    """A chunk costs the same whatever it holds: spread thin, the small case measures chunks."""
    def per_chunk(volume) -> float:
        return len(volume) / len(volume.keys())

    quick, full = store_volume(QUICK_N), store_volume(FULL_N)
    assert len(quick) == QUICK_N and len(full) == FULL_N
    assert abs(per_chunk(quick) / per_chunk(full) - 1) < 0.1, (per_chunk(quick), per_chunk(full))


@pytest.mark.slow
def test_bench_quick_passes_the_store_and_scene_budgets(capsys) -> None:
    code = run_cli(["bench", "--quick", "--json", "foliage.store_save_load_vs_raw_io",
                    "scene.open_vs_raw_reads"])
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["scene.open_vs_raw_reads"]["budget"] == 12.0  # the quick budget is what is reported
    assert code == 0, rows
    assert all(np.isfinite(r["ratio"]) and r["ok"] for r in rows.values())


def test_scene_open_is_held_to_five_raw_reads() -> None:
    (case,) = [c for c in all_cases() if c.name == "scene.open_vs_raw_reads"]
    assert case.budget == 5.0


def test_a_pending_target_is_shown_missed_but_does_not_fail_the_run(capsys, monkeypatch) -> None:
    from app import bench as bench_module

    cases = [BenchCase("t.pending", budget=1.0, run=lambda quick: 3.0, pending="needs far proxies"),
             BenchCase("t.met", budget=1.0, run=lambda quick: 0.5),
             BenchCase("t.broken", budget=1.0, run=lambda quick: float("nan"), pending="anything")]
    monkeypatch.setattr(bench_module, "all_cases", lambda: cases)
    assert run_cli(["bench", "--in-process", "t.pending", "t.met"]) == 0
    out = capsys.readouterr().out
    assert "PEND t.pending" in out and "[not met yet: needs far proxies]" in out and "ok   t.met" in out
    assert run_cli(["bench", "--in-process", "--json", "t.pending"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["ok"] is False and row["pending"] == "needs far proxies"
    assert run_cli(["bench", "--in-process", "t.broken"]) == 1  # a target that did not run still fails
