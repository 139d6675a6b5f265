"""The viewport's bench cases run (quick sizes) and meet their budgets on this machine."""

from __future__ import annotations

import pytest

from app.bench import viewport


@pytest.mark.slow
@pytest.mark.parametrize("case", viewport.CASES, ids=lambda c: c.name)
def test_viewport_bench_case_meets_its_budget(case, qapp) -> None:
    ratio = case.run(True)
    assert ratio == ratio, "the case could not run (no OpenGL display?)"
    assert case.ok(ratio, quick=True), f"{case.name}: {ratio:.3f} against a budget of {case.budget_for(True)}"
