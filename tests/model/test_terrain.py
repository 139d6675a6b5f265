"""Terrain sampling: vectorised results agree with a plain-loop reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.terrain import Terrain


def grid(seed: int = 3, rows: int = 9, cols: int = 12) -> Terrain:
    rng = np.random.default_rng(seed)
    t = Terrain(rng.uniform(-5, 40, (rows, cols)).astype(np.float32), spacing=2.5, origin=(-10.0, 4.0))
    t.add_layer("grass", (0, 255, 0), rng.integers(0, 256, (rows, cols), dtype=np.uint8))
    return t


def reference_height(t: Terrain, x: float, z: float) -> float:
    """One point at a time, straight from the definition of bilinear interpolation."""
    u = (x - t.origin[0]) / t.spacing
    v = (z - t.origin[1]) / t.spacing
    if not (0 <= u <= t.columns - 1 and 0 <= v <= t.rows - 1):
        return math.nan
    i = min(int(math.floor(u)), t.columns - 2)
    j = min(int(math.floor(v)), t.rows - 2)
    fu, fv = u - i, v - j
    h = t.heights.astype(np.float64)
    return (h[j, i] * (1 - fu) * (1 - fv) + h[j, i + 1] * fu * (1 - fv)
            + h[j + 1, i] * (1 - fu) * fv + h[j + 1, i + 1] * fu * fv)


def reference_slope(t: Terrain, x: float, z: float, eps: float = 1e-4) -> float:
    """Slope from finite differences of the reference height, staying inside the cell."""
    u = (x - t.origin[0]) / t.spacing
    v = (z - t.origin[1]) / t.spacing
    sx = -1 if u - math.floor(u) > 0.5 or u >= t.columns - 1 else 1
    sz = -1 if v - math.floor(v) > 0.5 or v >= t.rows - 1 else 1
    h = reference_height(t, x, z)
    dhdx = (reference_height(t, x + sx * eps, z) - h) / (sx * eps)
    dhdz = (reference_height(t, x, z + sz * eps) - h) / (sz * eps)
    return math.degrees(math.atan(math.hypot(dhdx, dhdz)))


coords = st.tuples(st.floats(-15.0, 25.0), st.floats(0.0, 30.0))


@settings(max_examples=200, deadline=None)
@given(st.lists(coords, min_size=1, max_size=20))
def test_height_at_matches_the_plain_loop_reference(points) -> None:
    t = grid()
    xs = np.array([p[0] for p in points])
    zs = np.array([p[1] for p in points])
    got = t.height_at(xs, zs)
    want = np.array([reference_height(t, x, z) for x, z in points])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-12, atol=1e-9)
    assert np.array_equal(t.contains(xs, zs), ok)


@settings(max_examples=100, deadline=None)
@given(st.floats(-9.9, 17.4), st.floats(4.1, 23.9))
def test_slope_matches_finite_differences(x: float, z: float) -> None:
    t = grid()
    assert t.slope_at(x, z) == pytest.approx(reference_slope(t, x, z), abs=0.05)


def test_heights_at_grid_points_are_exact_and_off_grid_is_nan() -> None:
    t = grid()
    xs = t.origin[0] + np.arange(t.columns) * t.spacing
    zs = np.full_like(xs, t.origin[1] + 3 * t.spacing)
    np.testing.assert_array_equal(t.height_at(xs, zs).astype(np.float32), t.heights[3])
    assert np.isnan(t.height_at(t.origin[0] - 0.01, t.origin[1]))
    assert np.isnan(t.height_at(np.nan, 5.0))
    assert np.isnan(t.slope_at(1000.0, 1000.0))


def test_flat_and_tilted_planes_have_known_normals_and_slopes() -> None:
    flat = Terrain(np.full((4, 4), 7.0, np.float32), spacing=1.0)
    np.testing.assert_allclose(flat.normal_at(1.3, 1.7), [0.0, 1.0, 0.0])
    assert flat.slope_at(1.3, 1.7) == pytest.approx(0.0)
    ramp = Terrain(np.tile(np.arange(5, dtype=np.float32), (5, 1)), spacing=1.0)  # rises 1 per metre in X
    assert ramp.slope_at(2.2, 2.2) == pytest.approx(45.0)
    n = ramp.normal_at(2.2, 2.2)
    np.testing.assert_allclose(n, [-math.sqrt(0.5), math.sqrt(0.5), 0.0])


def test_layer_weight_is_found_by_name_and_interpolated() -> None:
    t = grid()
    w = t.layers[0].weights
    x = t.origin[0] + 2.5 * t.spacing
    z = t.origin[1] + 1.0 * t.spacing
    want = (float(w[1, 2]) + float(w[1, 3])) / 2 / 255
    assert t.layer_weight_at("grass", x, z) == pytest.approx(want)
    assert t.layer_weight_at("missing", x, z) is None
    assert t.layer_weight_at("grass", -1000.0, 0.0) == 0.0


def test_add_layer_checks_name_and_shape_and_announces_change() -> None:
    t = grid()
    calls = []
    t.layers_changed.connect(lambda: calls.append("changed"))
    layer = t.add_layer("rock", (1, 2, 3))
    assert layer.weights.shape == t.heights.shape and not layer.weights.any()
    assert calls == ["changed"] and t.layer_index("rock") == 1
    with pytest.raises(ValueError, match="already exists"):
        t.add_layer("rock", (0, 0, 0))
    with pytest.raises(ValueError, match="match"):
        t.add_layer("sand", (0, 0, 0), np.zeros((2, 2), np.uint8))


def test_bad_grids_are_refused() -> None:
    with pytest.raises(ValueError):
        Terrain(np.zeros((1, 5)))
    with pytest.raises(ValueError):
        Terrain(np.zeros((3, 3)), spacing=0.0)


def test_size_and_bounds() -> None:
    t = grid()
    assert t.size == (27.5, 20.0)
    assert t.bounds() == (-10.0, 4.0, 17.5, 24.0)
