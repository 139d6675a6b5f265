"""The USD bench case: registered with `boscage bench`, and its quick run meets its budget.

Both runs export a million instances (at 100,000 the stage's fixed costs weighed more than the
instances); the measured run is a slow test, as every timed budget is."""

from __future__ import annotations

import numpy as np
import pytest

from app.bench import all_cases, interchange_usd


def test_usdc_case_is_registered_with_its_budget() -> None:
    (case,) = interchange_usd.CASES
    assert case.name in {c.name for c in all_cases()} and case.budget == 3.0 and not case.at_least


@pytest.mark.slow
def test_usdc_case_meets_its_budget() -> None:
    (case,) = interchange_usd.CASES
    ratio = case.run(True)
    assert np.isfinite(ratio) and case.ok(ratio, quick=True), ratio
