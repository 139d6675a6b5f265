"""Exact ray → heightfield intersection on the terrain's bilinear surface. Pure numpy.

The ray is cut at every grid line it crosses; inside one cell the bilinear height along the ray
is a quadratic in the ray parameter, so the first crossing is a root of a quadratic, not a
marching estimate.
"""

from __future__ import annotations

import math

import numpy as np

from model.holes import cells_are_holes
from model.terrain import Terrain


def _clip_to_box(o: np.ndarray, d: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float] | None:
    t0, t1 = 0.0, math.inf
    for axis in range(3):
        if abs(d[axis]) < 1e-15:
            if not lo[axis] <= o[axis] <= hi[axis]:
                return None
            continue
        with np.errstate(invalid="ignore"):
            a, b = (lo[axis] - o[axis]) / d[axis], (hi[axis] - o[axis]) / d[axis]
        if math.isnan(a) or math.isnan(b):
            continue
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return (t0, t1) if t0 <= t1 else None


def _grid_crossings(o: float, d: float, g0: float, s: float, t0: float, t1: float) -> np.ndarray:
    """Ray parameters where the coordinate o + t d crosses a grid line g0 + k s, for t in (t0, t1)."""
    if abs(d) < 1e-15:
        return np.empty(0)
    a, b = (o + t0 * d - g0) / s, (o + t1 * d - g0) / s
    k = np.arange(math.floor(min(a, b)) + 1, math.ceil(max(a, b)))
    t = (g0 + k * s - o) / d
    return t[(t > t0) & (t < t1)]


def ray_heightfield(terrain: Terrain, origin, direction, max_t: float = math.inf,
                    through_holes: bool = False) -> np.ndarray | None:
    """The first point (x, y, z) where the ray meets the terrain's surface, or None.

    `direction` need not be unit length; a hit beyond `max_t` (in its units) is None. With
    `through_holes` a hole's cells count as ground (the tool that fills holes points into them).
    """
    return rays_heightfield(terrain, [origin], [direction], max_t, through_holes)[0]


def rays_heightfield(terrain: Terrain, origins, directions, max_t: float = math.inf,
                     through_holes: bool = False, block: int | None = None) -> list[np.ndarray | None]:
    """`ray_heightfield` of each ray (origin, direction), their cells' heights gathered at once
    (a gather per ray is most of the cost of a few hundred short rays); the same points.

    `block`: the rays' first `block` cells first, then four times as many of those still without
    a hit, and so on (sight lines mostly meet the ground early); None: every cell in one pass."""
    rays = []
    for origin, direction in zip(origins, directions, strict=True):
        o = np.asarray(origin, np.float64).reshape(3)
        d = np.asarray(direction, np.float64).reshape(3)
        rays.append((o, d, _segments(terrain, o, d, max_t)))
    out: list[np.ndarray | None] = [None] * len(rays)
    live = [i for i, (_, _, seg) in enumerate(rays) if seg is not None]
    done = dict.fromkeys(live, 0)  # segments of each ray looked at so far
    while live:
        parts = [(i, done[i], len(rays[i][2][0]) if block is None else
                  min(done[i] + block, len(rays[i][2][0]))) for i in live]
        sizes = [b - a for _, a, b in parts]
        each = np.repeat(np.arange(len(parts)), sizes)
        o = np.stack([rays[i][0] for i in live])[each]
        d = np.stack([rays[i][1] for i in live])[each]
        ta = np.concatenate([rays[i][2][0][a:b] for i, a, b in parts])
        tb = np.concatenate([rays[i][2][1][a:b] for i, a, b in parts])
        ci, cj, hit_u = _segment_hits(terrain, o, d, ta, tb)
        hit = np.isfinite(hit_u)
        live, first = [], 0
        for (i, _, b), n in zip(parts, sizes, strict=True):
            found = np.flatnonzero(hit[first:first + n])
            k = first + int(found[0]) if found.size else -1
            first += n
            if k < 0:
                if b < len(rays[i][2][0]):
                    done[i] = b
                    live.append(i)
                continue
            # a ray that meets the surface in a hole's cell falls through it: under the ground, no hit
            if not through_holes and terrain.holes is not None \
                    and cells_are_holes(terrain, ci[k:k + 1], cj[k:k + 1])[0]:
                continue
            out[i] = rays[i][0] + (ta[k] + hit_u[k]) * rays[i][1]
        if block is not None:
            block *= 4
    return out


