"""Evaluator: boundaries, feathers, filters, affectors, sub-layers, inverts, against hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from model.trn import build, shapes
from model.trn.evaluator import Cancelled, Region, evaluate, explain, pole_random, sample
from model.trn.multifractal import Multifractal
from tests.model.trn.helpers import (
    circle,
    doc_of,
    env,
    flora,
    fractal,
    grid,
    height_const,
    radial,
    rect,
    shader,
)

FEATHERS = {0: lambda t: t, 1: lambda t: t * t, 2: math.sqrt, 3: lambda t: 3 * t * t - 2 * t ** 3}


def at(ev, x, z):
    r = ev.region
    return round(x / r.spacing) - r.ix0, round(z / r.spacing) - r.iz0


def h_at(ev, x, z):
    c, r = at(ev, x, z)
    return float(ev.heights[r, c])


# ---- boundaries ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [0, 1, 2, 3])
def test_circle_feather_functions(fn):
    doc = doc_of([build.layer("c", [circle(0, 0, 10, fn, 0.5), height_const(100)])])
    ev = grid(doc, -12, 0, 12, 0)
    ri2, r2 = 25.0, 100.0
    for d in range(0, 12):
        raw = 1.0 if d * d <= ri2 else max(0.0, 1 - (d * d - ri2) / (r2 - ri2)) if d <= 10 else 0.0
        assert h_at(ev, d, 0) == pytest.approx(100 * FEATHERS[fn](raw), abs=1e-4), d
        assert h_at(ev, -d, 0) == h_at(ev, d, 0)


def test_rectangle_band():
    # 40 x 200 rectangle, f = 0.5 → band = ½·40·0.5 = 10 m
    doc = doc_of([build.layer("r", [rect(0, -100, 40, 100, 0, 0.5), height_const(10)])])
    ev = grid(doc, -5, 0, 45, 0)
    for x, expect in [(-1, 0), (0, 0), (1, 1), (5, 5), (10, 10), (20, 10), (35, 5), (40, 0), (41, 0)]:
        assert h_at(ev, x, 0) == pytest.approx(expect, abs=1e-5), x


def test_rectangle_without_feather_and_swapped_corners():
    doc = doc_of([build.layer("r", [rect(10, 10, -10, -10), height_const(3)])])
    ev = grid(doc, -12, -12, 12, 12)
    inside = (np.abs(ev.region.coords()[0]) <= 10) & (np.abs(ev.region.coords()[1]) <= 10)
    np.testing.assert_array_equal(ev.heights.ravel(), np.where(inside, 3.0, 0.0))


def test_polygon_even_odd_and_feather_distance():
    # a square with a square "hole" drawn as one self-overlapping outline: even-odd leaves the hole out
    pts = [(0, 0), (30, 0), (30, 30), (0, 30), (0, 0), (10, 10), (20, 10), (20, 20), (10, 20), (10, 10)]
    item = build.item("BPOL", "0005", points=pts, featherFn=0, featherDistance=0.0, localWater=0,
                      waterHeight=0.0, waterShaderSize=1.0, waterShader="")
    doc = doc_of([build.layer("p", [item, height_const(1)])])
    ev = grid(doc, -2, -2, 32, 32)
    assert h_at(ev, 5, 5) == 1 and h_at(ev, 15, 15) == 0 and h_at(ev, 25, 15) == 1 and h_at(ev, 31, 5) == 0
    # a triangle with a 4 m feather: amount = min(distance to outline, 4)/4
    tri = [(0, 0), (40, 0), (0, 40)]
    item = build.item("BPOL", "0007", points=tri, featherFn=0, featherDistance=4.0, localWater=0,
                      waterHeight=0.0, waterShaderSize=1.0, waterType=0, waterShader="")
    ev = grid(doc_of([build.layer("p", [item, height_const(8)])]), 0, 0, 20, 20)
    assert h_at(ev, 1, 10) == pytest.approx(2.0)
    assert h_at(ev, 2, 10) == pytest.approx(4.0)
    assert h_at(ev, 10, 10) == pytest.approx(8.0)


def test_polyline_width_and_feather():
    item = build.item("BPLN", "0003", points=[(0, 0), (100, 0)], featherFn=0, feather=0.5, width=8.0)
    ev = grid(doc_of([build.layer("l", [item, height_const(10)])]), 50, -10, 50, 10)
    for z, expect in [(0, 10), (4, 10), (5, 7.5), (6, 5), (7, 2.5), (8, 0), (9, 0)]:
        assert h_at(ev, 50, z) == pytest.approx(expect), z
        assert h_at(ev, 50, -z) == pytest.approx(expect), z


def _loop_circle(x, z, cx, cz, r, f):
    ri = r * (1 - f)
    d2 = (x - cx) ** 2 + (z - cz) ** 2
    if d2 <= ri * ri:
        return 1.0
    if d2 > r * r:
        return 0.0
    return 1 - (d2 - ri * ri) / (r * r - ri * ri)


def _loop_inside(x, z, pts):
    inside = False
    j = len(pts) - 1
    for i in range(len(pts)):
        (xi, zi), (xj, zj) = pts[i], pts[j]
        if (zi > z) != (zj > z) and x < (xj - xi) * (z - zi) / (zj - zi) + xi:
            inside = not inside
        j = i
    return inside


def _loop_seg_dist(x, z, pts):
    best = math.inf
    for (ax, az), (bx, bz) in zip(pts[:-1], pts[1:], strict=True):
        dx, dz = bx - ax, bz - az
        t = max(0.0, min(1.0, ((x - ax) * dx + (z - az) * dz) / (dx * dx + dz * dz)))
        best = min(best, math.hypot(x - ax - t * dx, z - az - t * dz))
    return best


def test_vectorised_shapes_agree_with_plain_loops():
    rng = np.random.default_rng(11)
    x, z = rng.uniform(-60, 60, 2000), rng.uniform(-60, 60, 2000)
    pts = [tuple(p) for p in rng.uniform(-50, 50, (7, 2))]
    circ = shapes.circle(x, z, 3.0, -4.0, 40.0, 0.3)
    poly = shapes.polygon(x, z, pts, 6.0)
    line = shapes.polyline(x, z, pts, 9.0, 0.4)
    for i in range(x.size):
        assert circ[i] == pytest.approx(_loop_circle(x[i], z[i], 3.0, -4.0, 40.0, 0.3), abs=1e-12)
        inside = _loop_inside(x[i], z[i], pts)
        d_out = _loop_seg_dist(x[i], z[i], pts + [pts[0]])
        assert poly[i] == pytest.approx(min(d_out, 6.0) / 6.0 if inside else 0.0, abs=1e-12)
        d = _loop_seg_dist(x[i], z[i], pts)
        inner = 9.0 * 0.6
        expect = 0.0 if d >= 9 else 1.0 if d <= inner else 1 - (d - inner) / (9 - inner)
        assert line[i] == pytest.approx(expect, abs=1e-12)


def test_boundaries_combine_by_max():
    doc = doc_of([build.layer("two", [circle(0, 0, 10, 0, 1.0), circle(4, 0, 10, 0, 1.0), height_const(1)])])
    ev = grid(doc, -12, 0, 16, 0)
    for x in range(-12, 17):
        expect = max(_loop_circle(x, 0, 0, 0, 10, 1.0), _loop_circle(x, 0, 4, 0, 10, 1.0))
        assert h_at(ev, x, 0) == pytest.approx(expect, abs=1e-6)


# ---- filters -------------------------------------------------------------------------------
def _ramp_layer():
    """Heights rise 0 → 100 over x = 0 … 20 (a rectangle whose 20 m band ramps linearly)."""
    return build.layer("ramp", [rect(0, -1000, 1000, 1000, 0, 0.04), height_const(100)])


def test_height_filter_band():
    # after the ramp, h = 5x on 0..20; filter 20 < h < 80 with f = 0.5 → ramps over 15 m of height
    f = build.item("FHGT", "0002", low=20.0, high=80.0, featherFn=0, feather=0.5)
    doc = doc_of([_ramp_layer(), build.layer("mark", [f, height_const(1000, op=1)])])
    ev = grid(doc, 0, 0, 25, 0)
    for x in range(0, 26):
        h = min(5.0 * x, 100.0)
        a = 0.0 if not 20 < h < 80 else min(h - 20, 80 - h, 15) / 15
        assert h_at(ev, x, 0) == pytest.approx(h + 1000 * a, abs=1e-3), x


def test_slope_and_direction_filters():
    # slope of the ramp: dh/dx = 5 → normal y = 1/√26, angle 78.7°; flat elsewhere
    slope = build.item("FSLP", "0002", minAngle=60.0, maxAngle=85.0, featherFn=0, feather=0.0)
    direction = build.item("FDIR", "0000", minAngle=80.0, maxAngle=97.5, featherFn=0, feather=0.0)
    doc = doc_of([_ramp_layer(), build.layer("steep", [slope, height_const(1000, op=1)])])
    ev = grid(doc, -5, 0, 30, 0)
    assert h_at(ev, 10, 0) == pytest.approx(1050.0) and h_at(ev, 25, 0) == pytest.approx(100.0)
    assert h_at(ev, -3, 0) == 0.0
    # normal (−5, 1, 0)/√26 → atan2(nx, nz)/2π + 0.5 = 0.25, i.e. 90° lies in (80°, 97.5°)
    doc = doc_of([_ramp_layer(), build.layer("facing", [direction, height_const(1000, op=1)])])
    ev = grid(doc, -5, 0, 30, 0)
    assert h_at(ev, 10, 0) == pytest.approx(1050.0) and h_at(ev, 25, 0) == pytest.approx(100.0)


def test_fractal_filter_and_height_fractal():
    fr = fractal(4, octaves=2, scaleX=0.05, scaleY=0.05)
    ffra = build.item("FFRA", "0005", fractalFamily=4, featherFn=0, feather=0.0, low=1.0, high=2.0,
                      scaleY=2.0)
    ahfr = build.item("AHFR", "0003", fractalFamily=4, operation=0, scaleY=30.0)
    doc = doc_of([build.layer("f", [ffra, height_const(1)]), build.layer("g", [ahfr])], fractals=[fr])
    ev = grid(doc, -40, -40, 40, 40, 2.0)
    xs, zs = ev.region.coords()
    v = Multifractal.from_values(fr[1]).value(xs, zs).astype(np.float64)
    np.testing.assert_allclose(ev.heights.ravel(), (v * 30.0).astype(np.float32), rtol=1e-6)
    doc = doc_of([build.layer("f", [ffra, height_const(1)])], fractals=[fr])
    ev = grid(doc, -40, -40, 40, 40, 2.0)
    np.testing.assert_array_equal(ev.heights.ravel(), ((2 * v > 1.0) & (2 * v < 2.0)).astype(np.float32))
    assert 0 < ev.heights.mean() < 1


def test_shader_filter_and_bitmap_filter():
    doc = doc_of([build.layer("paint", [circle(0, 0, 5), build.item("ASCN", "0001", shaderFamily=7,
                                                                    useFeatherClampOverride=0,
                                                                    featherClampOverride=0.0)]),
                  build.layer("on7", [build.item("FSHD", "0000", shaderFamily=7), height_const(2)])],
                 shaders=[shader(7)])
    ev = grid(doc, -8, 0, 8, 0)
    assert h_at(ev, 0, 0) == 2 and h_at(ev, 5, 0) == 2 and h_at(ev, 6, 0) == 0
    fbit = build.item("FBIT", "0001", bitmapFamily=2, featherFn=0, feather=0.0, low=0.5, high=2.0, gain=0.0)
    doc = doc_of([build.layer("b", [fbit, height_const(1)])],
                 bitmaps=[{"id": 2, "name": "mask", "bitmapFile": "mask.tga"}])
    missing = grid(doc, -4, 0, 4, 0)
    assert np.all(missing.heights == 1) and "not available" in missing.warnings[0]
    half = np.zeros((2, 2))
    half[:, 1] = 1.0
    # no boundary: the image spans the whole 4096 m map, pixel i at x = −2048 + 2048·i, bilinear between;
    # the amount is band × value: −1600 → 0.22 (below low), −512 → 0.75, 100 → 1 kept below 1
    ev = grid(doc, -1600, 0, 100, 0, 4.0, bitmaps={2: half})
    assert h_at(ev, -1600, 0) == 0
    assert h_at(ev, -512, 0) == pytest.approx(0.75)
    assert h_at(ev, 100, 0) == pytest.approx(0.99999, abs=1e-6)


def test_bitmap_filter_spans_the_layer_boundaries_and_adds_gain():
    img = np.array([[0.0, 1.0], [0.0, 1.0]])
    fbit = build.item("FBIT", "0001", bitmapFamily=2, featherFn=0, feather=0.0, low=0.0, high=1.0, gain=0.25)
    doc = doc_of([build.layer("b", [rect(0, 0, 100, 100), fbit, height_const(10)])],
                 bitmaps=[{"id": 2, "name": "mask", "bitmapFile": "mask.tga"}])
    ev = grid(doc, 0, 50, 100, 50, 25.0, bitmaps={2: img})
    # x over the rectangle's 100 m: sample 2·x/100, value + 0.25, below 1: 0.25, 0.75, 0.99999 …
    assert [h_at(ev, x, 50) for x in (0, 25, 50, 75)] == pytest.approx([2.5, 7.5, 9.9999, 9.9999], abs=1e-4)


def test_direction_filter_reads_degrees_and_filter_feathers_clamp_to_one():
    # ramp normal faces −x: 90°; a window 80°–100° with feather 5 (clamped to 1) ramps over 10° each side
    wide = build.item("FDIR", "0000", minAngle=80.0, maxAngle=100.0, featherFn=0, feather=5.0)
    doc = doc_of([_ramp_layer(), build.layer("facing", [wide, height_const(1000, op=1)])])
    ev = grid(doc, 10, 0, 10, 0)
    assert h_at(ev, 10, 0) == pytest.approx(50.0 + 1000.0)
    narrow = build.item("FDIR", "0000", minAngle=80.0, maxAngle=88.0, featherFn=0, feather=0.0)
    doc = doc_of([_ramp_layer(), build.layer("facing", [narrow, height_const(1000, op=1)])])
    assert h_at(grid(doc, 10, 0, 10, 0), 10, 0) == pytest.approx(50.0)


def test_filters_combine_by_min_and_invert_flags():
    lay = build.layer("band", [_ramp_layer_items := rect(0, -1000, 1000, 1000, 0, 0.04), height_const(100)])
    f1 = build.item("FHGT", "0002", low=10.0, high=90.0, featherFn=0, feather=0.0)
    f2 = build.item("FHGT", "0002", low=40.0, high=200.0, featherFn=0, feather=0.0)
    doc = doc_of([lay, build.layer("both", [f1, f2, height_const(1000, op=1)])])
    ev = grid(doc, 0, 0, 20, 0)
    assert [h_at(ev, x, 0) >= 1000 for x in (4, 9, 12, 17, 19)] == [False, True, True, True, False]
    doc = doc_of([lay, build.layer("inv", [f1, f2, height_const(1000, op=1)], invert_filters=True)])
    ev = grid(doc, 0, 0, 20, 0)
    assert [h_at(ev, x, 0) >= 1000 for x in (4, 9, 12, 17, 19)] == [True, False, False, False, True]
    doc = doc_of([build.layer("out", [circle(0, 0, 5), height_const(3)], invert_boundaries=True)])
    ev = grid(doc, -8, 0, 8, 0)
    assert h_at(ev, 0, 0) == 0 and h_at(ev, 6, 0) == 3 and h_at(ev, -8, 0) == 3
    assert _ramp_layer_items is not None


# ---- affectors -----------------------------------------------------------------------------
@pytest.mark.parametrize("op,expect", [(0, 5 + 0.5 * (8 - 5)), (1, 5 + 0.5 * 8), (2, 5 - 0.5 * 8),
                                       (3, 5 + 0.5 * (5 * 8 - 5))])
def test_height_operations_at_half_amount(op, expect):
    # rectangle 0..100 with band 40: x = 20 has amount exactly 0.5
    doc = doc_of([build.layer("base", [height_const(5)]),
                  build.layer("half", [rect(0, -1000, 100, 1000, 0, 0.8), height_const(8, op=op)])])
    ev = grid(doc, 20, 0, 20, 0)
    assert h_at(ev, 20, 0) == pytest.approx(expect)


def test_sub_layer_parent_amounts():
    child = build.layer("child", [rect(0, -1000, 100, 1000, 0, 0.8), height_const(8, op=1)])
    parent = build.layer("parent", [rect(-100, -1000, 40, 1000, 0, 1.0), height_const(1, op=1), child])
    # parent band = ½·140·1 = 70: at x = 20 parent amount = 20/70; child amount 0.5
    ev = grid(doc_of([parent]), 20, 0, 20, 0)
    pa = 20 / 70
    assert h_at(ev, 20, 0) == pytest.approx(pa * 1 + pa * 0.5 * 8, abs=1e-6)


def test_inactive_items_are_skipped():
    doc = doc_of([build.layer("a", [circle(0, 0, 2, active=False), height_const(4),
                                    height_const(100, op=1, active=False)]),
                  build.layer("off", [height_const(50, op=1)], active=False)])
    ev = grid(doc, -5, 0, 5, 0)
    assert np.all(ev.heights == 4)


def test_terrace():
    doc = doc_of([build.layer("base", [rect(0, -1000, 1000, 1000, 0, 0.02), height_const(100)]),
                  build.layer("t", [build.item("AHTR", "0004", flatRatio=0.5, height=10.0)])])
    ev = grid(doc, 0, 0, 10, 0)
    # h = 10x over 0..10; terraces of 10 m: flat for the lower half of each step, then ramps
    for x, expect in [(0, 0), (1, 10), (2, 20)]:
        assert h_at(ev, x, 0) == pytest.approx(expect)
    doc = doc_of([build.layer("base", [height_const(14)]),
                  build.layer("t", [build.item("AHTR", "0004", flatRatio=0.5, height=10.0)])])
    assert h_at(grid(doc, 0, 0, 0, 0), 0, 0) == pytest.approx(10.0)
    doc = doc_of([build.layer("base", [height_const(17.5)]),
                  build.layer("t", [build.item("AHTR", "0004", flatRatio=0.5, height=10.0)])])
    assert h_at(grid(doc, 0, 0, 0, 0), 0, 0) == pytest.approx(15.0)


def test_colour_shader_environment_exclude_passable():
    items = [rect(0, -1000, 100, 1000, 0, 0.8),
             build.item("ACCN", "0000", operation=0, color=(255, 0, 0)),
             build.item("ASCN", "0001", shaderFamily=3, useFeatherClampOverride=0, featherClampOverride=0.0),
             build.item("AENV", "0000", environmentFamily=9, useOverride=1, override=0.9),
             build.item("AEXC", "0000"),
             build.item("APAS", "0000", passable=False, threshold=0.9)]
    doc = doc_of([build.layer("l", items)], shaders=[shader(3, clamp=0.5)], envs=[env(9)])
    ev = grid(doc, 10, 0, 50, 0, 10.0)
    c, r = at(ev, 10, 0)  # amount 0.25
    np.testing.assert_allclose(ev.color[r, c], [1.0, 0.75, 0.75])
    assert ev.shader[r, c] == -1 and ev.environment[r, c] == -1 and ev.exclude[r, c] and ev.passable[r, c]
    c, r = at(ev, 30, 0)  # amount 0.75 → past the family's feather clamp, short of the overrides
    assert ev.shader[r, c] == 3 and ev.shader_child[r, c] == 0 and ev.passable[r, c]
    assert ev.environment[r, c] == -1
    c, r = at(ev, 50, 0)  # amount 1
    assert ev.environment[r, c] == 9 and not ev.passable[r, c]
    np.testing.assert_allclose(ev.color[r, c], [1.0, 0.0, 0.0])


def test_shader_replace():
    doc = doc_of([build.layer("a", [circle(0, 0, 5), build.item("ASCN", "0001", shaderFamily=1,
                                                                useFeatherClampOverride=0,
                                                                featherClampOverride=0.0)]),
                  build.layer("b", [rect(0, -10, 10, 10), build.item("ASRP", "0001", sourceFamily=1,
                                                                      destinationFamily=2, useOverride=0,
                                                                      override=0.0)])],
                 shaders=[shader(1), shader(2)])
    ev = grid(doc, -8, 0, 8, 0)
    row = ev.shader[0]
    xs = np.arange(-8, 9)
    expect = np.where(np.abs(xs) <= 5, np.where(xs >= 0, 2, 1), -1)
    np.testing.assert_array_equal(row, expect)


def _flora(tag, version, fid, op=1, remove_all=0, override=0, density=0.0):
    return build.item(tag, version, floraFamily=fid, operation=op, removeAll=remove_all,
                      densityOverride=override, density=density)


def test_flora_density_children_and_removal():
    fam = flora(5, density=1.0, children=(("a.apt", 1.0), ("b.apt", 3.0)))
    doc = doc_of([build.layer("f", [_flora("AFSC", "0004", 5)])], floras=[fam])
    ev = grid(doc, 0, 0, 99, 99)
    assert np.all(ev.flora["collidable"] == 5)
    share_b = float(np.mean(ev.flora_child["collidable"] == 1))
    assert 0.72 < share_b < 0.78  # weight 3 of 4
    half = doc_of([build.layer("f", [_flora("AFSN", "0004", 5, override=1, density=0.3)])], floras=[fam])
    ev = grid(half, 0, 0, 99, 99)
    assert 0.27 < float(np.mean(ev.flora["noncollidable"] == 5)) < 0.33
    assert np.all(ev.flora["collidable"] == -1)
    removed = doc_of([build.layer("f", [_flora("AFSC", "0004", 5)]),
                      build.layer("r", [rect(0, 0, 49, 99), _flora("AFSC", "0004", 5, op=0)])], floras=[fam])
    ev = grid(removed, 0, 0, 99, 99)
    assert np.all(ev.flora["collidable"][:, :50] == -1) and np.all(ev.flora["collidable"][:, 50:] == 5)
    cleared = doc_of([build.layer("f", [_flora("AFCN", "0004", 5), _flora("AFDN", "0002", 6),
                                        _flora("AFDF", "0002", 6)]),
                      build.layer("r", [rect(0, 0, 49, 99), _flora("AFDN", "0002", 99, remove_all=1)])],
                     floras=[fam], radials=[radial(6)])
    ev = grid(cleared, 0, 0, 99, 99)
    assert np.all(ev.flora["collidable"] == 5)
    assert np.all(ev.flora["radial_near"][:, :50] == -1) and np.all(ev.flora["radial_near"][:, 50:] == 6)
    assert np.all(ev.flora["radial_far"] == 6)


def test_flora_replace_removes_only_where_the_draw_passes():
    fam = flora(5, density=1.0)
    doc = doc_of([build.layer("f", [_flora("AFSC", "0004", 5)]),
                  build.layer("r", [_flora("AFSC", "0004", 5, op=0, override=1, density=0.4)])], floras=[fam])
    ev = grid(doc, 0, 0, 99, 99)
    # the remover draws like an adder at density 0.4: about 40 % of the poles lose the family
    assert 0.36 < float(np.mean(ev.flora["collidable"] == -1)) < 0.44
    never = _flora("AFSC", "0004", 5, op=0, override=1, density=0.0)
    none = doc_of([build.layer("f", [_flora("AFSC", "0004", 5)]), build.layer("r", [never])], floras=[fam])
    assert np.all(grid(none, 0, 0, 20, 20).flora["collidable"] == 5)


def test_flora_draw_scales_with_amount():
    fam = flora(5, density=1.0)
    doc = doc_of([build.layer("f", [rect(0, -10000, 1000, 10000, 0, 1.0), _flora("AFSC", "0004", 5)])],
                 floras=[fam])
    ev = grid(doc, 0, 0, 500, 200)
    xs, zs = ev.region.coords()
    amount = np.minimum(xs, 1000 - xs) / 500.0
    got = ev.flora["collidable"].ravel() == 5
    assert abs(got[amount < 0.2].mean() - amount[amount < 0.2].mean()) < 0.03


def test_road_sets_heights_and_clears_flora_river_carves():
    # widths are whole widths: the road reaches 4 m either side, its feather the outer half of that
    road = build.item("AROA", "0006", points=[(0, 0), (100, 0)], heights=[10.0, 30.0], width=8.0,
                      shaderFamily=2, featherFn=0, feather=0.5, featherFnShader=0, featherShader=0.0,
                      fixedHeights=1)
    doc = doc_of([build.layer("ground", [_flora("AFSC", "0004", 5)]), build.layer("road", [road])],
                 shaders=[shader(2)], floras=[flora(5)])
    ev = grid(doc, 0, -6, 100, 6, 2.0)
    assert h_at(ev, 50, 0) == pytest.approx(20.0) and h_at(ev, 0, 0) == pytest.approx(10.0)
    assert h_at(ev, 50, 2) == pytest.approx(20.0) and h_at(ev, 50, 6) == 0.0 and h_at(ev, 50, 4) == 0.0
    c, r = at(ev, 50, 0)
    assert ev.flora["collidable"][r, c] == -1 and ev.shader[r, c] == 2
    c, r = at(ev, 50, 6)
    assert ev.flora["collidable"][r, c] == 5 and ev.shader[r, c] == -1
    river = build.item("ARIV", "0005", points=[(0, 0), (100, 0)], width=16.0, bankFamily=3, bottomFamily=4,
                       featherFn=0, feather=0.5, trenchDepth=6.0, velocity=1.0, hasWater=1, waterDepth=1.0,
                       waterWidth=4.0, waterShaderSize=2.0, waterShader="water")
    ev = grid(doc_of([build.layer("river", [river])], shaders=[shader(3), shader(4)]), 50, -10, 50, 10)
    assert h_at(ev, 50, 0) == pytest.approx(-6.0) and h_at(ev, 50, 6) == pytest.approx(-3.0)
    assert h_at(ev, 50, 9) == 0.0 and h_at(ev, 50, 8) == 0.0
    assert ev.shader[at(ev, 50, 0)[::-1]] == 4 and ev.shader[at(ev, 50, 6)[::-1]] == 3


# ---- tiling, windows, determinism ------------------------------------------------------------
def realistic_doc(n_layers: int = 12, seed: int = 1):
    from tests.model.trn.stack import realistic_stack
    return realistic_stack(n_layers, seed)


def test_window_equals_whole_map_and_tiles():
    doc = realistic_doc()
    whole = evaluate(doc, Region(-40, -30, 80, 64, 40.0))
    window = evaluate(doc, Region(-40 + 17, -30 + 9, 31, 22, 40.0))
    sl = (slice(9, 31), slice(17, 48))
    np.testing.assert_array_equal(window.heights, whole.heights[sl])
    np.testing.assert_array_equal(window.color, whole.color[sl])
    np.testing.assert_array_equal(window.shader, whole.shader[sl])
    for k in whole.flora:
        np.testing.assert_array_equal(window.flora[k], whole.flora[k][sl])
        np.testing.assert_array_equal(window.flora_child[k], whole.flora_child[k][sl])
    tiled = evaluate(doc, Region(-40, -30, 80, 64, 40.0), tile=16)
    np.testing.assert_array_equal(tiled.heights, whole.heights)
    np.testing.assert_array_equal(tiled.flora["collidable"], whole.flora["collidable"])
    assert np.ptp(whole.heights) > 1 and len(np.unique(whole.shader)) > 2
    assert (whole.flora["collidable"] >= 0).any()


def test_window_padding_counts_the_normal_reading_layers_that_change_heights():
    from model.trn.evaluator import _evaluate_tile, layer_normal_margin

    def steep(lo, *items):
        return build.item("FSLP", "0002", minAngle=lo, maxAngle=90.0, featherFn=0, feather=0.3), *items

    ahfr = build.item("AHFR", "0003", fractalFamily=0, operation=0, scaleY=60.0)
    layers = [build.layer("relief", [ahfr]),
              build.layer("steep lift", list(steep(20.0, height_const(9.0, op=1)))),
              build.layer("steep shader", list(steep(30.0, build.item("ASCN", "0001", shaderFamily=1,
                                                                       useFeatherClampOverride=0,
                                                                       featherClampOverride=0.0)))),
              build.layer("steep cut", list(steep(25.0, build.layer("sub", [height_const(4.0, op=2)])))),
              build.layer("steep again", list(steep(35.0, height_const(6.0, op=1)))),
              build.layer("north", [build.item("FDIR", "0000", minAngle=-90.0, maxAngle=90.0, featherFn=0,
                                               feather=1.0), _flora("AFSC", "0004", 5),
                                    build.item("ACCN", "0000", operation=0, color=(0, 0, 0))])]
    doc = doc_of(layers, shaders=[shader(1)], floras=[flora(5)],
                 fractals=[fractal(0, octaves=4, scaleX=0.08, scaleY=0.08)])
    assert layer_normal_margin(doc) == 3 + 1  # three of five normal-reading layers change heights
    whole = evaluate(doc, Region(-30, -30, 60, 60, 2.0))
    for c0, r0 in ((7, 11), (23, 3), (40, 41)):
        window = evaluate(doc, Region(-30 + c0, -30 + r0, 13, 11, 2.0))
        sl = (slice(r0, r0 + 11), slice(c0, c0 + 13))
        np.testing.assert_array_equal(window.heights, whole.heights[sl])
        np.testing.assert_array_equal(window.shader, whole.shader[sl])
        np.testing.assert_array_equal(window.flora["collidable"], whole.flora["collidable"][sl])
        np.testing.assert_array_equal(window.color, whole.color[sl])
    # a padding of one pole, enough where no normal-reading layer changes heights, is not enough here
    def short(margin, c, r):
        return _evaluate_tile(doc, Region(-30 + c, -30 + r, 13, 11, 2.0), margin, None, None)

    spots = ((7, 11), (23, 3), (40, 41))
    assert any(not np.array_equal(short(1, c, r).heights, whole.heights[r:r + 11, c:c + 13])
               for c, r in spots)
    flat = doc_of([layers[0], layers[2], layers[-1]], shaders=[shader(1)], floras=[flora(5)],
                  fractals=[fractal(0, octaves=4, scaleX=0.08, scaleY=0.08)])
    assert layer_normal_margin(flat) == 1  # normals read for a shader and flora only


def test_progress_and_cancel():
    doc = realistic_doc(4)
    seen = []
    evaluate(doc, Region(0, 0, 40, 40, 4.0), progress=lambda d, t: seen.append((d, t)) or True, tile=16)
    assert seen[0] == (0, 9) and seen[-1] == (9, 9)
    with pytest.raises(Cancelled):
        evaluate(doc, Region(0, 0, 40, 40, 4.0), progress=lambda d, t: d < 3, tile=16)


def test_pole_random_is_a_pure_function_of_coordinates():
    x = np.array([0.0, 1.0, -2.5, 1e6])
    z = np.array([3.0, -1.0, 7.0, -1e6])
    a = pole_random(x, z, np.uint64(5))
    b = pole_random(x[::-1].copy(), z[::-1].copy(), np.uint64(5))[::-1]
    np.testing.assert_array_equal(a, b)
    assert np.all((a >= 0) & (a < 1)) and len(set(a)) == 4
    assert not np.array_equal(a, pole_random(x, z, np.uint64(6)))


def test_explain_and_sample():
    doc = doc_of([build.layer("hill", [circle(0, 0, 10), height_const(7)]),
                  build.layer("far", [circle(100, 0, 10), height_const(3)])])
    _, trace = explain(doc, 1.0, 0.0, 1.0)
    names = [t["name"] for t in trace]
    assert "hill" in names and "far" not in names
    got = sample(doc, [(0.0, 0.0), (100.0, 0.0), (50.0, 0.0)])
    assert [g["height"] for g in got] == [7.0, 3.0, 0.0]


def test_flora_draws_follow_the_header_seed_of_their_kind():
    fam = flora(5, density=0.5)
    layers = [build.layer("f", [_flora("AFSC", "0004", 5), _flora("AFSN", "0004", 5)])]

    def run(**seeds):
        groups = build.family_groups(flora=[fam])
        node = build.document("0014", build.header_values(**seeds), groups, layers)
        from model.trn import document as trn_document
        return grid(trn_document.parse(build.to_bytes(node)), 0, 0, 63, 63)

    a = run()
    b = run(**{"collidable.seed": 999})
    assert not np.array_equal(a.flora["collidable"], b.flora["collidable"])
    np.testing.assert_array_equal(a.flora["noncollidable"], b.flora["noncollidable"])
    np.testing.assert_array_equal(a.flora["collidable"], run().flora["collidable"])


def test_the_format_pages_worked_example():
    """Rock at 10 m everywhere; a mud crater falling to 0 m inside a circle; conifers and dead grass
    in a rectangle; a colour band by height inside the crater's sub-layer."""
    ascn = dict(useFeatherClampOverride=0, featherClampOverride=0.0)
    band = build.layer("band", [build.item("FHGT", "0002", low=3.0, high=7.0, featherFn=0, feather=0.0),
                                build.item("ACCN", "0000", operation=0, color=(0, 0, 0))])
    doc = doc_of([
        build.layer("1", [height_const(10), build.item("ASCN", "0001", shaderFamily=1, **ascn)]),
        build.layer("2", [circle(500, 500, 500, 3, 0.5), height_const(0),
                          build.item("ASCN", "0001", shaderFamily=2, **ascn), band]),
        build.layer("3", [rect(-500, -500, 500, 500), _flora("AFSC", "0004", 7), _flora("AFDN", "0002", 8)]),
    ], shaders=[shader(1, "rock"), shader(2, "mud", clamp=0.5)],
        floras=[flora(7, 1.0, (("conifer.apt", 1.0),))], radials=[radial(8)])
    ev = grid(doc, -600, 0, 1100, 500, 50.0)
    assert h_at(ev, 500, 500) == 0 and ev.shader[at(ev, 500, 500)[::-1]] == 2
    assert h_at(ev, -600, 0) == 10 and ev.shader[at(ev, -600, 0)[::-1]] == 1
    ring = [(x, h_at(ev, x, 500)) for x in range(0, 1101, 50)]
    assert all(0 <= h <= 10 for _, h in ring) and any(3 < h < 7 for _, h in ring)
    for x, h in ring:
        c, r = at(ev, x, 500)
        darkened = bool(np.all(ev.color[r, c] < 1))  # by the crater's amount times the band's
        assert darkened == (3 < h < 7), (x, h)
        if h == 0:
            assert np.all(ev.color[r, c] == 1)
    c, r = at(ev, 0, 0)
    assert ev.flora["collidable"][r, c] == 7 and ev.flora["radial_near"][r, c] == 8
    c, r = at(ev, 1000, 0)
    assert ev.flora["collidable"][r, c] == -1


