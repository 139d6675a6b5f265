"""Fixed-radius neighbour search on the ground plane: a sorted grid, all numpy."""

from __future__ import annotations

import numpy as np

_OFFSETS = [(dx, dz) for dx in (-1, 0, 1) for dz in (-1, 0, 1)]
_SPAN = np.int64(1) << np.int64(32)
_HALF = np.int64(1) << np.int64(31)


class _Grid:
    """Points bucketed into square cells of `size`, sorted by cell key."""

    def __init__(self, points: np.ndarray, size: float) -> None:
        self.points = points
        self.size = size
        cx, cz = self.cells(points)
        keys = cx * _SPAN + (cz + _HALF)
        self.order = np.argsort(keys, kind="stable")
        self.keys = keys[self.order]

    def cells(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = np.floor(points / self.size).astype(np.int64)
        return c[:, 0], c[:, 1]

    def ranges(self, queries: np.ndarray, dx: int, dz: int) -> tuple[np.ndarray, np.ndarray]:
        cx, cz = self.cells(queries)
        k = (cx + dx) * _SPAN + (cz + dz + _HALF)
        return np.searchsorted(self.keys, k, "left"), np.searchsorted(self.keys, k, "right")


def _expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(query index, sorted position) for every position in [lo, hi) of every query."""
    counts = hi - lo
    total = int(counts.sum())
    qi = np.repeat(np.arange(len(lo)), counts)
    first = np.repeat(lo - (np.cumsum(counts) - counts), counts)
    return qi, np.arange(total) + first


def count_candidate_pairs(queries: np.ndarray, points: np.ndarray, radius: float) -> int:
    """How many point-in-neighbour-cell pairs a search would examine (to bound memory)."""
    if len(queries) == 0 or len(points) == 0:
        return 0
    grid = _Grid(points, radius)
    return int(sum(int((hi - lo).sum()) for lo, hi in (grid.ranges(queries, dx, dz) for dx, dz in _OFFSETS)))


def pairs_within(queries: np.ndarray, points: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """All (query index, point index) with squared distance < radius², unordered."""
    empty = np.empty(0, np.int64)
    if len(queries) == 0 or len(points) == 0 or not radius > 0:
        return empty, empty
    grid = _Grid(points, radius)
    r2 = float(radius) * float(radius)
    qs, ps = [], []
    for dx, dz in _OFFSETS:
        lo, hi = grid.ranges(queries, dx, dz)
        qi, pos = _expand(lo, hi)
        if qi.size == 0:
            continue
        pi = grid.order[pos]
        ddx = queries[qi, 0] - points[pi, 0]
        ddz = queries[qi, 1] - points[pi, 1]
        near = ddx * ddx + ddz * ddz < r2
        qs.append(qi[near])
        ps.append(pi[near])
    if not qs:
        return empty, empty
    return np.concatenate(qs), np.concatenate(ps)


def any_within(queries: np.ndarray, points: np.ndarray, radius: float) -> np.ndarray:
    """True for each query with some point at squared distance < radius²."""
    hit = np.zeros(len(queries), bool)
    qi, _ = pairs_within(queries, points, radius)
    hit[qi] = True
    return hit
