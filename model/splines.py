"""Road and river splines: a path of control points (x, z[, y]) with a width and a falloff per
point, as a polyline or a Catmull–Rom curve, and the heights, weights and distances it gives the
ground around it.

A spline is cut into segments between control points, each sampled on its own (how finely
depends only on its two end points), so a moved point changes the samples of the few segments
its curve reaches and nothing else: the area to recompute is the bounding box of the samples that
differ. Centre heights come from the ground beneath (smoothed along the path with a box filter of
fixed sample reach) or from the points' own y; a road then limits its grade, a river runs
downhill. Portable arithmetic only (+, -, *, /, sqrt, min, max and `model.portable_math`), so the
bytes are the same on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from model import portable_math as pmath

Reader = Callable[[slice, slice], np.ndarray]
TYPES = ("road", "river")
MAX_POINTS = 4096
GRADE_MARGIN = 0.97
SQRT2 = 1.4142135623730951
CLEARANCE = 1.0  # metres beyond the half-width where stored foliage is cleared


class SplineError(ValueError):
    """A spline that cannot be used (too few points, a bad width, an unknown type)."""


@dataclass(frozen=True)
class Spline:
    """Control points (n, 3) as x, y, z (y NaN: take the ground's height), width and falloff
    (metres) per point, and how the path shapes the ground."""

    points: np.ndarray
    widths: np.ndarray
    falloffs: np.ndarray
    type: str = "road"
    smooth: bool = True
    depth: float = 2.0          # river: metres of bed below the water line
    max_grade: float = 12.0     # road: percent
    smoothing: float = 20.0     # metres of the box filter along the path
    paint: str | None = None
    clear_foliage: bool = True

    def __post_init__(self) -> None:
        pts = np.asarray(self.points, np.float64)
        if pts.ndim != 2 or pts.shape[1] != 3:
            raise SplineError("a spline's points must be (x, y, z) triples")
        object.__setattr__(self, "points", pts)
        n = len(pts)
        for name in ("widths", "falloffs"):
            values = np.broadcast_to(np.asarray(getattr(self, name), np.float64), (n,)).copy()
            object.__setattr__(self, name, values)

    def check(self) -> None:
        n = len(self.points)
        if n < 2:
            raise SplineError(f"a spline needs at least 2 points, got {n}")
        if n > MAX_POINTS:
            raise SplineError(f"a spline holds at most {MAX_POINTS} points, got {n}")
        xz = self.points[:, (0, 2)]
        if not np.all(np.isfinite(xz)) or np.any(np.isinf(self.points[:, 1])):
            raise SplineError("a spline's points must be finite numbers")
        if np.any(np.all(xz[1:] == xz[:-1], axis=1)):
            k = int(np.flatnonzero(np.all(xz[1:] == xz[:-1], axis=1))[0])
            raise SplineError(f"points {k} and {k + 1} lie at the same place")
        if not (np.all(np.isfinite(self.widths)) and np.all(self.widths > 0) and np.all(self.widths <= 1000)):
            raise SplineError("every width must be a number of metres above 0 and at most 1000")
        if not (np.all(np.isfinite(self.falloffs)) and np.all(self.falloffs >= 0)
                and np.all(self.falloffs <= 1000)):
            raise SplineError("every falloff must be a number of metres from 0 to 1000")
        if self.type not in TYPES:
            raise SplineError(f"unknown spline type {self.type!r} (expected road or river)")
        for name, lo, hi in (("depth", 0.0, 1000.0), ("max_grade", 0.0, 1000.0), ("smoothing", 0.0, 10000.0)):
            value = getattr(self, name)
            if not (math.isfinite(value) and lo <= value <= hi):
                raise SplineError(f"the spline's {name.replace('_', ' ')} must be from {lo:g} to {hi:g}, "
                                  f"got {value:g}")

    # ---- as an edit layer's parameters ------------------------------------------------------
    def params(self) -> dict:
        pts = [[float(x), float(z)] if math.isnan(y) else [float(x), float(y), float(z)]
               for x, y, z in self.points]
        out = {"type": self.type, "points": pts, "widths": [float(w) for w in self.widths],
               "falloffs": [float(f) for f in self.falloffs], "smooth": self.smooth,
               "smoothing": self.smoothing, "clear_foliage": self.clear_foliage}
        out |= {"max_grade": self.max_grade} if self.type == "road" else {"depth": self.depth}
        return out | ({"paint": self.paint} if self.paint else {})

    @classmethod
    def from_params(cls, params: dict) -> Spline:
        """The spline an edit layer's parameters describe (SplineError naming the key at fault)."""
        try:
            points = [_point(p) for p in params["points"]]
            spline = cls(np.array(points, np.float64).reshape(-1, 3),
                         np.array(params["widths"], np.float64), np.array(params["falloffs"], np.float64),
                         str(params.get("type", "road")), bool(params.get("smooth", True)),
                         float(params.get("depth", 2.0)), float(params.get("max_grade", 12.0)),
                         float(params.get("smoothing", 20.0)), params.get("paint") or None,
                         bool(params.get("clear_foliage", True)))
        except KeyError as e:
            raise SplineError(f"the spline's parameters lack {e.args[0]!r}") from None
        except (TypeError, ValueError) as e:
            if isinstance(e, SplineError):
                raise
            raise SplineError(f"the spline's parameters are malformed ({e})") from None
        if spline.paint is not None and not isinstance(spline.paint, str):
            raise SplineError("the spline's paint layer must be a name")
        spline.check()
        return spline

    def with_point(self, index: int, x: float, z: float, y: float | None = None) -> Spline:
        pts = self.points.copy()
        pts[index] = (x, np.nan if y is None else y, z)
        return _replace(self, points=pts)

    def with_width(self, index: int, width: float) -> Spline:
        widths = self.widths.copy()
        widths[index] = width
        return _replace(self, widths=widths)

    def inserted(self, index: int, x: float, z: float) -> Spline:
        """A point added before `index` (its width and falloff those of its neighbour)."""
        k = min(max(index, 0), len(self.points))
        near = min(k, len(self.points) - 1)
        return _replace(self, points=np.insert(self.points, k, (x, np.nan, z), axis=0),
                        widths=np.insert(self.widths, k, self.widths[near]),
                        falloffs=np.insert(self.falloffs, k, self.falloffs[near]))

    def removed(self, index: int) -> Spline:
        return _replace(self, points=np.delete(self.points, index, axis=0),
                        widths=np.delete(self.widths, index), falloffs=np.delete(self.falloffs, index))


def _replace(spline: Spline, **changes) -> Spline:
    values = {f: getattr(spline, f) for f in Spline.__dataclass_fields__} | changes
    return Spline(**values)


def _point(p) -> tuple[float, float, float]:
    if not isinstance(p, (list, tuple)) or len(p) not in (2, 3) or isinstance(p, str):
        raise SplineError(f"a point must be [x, z] or [x, y, z], got {str(p)[:40]}")
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in p):
        raise SplineError(f"a point's coordinates must be numbers, got {str(p)[:40]}")
    return (float(p[0]), math.nan, float(p[1])) if len(p) == 2 else (float(p[0]), float(p[1]), float(p[2]))