# ---- invert flags on the combined amount (spec/trn.md "Evaluation", steps 1–3) --------------
def _feathered_band(children, **kw):
    # rectangle 0..100 with band ½·100·0.8 = 40: boundary amount x/40 up to x = 40
    return build.layer("band", [rect(0, -1000, 100, 1000, 0, 0.8), *children, height_const(8, op=1)], **kw)


def test_invert_filters_inverts_boundary_and_filters_together():
    passing = build.item("FHGT", "0002", low=-10.0, high=10.0, featherFn=0, feather=0.0)  # height 0: 1
    ev = grid(doc_of([_feathered_band([passing], invert_filters=True)]), 0, 0, 60, 0)
    # x = min(boundary, filter) = boundary, then 1 − x: 10 → 1 − 0.25, 20 → 1 − 0.5, 50 → 1 − 1
    assert h_at(ev, 10, 0) == pytest.approx(8 * 0.75)
    assert h_at(ev, 20, 0) == pytest.approx(8 * 0.5)
    assert h_at(ev, 50, 0) == 0


def test_invert_filters_without_filters_inverts_the_boundary_amount():
    ev = grid(doc_of([_feathered_band([], invert_filters=True)]), -5, 0, 60, 0)
    assert h_at(ev, 20, 0) == pytest.approx(8 * 0.5)
    assert h_at(ev, 50, 0) == 0
    assert h_at(ev, -5, 0) == 0  # outside every boundary: step 2 never runs


