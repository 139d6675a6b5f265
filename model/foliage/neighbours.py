"""Fixed-radius neighbour search on the ground plane: a sorted grid, all numpy."""

from __future__ import annotations

import numpy as np

_OFFSETS = [(dx, dz) for dx in (-1, 0, 1) for dz in (-1, 0, 1)]
_SPAN = np.int64(1) << np.int64(32)
_HALF = np.int64(1) << np.int64(31)


class _Grid:
    """Points bucketed into square cells of `size`: a dense cell table when the area is small
    enough (O(1) lookups), else sorted cell keys and binary search."""

    MAX_DENSE = 1 << 22

    def __init__(self, points: np.ndarray, size: float, queries: np.ndarray) -> None:
        self.size = size
        px, pz = self.cells(points)
        qx, qz = self.cells(queries)
        self.ox = int(min(px.min(), qx.min())) - 1
        self.oz = int(min(pz.min(), qz.min())) - 1
        self.nx = int(max(px.max(), qx.max())) + 2 - self.ox
        self.nz = int(max(pz.max(), qz.max())) + 2 - self.oz
        self.dense = self.nx * self.nz <= self.MAX_DENSE
        if self.dense:
            flat = (px - self.ox) * self.nz + (pz - self.oz)
            self.order = np.argsort(flat, kind="stable")
            counts = np.bincount(flat, minlength=self.nx * self.nz)
            self.starts = np.concatenate([[0], np.cumsum(counts)])
        else:
            keys = px * _SPAN + (pz + _HALF)
            self.order = np.argsort(keys, kind="stable")
            self.keys = keys[self.order]
        self.qx, self.qz = qx, qz

    def cells(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = np.floor(points / self.size).astype(np.int64)
        return c[:, 0], c[:, 1]

    def ranges(self, dx: int, dz: int) -> tuple[np.ndarray, np.ndarray]:
        """[lo, hi) into `order` of the points in each query's neighbour cell (dx, dz)."""
        if self.dense:
            flat = (self.qx + dx - self.ox) * self.nz + (self.qz + dz - self.oz)
            return self.starts[flat], self.starts[flat + 1]
        k = (self.qx + dx) * _SPAN + (self.qz + dz + _HALF)
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
    grid = _Grid(points, radius, queries)
    return int(sum(int((hi - lo).sum()) for lo, hi in (grid.ranges(dx, dz) for dx, dz in _OFFSETS)))


def pairs_within(queries: np.ndarray, points: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """All (query index, point index) with squared distance < radius², unordered."""
    empty = np.empty(0, np.int64)
    if len(queries) == 0 or len(points) == 0 or not radius > 0:
        return empty, empty
    grid = _Grid(points, radius, queries)
    r2 = float(radius) * float(radius)
    qs, ps = [], []
    for dx, dz in _OFFSETS:
        lo, hi = grid.ranges(dx, dz)
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


PAIR_BLOCK = 1 << 18  # most pairs examined at once: memory stays bounded whatever the radius or density
PAIRS_PER_QUERY = 2  # below that cap, a block of pairs is this many per query: memory linear in them


def _pair_blocks(lo: np.ndarray, hi: np.ndarray, block: int):
    """(query index, sorted position) for every position in [lo, hi) of every query, at most
    `block` at a time (a single query's run of positions may span several blocks)."""
    counts = hi - lo
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    for s in range(0, total, block):
        e = min(total, s + block)
        q0 = int(np.searchsorted(ends, s, "right"))
        q1 = int(np.searchsorted(ends, e - 1, "right")) + 1
        starts = ends[q0:q1] - counts[q0:q1]  # flat index of each query's first pair
        a = np.maximum(starts, s)
        c = np.minimum(ends[q0:q1], e) - a
        qi = np.repeat(np.arange(q0, q1), c)
        first = np.repeat(lo[q0:q1] + (a - starts) - (np.cumsum(c) - c), c)
        yield qi, np.arange(e - s) + first


def any_within(queries: np.ndarray, points: np.ndarray, radius: float,
               beats: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """True for each query with some point at squared distance < radius² (with `beats` =
    (query ranks, point ranks): some such point of higher rank). Pairs are examined in blocks of
    at most PAIR_BLOCK, and a query already answered is not looked at again, so memory stays
    linear in the inputs for any radius (the answers are those of `pairs_within`, bit for bit)."""
    hit = np.zeros(len(queries), bool)
    if len(queries) == 0 or len(points) == 0 or not radius > 0:
        return hit
    grid = _Grid(points, radius, queries)
    r2 = float(radius) * float(radius)
    block = max(1, min(PAIR_BLOCK, max(4096, PAIRS_PER_QUERY * len(queries))))
    for dx, dz in _OFFSETS:
        lo, hi = grid.ranges(dx, dz)
        hi = np.where(hit, lo, hi)  # answered: nothing more to look at
        for qi, pos in _pair_blocks(lo, hi, block):
            pi = grid.order[pos]
            ddx = queries[qi, 0] - points[pi, 0]
            ddz = queries[qi, 1] - points[pi, 1]
            near = ddx * ddx + ddz * ddz < r2
            if beats is not None:
                near &= beats[1][pi] > beats[0][qi]
            hit[qi[near]] = True
    return hit
