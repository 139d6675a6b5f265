"""Sculpt and layer-paint stamps: touch only the brush, agree with plain loops, undo exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.brush import Brush, FalloffCurve
from model.sculpt import (
    HEIGHTS,
    TILE,
    TerrainStroke,
    apply_patch,
    brush_window,
    flatten,
    noise,
    paint_layer,
    raise_lower,
    smooth,
    smooth_radius_cells,
    value_noise,
)
from model.terrain import Terrain


def bumpy(rows: int = 80, cols: int = 96, spacing: float = 2.0, seed: int = 3) -> Terrain:
    rng = np.random.default_rng(seed)
    heights = rng.normal(0.0, 3.0, (rows, cols)).astype(np.float32)
    t = Terrain(heights, spacing=spacing, origin=(-10.0, 5.0))
    t.add_layer("grass", (40, 160, 40))
    t.add_layer("rock", (120, 120, 120), rng.integers(0, 256, (rows, cols)).astype(np.uint8))
    return t


# ---- plain-loop references ------------------------------------------------------------------
def ref_influence(t: Terrain, brush: Brush, x: float, z: float) -> np.ndarray:
    """Influence at every grid point of the whole terrain, one point at a time."""
    out = np.zeros(t.heights.shape)
    for r in range(t.rows):
        for c in range(t.columns):
            gx = t.origin[0] + c * t.spacing
            gz = t.origin[1] + r * t.spacing
            d = math.hypot(gx - x, gz - z)
            if d <= brush.radius:
                out[r, c] = float(brush.influence(d))
    return out


def ref_box_blur(h: np.ndarray, k: int, r: int, c: int) -> float:
    """Mean of the (2k+1)² neighbourhood with indices clamped at the edges."""
    total = 0.0
    for dr in range(-k, k + 1):
        for dc in range(-k, k + 1):
            rr = min(max(r + dr, 0), h.shape[0] - 1)
            cc = min(max(c + dc, 0), h.shape[1] - 1)
            total += float(h[rr, cc])
    return total / (2 * k + 1) ** 2


def full(t: Terrain, patch, base: np.ndarray) -> np.ndarray:
    out = base.copy()
    out[patch.rows, patch.cols] = patch.new
    return out


# ---- the window ---------------------------------------------------------------------------
def test_window_covers_exactly_the_points_within_the_radius() -> None:
    t = bumpy()
    rows, cols = brush_window(t, 30.3, 60.7, 9.0)
    gx = t.origin[0] + np.arange(t.columns) * t.spacing
    gz = t.origin[1] + np.arange(t.rows) * t.spacing
    inside = np.hypot(gx[None, :] - 30.3, gz[:, None] - 60.7) <= 9.0
    r_idx, c_idx = np.nonzero(inside)
    assert (rows.start, rows.stop) == (r_idx.min(), r_idx.max() + 1)
    assert (cols.start, cols.stop) == (c_idx.min(), c_idx.max() + 1)


def test_window_is_clipped_at_the_edge_and_none_off_the_terrain() -> None:
    t = bumpy()
    rows, cols = brush_window(t, t.origin[0], t.origin[1], 5.0)
    assert rows.start == 0 and cols.start == 0
    assert brush_window(t, -500.0, -500.0, 5.0) is None
    assert brush_window(t, float("nan"), 0.0, 5.0) is None
    assert raise_lower(t, Brush(), -500.0, -500.0) is None


def test_window_size_follows_the_brush_not_the_terrain() -> None:
    small = Terrain(np.zeros((64, 64), np.float32))
    big = Terrain(np.zeros((2048, 2048), np.float32))
    brush = Brush(radius=6.0)
    a = raise_lower(small, brush, 30.0, 30.0)
    b = raise_lower(big, brush, 1000.0, 1000.0)
    assert a.new.shape == b.new.shape == (13, 13)


# ---- kernels vs references ----------------------------------------------------------------
@pytest.mark.parametrize("curve", list(FalloffCurve))
def test_raise_matches_the_reference_and_changes_nothing_outside(curve) -> None:
    t = bumpy()
    brush = Brush(radius=11.0, strength=0.7, falloff=0.6, curve=curve)
    before = t.heights.copy()
    patch = raise_lower(t, brush, 40.0, 70.0, amount=2.5)
    assert np.array_equal(t.heights, before)  # a kernel computes; it does not write
    infl = ref_influence(t, brush, 40.0, 70.0)
    expected = (before.astype(np.float64) + 2.5 * infl).astype(np.float32)
    np.testing.assert_array_equal(full(t, patch, before), expected)
    changed = full(t, patch, before) != before
    assert not changed[infl == 0].any()
    assert changed[infl > 0.01].all()


def test_lower_is_a_negative_raise() -> None:
    t = bumpy()
    brush = Brush(radius=6.0, strength=1.0, falloff=0.0)
    patch = raise_lower(t, brush, 40.0, 70.0, amount=-1.5)
    np.testing.assert_allclose(patch.new - patch.old, -1.5 * (patch.new != patch.old), atol=1e-5)
    assert (patch.new <= patch.old).all() and (patch.new < patch.old).any()


def test_flatten_pulls_toward_the_target_without_overshooting() -> None:
    t = bumpy()
    brush = Brush(radius=12.0, strength=0.6, falloff=0.5)
    target = float(t.height_at(40.0, 70.0))
    before = t.heights.copy()
    patch = flatten(t, brush, 40.0, 70.0, target)
    infl = ref_influence(t, brush, 40.0, 70.0)
    h = before.astype(np.float64)
    expected = (h + infl * (target - h)).astype(np.float32)
    np.testing.assert_array_equal(full(t, patch, before), expected)
    dist_before = np.abs(patch.old.astype(np.float64) - target)
    dist_after = np.abs(patch.new.astype(np.float64) - target)
    assert (dist_after <= dist_before + 1e-5).all()


def test_full_strength_flatten_with_a_hard_brush_is_level() -> None:
    t = bumpy()
    patch = flatten(t, Brush(radius=5.0, strength=1.0, falloff=0.0), 40.0, 70.0, 12.25)
    assert set(np.unique(patch.new[patch.new != patch.old])) == {np.float32(12.25)}


@pytest.mark.parametrize("radius", [5.0, 40.0])
def test_smooth_matches_a_clamped_box_blur_reference(radius: float) -> None:
    t = bumpy(rows=50, cols=60)
    brush = Brush(radius=radius, strength=0.8, falloff=0.3)
    k = smooth_radius_cells(t, brush)
    for x, z in [(20.0, 40.0), (t.origin[0], t.origin[1])]:  # inside, and at a corner
        before = t.heights.copy()
        patch = smooth(t, brush, x, z)
        infl = ref_influence(t, brush, x, z)
        expected = before.astype(np.float64).copy()
        for r, c in zip(*np.nonzero(infl), strict=True):
            b = ref_box_blur(before, k, r, c)
            expected[r, c] = before[r, c] + infl[r, c] * (b - float(before[r, c]))
        np.testing.assert_allclose(full(t, patch, before), expected.astype(np.float32), rtol=0, atol=2e-6)


def test_smooth_reduces_roughness() -> None:
    t = bumpy()
    patch = smooth(t, Brush(radius=20.0, strength=1.0, falloff=0.2), 40.0, 70.0)
    rough = lambda a: float(np.abs(np.diff(a, axis=0)).mean() + np.abs(np.diff(a, axis=1)).mean())  # noqa: E731
    assert rough(patch.new) < 0.6 * rough(patch.old)


def test_noise_is_seeded_and_tied_to_world_position() -> None:
    t = bumpy()
    brush = Brush(radius=10.0, strength=1.0, falloff=0.0)
    a = noise(t, brush, 40.0, 70.0, seed=7, amount=2.0)
    b = noise(t, brush, 40.0, 70.0, seed=7, amount=2.0)
    c = noise(t, brush, 40.0, 70.0, seed=8, amount=2.0)
    assert np.array_equal(a.new, b.new) and not np.array_equal(a.new, c.new)
    # A stamp centred elsewhere adds the same bumps where the two overlap.
    d = noise(t, brush, 46.0, 72.0, seed=7, amount=2.0)
    da = full(t, a, t.heights) - t.heights
    dd = full(t, d, t.heights) - t.heights
    both = (da != 0) & (dd != 0)
    assert both.sum() > 20
    np.testing.assert_allclose(da[both], dd[both], atol=1e-5)
    assert np.abs(da).max() <= 2.0 + 1e-5 and np.abs(da).max() > 0.3


def test_value_noise_reference_and_range() -> None:
    u = np.linspace(-3.3, 5.1, 37)[None, :]
    v = np.linspace(-2.0, 4.0, 29)[:, None]
    n = value_noise(u, v, 11)
    assert n.shape == (29, 37) and np.abs(n).max() <= 1.0
    # At lattice points the noise equals the hashed corner value, independent of neighbours.
    at_lattice = value_noise(np.array([2.0, 3.0]), np.array([-1.0, -1.0]), 11)
    again = value_noise(np.array([3.0]), np.array([-1.0]), 11)
    assert at_lattice[1] == again[0]


def test_paint_and_erase_match_the_reference_and_clip() -> None:
    t = bumpy()
    brush = Brush(radius=9.0, strength=0.5, falloff=0.5)
    rock = t.layer("rock").weights.copy()
    patch = paint_layer(t, "rock", brush, 40.0, 70.0)
    infl = ref_influence(t, brush, 40.0, 70.0)
    expected = np.clip(rock + np.rint(infl * 255), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(full(t, patch, rock), expected)
    erased = paint_layer(t, "rock", brush, 40.0, 70.0, erase=True)
    expected = np.clip(rock - np.rint(infl * 255), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(full(t, erased, rock), expected)
    with pytest.raises(KeyError, match="moss"):
        paint_layer(t, "moss", brush, 40.0, 70.0)


def test_apply_patch_writes_and_announces_the_window() -> None:
    t = bumpy()
    seen = []
    t.heights_changed.connect(lambda rows, cols: seen.append(("h", rows, cols)))
    t.layer_weights_changed.connect(lambda i, rows, cols: seen.append((i, rows, cols)))
    patch = raise_lower(t, Brush(radius=4.0), 40.0, 70.0)
    apply_patch(t, HEIGHTS, patch)
    np.testing.assert_array_equal(t.heights[patch.rows, patch.cols], patch.new)
    apply_patch(t, HEIGHTS, patch, undo=True)
    np.testing.assert_array_equal(t.heights[patch.rows, patch.cols], patch.old)
    paint = paint_layer(t, "rock", Brush(radius=4.0), 40.0, 70.0)
    apply_patch(t, "rock", paint)
    assert seen == [("h", patch.rows, patch.cols)] * 2 + [(1, paint.rows, paint.cols)]


# ---- strokes --------------------------------------------------------------------------------
def drag(stroke: TerrainStroke, kernel, points, **kw) -> None:
    for x, z in points:
        stroke.apply(kernel(stroke.terrain, Brush(radius=8.0, strength=0.6), x, z, **kw))
    stroke.finish()


def test_a_stroke_undoes_and_redoes_bit_for_bit() -> None:
    t = Terrain(np.random.default_rng(1).normal(0, 1, (300, 300)).astype(np.float32))
    before = t.heights.copy()
    stroke = TerrainStroke(t)
    drag(stroke, raise_lower, [(50 + 3 * i, 60 + 2 * i) for i in range(20)])
    after = t.heights.copy()
    assert not np.array_equal(before, after)
    stroke.undo()
    assert t.heights.tobytes() == before.tobytes()
    stroke.redo()
    assert t.heights.tobytes() == after.tobytes()


def test_a_stroke_stores_only_the_tiles_it_touched() -> None:
    t = Terrain(np.zeros((1024, 1024), np.float32))
    stroke = TerrainStroke(t)
    drag(stroke, raise_lower, [(100 + i, 100) for i in range(10)])
    assert stroke.tiles.tile_count <= 4
    assert stroke.tiles.nbytes <= 2 * 4 * TILE * TILE * 4
    rows, cols = stroke.touched
    assert rows.stop - rows.start <= 17 and cols.stop - cols.start <= 27


def test_a_layer_stroke_restores_weights_and_announces_tiles() -> None:
    t = bumpy(rows=150, cols=150)
    seen = []
    t.layer_weights_changed.connect(lambda i, rows, cols: seen.append((i, rows, cols)))
    before = t.layer("rock").weights.copy()
    stroke = TerrainStroke(t, "rock")
    for x, z in [(60.0, 80.0), (70.0, 90.0)]:
        stroke.apply(paint_layer(t, "rock", Brush(radius=8.0), x, z))
    stroke.finish()
    assert len(seen) == 2
    seen.clear()
    stroke.undo()
    assert np.array_equal(t.layer("rock").weights, before)
    assert seen and all(i == 1 for i, _, _ in seen)
    assert np.array_equal(t.layer("grass").weights, np.zeros_like(before))


def stamp(t: Terrain, kind: str, brush: Brush, x: float, z: float, i: int):
    if kind == "raise":
        return raise_lower(t, brush, x, z)
    if kind == "smooth":
        return smooth(t, brush, x, z)
    if kind == "flatten":
        return flatten(t, brush, x, z, 1.0)
    if kind == "noise":
        return noise(t, brush, x, z, seed=i)
    return paint_layer(t, "grass", brush, x, z)


@settings(max_examples=40, deadline=None)
@given(points=st.lists(st.tuples(st.floats(-30, 230), st.floats(-30, 230)), min_size=1, max_size=8),
       kind=st.sampled_from(["raise", "smooth", "flatten", "noise", "paint"]),
       radius=st.floats(1.0, 40.0), strength=st.floats(0.01, 1.0))
def test_any_stroke_undoes_exactly(points, kind, radius, strength) -> None:
    t = bumpy(rows=100, cols=100)
    brush = Brush(radius=radius, strength=strength)
    target = "grass" if kind == "paint" else HEIGHTS
    heights, grass = t.heights.copy(), t.layer("grass").weights.copy()
    stroke = TerrainStroke(t, target)
    for i, (x, z) in enumerate(points):
        stroke.apply(stamp(t, kind, brush, x, z, i))
    after_h, after_g = t.heights.copy(), t.layer("grass").weights.copy()
    stroke.undo()
    assert t.heights.tobytes() == heights.tobytes()
    assert t.layer("grass").weights.tobytes() == grass.tobytes()
    stroke.redo()
    assert t.heights.tobytes() == after_h.tobytes()
    assert t.layer("grass").weights.tobytes() == after_g.tobytes()
