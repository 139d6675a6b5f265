"""Performance budgets as ratios measured within one run. Each module here exposes `CASES`."""

from __future__ import annotations

import importlib
import pkgutil
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class BenchCase:
    """`run(quick)` returns a ratio; it passes when `ratio <= budget` (or `>=` if `at_least`)."""

    name: str
    budget: float
    run: Callable[[bool], float]
    at_least: bool = False
    description: str = ""

    def ok(self, ratio: float) -> bool:
        return ratio >= self.budget if self.at_least else ratio <= self.budget


def all_cases() -> list[BenchCase]:
    cases: list[BenchCase] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(getattr(module, "CASES", []))
    return cases


def best_time(fn: Callable[[], object], repeat: int = 5) -> float:
    """Minimum wall time of `repeat` calls: the least noisy estimate on a shared machine."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return max(best, 1e-9)
