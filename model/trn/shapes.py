"""Vectorised geometry of boundaries, filters and feather functions (arrays of poles in, amounts out)."""

from __future__ import annotations

import numpy as np


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


def _segments(points) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(points, np.float64).reshape(-1, 2)
    return p[:-1], p[1:]


def polyline_distance(x, z, points) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance to an open polyline, and the nearest segment index and its parameter t."""
    p = np.asarray(points, np.float64).reshape(-1, 2)
    best = np.full(np.shape(x), np.inf)
    seg = np.zeros(np.shape(x), np.int64)
    tt = np.zeros(np.shape(x))
    if len(p) == 1:
        return np.hypot(x - p[0, 0], z - p[0, 1]), seg, tt
    for i in range(len(p) - 1):
        ax, az = p[i]
        dx, dz = p[i + 1, 0] - ax, p[i + 1, 1] - az
        ll = dx * dx + dz * dz
        t = np.zeros(np.shape(x)) if ll == 0 else np.clip(((x - ax) * dx + (z - az) * dz) / ll, 0.0, 1.0)
        d = np.hypot(x - (ax + t * dx), z - (az + t * dz))
        closer = d < best
        best = np.where(closer, d, best)
        seg = np.where(closer, i, seg)
        tt = np.where(closer, t, tt)
    return best, seg, tt


def polygon_inside(x, z, points) -> np.ndarray:
    """Even-odd rule."""
    p = np.asarray(points, np.float64).reshape(-1, 2)
    inside = np.zeros(np.shape(x), bool)
    n = len(p)
    for i in range(n):
        xi, zi = p[i]
        xj, zj = p[i - 1]
        if zi == zj:
            continue
        crosses = (zi > z) != (zj > z)
        xc = (xj - xi) * (z - zi) / (zj - zi) + xi
        inside ^= crosses & (x < xc)
    return inside


def polygon(x, z, points, f: float) -> np.ndarray:
    """1 deep inside; ramps over `f` metres inside the outline."""
    if len(points) < 3:
        return np.zeros(np.shape(x))
    inside = polygon_inside(x, z, points)
    if f <= 0:
        return inside.astype(np.float64)
    closed = list(points) + [points[0]]
    d, _, _ = polyline_distance(x, z, closed)
    return np.where(inside, np.minimum(d, f) / f, 0.0)


def polyline(x, z, points, width: float, f: float) -> np.ndarray:
    """1 within width·(1−f) of the line, ramping to 0 at `width`."""
    if len(points) == 0 or width <= 0:
        return np.zeros(np.shape(x))
    d, _, _ = polyline_distance(x, z, points)
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
