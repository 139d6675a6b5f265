"""Auto-paint: a layer's weights from slope, height and curvature bands, window by window, as paint."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from model import portable_math as pmath
from model.auto_paint import (
    AutoPaintError,
    AutoPaintRule,
    apply_auto_paint,
    auto_paint,
    membership,
    rule_weights,
)
from model.formats.scene_file import load_scene, save_scene
from model.layer_ops import LayerPaintStroke
from model.scene import Scene
from model.terrain import Terrain


def hills(rows: int = 45, cols: int = 61, spacing: float = 2.0) -> Terrain:
    """Polynomial hills and a cliff (no transcendental functions: the same heights everywhere)."""
    j, i = np.mgrid[0:rows, 0:cols].astype(np.float64)
    x, z = i / cols, j / rows
    h = 40.0 * x * x * (1.0 - x) + 25.0 * z * (1.0 - z) * (0.5 + x)
    h += np.where(i > cols * 0.7, 18.0, 0.0)  # a 18 m step: a cliff a sample wide
    t = Terrain(h.astype(np.float32), spacing, (-10.0, 4.0))
    t.add_layer("grass", (80, 140, 60), np.full((rows, cols), 255, np.uint8))
    t.add_layer("rock", (120, 120, 120))
    t.add_layer("snow", (240, 240, 250))
    t.add_layer("mask", (0, 0, 0), np.full((rows, cols), 77, np.uint8))
    t.layers[3].weight_blend = False
    return t


def reference_fields(t: Terrain) -> dict[str, np.ndarray]:
    """Slope, height and curvature sample by sample with plain loops (the reference)."""
    h = t.heights.astype(np.float64)
    rows, cols, s = t.rows, t.columns, t.spacing
    out = {k: np.zeros((rows, cols)) for k in ("slope", "height", "curvature")}
    for r in range(rows):
        for c in range(cols):
            n, so = h[max(r - 1, 0), c], h[min(r + 1, rows - 1), c]
            w, e = h[r, max(c - 1, 0)], h[r, min(c + 1, cols - 1)]
            dx = (e - w) / ((min(c + 1, cols - 1) - max(c - 1, 0)) * s)
            dz = (so - n) / ((min(r + 1, rows - 1) - max(r - 1, 0)) * s)
            out["slope"][r, c] = pmath.degrees(pmath.arctan(np.sqrt(dx * dx + dz * dz)))
            out["height"][r, c] = h[r, c]
            out["curvature"][r, c] = -((e - 2 * h[r, c] + w) + (so - 2 * h[r, c] + n)) / (s * s)
    return out


def reference_weights(t: Terrain, rule: AutoPaintRule) -> np.ndarray:
    fields = reference_fields(t)
    w = np.ones((t.rows, t.columns))
    for name, (lo, hi) in rule.bands().items():
        for r in range(t.rows):
            for c in range(t.columns):
                v = fields[name][r, c]
                m = 0.0
                if lo <= v <= hi:
                    soft = rule.feather * (hi - lo)
                    m = 1.0 if soft <= 0 else min(max(min(v - lo, hi - v) / soft, 0.0), 1.0)
                    m = m * m * (3.0 - 2.0 * m) if soft > 0 else m
                w[r, c] *= m
    return np.rint(w * 255.0).astype(np.uint8)


RULE = AutoPaintRule("rock", slope=(25.0, 90.0), height=(2.0, 60.0), curvature=(-2.0, 2.0), feather=0.2)


def painted(t: Terrain, rule: AutoPaintRule, size: int = 256) -> dict[str, np.ndarray]:
    stroke = LayerPaintStroke(t, rule.layer)
    for paint in auto_paint(t, rule, size):
        stroke.apply(paint)
    stroke.finish()
    return {la.name: la.weights.copy() for la in t.layers}


@pytest.mark.parametrize("size", [7, 16, 256])
def test_windows_give_the_bits_of_the_loop_reference(size) -> None:
    t = hills()
    assert np.array_equal(rule_weights(t, RULE, slice(0, t.rows), slice(0, t.columns)),
                          reference_weights(t, RULE))
    after = painted(t, RULE, size)
    assert np.array_equal(after["rock"], reference_weights(t, RULE))  # an empty layer takes the rule


def test_a_slope_band_paints_the_cliff_and_not_the_flats() -> None:
    t = hills()
    after = painted(t, AutoPaintRule("rock", slope=(60.0, 90.0), feather=0.0))
    cliff = int(t.columns * 0.7)
    assert (after["rock"][:, cliff:cliff + 2] == 255).all()  # the step's two sides
    assert (after["rock"][:, :cliff - 2] == 0).all()


def test_a_height_band_with_feather_rises_smoothly_inside_it() -> None:
    assert np.array_equal(membership(np.array([-1.0, 0.0, 1.0, 5.0, 9.0, 10.0, 11.0]), (0.0, 10.0), 0.2),
                          np.array([0.0, 0.0, 0.5, 1.0, 0.5, 0.0, 0.0]))
    t = hills()
    after = painted(t, AutoPaintRule("snow", height=(15.0, 100.0), feather=0.05))
    h = t.heights
    assert (after["snow"][h < 15.0] == 0).all() and (after["snow"][h > 20.0] == 255).all()


def test_curvature_is_positive_on_a_ridge_and_negative_in_a_valley() -> None:
    x = np.abs(np.arange(41, dtype=np.float64) - 20.0)
    ridge = Terrain(np.tile(30.0 - 0.05 * x * x, (21, 1)).astype(np.float32), 1.0)
    ridge.add_layer("crest", (1, 2, 3))
    w = painted(ridge, AutoPaintRule("crest", curvature=(0.05, 1.0), feather=0.0))["crest"]
    assert (w[:, 1:-1] == 255).all()  # -d²h/dx² = 0.1 / m everywhere inside
    valley = Terrain(-ridge.heights, 1.0)
    valley.add_layer("crest", (1, 2, 3))
    assert not painted(valley, AutoPaintRule("crest", curvature=(0.05, 1.0)))["crest"][:, 1:-1].any()


def test_weight_blended_layers_give_way_and_others_are_left_alone() -> None:
    t = hills()
    before = {la.name: la.weights.copy() for la in t.layers}
    after = painted(t, RULE)
    total = sum(after[n].astype(int) for n in ("grass", "rock", "snow"))
    assert total.max() <= 255
    raised = after["rock"] > 0
    assert (after["grass"][raised] == 255 - after["rock"][raised]).all()
    assert np.array_equal(after["grass"][~raised], before["grass"][~raised])
    assert np.array_equal(after["mask"], before["mask"])  # not weight-blended: never touched


def test_raise_only_keeps_hand_painting_and_replace_sets_the_rule() -> None:
    t = hills()
    hand = np.zeros((t.rows, t.columns), np.uint8)
    hand[:5, :5] = 200
    t.layer("rock").weights = hand.copy()
    kept = painted(t, AutoPaintRule("rock", slope=(60.0, 90.0)))["rock"]
    assert (kept[:5, :5] == 200).all()
    t2 = hills()
    t2.layer("rock").weights = hand.copy()
    rule = AutoPaintRule("rock", slope=(60.0, 90.0), replace=True)
    replaced = painted(t2, rule)["rock"]
    assert (replaced[:5, :5] == 0).all() and np.array_equal(replaced, reference_weights(t2, rule))
    assert np.array_equal(kept, np.maximum(hand, replaced))


def test_unchanged_windows_are_not_returned() -> None:
    t = hills()
    rule = AutoPaintRule("snow", height=(1000.0, 2000.0))
    assert list(auto_paint(t, rule, 16)) == []
    first = list(auto_paint(t, RULE, 16))
    assert first and all(p.rows.stop - p.rows.start <= 16 for p in first)
    painted(t, RULE, 16)
    assert list(auto_paint(t, RULE, 16)) == []  # applied once, nothing is left to change


def test_a_paged_terrain_is_painted_window_by_window_without_assembling(tmp_path) -> None:
    t = hills(300, 530)
    rule = AutoPaintRule("rock", slope=(30.0, 90.0), height=(2.0, 80.0), feather=0.2)
    expected = painted(hills(300, 530), rule)
    assert expected["rock"].any()
    save_scene(Scene(terrain=t, name="paged"), tmp_path / "p.boscage")
    paged = load_scene(tmp_path / "p.boscage").terrain
    assert paged.paged_heights is not None
    stroke = LayerPaintStroke(paged, "rock")
    summary = apply_auto_paint(paged, rule, stroke)
    assert paged.paged_heights is not None and all(la.paged is not None for la in paged.layers)
    assert summary.changed == int(np.count_nonzero(expected["rock"])) and summary.others == ["grass"]
    for la in paged.layers:
        assert np.array_equal(la.read(slice(0, 300), slice(0, 530)), expected[la.name]), la.name


def test_one_undo_step_restores_every_layer_and_redo_repeats_it() -> None:
    t = hills()
    before = {la.name: la.weights.copy() for la in t.layers}
    stroke = LayerPaintStroke(t, "rock")
    apply_auto_paint(t, RULE, stroke)
    after = {la.name: la.weights.copy() for la in t.layers}
    stroke.undo()
    assert all(np.array_equal(la.weights, before[la.name]) for la in t.layers)
    stroke.redo()
    assert all(np.array_equal(la.weights, after[la.name]) for la in t.layers)


def test_a_cancelled_run_leaves_nothing_changed() -> None:
    t = hills()
    before = {la.name: la.weights.copy() for la in t.layers}
    summary = apply_auto_paint(t, RULE, LayerPaintStroke(t, "rock"), lambda done, total: done < 2, 16)
    assert summary.cancelled
    assert all(np.array_equal(la.weights, before[la.name]) for la in t.layers)


@pytest.mark.parametrize("rule, words", [
    (AutoPaintRule("lava", slope=(0, 10)), "no layer named 'lava'"),
    (AutoPaintRule("rock"), "at least one band"),
    (AutoPaintRule("rock", height=(10, 5)), "height band runs from its minimum"),
    (AutoPaintRule("rock", slope=(10, 95)), "degrees from 0 to 90"),
    (AutoPaintRule("rock", curvature=(0, float("inf"))), "two finite numbers"),
    (AutoPaintRule("rock", slope=(0, 10), feather=0.7), "feather"),
])
def test_a_bad_rule_is_one_clear_error(rule, words) -> None:
    with pytest.raises(AutoPaintError, match=words):
        list(auto_paint(hills(), rule))


def test_the_weights_are_pinned() -> None:
    """The same bits on every machine (portable arctan, + - * / sqrt only)."""
    w = rule_weights(hills(), RULE, slice(0, 45), slice(0, 61))
    assert zlib.crc32(w.tobytes()) == PINNED


PINNED = 1957445693
