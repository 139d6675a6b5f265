"""Vectorised geometry of boundaries, filters and feather functions (arrays of poles in, amounts out).

Distances to outlines and the even-odd test loop over segments per pole in compiled code (numba),
with the same float64 operations in the same order as a numpy pass per segment: that made ~10 full
temporaries per segment, and real polygons, roads and rivers have tens to hundreds of points.
"""

from __future__ import annotations

import numpy as np

from model import portable_math as pmath
from model.trn.jit import compile_kernels, kernel


def feather(fn: int, t: np.ndarray) -> np.ndarray:
    """Feather function on t in [0, 1]: 0 linear, 1 easeIn t², 2 easeOut √t, 3 easeInOut 3t²−2t³."""
    t = np.clip(t, 0.0, 1.0)
    if fn == 1:
        return t * t
    if fn == 2:
        return np.sqrt(t)
    if fn == 3:
        return t * t * (3.0 - 2.0 * t)
    return t


def circle(x: np.ndarray, z: np.ndarray, cx: float, cz: float, r: float, f: float) -> np.ndarray:
    """1 inside r·(1−f), falling to 0 at r in d² (the original's squared-distance ramp)."""
    d2 = (x - cx) ** 2 + (z - cz) ** 2
    if r <= 0:
        return np.zeros_like(d2)
    ri = r * (1.0 - min(max(f, 0.0), 1.0))
    out = np.zeros_like(d2)
    inside = d2 <= r * r
    if r * r > ri * ri:
        out[inside] = 1.0 - (d2[inside] - ri * ri) / (r * r - ri * ri)
    else:
        out[inside] = 1.0
    out[d2 <= ri * ri] = 1.0
    return np.clip(out, 0.0, 1.0)


def rectangle(x, z, x0: float, z0: float, x1: float, z1: float, f: float) -> np.ndarray:
    """Ramp over a band of ½·min(w, h)·f inside each edge."""
    xa, xb = min(x0, x1), max(x0, x1)
    za, zb = min(z0, z1), max(z0, z1)
    inside = (x >= xa) & (x <= xb) & (z >= za) & (z <= zb)
    band = 0.5 * min(xb - xa, zb - za) * min(max(f, 0.0), 1.0)
    if band <= 0:
        return inside.astype(np.float64)
    edge = np.minimum(np.minimum(x - xa, xb - x), np.minimum(z - za, zb - z))
    return np.where(inside, np.minimum(edge, band) / band, 0.0)


def polyline_distance(x, z, points, limit: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance to an open polyline, and the nearest segment index and its parameter t (the first
    segment wins a tie).

    With a finite positive `limit`, a pole farther than it gets some distance above it (and segment
    0, t 0) instead of its own: for callers that compare with the limit or cap at it, the same
    result, and far segments are skipped by their boxes at once."""
    p = np.asarray(points, np.float64).reshape(-1, 2)
    x, z = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(z, np.float64))
    shape = x.shape
    x, z = np.ascontiguousarray(x).ravel(), np.ascontiguousarray(z).ravel()
    if len(p) == 1:
        distance = pmath.hypot(x - p[0, 0], z - p[0, 1]).reshape(shape)
        return distance, np.zeros(shape, np.int64), np.zeros(shape)
    start = np.inf
    if limit is not None and 0.0 < limit < np.inf:
        start = np.nextafter(float(limit), np.inf)  # a pole exactly at the limit keeps its distance
    best = np.full(x.size, start)
    seg = np.zeros(x.size, np.int64)
    tt = np.zeros(x.size)
    px, pz = np.ascontiguousarray(p[:, 0]), np.ascontiguousarray(p[:, 1])
    boxes = np.stack([np.minimum(px[:-1], px[1:]), np.maximum(px[:-1], px[1:]),
                      np.minimum(pz[:-1], pz[1:]), np.maximum(pz[:-1], pz[1:])], axis=1)
    with np.errstate(invalid="ignore"):
        boxed = (np.abs(boxes) < _BOXED).all(axis=1)  # NaN and huge segments are always measured
    _kernels()
    _segment_distance(x, z, px, pz, boxes, boxed, best, seg, tt)
    return best.reshape(shape), seg.reshape(shape), tt.reshape(shape)


_TINY, _HUGE, _MARGIN = 1e-100, 1e100, 1.0 + 1e-12  # squares of b stay normal floats between the first two
_HYPOT_TINY, _HYPOT_HUGE = pmath.HYPOT_TINY, pmath.HYPOT_HUGE
_HYPOT_DOWN, _HYPOT_UP = pmath.HYPOT_DOWN, pmath.HYPOT_UP
# Below 1e6 m a computed point on a segment is within 1e-9 m of its box, so a segment whose box is
# farther than the best distance found plus 1e-6 m cannot be nearer: it is skipped unmeasured.
_BOXED, _SLACK = 1e6, 1e-6


@kernel(inline=True)
def _length(ex, ez):
    """`portable_math.hypot` of one pair, its steps one for one."""
    ax, az = abs(ex), abs(ez)
    if ax == np.inf or az == np.inf:
        return np.inf
    if ax != ax or az != az:
        return np.nan
    m = ax if ax > az else az
    if m == 0.0:
        return 0.0
    if m < _HYPOT_TINY or m > _HYPOT_HUGE:
        scale = _HYPOT_DOWN if m > _HYPOT_HUGE else _HYPOT_UP
        ax, az = ax * scale, az * scale
        return np.sqrt(ax * ax + az * az) / scale
    return np.sqrt(ax * ax + az * az)


@kernel()
def _segment_distance(x, z, px, pz, boxes, boxed, best, seg, tt):
    """Per pole, the nearest of the segments (px[i], pz[i])–(px[i+1], pz[i+1]): `best`, `seg`, `tt`.
    `boxes` holds each segment's x0, x1, z0, z1; `boxed` where the box may be used to skip it."""
    for k in range(x.size):
        xk, zk = x[k], z[k]
        b, s, tk = best[k], seg[k], tt[k]
        near = abs(xk) < _BOXED and abs(zk) < _BOXED
        for i in range(px.size - 1):
            if near and boxed[i] and b < _HUGE:
                gx = boxes[i, 0] - xk if xk < boxes[i, 0] else (xk - boxes[i, 1] if xk > boxes[i, 1] else 0.0)
                gz = boxes[i, 2] - zk if zk < boxes[i, 2] else (zk - boxes[i, 3] if zk > boxes[i, 3] else 0.0)
                if max(gx, gz) > b * _MARGIN + _SLACK:
                    continue
            ax, az = px[i], pz[i]
            dx, dz = px[i + 1] - ax, pz[i + 1] - az
            ll = dx * dx + dz * dz
            if ll == 0:
                t = 0.0
            else:
                t = ((xk - ax) * dx + (zk - az) * dz) / ll
                t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)  # numpy's clip: NaN and -0.0 stay
            ex, ez = xk - (ax + t * dx), zk - (az + t * dz)
            # the length only where the segment can be nearer: its squared distance is within a few
            # ulps of the exact one, and a margin of 1e-12 holds thousands of them
            if _TINY < b < _HUGE and ex * ex + ez * ez > b * b * _MARGIN:
                continue
            d = _length(ex, ez)
            if d < b:
                b, s, tk = d, i, t
        best[k], seg[k], tt[k] = b, s, tk