# ---- the sampled path ----------------------------------------------------------------------
@dataclass
class Path:
    """The centreline sampled: per sample x, z, centre height h, width w, falloff f, and the
    control segment it belongs to; `starts[k]` is segment k's first sample."""

    x: np.ndarray
    z: np.ndarray
    h: np.ndarray
    w: np.ndarray
    f: np.ndarray
    segment: np.ndarray
    starts: np.ndarray
    spline: Spline = field(repr=False)

    def __len__(self) -> int:
        return len(self.x)

    def reach(self, extra: float = 0.0) -> np.ndarray:
        """Per sample, how far from the centre the spline shapes the ground (plus `extra`)."""
        return self.w / 2 + self.f + extra


def sample_step(spacing: float) -> float:
    """Metres between centreline samples on a grid of this spacing."""
    return min(max(spacing, 0.25), 2.0)


def _segment_points(p: np.ndarray, k: int, t: np.ndarray, smooth: bool) -> np.ndarray:
    a, b = p[k], p[k + 1]
    if not smooth:
        return a + (b - a) * t[:, None]
    before = p[k - 1] if k > 0 else 2 * a - b
    after = p[k + 2] if k + 2 < len(p) else 2 * b - a
    t2, t3 = t * t, t * t * t
    return 0.5 * (2 * a + (b - before) * t[:, None] + (2 * before - 5 * a + 4 * b - after) * t2[:, None]
                  + (3 * a - before - 3 * b + after) * t3[:, None])


