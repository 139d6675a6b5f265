"""The USD bench case: registered with `boscage bench`, and its quick run measures a real ratio.

The budget (≤ 3×) is for the full million-instance run; at 100,000 instances the stage's fixed
costs weigh more, so the quick run is only checked to measure something sensible."""

from __future__ import annotations

import numpy as np

from app.bench import all_cases, interchange_usd


def test_usdc_case_is_registered_and_measures_a_ratio() -> None:
    (case,) = interchange_usd.CASES
    assert case.name in {c.name for c in all_cases()} and case.budget == 3.0
    ratio = case.run(True)
    assert np.isfinite(ratio) and 1.0 < ratio < 50.0