def polygon_inside(x, z, points) -> np.ndarray:
    """Even-odd rule."""
    p = np.asarray(points, np.float64).reshape(-1, 2)
    x, z = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(z, np.float64))
    inside = np.zeros(x.size, bool)
    _kernels()
    _even_odd(np.ascontiguousarray(x).ravel(), np.ascontiguousarray(z).ravel(),
              np.ascontiguousarray(p[:, 0]), np.ascontiguousarray(p[:, 1]), inside)
    return inside.reshape(x.shape)


@kernel()
def _even_odd(x, z, px, pz, inside):
    n = px.size
    for k in range(x.size):
        xk, zk = x[k], z[k]
        flag = False
        for i in range(n):
            xi, zi = px[i], pz[i]
            xj, zj = px[i - 1], pz[i - 1]
            if zi == zj:
                continue
            if (zi > zk) != (zj > zk) and xk < (xj - xi) * (zk - zi) / (zj - zi) + xi:
                flag = not flag
        inside[k] = flag


def polygon(x, z, points, f: float) -> np.ndarray:
    """1 deep inside; ramps over `f` metres inside the outline."""
    if len(points) < 3:
        return np.zeros(np.shape(x))
    inside = polygon_inside(x, z, points)
    if f <= 0:
        return inside.astype(np.float64)
    closed = list(points) + [points[0]]
    x, z = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(z, np.float64))
    out = np.zeros(x.shape)
    # only inside poles need a distance, and only up to f (beyond it the amount is f / f)
    d, _, _ = polyline_distance(x[inside], z[inside], closed, limit=f)
    out[inside] = np.minimum(d, f) / f
    return out


def polyline(x, z, points, width: float, f: float) -> np.ndarray:
    """1 within width·(1−f) of the line, ramping to 0 at `width`."""
    if len(points) == 0 or width <= 0:
        return np.zeros(np.shape(x))
    d, _, _ = polyline_distance(x, z, points, limit=width)  # the amount is 0 from `width` on
    return polyline_amount(d, width, f)


def polyline_amount(d: np.ndarray, width: float, f: float) -> np.ndarray:
    inner = width * (1.0 - min(max(f, 0.0), 1.0))
    if width <= inner:
        ramp = np.ones_like(d)
    else:
        ramp = 1.0 - (d - inner) / (width - inner)
    return np.where(d < width, np.where(d <= inner, 1.0, np.clip(ramp, 0.0, 1.0)), 0.0)


def band(v: np.ndarray, low: float, high: float, f: float) -> np.ndarray:
    """0 unless low < v < high (strict), ramping linearly over f·(high−low)/2 at each end."""
    inside = (v > low) & (v < high)
    width = f * (high - low) / 2.0
    if width <= 0:
        return inside.astype(np.float64)
    return np.where(inside, np.clip(np.minimum(v - low, high - v) / width, 0.0, 1.0), 0.0)


def bbox(points, pad: float = 0.0) -> tuple[float, float, float, float]:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    return (p[:, 0].min() - pad, p[:, 1].min() - pad, p[:, 0].max() + pad, p[:, 1].max() + pad)


_KERNELS = ('_length', '_segment_distance', '_even_odd')


def _kernels() -> None:
    compile_kernels(globals(), _KERNELS)
