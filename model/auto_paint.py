"""Auto-paint: a layer's weights from bands of slope, height and curvature (as Terrain3D's autoshader
or Gaea's texture nodes select ground), written as paint, so spawners' layer conditions see it.

A sample's weight is the product of its memberships, one per band given: 1 inside the band, 0
outside, with a soft edge inside the band (`feather`, a share of the band's width, smoothstep).
The terrain is read window by window with one sample of margin (slope and curvature look at the
neighbours), so a paged terrain is never assembled and a window gives the bits the whole grid
does. Only +, -, *, /, sqrt and the portable arctan: the same weights on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from model import portable_math as pmath
from model.layer_ops import BlendedPaint, LayerPatch, blend_weights, index_of
from model.terrain import Terrain

WINDOW = 256  # samples a side of the windows read and returned (a multiple of the undo tiles')
MAX_FEATHER = 0.5  # the soft edges of a band meet in its middle
Band = tuple[float, float]


class AutoPaintError(ValueError):
    """A rule that cannot be applied (no such layer, an empty or reversed band, a bad feather)."""


@dataclass(frozen=True)
class AutoPaintRule:
    """Which layer, and the bands a sample must fall in (None: any): slope in degrees (0 flat, 90
    vertical), height in metres, curvature in 1/m (the heights' negated Laplacian: positive on
    ridges and peaks, negative in valleys and hollows). `feather` is each band's soft edge as a
    share of its width (0 hard .. 0.5); `replace` sets the layer to the rule's weights, else the
    rule only raises them (what is painted by hand stays)."""

    layer: str
    slope: Band | None = None
    height: Band | None = None
    curvature: Band | None = None
    feather: float = 0.1
    replace: bool = False

    def bands(self) -> dict[str, Band]:
        return {k: b for k, b in (("slope", self.slope), ("height", self.height),
                                  ("curvature", self.curvature)) if b is not None}


def check_rule(terrain: Terrain, rule: AutoPaintRule) -> None:
    """AutoPaintError saying what is wrong with the rule for this terrain."""
    if terrain.layer_index(rule.layer) is None:
        names = ", ".join(repr(la.name) for la in terrain.layers) or "none"
        raise AutoPaintError(f"no layer named {rule.layer!r} (layers: {names})")
    if not rule.bands():
        raise AutoPaintError("give at least one band: slope, height or curvature")
    for name, (lo, hi) in rule.bands().items():
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise AutoPaintError(f"the {name} band must be two finite numbers, got {lo:g}, {hi:g}")
        if lo > hi:
            raise AutoPaintError(f"the {name} band runs from its minimum to its maximum, got {lo:g}, {hi:g}")
    if rule.slope is not None and not (0.0 <= rule.slope[0] and rule.slope[1] <= 90.0):
        raise AutoPaintError(f"the slope band is in degrees from 0 to 90, got {rule.slope[0]:g}, "
                             f"{rule.slope[1]:g}")
    if not (math.isfinite(rule.feather) and 0.0 <= rule.feather <= MAX_FEATHER):
        raise AutoPaintError(f"the feather is a share of each band from 0 to {MAX_FEATHER:g}, got "
                             f"{rule.feather:g}")


def _smoothstep(t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def membership(values: np.ndarray, band: Band, feather: float) -> np.ndarray:
    """1 inside the band, 0 outside, rising over `feather` × its width from each edge inwards."""
    lo, hi = band
    inside = (values >= lo) & (values <= hi)
    soft = feather * (hi - lo)
    if soft <= 0.0:
        return inside.astype(np.float64)
    edge = np.minimum(values - lo, hi - values) / soft
    return np.where(inside, _smoothstep(edge), 0.0)


def window_fields(terrain: Terrain, rows: slice, cols: slice) -> dict[str, np.ndarray]:
    """Slope (degrees), height (m) and curvature (1/m) at the window's samples, from the heights
    with one sample of margin (edge samples use their one-sided neighbours, clamped)."""
    r0, r1, c0, c1 = rows.start, rows.stop, cols.start, cols.stop
    ma, mb = max(0, r0 - 1), min(terrain.rows, r1 + 1)
    mc, md = max(0, c0 - 1), min(terrain.columns, c1 + 1)
    h = terrain.read_heights(slice(ma, mb), slice(mc, md)).astype(np.float64)
    # pad by repeating the edge where the terrain ends, so every sample has four neighbours
    top, left = r0 - ma, c0 - mc
    h = np.pad(h, ((1 - top, 1 - (mb - r1)), (1 - left, 1 - (md - c1))), mode="edge")
    centre = h[1:-1, 1:-1]
    north, south = h[:-2, 1:-1], h[2:, 1:-1]
    west, east = h[1:-1, :-2], h[1:-1, 2:]
    s = float(terrain.spacing)
    # central differences over the distance the neighbours really span (one-sided at the edges)
    rr = np.arange(r0, r1)
    cc = np.arange(c0, c1)
    span_z = ((np.minimum(rr + 1, terrain.rows - 1) - np.maximum(rr - 1, 0)) * s)[:, None]
    span_x = ((np.minimum(cc + 1, terrain.columns - 1) - np.maximum(cc - 1, 0)) * s)[None, :]
    dx = (east - west) / span_x
    dz = (south - north) / span_z
    slope = pmath.degrees(pmath.arctan(np.sqrt(dx * dx + dz * dz)))
    curvature = -((east - 2.0 * centre + west) + (south - 2.0 * centre + north)) / (s * s)
    return {"slope": slope, "height": centre, "curvature": curvature}


def rule_weights(terrain: Terrain, rule: AutoPaintRule, rows: slice, cols: slice) -> np.ndarray:
    """The rule's weight 0..255 (uint8) at the window's samples."""
    fields = window_fields(terrain, rows, cols)
    w = np.ones((rows.stop - rows.start, cols.stop - cols.start), np.float64)
    for name, band in rule.bands().items():
        w = w * membership(fields[name], band, rule.feather)
    return np.rint(w * 255.0).astype(np.uint8)


def windows(terrain: Terrain, size: int = WINDOW) -> Iterator[tuple[slice, slice]]:
    for r in range(0, terrain.rows, size):
        for c in range(0, terrain.columns, size):
            yield slice(r, min(terrain.rows, r + size)), slice(c, min(terrain.columns, c + size))


def auto_paint(terrain: Terrain, rule: AutoPaintRule, size: int = WINDOW,
               progress: Callable[[int, int], bool] | None = None) -> Iterator[BlendedPaint]:
    """The windows whose weights the rule changes, each as a `BlendedPaint` (the layer's old and
    new weights first, then those of the weight-blended layers it takes weight from); windows it
    leaves as they are are not returned. Reads only. `progress(done, total)` returning False stops."""
    check_rule(terrain, rule)
    index = index_of(terrain, rule.layer)
    layer = terrain.layers[index]
    blended = [la for i, la in enumerate(terrain.layers) if i != index and la.weight_blend]
    spans = list(windows(terrain, size))
    for n, (rows, cols) in enumerate(spans):
        if progress is not None and not progress(n, len(spans)):
            return
        old = layer.read(rows, cols)
        target = rule_weights(terrain, rule, rows, cols)
        new = target if rule.replace else np.maximum(old, target)
        patches = [LayerPatch(layer, old, new)]
        if layer.weight_blend and blended:
            before = np.stack([la.read(rows, cols) for la in blended])
            after = blend_weights(new, before, new > old)
            patches += [LayerPatch(la, was, now) for la, was, now in zip(blended, before, after, strict=True)
                        if not np.array_equal(was, now)]
        if any(not np.array_equal(p.old, p.new) for p in patches):
            yield BlendedPaint(rows, cols, patches)
    if progress is not None:
        progress(len(spans), len(spans))


@dataclass
class AutoPaintSummary:
    """What a rule did: windows written, samples whose layer weight changed, the weight-blended
    layers it took weight from, and whether it was cancelled (then nothing stays changed)."""

    windows: int = 0
    changed: int = 0
    others: list[str] = field(default_factory=list)
    cancelled: bool = False


def apply_auto_paint(terrain: Terrain, rule: AutoPaintRule, stroke,
                     progress: Callable[[int, int], bool] | None = None,
                     size: int = WINDOW) -> AutoPaintSummary:
    """Run the rule into `stroke` (a `LayerPaintStroke`: one undo step) window by window and finish
    it. `progress(done, total)` returning False cancels: what was written is taken back."""
    summary = AutoPaintSummary()

    def report(done: int, total: int) -> bool:
        go_on = progress is None or progress(done, total) is not False
        summary.cancelled = summary.cancelled or not go_on
        return go_on

    for paint in auto_paint(terrain, rule, size, report):
        summary.windows += 1
        summary.changed += int(np.count_nonzero(paint.layers[0].old != paint.layers[0].new))
        summary.others += [p.layer.name for p in paint.layers[1:] if p.layer.name not in summary.others]
        stroke.apply(paint)
    stroke.finish()
    if summary.cancelled:
        stroke.undo()
    return summary
