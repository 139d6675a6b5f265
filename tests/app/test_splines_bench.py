"""The spline bench case measures a real move against a real drag and holds its budget."""

from __future__ import annotations

import pytest

from app.bench import all_cases


@pytest.mark.slow
def test_moving_a_road_point_costs_about_a_brush_drag_over_the_same_stretch() -> None:
    (case,) = [c for c in all_cases() if c.name == "splines.move_point_vs_brush_drag"]
    ratio = case.run(True)
    assert 0.05 < ratio and case.ok(ratio, quick=True), ratio