def centreline(spline: Spline, step: float) -> tuple[np.ndarray, ...]:
    """x, z, given y (NaN where none), w, f and segment per sample: each segment sampled from its
    start (its end is the next segment's start; the last one keeps its end)."""
    p = spline.points[:, (0, 2)]
    ys = spline.points[:, 1]
    parts = []
    n = len(p)
    for k in range(n - 1):
        chord = float(pmath.hypot(p[k + 1, 0] - p[k, 0], p[k + 1, 1] - p[k, 1]))
        count = max(1, math.ceil(chord / step))
        t = np.arange(count + (k == n - 2), dtype=np.float64) / count
        xz = _segment_points(p, k, t, spline.smooth)
        y = ys[k] + (ys[k + 1] - ys[k]) * t  # NaN where either end takes the ground's height
        w = spline.widths[k] + (spline.widths[k + 1] - spline.widths[k]) * t
        f = spline.falloffs[k] + (spline.falloffs[k + 1] - spline.falloffs[k]) * t
        parts.append((xz[:, 0], xz[:, 1], y, w, f, np.full(len(t), k, np.int64)))
    return tuple(np.concatenate(col) for col in zip(*parts, strict=True))


def ground_along(x: np.ndarray, z: np.ndarray, segment: np.ndarray, beneath: Reader,
                 shape: tuple[int, int], spacing: float, origin: tuple[float, float]) -> np.ndarray:
    """Bilinear heights beneath the samples, read one segment's bounding window at a time."""
    out = np.empty(len(x), np.float64)
    u = np.clip((x - origin[0]) / spacing, 0, shape[1] - 1)
    v = np.clip((z - origin[1]) / spacing, 0, shape[0] - 1)
    for k in np.unique(segment):
        sel = segment == k
        uu, vv = u[sel], v[sel]
        c0 = min(int(np.floor(uu.min())), shape[1] - 2)
        r0 = min(int(np.floor(vv.min())), shape[0] - 2)
        c1, r1 = max(int(np.floor(uu.max())) + 2, c0 + 2), max(int(np.floor(vv.max())) + 2, r0 + 2)
        c1, r1 = min(c1, shape[1]), min(r1, shape[0])
        win = beneath(slice(r0, r1), slice(c0, c1)).astype(np.float64)
        j = np.minimum(np.floor(uu).astype(np.int64), shape[1] - 2) - c0
        i = np.minimum(np.floor(vv).astype(np.int64), shape[0] - 2) - r0
        fu, fv = uu - (j + c0), vv - (i + r0)
        out[sel] = (win[i, j] * (1 - fu) * (1 - fv) + win[i, j + 1] * fu * (1 - fv)
                    + win[i + 1, j] * (1 - fu) * fv + win[i + 1, j + 1] * fu * fv)
    return out


def box_filter(h: np.ndarray, radius: int) -> np.ndarray:
    """Mean of each sample's `radius` neighbours either side (ends clamped), summed in a fixed
    order: equal neighbourhoods give equal bits wherever they lie along the path."""
    if radius <= 0 or len(h) < 2:
        return h.copy()
    idx = np.arange(len(h))
    acc = np.zeros(len(h), np.float64)
    for o in range(-radius, radius + 1):
        acc += h[np.clip(idx + o, 0, len(h) - 1)]
    return acc / (2 * radius + 1)


def limit_grade(h: np.ndarray, ds: np.ndarray, grade: float) -> np.ndarray:
    """Heights whose slope between samples stays within `grade` (rise over run): the mean of a
    forward and a backward clamping pass (each keeps the limit, so their mean does), so neither
    end of the road is favoured. ds[i] is the run from sample i-1 to i."""
    n = len(h)
    # plain floats (IEEE doubles, the same bits as numpy's): a sequential recurrence runs several
    # times faster on them than on numpy scalars
    fwd, back, lim = h.tolist(), h.tolist(), (ds * grade).tolist()
    for i in range(1, n):
        fwd[i] = min(max(fwd[i], fwd[i - 1] - lim[i]), fwd[i - 1] + lim[i])
    for i in range(n - 2, -1, -1):
        back[i] = min(max(back[i], back[i + 1] - lim[i + 1]), back[i + 1] + lim[i + 1])
    return (np.array(fwd) + np.array(back)) * 0.5