def test_invert_filters_with_a_failing_filter_gives_full_amount():
    failing = build.item("FHGT", "0002", low=50.0, high=90.0, featherFn=0, feather=0.0)  # height 0: 0
    ev = grid(doc_of([_feathered_band([failing], invert_filters=True)]), 0, 0, 60, 0)
    assert h_at(ev, 20, 0) == pytest.approx(8.0)
    assert h_at(ev, 50, 0) == pytest.approx(8.0)


def test_grouping_layer_hands_parent_amount_to_sub_layers():
    child = build.layer("child", [height_const(5, op=1)])
    group = build.layer("group", [child], invert_boundaries=True, invert_filters=True)
    ev = grid(doc_of([group]), 0, 0, 2, 0)
    assert h_at(ev, 1, 0) == pytest.approx(5.0)


def test_layer_with_an_unsupported_boundary_is_skipped_with_a_warning():
    from model.trn.iff import Chunk, Form
    future = Form("BCIR", [Form("0009", [build.ihdr("future circle"), Chunk("DATA", b"\x00" * 21)])])
    doc = doc_of([build.layer("base", [height_const(1)]),
                  build.layer("bounded", [future, height_const(50)])])
    ev = grid(doc, -5, 0, 5, 0)
    assert np.all(ev.heights == 1)  # not 50 over the whole map
    assert any("BCIR 0009" in w and "bounded" in w for w in ev.warnings)


