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
BLOCK_SAMPLES = 512  # a full build reads the grid once, in blocks this wide (a scene file's tile)

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


def _off(mid: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|mid - (a + b) / 2| in float32, with one temporary."""
    t = np.add(a, b)
    t *= 0.5
    np.subtract(mid, t, out=t)
    return np.abs(t, out=t)


def _decimation_error(g: np.ndarray, tile: int) -> np.ndarray:
    """Per node (2*tile cells of g a side, k x m nodes): the largest distance between a sample that
    halving the grid drops and the coarse surface there, i.e. the mean of the two kept samples
    it lies between (along a row, a column, or the diagonal each cell is cut along, see
    grid_indices). The same as the maximum over a node's block of the dropped samples' offsets."""
    k, m = (g.shape[0] - 1) // (2 * tile), (g.shape[1] - 1) // (2 * tile)
    t = tile
    down = _off(g[1::2, ::2], g[:-2:2, ::2], g[2::2, ::2])  # (k t, m t + 1): odd rows, even columns
    across = _off(g[::2, 1::2], g[::2, :-2:2], g[::2, 2::2])  # (k t + 1, m t)
    centre = _off(g[1::2, 1::2], g[:-2:2, 2::2], g[2::2, :-2:2])  # (k t, m t)
    out = np.fmax.reduce(centre.reshape(k, t, m, t), axis=(1, 3))
    # even columns and rows are shared by the nodes either side of them
    out = np.fmax(out, np.fmax.reduce(down[:, :-1].reshape(k, t, m, t), axis=(1, 3)))
    out = np.fmax(out, np.fmax.reduce(down[:, t::t].reshape(k, t, m), axis=1))
    out = np.fmax(out, np.fmax.reduce(across[:-1].reshape(k, t, m, t), axis=(1, 3)))
    out = np.fmax(out, np.fmax.reduce(across[t::t].reshape(k, m, t), axis=2))
    return out


class LodPyramid:
    """Bounds and geometric errors of every quadtree node, per level; `update` after an edit.

    A full build reads the heights once, block by block (`BLOCK_SAMPLES` a side, the tiles of a
    paged terrain): the levels whose nodes fit in a block are done there, and the block leaves its
    samples every `coarse_stride` in `coarse`, a small in-memory grid the coarser levels read
    instead of the terrain (they sample no finer). An edit redoes only the nodes it reaches."""

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
        # levels 0..block_levels are built block by block; the others from `coarse`
        self.block_levels = 0
        while self.block_levels + 1 < self.levels and tile << (self.block_levels + 1) <= BLOCK_SAMPLES:
            self.block_levels += 1
        self.coarse_stride = 1 << self.block_levels
        c = self.coarse_stride
        self._coarse_rows = np.minimum(np.arange(0, -(-(rows - 1) // c) * c + 1, c), rows - 1)
        self._coarse_cols = np.minimum(np.arange(0, -(-(cols - 1) // c) * c + 1, c), cols - 1)
        self.coarse = np.zeros((len(self._coarse_rows), len(self._coarse_cols)), np.float32)
        self._build()

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
        c = self.coarse_stride
        if c > 1 and stride % c == 0:  # every sample is one `coarse` holds (the last: its last)
            return self.coarse[np.ix_(-(-rows // c), -(-cols // c))]
        return t.take_heights(rows, cols)  # paged: only the tiles, and rows of them, it samples

    def take_heights(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """`terrain.take_heights`, from `coarse` where it holds every sample asked for (a coarse
        tile's: no tile of a paged terrain is read), else from the terrain."""
        c, t = self.coarse_stride, self.terrain
        if c > 1 and len(rows) and len(cols):
            on_r = (rows % c == 0) | (rows == t.rows - 1)
            on_c = (cols % c == 0) | (cols == t.columns - 1)
            if on_r.all() and on_c.all():
                return self.coarse[np.ix_(-(-rows // c), -(-cols // c))]
        return t.take_heights(rows, cols)

    def _refresh_coarse(self, r0: int, r1: int, c0: int, c1: int) -> None:
        """`coarse` where the samples [r0, r1) x [c0, c1) changed."""
        if self.coarse_stride == 1:
            return
        rs = np.flatnonzero((self._coarse_rows >= r0) & (self._coarse_rows < r1))
        cs = np.flatnonzero((self._coarse_cols >= c0) & (self._coarse_cols < c1))
        if len(rs) and len(cs):
            self.coarse[rs[0]:rs[-1] + 1, cs[0]:cs[-1] + 1] = self.terrain.take_heights(
                self._coarse_rows[rs], self._coarse_cols[cs])

    def _build(self) -> None:
        """Every node, reading each sample once: block by block for the fine levels (each block
        a whole node of level `block_levels`), then the coarse levels from `coarse`."""
        t, k, c = self.terrain, self.block_levels, self.coarse_stride
        size = self.tile << k
        nbi, nbj = self.shape[k]
        for bi in range(nbi):
            rows = np.minimum(np.arange(bi * size, bi * size + size + 1), t.rows - 1)
            for bj in range(nbj):
                cols = np.minimum(np.arange(bj * size, bj * size + size + 1), t.columns - 1)
                g = t.take_heights(rows, cols)
                if c > 1:
                    n, m = self.coarse.shape
                    a, b = bi * size // c, bj * size // c
                    self.coarse[a:a + size // c + 1, b:b + size // c + 1] = \
                        g[::c, ::c][:n - a, :m - b]
                for lv in range(k + 1):
                    span, per = self.tile << lv, 1 << (k - lv)
                    i0, j0 = bi * per, bj * per
                    i1, j1 = min(self.shape[lv][0], i0 + per), min(self.shape[lv][1], j0 + per)
                    stride = 1 << max(lv - 1, 0)
                    sub = g[:(i1 - i0) * span + 1:stride, :(j1 - j0) * span + 1:stride]
                    if lv == 0:
                        self._level0(i0, i1, j0, j1, sub)
                    else:
                        self._level(lv, i0, i1, j0, j1, sub)
        for lv in range(k + 1, self.levels):
            self._level(lv, 0, self.shape[lv][0], 0, self.shape[lv][1])

    def _strips(self, lv: int, i0: int, i1: int, j0: int, j1: int):
        """Node-row strips [a, b) of the range, each reading at most about STRIP_SAMPLES samples."""
        per_row = ((self.tile << lv) >> max(lv - 1, 0)) ** 2 * (j1 - j0)
        step = max(1, STRIP_SAMPLES // max(per_row, 1))
        for a in range(i0, i1, step):
            yield a, min(i1, a + step)

    def _level0(self, i0: int, i1: int, j0: int, j1: int, grid: np.ndarray | None = None) -> None:
        """Bounds of the level-0 nodes; `grid`: their samples, already read (else read in strips)."""
        strips = [(i0, i1)] if grid is not None else self._strips(0, i0, i1, j0, j1)
        for a, b in strips:
            g = grid if grid is not None else self._grid(0, 1, a, b, j0, j1)
            self.lo[0][a:b, j0:j1] = _block_reduce(g, self.tile, np.fmin)
            self.hi[0][a:b, j0:j1] = _block_reduce(g, self.tile, np.fmax)

    def _level(self, lv: int, i0: int, i1: int, j0: int, j1: int, grid: np.ndarray | None = None) -> None:
        """Bounds from the children; error = the children's plus what halving the samples loses.
        `grid`: the nodes' samples every 2**(lv-1), already read (else read in strips)."""
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
        strips = [(i0, i1)] if grid is not None else self._strips(lv, i0, i1, j0, j1)
        for a, b in strips:
            g = np.asarray(grid if grid is not None else self._grid(lv, half, a, b, j0, j1), np.float32)
            self.err[lv][a:b, j0:j1] = _decimation_error(g, self.tile) + child_err[a - i0:b - i0]

    def update(self, r0: int = 0, r1: int | None = None, c0: int = 0, c1: int | None = None) -> None:
        """Recompute the nodes of every level that the samples [r0, r1) x [c0, c1) reach."""
        r1 = self.terrain.rows if r1 is None else r1
        c1 = self.terrain.columns if c1 is None else c1
        self._refresh_coarse(r0, r1, c0, c1)
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
