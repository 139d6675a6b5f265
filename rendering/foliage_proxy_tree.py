"""Far foliage of one type as a quadtree of proxies over its chunks, in a memory budget.

Level 0 is the chunks' own proxies (`rendering.foliage_proxies.proxy_of`); a node of level L
covers 2^L × 2^L cells and its proxy is made from its four children's (`merged_many`: their
lowest-hashed representatives, so it is the node's own lowest-hashed instances whatever the
level). Each level takes over where its node spans `PROXY_PIXELS` on screen, twice as far as the
level below: there the children keep a quarter of their cards (16 of 64 each), as many as the
node shows whole, so card counts and cover carry on and the two levels dissolve into each other.
A quadtree (not 4×4 or 8×8 groups): what a node stores is at most 4 times what it draws.

Nodes are found by a Morton code of their cell (a node's chunks are one run of the sorted codes),
so the tables are numpy arrays, refreshed without a Python loop over the chunks. Proxies are made
on first need and kept in a cache of `budget_mb` (finest levels dropped first, least recently used
first within a level); the GPU holds only the
nodes the last frame drew (one buffer per level, an extent per node). An edit drops the proxies
of the nodes on its chunks' paths to the root, nothing else.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict

import numpy as np

from rendering.foliage_proxies import FLOATS, PROXY_CAP, STRIDE, merged_many, proxies_of_many

MAX_LEVELS = 24  # to one root (a world of 2^k cells a side has it by level k + 2)
BUDGET_MB = 48.0  # proxies kept on the host (least recently drawn dropped first)
BATCH_CHUNKS = 16384  # a build from the chunks goes this many chunks at a time (bounded memory)
ENTRY_BYTES = 200  # a cached proxy's own cost beyond its rows (array header, cache entry), counted
# cells are offset into 32 bits by alternating bits: a level's nodes then never all meet at the
# origin (an offset of 2^n would split a world centred there up to level n), the origin sits a
# third or two thirds into every node, so the root of a world of 2^k cells is near level k
_OFFSET = 0x6AAAAAAA


def _spread(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    for shift, mask in ((16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF), (4, 0x0F0F0F0F0F0F0F0F),
                        (2, 0x3333333333333333), (1, 0x5555555555555555)):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


def _squash(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.uint64) & np.uint64(0x5555555555555555)
    for shift, mask in ((1, 0x3333333333333333), (2, 0x0F0F0F0F0F0F0F0F), (4, 0x00FF00FF00FF00FF),
                        (8, 0x0000FFFF0000FFFF), (16, 0x00000000FFFFFFFF)):
        v = (v | (v >> np.uint64(shift))) & np.uint64(mask)
    return v


def morton(cx, cz) -> np.ndarray:
    """uint64 code of cells (cx, cz): the node of level L holding a cell is its code >> 2L."""
    x = np.asarray(cx, np.int64) + _OFFSET
    z = np.asarray(cz, np.int64) + _OFFSET
    return _spread(x) | (_spread(z) << np.uint64(1))


def cells_of(codes: np.ndarray) -> np.ndarray:
    """(n, 2) int64 cells of level-0 codes (the inverse of `morton`)."""
    c = np.asarray(codes, np.uint64)
    return np.stack([_squash(c).astype(np.int64) - _OFFSET,
                     _squash(c >> np.uint64(1)).astype(np.int64) - _OFFSET], axis=1)


def chunk_bounds(volume, type_name: str, keys: list) -> np.ndarray:
    """(n, 2, 3) grown boxes of chunks `keys` (non-empty) of one type, as `FoliageVolume.bounds`
    makes them, in one numpy pass (a Python call per chunk costs seconds on 262,144 chunks)."""
    return records_bounds([c.records for c in volume.chunk_list(keys)], volume.extent_of(type_name))


def records_bounds(recs: list[np.ndarray], extent: tuple[float, float]) -> np.ndarray:
    """(n, 2, 3) grown boxes of non-empty record arrays of one type of `extent` (radius, height)."""
    if not recs:
        return np.empty((0, 2, 3))
    lengths = np.fromiter(map(len, recs), np.int64, len(recs))
    first = np.r_[0, np.cumsum(lengths)[:-1]]
    rec = np.concatenate(recs).astype(np.float64)
    r, h = extent
    s = np.abs(rec[:, 6])
    lo = np.stack([rec[:, 0] - r * s, rec[:, 1], rec[:, 2] - r * s], axis=1)
    hi = np.stack([rec[:, 0] + r * s, rec[:, 1] + h * s, rec[:, 2] + r * s], axis=1)
    return np.stack([np.minimum.reduceat(lo, first), np.maximum.reduceat(hi, first)], axis=1)


class _Table:
    """One level's nodes, sorted by code: bounds, instances, their chunks (a run of level 0) and
    their children (a run of the level below)."""

    def __init__(self, codes, lo, hi, count, chunk_first, chunk_end, child_first, child_end) -> None:
        self.codes, self.lo, self.hi, self.count = codes, lo, hi, count
        self.chunk_first, self.chunk_end = chunk_first, chunk_end
        self.child_first, self.child_end = child_first, child_end

    def __len__(self) -> int:
        return len(self.codes)


class _Extents:
    """One level's GPU buffer: the representatives of the nodes drawn, an extent each."""

    def __init__(self) -> None:
        self.at: dict[int, tuple[int, int]] = {}  # code -> (first, room)
        self.end = self.holes = self.capacity = 0
        self.vbo = self.vao = 0
        self.pending: list[tuple[int, np.ndarray]] = []
        self.uploads = 0

    def place(self, code: int, reps: np.ndarray) -> None:
        room = 1 << max(0, len(reps) - 1).bit_length()
        self.at[code] = (self.end, room)
        self.end += room
        self.pending.append((code, reps))
        self.uploads += 1

    def keep_only(self, codes: set) -> None:
        for code in [c for c in self.at if c not in codes]:
            self.holes += self.at.pop(code)[1]

    def flush(self, reps_of) -> None:
        """Send what was placed; pack (and shrink) once holes fill half the buffer."""
        from OpenGL import GL

        whole = False
        if self.holes > max(1024, self.end // 2):
            offset = 0
            for code, (_, room) in list(self.at.items()):
                self.at[code] = (offset, room)
                offset += room
            self.end, self.holes, whole = offset, 0, True
        want = max(256, 1 << max(0, self.end - 1).bit_length())
        if self.end > self.capacity or want < self.capacity // 4:
            self.capacity = want
            if not self.vbo:
                self.vbo = int(GL.glGenBuffers(1))
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, self.capacity * STRIDE, None, GL.GL_DYNAMIC_DRAW)
            whole = True
        if not whole and not self.pending:
            return
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        if whole or len(self.pending) > len(self.at) // 4:
            data = np.zeros((self.end, FLOATS), np.float32)
            for code, (a, _) in self.at.items():
                r = reps_of(code)
                data[a:a + len(r)] = r
            GL.glBufferSubData(GL.GL_ARRAY_BUFFER, 0, data.nbytes, data)
        else:
            for code, r in self.pending:
                if code in self.at and len(r):
                    GL.glBufferSubData(GL.GL_ARRAY_BUFFER, self.at[code][0] * STRIDE, r.nbytes,
                                       np.ascontiguousarray(r, np.float32))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self.pending = []

    def vertex_array(self) -> int:
        """Representatives as plain vertices (one point each): records at 3 and 4, proxy at 6."""
        from OpenGL import GL

        if self.vao:
            return self.vao
        self.vao = int(GL.glGenVertexArrays(1))
        GL.glBindVertexArray(self.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        for loc, size, offset in ((3, 3, 0), (4, 4, 12), (6, 3, 28)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, size, GL.GL_FLOAT, GL.GL_FALSE, STRIDE, ctypes.c_void_p(offset))
            GL.glVertexAttribDivisor(loc, 0)
        GL.glDisableVertexAttribArray(5)  # no selection mask: reads the constant (set per draw)
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        return self.vao

    @property
    def gpu_bytes(self) -> int:
        return self.capacity * STRIDE

    def release(self) -> None:
        from OpenGL import GL

        if self.vao:
            GL.glDeleteVertexArrays(1, [self.vao])
        if self.vbo:
            GL.glDeleteBuffers(1, [self.vbo])
        self.vao = self.vbo = 0
        self.at, self.end, self.holes, self.capacity, self.pending = {}, 0, 0, 0, []


class ProxyTree:
    """One type's chunk and group proxies: the level tables, the LRU cache, the GPU buffers.
    `builds` counts proxies made (cumulative, any level), `evicted` those dropped for the budget."""

    def __init__(self, type_name: str, card_area: float, cell_size: float,
                 budget_mb: float = BUDGET_MB) -> None:
        self.type_name = type_name
        self.card_area, self.cell_area = float(card_area), float(cell_size) ** 2
        self.budget_bytes = int(budget_mb * 1e6)
        self.codes = np.empty(0, np.uint64)  # level 0, sorted
        self.lo = np.empty((0, 3))
        self.hi = np.empty((0, 3))
        self.count = np.empty(0, np.int64)
        self.levels: list[_Table] = []
        self.cache: dict[tuple[int, int], np.ndarray] = {}
        self._recent: list[OrderedDict] = [OrderedDict() for _ in range(MAX_LEVELS)]  # oldest first
        self.cache_bytes = 0
        self.gpu: list[_Extents] = []
        self.builds = 0
        self.evicted = 0
        self._protected: set[tuple[int, int]] = set()  # drawn this frame: never evicted by it

    # ---- tables --------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.codes)

    def row_of(self, cell) -> int:
        """The level-0 row of a cell, or -1."""
        return int(self.rows_of([cell])[0])

    def rows_of(self, cells) -> np.ndarray:
        """Level-0 rows of cells (n, 2), -1 where a cell has no chunk of this type."""
        cells = np.asarray(cells, np.int64).reshape(-1, 2)
        if not len(self.codes):
            return np.full(len(cells), -1, np.int64)
        code = morton(cells[:, 0], cells[:, 1])
        i = np.minimum(np.searchsorted(self.codes, code), len(self.codes) - 1)
        return np.where(self.codes[i] == code, i, -1).astype(np.int64)

    def key(self, row: int):
        return self.keys(np.array([row]))[0]

    def keys(self, rows: np.ndarray) -> list:
        """Chunk keys of level-0 rows."""
        return [((int(cx), int(cz)), self.type_name) for cx, cz in cells_of(self.codes[rows])]

    def apply(self, volume, keys) -> None:
        """Follow an edit of chunks `keys` of this type: their rows are refreshed (added or removed),
        the levels' tables redone from level 0 (numpy), and the proxies on their paths dropped."""
        if not keys:
            return
        keys = list(keys)
        cells = volume.key_cells(keys)
        codes = morton(cells[:, 0], cells[:, 1])
        if self.cache or any(e.at for e in self.gpu):  # (nothing to drop on the first build)
            for level in range(len(self.levels) or 1):
                for c in np.unique(codes >> np.uint64(2 * level)):
                    self._drop((level, int(c)))
        # one pass over the chunks, no call per chunk (a first build reads 100,000s of them)
        found = volume.chunk_list(keys)
        sizes = np.fromiter((0 if c is None else c.records.shape[0] for c in found), np.int64, len(found))
        live = np.flatnonzero(sizes > 0)
        boxes = records_bounds([found[i].records for i in live.tolist()], volume.extent_of(self.type_name))
        at = np.searchsorted(self.codes, codes) if len(self.codes) else np.zeros(len(codes), np.int64)
        known = (at < len(self.codes)) & (self.codes[np.minimum(at, len(self.codes) - 1)] == codes) \
            if len(self.codes) else np.zeros(len(codes), bool)
        if len(live) == len(keys) and known.all():  # the same chunks, changed: their rows and paths
            self._refresh(at, boxes, sizes)
            return
        keep = ~np.isin(self.codes, codes) if len(self.codes) else np.zeros(0, bool)
        all_codes = np.concatenate([self.codes[keep], codes[live]])
        order = np.argsort(all_codes, kind="stable")
        self.codes = all_codes[order]
        self.lo = np.concatenate([self.lo[keep], boxes[:, 0]])[order]
        self.hi = np.concatenate([self.hi[keep], boxes[:, 1]])[order]
        self.count = np.concatenate([self.count[keep], sizes[live]]).astype(np.int64)[order]
        self._tables()

    def _refresh(self, rows: np.ndarray, boxes: np.ndarray, counts: np.ndarray) -> None:
        """Chunks `rows` changed in place: their rows, then their ancestors' bounds and counts from
        their children, level by level (work follows the edit, not the world)."""
        self.lo[rows], self.hi[rows], self.count[rows] = boxes[:, 0], boxes[:, 1], counts
        for level in range(1, len(self.levels)):
            t, below = self.levels[level], self.levels[level - 1]
            rows = np.unique(np.searchsorted(t.codes, below.codes[rows] >> np.uint64(2)))
            for r in rows:
                a, b = t.child_first[r], t.child_end[r]
                t.lo[r], t.hi[r] = below.lo[a:b].min(axis=0), below.hi[a:b].max(axis=0)
                t.count[r] = below.count[a:b].sum()

    def _tables(self) -> None:
        n = len(self.codes)
        idx = np.arange(n)
        levels = [_Table(self.codes, self.lo, self.hi, self.count, idx, idx + 1, idx, idx + 1)]
        while len(levels) < MAX_LEVELS and len(levels[-1]) > 1:
            below = levels[-1]
            parent = below.codes >> np.uint64(2)
            first = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
            end = np.r_[first[1:], len(parent)]
            levels.append(_Table(parent[first], np.minimum.reduceat(below.lo, first),
                                 np.maximum.reduceat(below.hi, first), np.add.reduceat(below.count, first),
                                 below.chunk_first[first], below.chunk_end[end - 1], first, end))
        if not n:
            levels = []
        self.levels = levels
        while len(self.gpu) < len(levels):
            self.gpu.append(_Extents())
        for level in range(len(levels), len(self.gpu)):
            self.gpu[level].keep_only(set())
        for (level, code) in [k for k in self.cache if k[0] >= len(levels)]:
            self._drop((level, code))

    # ---- proxies -------------------------------------------------------------------------------
    def _drop(self, key: tuple[int, int]) -> None:
        reps = self.cache.pop(key, None)
        if reps is not None:
            del self._recent[key[0]][key[1]]
            self.cache_bytes -= reps.nbytes + ENTRY_BYTES
        level, code = key
        if level < len(self.gpu) and code in self.gpu[level].at:
            self.gpu[level].holes += self.gpu[level].at.pop(code)[1]

    def _store(self, key: tuple[int, int], reps: np.ndarray) -> None:
        self.cache[key] = reps
        self._recent[key[0]][key[1]] = None
        self.cache_bytes += reps.nbytes + ENTRY_BYTES
        self.builds += 1

    def reps(self, volume, level: int, rows: np.ndarray, protect: bool = False) -> list[np.ndarray]:
        """The proxies of nodes `rows` of `level` (from the cache, else made from their children's,
        at level 0 from their chunks' records), most recently used now; `protect`: kept this frame."""
        table = self.levels[level]
        out: list = [None] * len(rows)
        missing = []
        for j, r in enumerate(rows):
            key = (level, int(table.codes[r]))
            if protect:
                self._protected.add(key)
            got = self.cache.get(key)
            if got is None:
                missing.append(j)
            else:
                self._recent[level].move_to_end(key[1])
                out[j] = got
        if not missing:
            return out
        chunks = table.chunk_end[rows[missing]] - table.chunk_first[rows[missing]]
        batches = np.split(np.array(missing), np.flatnonzero(np.diff(np.cumsum(chunks) // BATCH_CHUNKS)) + 1)
        for batch in batches:
            made = self._make(volume, level, rows[batch])
            for j, reps in zip(batch, made, strict=True):
                self._store((level, int(table.codes[rows[j]])), reps)
                out[j] = reps
            self.trim()
        return out

    def _make(self, volume, level: int, rows: np.ndarray) -> list[np.ndarray]:
        table = self.levels[level]
        if level == 0:
            recs = [volume.chunk(*k).records for k in self.keys(rows)]
            group = np.repeat(np.arange(len(rows)), [len(r) for r in recs])
            rec = np.concatenate(recs) if recs else np.zeros((0, 7), np.float32)
            made = proxies_of_many(rec, group, len(rows), self.type_name, self.card_area, self.cell_area)
            ends = np.cumsum(np.bincount(made[:, 10].astype(np.int64), minlength=len(rows)))
            return [made[e - n:e, :FLOATS].copy() for e, n in
                    zip(ends, np.diff(np.r_[0, ends]), strict=True)]
        first, end = table.child_first[rows], table.child_end[rows]
        child_rows = np.concatenate([np.arange(a, b) for a, b in zip(first, end, strict=True)])
        parent = np.repeat(np.arange(len(rows)), end - first)
        children = self.reps(volume, level - 1, child_rows)
        return merged_many(children, parent, len(rows), self.type_name, PROXY_CAP)

    def trim(self) -> None:
        """Drop proxies past the budget: the finest level's first (the most numerous, and each is
        remade from a few children), least recently used first; never one drawn this frame. So
        the coarse nodes stay, and an edit remakes its path from them and a few fine siblings."""
        for level, recent in enumerate(self._recent):
            skipped = 0
            while self.cache_bytes > self.budget_bytes and skipped < len(recent):
                code = next(iter(recent))  # the least recently used
                if (level, code) in self._protected:  # drawn this frame: to the back
                    recent.move_to_end(code)
                    skipped += 1
                    continue
                self._drop((level, code))
                self.evicted += 1
            if self.cache_bytes <= self.budget_bytes:
                return

    # ---- a frame -------------------------------------------------------------------------------
    def begin_frame(self) -> None:
        self._protected = set()

    def place(self, volume, level: int, rows: np.ndarray) -> list[np.ndarray]:
        """Nodes `rows` of `level` go to the GPU at `end_frame` (kept there while drawn); returns
        their proxies."""
        table = self.levels[level]
        reps = self.reps(volume, level, rows, protect=True)
        ext = self.gpu[level]
        for r, p in zip(rows, reps, strict=True):
            code = int(table.codes[r])
            if code not in ext.at:
                ext.place(code, p)
        return reps

    def firsts(self, level: int, rows: np.ndarray) -> np.ndarray:
        """Where nodes `rows` of `level` start in their GPU buffer (after `end_frame`)."""
        at, codes = self.gpu[level].at, self.levels[level].codes
        return np.array([at[int(codes[r])][0] for r in rows], np.int64)

    def end_frame(self, drawn: list[set]) -> None:
        """The GPU keeps only what this frame drew (`drawn`: codes per level); buffers sent."""
        for level, ext in enumerate(self.gpu):
            ext.keep_only(drawn[level] if level < len(drawn) else set())
            table = self.levels[level] if level < len(self.levels) else None
            if table is not None:
                ext.flush(lambda code, level=level: self.cache[(level, code)])
        self.trim()

    @property
    def gpu_bytes(self) -> int:
        return sum(e.gpu_bytes for e in self.gpu)

    @property
    def host_bytes(self) -> int:
        return self.cache_bytes

    def release(self) -> None:
        for e in self.gpu:
            e.release()
        self.cache.clear()
        for recent in self._recent:
            recent.clear()
        self.cache_bytes = 0
