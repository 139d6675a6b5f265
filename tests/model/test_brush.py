"""The shared brush: weight profile, keyboard steps, persistence."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.brush import MAX_RADIUS, MIN_RADIUS, Brush, FalloffCurve


def test_weight_is_one_inside_the_core_and_zero_beyond_the_radius() -> None:
    brush = Brush(radius=10.0, strength=0.5, falloff=0.4)
    w = brush.weight([0.0, 3.0, 6.0, 10.0, 10.01, 50.0])
    assert w[0] == 1.0 and w[1] == 1.0 and w[2] == 1.0
    assert w[3] == 0.0 and w[4] == 0.0 and w[5] == 0.0


def test_zero_falloff_is_a_hard_disc() -> None:
    brush = Brush(radius=4.0, falloff=0.0)
    assert list(brush.weight([0.0, 3.99, 4.0, 4.01])) == [1.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("curve", list(FalloffCurve))
def test_every_curve_falls_monotonically_from_core_to_rim(curve: FalloffCurve) -> None:
    brush = Brush(radius=8.0, falloff=1.0, curve=curve)
    d = np.linspace(0.0, 8.0, 200)
    w = brush.weight(d)
    assert w[0] == pytest.approx(1.0) and w[-1] == pytest.approx(0.0)
    assert np.all(np.diff(w) <= 1e-12)
    assert np.all((w >= 0) & (w <= 1))


def test_curves_differ_in_the_falloff_band() -> None:
    at_half = {c: float(Brush(radius=2.0, falloff=1.0, curve=c).weight(1.0)) for c in FalloffCurve}
    assert at_half[FalloffCurve.LINEAR] == pytest.approx(0.5)
    assert at_half[FalloffCurve.SMOOTH] == pytest.approx(0.5)
    assert at_half[FalloffCurve.TIP] == pytest.approx(0.25)
    assert at_half[FalloffCurve.SPHERE] == pytest.approx(np.sqrt(0.75))
    quarter = {c: float(Brush(radius=4.0, falloff=1.0, curve=c).weight(3.0)) for c in FalloffCurve}
    assert quarter[FalloffCurve.SMOOTH] < quarter[FalloffCurve.LINEAR]


def test_influence_scales_by_strength() -> None:
    brush = Brush(radius=5.0, strength=0.3, falloff=0.5)
    d = np.array([0.0, 3.0, 4.0])
    np.testing.assert_allclose(brush.influence(d), 0.3 * brush.weight(d))


@pytest.mark.parametrize("kwargs", [dict(radius=0.0), dict(radius=-1), dict(radius=MAX_RADIUS * 2),
                                    dict(strength=1.5), dict(strength=-0.1), dict(falloff=2.0),
                                    dict(radius=float("nan")), dict(curve="wobbly")])
def test_invalid_settings_are_refused(kwargs) -> None:
    with pytest.raises(ValueError):
        Brush(**kwargs)


def test_bracket_steps_resize_and_clamp() -> None:
    brush = Brush(radius=10.0, strength=0.5)
    assert brush.resized(1).radius == pytest.approx(12.5)
    assert brush.resized(-1).radius == pytest.approx(8.0)
    assert brush.resized(-1000).radius == MIN_RADIUS
    assert brush.resized(1000).radius == MAX_RADIUS
    assert brush.strengthened(2).strength == pytest.approx(0.6)
    assert brush.strengthened(-100).strength == pytest.approx(0.01)
    assert brush.strengthened(100).strength == 1.0
    assert brush.resized(1).strength == brush.strength  # the other settings are kept


def test_round_trip_through_a_dict() -> None:
    brush = Brush(radius=7.5, strength=0.25, falloff=0.1, curve=FalloffCurve.SPHERE)
    assert Brush.from_dict(brush.to_dict()) == brush


@pytest.mark.parametrize("stored", [None, "junk", {"radius": "x"}, {"radius": -5},
                                    {"curve": "nope", "strength": 0.2}])
def test_damaged_stored_settings_fall_back(stored) -> None:
    brush = Brush.from_dict(stored)
    assert isinstance(brush, Brush)
    if isinstance(stored, dict) and "strength" in stored:
        assert brush.strength == 0.2 and brush.curve == FalloffCurve.SMOOTH


@given(radius=st.floats(0.5, 100), falloff=st.floats(0, 1), d=st.floats(0, 200))
def test_weight_bounds_property(radius: float, falloff: float, d: float) -> None:
    w = float(Brush(radius=radius, falloff=falloff).weight(d))
    assert 0.0 <= w <= 1.0
    if d > radius:
        assert w == 0.0
    if d <= radius * (1 - falloff):
        assert w == 1.0