def sample_path(spline: Spline, beneath: Reader, shape: tuple[int, int], spacing: float,
                origin: tuple[float, float]) -> Path:
    """The spline's centreline over the ground beneath, with its centre heights: a road's smoothed
    and grade-limited, a river's water line (never rising from the first point to the last) less
    its depth."""
    step = sample_step(spacing)
    x, z, y, w, f, segment = centreline(spline, step)
    ground = ground_along(x, z, segment, beneath, shape, spacing, origin)
    radius = int(round(spline.smoothing / (2 * step)))
    h = np.where(np.isnan(y), box_filter(ground, radius), y)
    ds = np.zeros(len(x), np.float64)
    ds[1:] = pmath.hypot(np.diff(x), np.diff(z))
    if spline.type == "road":
        # a margin under the limit: the grid between samples bends the slope a little
        h = limit_grade(h, ds, GRADE_MARGIN * spline.max_grade / 100.0)
    else:
        # never above the ground it runs over, so the bed lies at least `depth` below it
        h = np.minimum.accumulate(np.minimum(h, np.where(np.isnan(y), ground, h))) - spline.depth
    starts = np.searchsorted(segment, np.arange(len(spline.points) - 1))
    return Path(x, z, h, w, f, segment, starts, spline)


def changed_segments(old: Path, new: Path) -> tuple[set[int], set[int]]:
    """Control segments whose samples differ between two paths: (old's, new's)."""
    def seg(path: Path, k: int) -> np.ndarray:
        end = path.starts[k + 1] if k + 1 < len(path.starts) else len(path)
        sl = slice(path.starts[k], end)
        return np.stack([path.x[sl], path.z[sl], path.h[sl], path.w[sl], path.f[sl]])

    n_old, n_new = len(old.starts), len(new.starts)
    if n_old != n_new:  # a point added or removed: line segments up from both ends
        k0 = 0
        while k0 < min(n_old, n_new) and np.array_equal(seg(old, k0), seg(new, k0)):
            k0 += 1
        k1 = 0
        while (k1 < min(n_old, n_new) - k0
               and np.array_equal(seg(old, n_old - 1 - k1), seg(new, n_new - 1 - k1))):
            k1 += 1
        return set(range(k0, n_old - k1)), set(range(k0, n_new - k1))
    diff = {k for k in range(n_new) if not np.array_equal(seg(old, k), seg(new, k))}
    return diff, diff


def box_of(path: Path, segments: set[int] | None = None, extra: float = 0.0
           ) -> tuple[float, float, float, float] | None:
    """(x0, z0, x1, z1) the samples of `segments` (all by default) reach; None for none."""
    if segments is None:
        sel = np.ones(len(path), bool)
    else:
        sel = np.isin(path.segment, np.fromiter(segments, np.int64, len(segments)))
        # a segment's last stretch runs to the next one's first sample
        sel[1:] |= sel[:-1].copy()
    if not sel.any():
        return None
    r = path.reach(extra)[sel]
    x, z = path.x[sel], path.z[sel]
    return (float((x - r).min()), float((z - r).min()), float((x + r).max()), float((z + r).max()))


# ---- distance to the centreline ------------------------------------------------------------
@dataclass
class Nearest:
    """Per point: distance to the centreline (inf beyond reach), and the centre height, width and
    falloff where the centreline is nearest."""

    d: np.ndarray
    h: np.ndarray
    w: np.ndarray
    f: np.ndarray

    def weight(self, grow: float = 0.0) -> np.ndarray:
        """1 on the spline's width (grown by `grow` metres), falling smoothly to 0 over its falloff."""
        hw = self.w / 2 + grow
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(self.f > 0, self.f, 1.0)
            u = np.clip(np.where(self.f > 0, (self.d - hw) / f, 1.0), 0.0, 1.0)
        out = 1.0 - u * u * (3 - 2 * u)
        out = np.where(self.d <= hw, 1.0, out)
        return np.where(np.isfinite(self.d), out, 0.0)