def test_colour_operations_and_height_ramp_range():
    # amount 0.5 at x = 20 (rectangle band 40); base colour (0.2, 0.4, 0.6) set at full amount first
    base = build.item("ACCN", "0000", operation=0, color=(51, 102, 153))

    def colour(op, rgb):
        doc = doc_of([build.layer("base", [base]),
                      build.layer("c", [rect(0, -1000, 100, 1000, 0, 0.8),
                                        build.item("ACCN", "0000", operation=op, color=rgb)])])
        ev = grid(doc, 20, 0, 20, 0)
        return ev.color[0, 0]

    old, new = np.array([0.2, 0.4, 0.6]), np.array([1.0, 0.2, 0.0])
    rgb = (255, 51, 0)
    np.testing.assert_allclose(colour(0, rgb), old + 0.5 * (new - old), atol=1e-6)
    np.testing.assert_allclose(colour(1, rgb), np.minimum(old + 0.5 * new, 1), atol=1e-6)
    np.testing.assert_allclose(colour(2, rgb), np.maximum(old - 0.5 * new, 0), atol=1e-6)
    np.testing.assert_allclose(colour(3, rgb), old + 0.5 * ((old + new) / 2 - old), atol=1e-6)
    # height ramp: heights outside [low, high] keep their colour; the pixel is int(t·(width − 1))
    ramp = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])
    acrh = build.item("ACRH", "0000", operation=0, low=0.0, high=10.0, rampImage="r.tga")
    for h, want in [(9.0, [0, 1, 0]), (10.0, [0, 0, 1]), (4.0, [1, 0, 0]), (12.0, [1, 1, 1])]:
        doc = doc_of([build.layer("h", [height_const(h), acrh])])
        ev = grid(doc, 0, 0, 0, 0, ramps={"r.tga": ramp})
        np.testing.assert_allclose(ev.color[0, 0], want)


def test_a_damaged_octave_count_is_evaluated_bounded_with_a_warning():
    from model.trn.multifractal import MAX_OCTAVES

    fr = fractal(4, octaves=2**31 - 1, scaleX=0.05, scaleY=0.05)
    ahfr = build.item("AHFR", "0003", fractalFamily=4, operation=0, scaleY=30.0)
    ev = grid(doc_of([build.layer("g", [ahfr])], fractals=[fr]), -10, -10, 10, 10, 2.0)
    assert ev.warnings == [f"fractal family 4 asks for {2**31 - 1} octaves; "
                           f"evaluated with the first {MAX_OCTAVES}"]
    assert np.isfinite(ev.heights).all()
