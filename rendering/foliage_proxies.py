"""Far proxies of foliage chunks: a fixed-size, hash-ordered subset of each chunk's instances.

Stochastic simplification of aggregate detail (Cook, Halstead et al., Pixar 2007): far away a
chunk is drawn from at most `PROXY_CAP` of its own instances, the ones with the lowest proxy hash
(so the subset is the same on every machine and keeps each instance's variant and colour shift),
each enlarged so the chunk covers the area all of them covered. The shader keeps fewer of them
as the chunk shrinks on screen (about one per `PROXY_PIXELS`² / `PROXY_CAP` pixels) and grows the
rest to match, so far foliage costs what its pixels cost, not what its instance count costs.
A proxy is built once per chunk version; an edit rebuilds only the chunks it touched.

Why a subset rather than a baked card per chunk (HLOD): real instances keep their variants, colour
shifts, lighting and the impostor atlas as they are, and rebuilding one after a stroke is a hash
and a partition (microseconds), not an offscreen render. Written here: no library simplifies
instanced foliage in our chunk buffers.

`proxy_of` is numpy only (tests need no GL); `ProxySet` holds one type's proxies in one GPU
buffer, each chunk's in an extent of its own, so rebuilding one chunk sends one extent.
"""

from __future__ import annotations

import ctypes

import numpy as np

from model.foliage.variants import draw24, instance_hashes

PROXY_CHANNEL = 0x103  # the proxy order's hash channel (variants and colours use 0x100..0x102)
PROXY_CAP = 64  # representatives kept per chunk at most
PROXY_PIXELS = 16.0  # a chunk's proxy takes over when its cell spans this many pixels
SATURATION = 4.0  # past this many card areas per cell area, more trees add no cover from afar
FLOATS = 10  # per representative: the 7 record floats, then rank, reps, stands for
STRIDE = FLOATS * 4


def proxy_of(records: np.ndarray, type_name: str, card_area: float, cell_area: float,
             cap: int = PROXY_CAP) -> np.ndarray:
    """float32 (R, FLOATS): the chunk's first R = min(n, cap) instances in proxy order, each with
    its rank, R, and how many instances the R together stand for (at least R: never shrunk)."""
    rec = np.asarray(records, np.float32).reshape(-1, 7)
    n = len(rec)
    if n == 0:
        return np.zeros((0, FLOATS), np.float32)
    u = draw24(instance_hashes(rec, type_name), PROXY_CHANNEL).astype(np.int64)
    key = (u << np.int64(32)) | np.arange(n, dtype=np.int64)  # a total order: ties by index
    reps = min(n, cap)
    idx = np.argpartition(key, reps - 1)[:reps] if reps < n else np.arange(n)
    idx = idx[np.argsort(key[idx])]
    mean_area = float(card_area) * float(np.mean(rec[:, 6].astype(np.float64) ** 2))
    saturated = SATURATION * float(cell_area) / max(mean_area, 1e-6)
    out = np.empty((reps, FLOATS), np.float32)
    out[:, :7] = rec[idx]
    out[:, 7] = np.arange(reps)
    out[:, 8] = reps
    out[:, 9] = max(float(reps), min(float(n), saturated))
    return out


def kept_share(distance, start: float) -> np.ndarray:
    """Share of a proxy's representatives kept at `distance` (all of them up to `start`), as the
    shader computes it: the chunk's screen area shrinks with the square of the distance."""
    d = np.maximum(np.asarray(distance, np.float64), 1e-3)
    return np.minimum(1.0, (start / d) ** 2)


def presence(proxy: np.ndarray, share) -> np.ndarray:
    """How much of each representative (rows of `proxy_of`) shows when `share` of them is kept
    (`kept_share`, per row): 1 whole, 0 gone, between for the one dissolving. A representative's
    area is its instance's times presence × stands for / kept, so the kept ones together cover
    what the chunk's instances covered, and nothing pops as the share changes."""
    kept = proxy[:, 8] * np.asarray(share, np.float64)
    return np.clip(kept - proxy[:, 7], 0.0, 1.0)


