"""The USD bench case: registered with `boscage bench`, and its quick run measures a real ratio.

Both runs export a million instances (at 100,000 the stage's fixed costs weighed more than the
instances); on a shared test machine the ratio is only checked to be sensible here."""

from __future__ import annotations

import numpy as np

from app.bench import all_cases, interchange_usd


def test_usdc_case_is_registered_and_measures_a_ratio() -> None:
    (case,) = interchange_usd.CASES
    assert case.name in {c.name for c in all_cases()} and case.budget == 3.0
    ratio = case.run(True)
    assert np.isfinite(ratio) and 1.0 < ratio < 50.0