def _stretches(path: Path, extra: float):
    """Per stretch (sample i to i+1): its ends and its reach box."""
    ax, az, bx, bz = path.x[:-1], path.z[:-1], path.x[1:], path.z[1:]
    r = np.maximum(path.reach(extra)[:-1], path.reach(extra)[1:])
    return ax, az, bx, bz, r


def _update(best: Nearest, px: np.ndarray, pz: np.ndarray, path: Path, k: int) -> None:
    ax, az = path.x[k], path.z[k]
    dx, dz = path.x[k + 1] - ax, path.z[k + 1] - az
    length2 = dx * dx + dz * dz
    t = ((px - ax) * dx + (pz - az) * dz) / length2 if length2 > 0 else np.zeros_like(px)
    t = np.clip(t, 0.0, 1.0)
    ex, ez = px - (ax + dx * t), pz - (az + dz * t)
    d = np.sqrt(ex * ex + ez * ez)  # IEEE-rounded: the same bits everywhere
    closer = d < best.d
    if not closer.any():
        return
    for name, a, b in (("h", path.h[k], path.h[k + 1]), ("w", path.w[k], path.w[k + 1]),
                       ("f", path.f[k], path.f[k + 1])):
        np.copyto(getattr(best, name), a + (b - a) * t, where=closer)
    np.copyto(best.d, d, where=closer)


BATCH = 8  # stretches measured together: consecutive ones, so their boxes overlap


def _update_batch(best: Nearest, xs: np.ndarray, zs: np.ndarray, path: Path, ks: np.ndarray,
                  boxes: tuple[np.ndarray, ...]) -> None:
    """`_update` for several stretches at once over the union of their boxes: each stretch still
    measures only the samples of its own box, and the first nearest (in path order) wins as in
    one-by-one updates, so the bits are the same."""
    r0, r1, c0, c1 = (b[ks] for b in boxes)
    rr, cc = slice(int(r0.min()), int(r1.max())), slice(int(c0.min()), int(c1.max()))
    px, pz = xs[None, None, cc], zs[None, rr, None]
    ax, az = path.x[ks][:, None, None], path.z[ks][:, None, None]
    dx, dz = path.x[ks + 1][:, None, None] - ax, path.z[ks + 1][:, None, None] - az
    length2 = dx * dx + dz * dz
    with np.errstate(invalid="ignore", divide="ignore"):
        along = ((px - ax) * dx + (pz - az) * dz) / np.where(length2 > 0, length2, 1.0)
        t = np.where(length2 > 0, along, 0.0)
    t = np.clip(t, 0.0, 1.0)
    ex, ez = px - (ax + dx * t), pz - (az + dz * t)
    d = np.sqrt(ex * ex + ez * ez)  # IEEE-rounded: the same bits everywhere
    row = np.arange(rr.start, rr.stop)[None, :, None]
    col = np.arange(cc.start, cc.stop)[None, None, :]
    inside = ((row >= r0[:, None, None]) & (row < r1[:, None, None])
              & (col >= c0[:, None, None]) & (col < c1[:, None, None]))
    d = np.where(inside, d, np.inf)
    first = np.argmin(d, axis=0)  # the first of equal minima: path order
    pick = np.take_along_axis(d, first[None], 0)[0]
    tt = np.take_along_axis(t, first[None], 0)[0]
    closer = pick < best.d[rr, cc]
    if not closer.any():
        return
    for name, values in (("h", path.h), ("w", path.w), ("f", path.f)):
        a, b = values[ks][first], values[ks + 1][first]
        np.copyto(getattr(best, name)[rr, cc], a + (b - a) * tt, where=closer)
    np.copyto(best.d[rr, cc], pick, where=closer)