class ProxySet:
    """One type's chunk proxies: a table of its chunks (bounds, counts) and one GPU buffer holding
    each chunk's representatives in an extent of its own (room for a power of two of them), filled
    on the chunk's first far draw and after its edits; holes left by edits are packed away."""

    def __init__(self, type_name: str, card_area: float, cell_area: float) -> None:
        self.type_name = type_name
        self.card_area, self.cell_area = float(card_area), float(cell_area)
        self.keys: list = []
        self.row: dict = {}
        self.lo = np.empty((0, 3))
        self.hi = np.empty((0, 3))
        self.count = np.empty(0, np.int64)  # instances in the chunk
        self.reps = np.zeros(0, np.int64)  # representatives in its extent (0: not built)
        self.start = np.empty(0, np.int64)  # first representative of its extent; -1: none yet
        self.room = np.zeros(0, np.int64)  # representatives its extent holds
        self.built = np.empty(0, np.int64)  # -1: to build (new, or its chunk changed)
        self.mirror = np.zeros((0, FLOATS), np.float32)  # what the GPU buffer holds
        self.end = 0  # extents are taken from here
        self.holes = 0  # representatives' room in extents no chunk uses
        self.vbo = 0
        self.vao = 0
        self.uploads = 0  # chunk proxies built and sent (cumulative)

    def apply(self, volume, keys) -> None:
        """Follow an edit of chunks `keys` of this type: new chunks get a row at the end, a chunk
        gone gives its row to the last one (its extent becomes a hole), a changed chunk's bounds
        and count are refreshed and its proxy rebuilt on its next far draw. Work follows the edit."""
        gone = [k for k in keys if k in self.row and volume.chunk(*k) is None]
        for k in gone:
            i, last = self.row.pop(k), len(self.keys) - 1
            self.holes += int(self.room[i])
            if i != last:  # the last row moves into the hole
                moved = self.keys[last]
                self.keys[i] = moved
                self.row[moved] = i
                for a in (self.lo, self.hi, self.count, self.reps, self.start, self.room, self.built):
                    a[i] = a[last]
            self.keys.pop()
            for name in ("lo", "hi", "count", "reps", "start", "room", "built"):
                setattr(self, name, getattr(self, name)[:last])
        new = [k for k in keys if k not in self.row and volume.chunk(*k) is not None]
        if new:
            n = len(new)
            boxes = np.stack([volume.bounds(*k) for k in new])
            for k in new:
                self.row[k] = len(self.keys)
                self.keys.append(k)
            self.lo = np.concatenate([self.lo, boxes[:, 0]])
            self.hi = np.concatenate([self.hi, boxes[:, 1]])
            self.count = np.concatenate([self.count, [len(volume.chunk(*k)) for k in new]]).astype(np.int64)
            self.reps = np.concatenate([self.reps, np.zeros(n, np.int64)])
            self.start = np.concatenate([self.start, np.full(n, -1, np.int64)])
            self.room = np.concatenate([self.room, np.zeros(n, np.int64)])
            self.built = np.concatenate([self.built, np.full(n, -1, np.int64)])
        fresh = set(new)
        self.update_rows(volume, [k for k in keys if k in self.row and k not in fresh])

    def update_rows(self, volume, keys) -> None:
        """Bounds and counts of chunks that changed but still exist (the table's rows stay)."""
        for k in keys:
            i = self.row[k]
            box = volume.bounds(*k)
            self.lo[i], self.hi[i] = box[0], box[1]
            self.count[i] = len(volume.chunk(*k))
            self.built[i] = -1  # its proxy is rebuilt on its next far draw

    def ensure(self, volume, rows: np.ndarray) -> int:
        """Build the proxies of `rows` not built yet or whose chunk changed; returns how many."""
        if not len(rows):
            return 0
        rows = rows[self.built[rows] < 0]
        if not len(rows):
            return 0
        built = [proxy_of(volume.chunk(*self.keys[i]).records, self.type_name, self.card_area,
                          self.cell_area) for i in rows]
        moved = False
        for i, p in zip(rows, built, strict=True):
            if self.start[i] >= 0 and self.room[i] >= len(p):
                continue
            if self.start[i] >= 0:
                self.holes += int(self.room[i])
            room = 1 << max(0, len(p) - 1).bit_length()  # a power of two: room to grow a little
            self.start[i], self.room[i] = self._take(room), room
            moved = True
        whole = moved and self._fit()
        touched = []
        for i, p in zip(rows, built, strict=True):
            a = int(self.start[i])
            self.mirror[a:a + len(p)] = p
            self.reps[i], self.built[i] = len(p), 0
            touched.append((a, len(p)))
        self._send(None if whole or len(rows) > len(self.keys) // 4 else touched)
        self.uploads += len(rows)
        return len(rows)

    def _take(self, room: int) -> int:
        a = self.end
        self.end += room
        return a

    def _fit(self) -> bool:
        """Grow the buffer to hold `end`, and pack the extents once holes fill half of it; True
        when the whole buffer has to be sent again."""
        whole = False
        if self.end > len(self.mirror):
            capacity = max(256, len(self.mirror))
            while capacity < self.end:
                capacity *= 2
            mirror = np.zeros((capacity, FLOATS), np.float32)
            mirror[:len(self.mirror)] = self.mirror
            self.mirror = mirror
            whole = True
        if self.holes > max(1024, self.end // 2):
            mirror = np.zeros_like(self.mirror)
            offset = 0
            for i in np.flatnonzero(self.start >= 0):
                a, room = int(self.start[i]), int(self.room[i])
                mirror[offset:offset + room] = self.mirror[a:a + room]
                self.start[i] = offset
                offset += room
            self.mirror, self.end, self.holes = mirror, offset, 0
            whole = True
        if whole:
            self._allocate(len(self.mirror))
        return whole

    def _allocate(self, capacity: int) -> None:
        from OpenGL import GL

        if not self.vbo:
            self.vbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, capacity * STRIDE, None, GL.GL_DYNAMIC_DRAW)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)

    def _send(self, extents: list[tuple[int, int]] | None) -> None:
        """The whole mirror (None) or these (first, count) extents, to the GPU buffer."""
        from OpenGL import GL

        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        if extents is None:
            GL.glBufferSubData(GL.GL_ARRAY_BUFFER, 0, self.mirror.nbytes, self.mirror)
        else:
            for a, n in extents:
                if n:
                    GL.glBufferSubData(GL.GL_ARRAY_BUFFER, a * STRIDE, n * STRIDE, self.mirror[a:a + n])
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)

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
        GL.glDisableVertexAttribArray(5)  # no selection mask: reads the constant 0
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        return self.vao

    def drop_vertex_array(self) -> None:
        from OpenGL import GL

        if self.vao:
            GL.glDeleteVertexArrays(1, [self.vao])
            self.vao = 0

    @property
    def gpu_bytes(self) -> int:
        return len(self.mirror) * STRIDE

    def release(self) -> None:
        from OpenGL import GL

        self.drop_vertex_array()
        if self.vbo:
            GL.glDeleteBuffers(1, [self.vbo])
            self.vbo = 0
        self.mirror = np.zeros((0, FLOATS), np.float32)
        self.end = self.holes = 0
        self.start[:] = -1
        self.room[:] = 0
        self.built[:] = -1
        self.reps[:] = 0
