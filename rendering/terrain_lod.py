"""Terrain level of detail: a quadtree of square tiles and the choice of tiles for a view. Numpy only.

A tile of level L samples the height grid every 2**L samples, `TILE` cells a side, so every tile
has the same vertex count and a view's triangles follow the screen, not the terrain's size. Each
node keeps its height bounds (for culling) and its geometric error: how far its coarse surface
can stray from the full-resolution one (an upper bound summed level by level). A view refines
the node whose error covers the most pixels first, until every tile's error is under the pixel
tolerance or the tile budget is spent.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from model.terrain import Terrain
from rendering.culling import boxes_in_frustum

TILE = 64  # cells per tile side at every level
PIXEL_ERROR = 1.0  # a tile is fine enough when its error covers at most this many pixels
CELL_PIXELS = 12.0  # ... and its cells are at most this wide on screen (keeps paint and light sharp)
MAX_TILES = 128  # tiles drawn per frame at most: 128 x 64 x 64 x 2 ≈ 1 M triangles
STRIP_SAMPLES = 1 << 21  # samples read per pass when building the pyramid (bounded memory)

Key = tuple[int, int, int]  # (level, tile row, tile column)


def level_samples(n: int, stride: int) -> np.ndarray:
    """Sample indices of a level along one axis: every `stride`-th, and always the last one."""
    idx = np.arange(0, n, stride)
    return idx if idx[-1] == n - 1 else np.append(idx, n - 1)


def _block_reduce(a: np.ndarray, b: int, fn) -> np.ndarray:
    """`fn` (np.fmax or np.fmin) over the inclusive b x b blocks of a (shape (k*b+1, m*b+1)):
    each block holds its own edges, which it shares with its neighbours."""
    k, m = (a.shape[0] - 1) // b, (a.shape[1] - 1) // b
    out = fn.reduce(a[:-1, :-1].reshape(k, b, m, b), axis=(1, 3))
    out = fn(out, fn.reduce(a[b::b, :-1].reshape(k, m, b), axis=2))
    out = fn(out, fn.reduce(a[:-1, b::b].reshape(k, b, m), axis=1))
    return fn(out, a[b::b, b::b])


class LodPyramid:
    """Bounds and geometric errors of every quadtree node, per level; `update` after an edit."""

    def __init__(self, terrain: Terrain, tile: int = TILE) -> None:
        self.terrain = terrain
        self.tile = tile
        rows, cols = terrain.rows, terrain.columns
        self.levels = 1
        while tile << (self.levels - 1) < max(rows - 1, cols - 1):
            self.levels += 1
        self.samples = [(level_samples(rows, 1 << lv), level_samples(cols, 1 << lv))
                        for lv in range(self.levels)]
        self.shape = [(max(1, math.ceil((len(r) - 1) / tile)), max(1, math.ceil((len(c) - 1) / tile)))
                      for r, c in self.samples]
        self.lo = [np.zeros(s, np.float32) for s in self.shape]
        self.hi = [np.zeros(s, np.float32) for s in self.shape]
        self.err = [np.zeros(s, np.float32) for s in self.shape]
        self.update()

    # ---- tiles ---------------------------------------------------------------------------
    def tile_range(self, key: Key) -> tuple[int, int, int, int]:
        """Indices [a, b) x [c, d) of the tile's samples in its level's sample lists."""
        lv, i, j = key
        r, c = self.samples[lv]
        t = self.tile
        return i * t, min(i * t + t, len(r) - 1) + 1, j * t, min(j * t + t, len(c) - 1) + 1

    def children(self, key: Key) -> list[Key]:
        lv, i, j = key
        ni, nj = self.shape[lv - 1]
        return [(lv - 1, a, b) for a in (2 * i, 2 * i + 1) for b in (2 * j, 2 * j + 1) if a < ni and b < nj]

    def box(self, keys: list[Key]) -> tuple[np.ndarray, np.ndarray]:
        """World-space boxes (n, 3) lo, hi of the tiles."""
        t = self.terrain
        lo, hi = np.empty((len(keys), 3)), np.empty((len(keys), 3))
        for n, key in enumerate(keys):
            lv, i, j = key
            a, b, c, d = self.tile_range(key)
            r, cc = self.samples[lv]
            x0, z0, sp = t.origin[0], t.origin[1], t.spacing
            lo[n] = (x0 + cc[c] * sp, self.lo[lv][i, j], z0 + r[a] * sp)
            hi[n] = (x0 + cc[d - 1] * sp, self.hi[lv][i, j], z0 + r[b - 1] * sp)
        return lo, hi

    def skirt_depth(self, key: Key) -> float:
        """How far a tile's skirt hangs: past the largest gap a coarser neighbour can leave, i.e.
        the error of the nodes two levels up around it, and a little more for rasteriser seams."""
        lv, i, j = key
        up = min(lv + 2, self.levels - 1)
        f = 1 << (up - lv)
        ii, jj = i // f, j // f
        e = float(np.nanmax(self.err[up][max(0, ii - 1):ii + 2, max(0, jj - 1):jj + 2]))
        return e * 1.05 + 0.02 * self.terrain.spacing * (1 << lv)

    # ---- building ------------------------------------------------------------------------
    def nodes_touching(self, lv: int, r0: int, r1: int, c0: int, c1: int) -> tuple[int, int, int, int]:
        """Nodes [i0, i1) x [j0, j1) of a level whose samples, or whose normals, see the samples
        [r0, r1) x [c0, c1)."""
        span = self.tile << lv
        s = 1 << lv
        ni, nj = self.shape[lv]
        i0, j0 = max(0, (r0 - s) // span - 0), max(0, (c0 - s) // span)
        i1, j1 = min(ni, (r1 - 1 + s) // span + 1), min(nj, (c1 - 1 + s) // span + 1)
        # a node's last sample is the next node's first: the node before also holds it
        if r0 - s <= i0 * span and i0 > 0:
            i0 -= 1
        if c0 - s <= j0 * span and j0 > 0:
            j0 -= 1
        return i0, i1, j0, j1

    def _grid(self, lv: int, stride: int, i0: int, i1: int, j0: int, j1: int) -> np.ndarray:
        """Heights every `stride` samples over nodes [i0, i1) x [j0, j1) of level lv, clamped at the
        terrain's last sample so the block is whole tiles."""
        t = self.terrain
        span = self.tile << lv
        rows = np.minimum(np.arange(i0 * span, i1 * span + 1, stride), t.rows - 1)
        cols = np.minimum(np.arange(j0 * span, j1 * span + 1, stride), t.columns - 1)
        return t.heights[np.ix_(rows, cols)]

    def _strips(self, lv: int, i0: int, i1: int, j0: int, j1: int):
        """Node-row strips [a, b) of the range, each reading at most about STRIP_SAMPLES samples."""
        per_row = ((self.tile << lv) >> max(lv - 1, 0)) ** 2 * (j1 - j0)
        step = max(1, STRIP_SAMPLES // max(per_row, 1))
        for a in range(i0, i1, step):
            yield a, min(i1, a + step)

    def _level0(self, i0: int, i1: int, j0: int, j1: int) -> None:
        for a, b in self._strips(0, i0, i1, j0, j1):
            g = self._grid(0, 1, a, b, j0, j1)
            self.lo[0][a:b, j0:j1] = _block_reduce(g, self.tile, np.fmin)
            self.hi[0][a:b, j0:j1] = _block_reduce(g, self.tile, np.fmax)

    def _level(self, lv: int, i0: int, i1: int, j0: int, j1: int) -> None:
        """Bounds from the children; error = the children's plus what halving the samples loses."""
        ci, cj = self.shape[lv - 1]

        def from_children(arrays, fn, fill):
            a = np.full((2 * (i1 - i0), 2 * (j1 - j0)), fill, np.float32)
            src = arrays[lv - 1][2 * i0:min(2 * i1, ci), 2 * j0:min(2 * j1, cj)]
            a[:src.shape[0], :src.shape[1]] = src
            return fn.reduce(a.reshape(i1 - i0, 2, j1 - j0, 2), axis=(1, 3))

        self.lo[lv][i0:i1, j0:j1] = from_children(self.lo, np.fmin, np.inf)
        self.hi[lv][i0:i1, j0:j1] = from_children(self.hi, np.fmax, -np.inf)
        child_err = from_children(self.err, np.fmax, 0.0)
        half = 1 << (lv - 1)
        for a, b in self._strips(lv, i0, i1, j0, j1):
            g = self._grid(lv, half, a, b, j0, j1).astype(np.float32)
            dec = np.zeros_like(g)
            dec[1::2, ::2] = np.abs(g[1::2, ::2] - 0.5 * (g[:-2:2, ::2] + g[2::2, ::2]))
            dec[::2, 1::2] = np.abs(g[::2, 1::2] - 0.5 * (g[::2, :-2:2] + g[::2, 2::2]))
            # cell centres lie on the diagonal each cell is cut along (see grid_indices)
            dec[1::2, 1::2] = np.abs(g[1::2, 1::2] - 0.5 * (g[:-2:2, 2::2] + g[2::2, :-2:2]))
            self.err[lv][a:b, j0:j1] = _block_reduce(dec, 2 * self.tile, np.fmax) + child_err[a - i0:b - i0]

    def update(self, r0: int = 0, r1: int | None = None, c0: int = 0, c1: int | None = None) -> None:
        """Recompute the nodes of every level that the samples [r0, r1) x [c0, c1) reach."""
        r1 = self.terrain.rows if r1 is None else r1
        c1 = self.terrain.columns if c1 is None else c1
        i0, i1, j0, j1 = self.nodes_touching(0, r0, r1, c0, c1)
        self._level0(i0, i1, j0, j1)
        for lv in range(1, self.levels):
            # the parents of the nodes just redone
            i0, i1, j0, j1 = i0 // 2, min(self.shape[lv][0], (i1 + 1) // 2), j0 // 2, \
                min(self.shape[lv][1], (j1 + 1) // 2)
            self._level(lv, i0, i1, j0, j1)

    # ---- choosing tiles --------------------------------------------------------------------
    def select(self, eye: np.ndarray, planes: np.ndarray, pixels_per_radian: float,
               pixel_error: float = PIXEL_ERROR, max_tiles: int = MAX_TILES,
               cell_pixels: float = CELL_PIXELS) -> list[Key]:
        """Tiles in view, coarse where their error is sub-pixel, finest where it matters most."""
        eye = np.asarray(eye, np.float64)
        spacing = self.terrain.spacing
        heap: list[tuple[float, Key]] = []

        def push(keys: list[Key]) -> int:
            lo, hi = self.box(keys)
            shown = boxes_in_frustum(lo, hi, planes)
            d = np.linalg.norm(np.maximum(np.maximum(lo - eye, eye - hi), 0.0), axis=1)
            d = np.maximum(d, 1e-6)
            n = 0
            for key, s, dist in zip(keys, shown, d, strict=True):
                if not s:
                    continue
                lv, i, j = key
                geo = float(self.err[lv][i, j]) / pixel_error
                cell = spacing * (1 << lv) / cell_pixels if lv else 0.0
                # priority: the larger overshoot over its tolerance, in pixels per pixel allowed
                heapq.heappush(heap, (-max(geo, cell) * pixels_per_radian / dist, key))
                n += 1
            return n

        top = self.levels - 1
        count = push([(top, i, j) for i in range(self.shape[top][0]) for j in range(self.shape[top][1])])
        chosen: list[Key] = []
        while heap:
            over, key = heapq.heappop(heap)
            kids = self.children(key) if key[0] > 0 else []
            if -over > 1.0 and kids and count - 1 + len(kids) <= max_tiles:
                count += push(kids) - 1
                continue
            chosen.append(key)
        return chosen

    def all_tiles(self, lv: int = 0) -> list[Key]:
        return [(lv, i, j) for i in range(self.shape[lv][0]) for j in range(self.shape[lv][1])]