def _segments(terrain: Terrain, o: np.ndarray, d: np.ndarray,
              max_t: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The ray's pieces over the terrain's cells up to `max_t`: parameters (start, end) of each,
    cut at every grid line; None where the ray misses the ground plan."""
    if not (np.all(np.isfinite(o)) and np.all(np.isfinite(d))) or not np.any(d):
        return None
    x0, z0, x1, z1 = terrain.bounds()
    # Clip to the ground plan only: scanning the whole grid for its height range would cost more
    # than the walk along the ray on a large terrain.
    span = _clip_to_box(o, d, np.array([x0, -np.inf, z0]), np.array([x1, np.inf, z1]))
    if span is None:
        return None
    t0, t1 = span
    if not math.isfinite(t1):  # straight up or down: one cell, bounded by its lowest corner
        ci = min(max(int(math.floor((o[0] - x0) / terrain.spacing)), 0), terrain.columns - 2)
        cj = min(max(int(math.floor((o[2] - z0) / terrain.spacing)), 0), terrain.rows - 2)
        cell = terrain.read_heights(slice(cj, cj + 2), slice(ci, ci + 2))  # paged: one tile or four
        low = float(np.nanmin(cell)) if np.isfinite(cell).any() else math.nan
        if d[1] >= 0 or not math.isfinite(low):
            t1 = t0 if d[1] >= 0 else math.nan
        else:
            t1 = max(t0, (low - 1.0 - o[1]) / d[1])
        if not math.isfinite(t1):
            return None
    if t0 > min(t1, max_t):
        return None
    t1 = min(t1, max_t)
    s = terrain.spacing
    ts = np.concatenate([[t0], _grid_crossings(o[0], d[0], x0, s, t0, t1),
                         _grid_crossings(o[2], d[2], z0, s, t0, t1), [t1]])
    ts = np.unique(ts)
    if len(ts) == 1:
        ts = np.array([t0, t0])
    return ts[:-1], ts[1:]


def _segment_hits(terrain: Terrain, o: np.ndarray, d: np.ndarray, ta: np.ndarray,
                  tb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment [ta, tb] of its ray (origin o, direction d: (n, 3), a row per segment): its cell
    (column, row) and where in it the ray first meets the bilinear surface (u = t - ta; NaN: not)."""
    x0, z0 = terrain.origin
    s = terrain.spacing
    ox, oy, oz = o[:, 0], o[:, 1], o[:, 2]
    dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
    mid = (ta + tb) / 2.0
    # The cell of each segment, from its midpoint (never on a grid line unless it has no length).
    ci = np.clip(np.floor((ox + mid * dx - x0) / s), 0, terrain.columns - 2).astype(np.int64)
    cj = np.clip(np.floor((oz + mid * dz - z0) / s), 0, terrain.rows - 2).astype(np.int64)
    h00, h10, h01, h11 = terrain.height_corners(ci, cj)  # paged: gathered tile by tile
    # Local cell coordinates along the segment, in the segment's own parameter u = t - ta.
    fu0 = (ox + ta * dx - x0) / s - ci
    fv0 = (oz + ta * dz - z0) / s - cj
    du, dv = dx / s, dz / s
    hx, hz, hxz = h10 - h00, h01 - h00, h00 - h10 - h01 + h11
    # f(u) = bilinear height − ray height = A u² + B u + C; the ray is below ground where f ≥ 0.
    A = hxz * du * dv
    B = hx * du + hz * dv + hxz * (fu0 * dv + fv0 * du) - dy
    C = h00 + hx * fu0 + hz * fv0 + hxz * fu0 * fv0 - (oy + ta * dy)
    return ci, cj, _first_root(A, B, C, tb - ta)


def _first_root(A: np.ndarray, B: np.ndarray, C: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Smallest u in [0, length] with f(u) = A u² + B u + C reaching 0 from below; NaN where none."""
    out = np.full(A.shape, np.nan)
    start = C >= 0  # already at or under the ground where the segment begins
    out[start] = 0.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        disc = B * B - 4.0 * A * C
        sq = np.sqrt(np.maximum(disc, 0.0))
        # Numerically stable pair of roots (no cancellation between B and sqrt).
        q = -0.5 * (B + np.where(B >= 0, sq, -sq))
        r1 = np.where(A != 0, q / A, np.nan)
        r2 = np.where(q != 0, C / q, np.nan)
        linear = np.abs(A) < 1e-300
        r_lin = np.where(B != 0, -C / B, np.nan)
    roots = np.stack([np.where(linear, r_lin, r1), np.where(linear, np.nan, r2)])
    roots = np.where((disc >= 0) | linear, roots, np.nan)
    tol = 1e-9 * np.maximum(length, 1.0)
    ok = (roots >= -tol) & (roots <= length + tol)
    roots = np.where(ok, np.clip(roots, 0.0, length), np.nan)
    best = np.fmin(roots[0], roots[1])
    return np.where(start, out, best)