def nearest_grid(path: Path, rows: slice, cols: slice, spacing: float, origin: tuple[float, float],
                 extra: float = 0.0) -> Nearest | None:
    """`Nearest` over a window of the height grid (None when no stretch reaches it): each stretch
    updates only the samples of its reach box, in path order (so a window gives the same values
    as any window around it)."""
    shape = (rows.stop - rows.start, cols.stop - cols.start)
    ax, az, bx, bz, r = _stretches(path, extra)
    ox, oz = origin
    c0 = np.ceil((np.minimum(ax, bx) - r - ox) / spacing).astype(np.int64) - cols.start
    c1 = np.floor((np.maximum(ax, bx) + r - ox) / spacing).astype(np.int64) + 1 - cols.start
    r0 = np.ceil((np.minimum(az, bz) - r - oz) / spacing).astype(np.int64) - rows.start
    r1 = np.floor((np.maximum(az, bz) + r - oz) / spacing).astype(np.int64) + 1 - rows.start
    c0, r0 = np.maximum(c0, 0), np.maximum(r0, 0)
    c1, r1 = np.minimum(c1, shape[1]), np.minimum(r1, shape[0])
    meets = np.flatnonzero((c1 > c0) & (r1 > r0))
    if not len(meets):
        return None
    best = Nearest(np.full(shape, np.inf), np.zeros(shape), np.zeros(shape), np.zeros(shape))
    xs = ox + (np.arange(cols.start, cols.stop, dtype=np.float64)) * spacing
    zs = oz + (np.arange(rows.start, rows.stop, dtype=np.float64)) * spacing
    for start in range(0, len(meets), BATCH):
        _update_batch(best, xs, zs, path, meets[start:start + BATCH], (r0, r1, c0, c1))
    reach = best.w / 2 + best.f + extra
    best.d[best.d > reach] = np.inf
    return best


def nearest_points(path: Path, px: np.ndarray, pz: np.ndarray, extra: float = 0.0) -> Nearest:
    """`Nearest` at scattered points (foliage, spawn candidates): per stretch, only the points in
    its reach box (found by x on the points sorted once)."""
    px, pz = np.asarray(px, np.float64), np.asarray(pz, np.float64)
    n = len(px)
    best = Nearest(np.full(n, np.inf), np.zeros(n), np.zeros(n), np.zeros(n))
    if n == 0 or len(path) < 2:
        return best
    order = np.argsort(px, kind="stable")
    sx = px[order]
    ax, az, bx, bz, r = _stretches(path, extra)
    lo = np.searchsorted(sx, np.minimum(ax, bx) - r, "left")
    hi = np.searchsorted(sx, np.maximum(ax, bx) + r, "right")
    zlo, zhi = np.minimum(az, bz) - r, np.maximum(az, bz) + r
    for k in np.flatnonzero(hi > lo):
        idx = order[lo[k]:hi[k]]
        idx = idx[(pz[idx] >= zlo[k]) & (pz[idx] <= zhi[k])]
        if not len(idx):
            continue
        view = Nearest(best.d[idx], best.h[idx], best.w[idx], best.f[idx])
        _update(view, px[idx], pz[idx], path, int(k))
        best.d[idx], best.h[idx], best.w[idx], best.f[idx] = view.d, view.h, view.w, view.f
    reach = best.w / 2 + best.f + extra
    best.d[best.d > reach] = np.inf
    return best


# ---- what the spline does to the ground ----------------------------------------------------
def core_margin(spacing: float) -> float:
    """Metres the flat (and fully painted) core reaches past the half-width: one cell's diagonal,
    so every cell a point on the width lies in has all four corners on the core, and the ground
    the grid draws between them is flat (and the paint full) right to the edge."""
    return spacing * SQRT2


def deltas_window(path: Path, below: np.ndarray, near: Nearest, grow: float = 0.0) -> np.ndarray:
    """float32 height deltas over a window whose heights beneath are `below`: a road brings the
    ground to its centre height (cut and fill), a river carves down to its bed, both at full
    strength on their width and fading out over the falloff."""
    below = np.asarray(below, np.float64)
    weight = near.weight(grow)
    target = near.h - below
    if path.spline.type == "river":
        target = np.minimum(target, 0.0)
    change = np.where(weight > 0, weight * target, 0.0)
    return change.astype(np.float32)


def paint_weights(near: Nearest, grow: float = 0.0) -> np.ndarray:
    """0..255 paint: full weight on the spline's width, fading over its falloff."""
    return np.rint(near.weight(grow) * 255.0).astype(np.uint8)


def inside(path: Path, px: np.ndarray, pz: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """True where a point lies within the half-width plus `margin` of the centreline."""
    near = nearest_points(path, px, pz, margin)
    return near.d <= near.w / 2 + margin
