"""Stored foliage on the GPU: one instance buffer per chunk, uploaded when it changes and streamed by
view distance, its vertex arrays and selection mask."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np
from OpenGL import GL

from model.foliage.volume import RECORD_BYTES, ChunkKey
from rendering import gl_unchecked as gl
from rendering.foliage_proxy_tree import records_bounds
from rendering.meshes import VERTEX_FLOATS
from rendering.renderer import FrameContext

SELECTED_LOCATION = 5  # the per-instance selection mask (1.0 selected); 0.0 where a chunk has none
UV_LOCATION = 6  # a mesh vertex's texture coordinates
IMPOSTOR_VAO = "@impostor"
POINTS_VAO = "@points"  # a chunk's vertex array for its cards
RELEASE_FACTOR = 1.5  # resident chunks are released this many fade ends away (hysteresis: no churn)


@dataclass
class _GpuChunk:
    vbo: int
    capacity: int = 0  # bytes allocated
    count: int = 0
    version: int = -1
    mask_vbo: int = 0  # selection mask, made on the chunk's first selection
    vaos: dict[str, int] = field(default_factory=dict)  # one per mesh drawn, made on first draw


class ChunkStreaming:
    """The chunk half of `FoliageRenderer`: uploads, streaming and vertex arrays (its state lives there)."""

    # (vertex arrays are set up by unchecked calls: a first frame makes thousands; the draw's checked
    # bind of the array that follows reports any error)
    def _impostor_vao(self, key: ChunkKey, gc: _GpuChunk) -> int:
        if IMPOSTOR_VAO in gc.vaos:
            return gc.vaos[IMPOSTOR_VAO]
        vao = gc.vaos[IMPOSTOR_VAO] = int(GL.glGenVertexArrays(1))
        gl.bind_vertex_array(vao)
        gl.bind_buffer(GL.GL_ARRAY_BUFFER, self._quad_vbo)
        gl.enable_attribute(0)
        gl.float_attribute(0, 2, 8, 0)
        self._instance_attributes(key, gc)
        gl.bind_vertex_array(0)
        return vao

    def _points_vao(self, key: ChunkKey, gc: _GpuChunk) -> int:
        """The records as plain vertices: one point per instance in a single non-instanced draw
        (software rasterisers run instanced draws instance by instance)."""
        if POINTS_VAO in gc.vaos:
            return gc.vaos[POINTS_VAO]
        vao = gc.vaos[POINTS_VAO] = int(GL.glGenVertexArrays(1))
        gl.bind_vertex_array(vao)
        self._instance_attributes(key, gc, divisor=0)
        gl.bind_vertex_array(0)
        return vao

    def _vao(self, key: ChunkKey, gc: _GpuChunk, name: str) -> int:
        """The chunk's vertex array for mesh `name`: its vertices, the records, the selection mask."""
        if name in gc.vaos:
            return gc.vaos[name]
        mesh = self._gpu_mesh(name)
        vao = gc.vaos[name] = int(GL.glGenVertexArrays(1))
        gl.bind_vertex_array(vao)
        gl.bind_buffer(GL.GL_ARRAY_BUFFER, mesh.vbo)
        stride = VERTEX_FLOATS * 4
        for loc, size, offset in ((0, 3, 0), (1, 3, 12), (2, 3, 24), (UV_LOCATION, 2, 36)):
            gl.enable_attribute(loc)
            gl.float_attribute(loc, size, stride, offset)
        self._instance_attributes(key, gc)
        gl.bind_vertex_array(0)
        return vao

    def _instance_attributes(self, key: ChunkKey, gc: _GpuChunk, divisor: int = 1) -> None:
        """Records at locations 3 and 4, the mask at 5, per instance (divisor 0: per vertex, for
        one point per record), into the bound vertex array."""
        gl.bind_buffer(GL.GL_ARRAY_BUFFER, gc.vbo)
        for loc, size, offset in ((3, 3, 0), (4, 4, 12)):
            gl.enable_attribute(loc)
            gl.float_attribute(loc, size, RECORD_BYTES, offset)
            gl.attribute_divisor(loc, divisor)
        if gc.mask_vbo and key in self._selection:
            gl.bind_buffer(GL.GL_ARRAY_BUFFER, gc.mask_vbo)
            gl.enable_attribute(SELECTED_LOCATION)
            gl.float_attribute(SELECTED_LOCATION, 1, 4, 0)
            gl.attribute_divisor(SELECTED_LOCATION, divisor)
        else:
            gl.disable_attribute(SELECTED_LOCATION)  # reads the constant 0: not selected
        gl.bind_buffer(GL.GL_ARRAY_BUFFER, 0)

    def _drop_vaos(self, gc: _GpuChunk) -> None:
        if gc.vaos:
            GL.glDeleteVertexArrays(len(gc.vaos), list(gc.vaos.values()))
        gc.vaos = {}

    def _upload(self, key: ChunkKey) -> None:
        chunk = self.volume.chunk(*key)
        gc = self._gpu.get(key)
        if chunk is None or len(chunk) == 0:
            if gc is not None:
                self._delete_chunk(gc)
                del self._gpu[key]
            return
        if gc is None:
            gc = self._gpu[key] = _GpuChunk(int(GL.glGenBuffers(1)))
        data = np.ascontiguousarray(chunk.records, np.float32)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, gc.vbo)
        if data.nbytes > gc.capacity:
            gc.capacity = max(data.nbytes, int(gc.capacity * 1.5))  # room to grow without reallocating
            GL.glBufferData(GL.GL_ARRAY_BUFFER, gc.capacity, None, GL.GL_DYNAMIC_DRAW)
        GL.glBufferSubData(GL.GL_ARRAY_BUFFER, 0, data.nbytes, data)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        gc.count, gc.version = len(data), chunk.version
        self.uploads[key] += 1
        if key in self._selection or gc.mask_vbo:
            self._selection_dirty.add(key)  # new records: the mask must match their count

    def _upload_new(self, keys: list[ChunkKey]) -> set[ChunkKey]:
        """`_upload` of chunks not on the GPU yet, in one pass: their buffers named at once, each
        filled by one unchecked call (a first frame sends thousands; PyOpenGL's checked wrappers
        cost more than the copies). Returns the keys uploaded (the non-empty ones)."""
        found = [(k, c) for k, c in zip(keys, self.volume.chunk_list(keys), strict=True)
                 if c is not None and len(c.records)]
        if not found:
            return set()
        names = np.atleast_1d(GL.glGenBuffers(len(found))).tolist()
        for (key, chunk), vbo in zip(found, names, strict=True):
            data = np.ascontiguousarray(chunk.records, np.float32)
            gl.bind_buffer(GL.GL_ARRAY_BUFFER, vbo)
            gl.buffer_data(GL.GL_ARRAY_BUFFER, data.nbytes, data.ctypes.data_as(ctypes.c_void_p),
                           GL.GL_DYNAMIC_DRAW)
            self._gpu[key] = _GpuChunk(int(vbo), data.nbytes, len(data), chunk.version)
            self.uploads[key] += 1
            if key in self._selection:
                self._selection_dirty.add(key)  # the mask must match the records' count
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)  # (checked: reports any error of the pass)
        return {k for k, _ in found}

    def _upload_mask(self, key: ChunkKey) -> None:
        gc = self._gpu.get(key)
        if gc is None:
            return
        idx = self._selection.get(key)
        self._drop_vaos(gc)  # remade on their next draw, with the mask attribute or without
        if idx is not None:
            mask = np.zeros(gc.count, np.float32)
            mask[idx[(idx >= 0) & (idx < gc.count)]] = 1.0
            if not gc.mask_vbo:
                gc.mask_vbo = int(GL.glGenBuffers(1))
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, gc.mask_vbo)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, mask.nbytes, mask, GL.GL_DYNAMIC_DRAW)
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
            self.selection_uploads[key] += 1

    def _sync_chunks(self, frame: FrameContext) -> None:
        if self._all_dirty:
            stale = {k for k, gc in self._gpu.items() if (c := self.volume.chunk(*k)) is None or
                     c.version != gc.version}
            dirty = stale | self._dirty
            if not self.stream:  # (streaming brings every chunk that came near anyway)
                dirty |= self.volume.key_set() - self._gpu.keys()
        else:
            dirty = self._dirty
        released = False
        if self.stream:
            dirty, released = self._stream_chunks(frame, dirty)
        if not dirty and not self._all_dirty and not released:
            return
        uploaded = 0
        order = sorted(dirty, key=lambda k: (k[1], k[0]))
        fresh = self._upload_new([k for k in order if k not in self._gpu])
        for key in order:
            if key not in fresh:
                self._upload(key)
            uploaded += 1
            self._boxes.pop(key, None)
        if uploaded:
            frame.stats.count_upload("foliage chunks", uploaded)
        rebuild = self._all_dirty or released or any(k not in self._row for k in dirty if k in self._gpu) \
            or any(k not in self._gpu for k in dirty if k in self._row)
        if self._mesh_dirty:
            self._boxes.clear()  # a new volume or context: every bound afresh
        self._dirty = set()
        self._all_dirty = self._mesh_dirty = False
        if not rebuild:  # the same chunks as before: refresh only the changed rows (work follows the edit)
            for key in dirty & self._row.keys():
                i = self._row[key]
                box = self._boxes[key] = self.volume.bounds(*key)
                self._lo[i], self._hi[i] = box[0], box[1]
                self._counts[i] = self._gpu[key].count
            return
        self._order = sorted(self._gpu, key=lambda k: (k[1], k[0]))
        self._row = {k: i for i, k in enumerate(self._order)}
        self._boxes.update(self._bounds_of([k for k in self._order if k not in self._boxes]))
        boxes = np.stack([self._boxes[k] for k in self._order]) if self._order else np.empty((0, 2, 3))
        self._lo, self._hi = boxes[:, 0].copy(), boxes[:, 1].copy()
        types = sorted({t for _, t in self._order})
        index = {t: i for i, t in enumerate(types)}
        self._order_types = types
        self._order_type = np.array([index[t] for _, t in self._order], np.int64)
        self._counts = np.array([self._gpu[k].count for k in self._order], np.int64)

    def _bounds_of(self, keys: list[ChunkKey]) -> dict[ChunkKey, np.ndarray]:
        """Grown bounds (2, 3) of chunks `keys` as `FoliageVolume.bounds` gives them, a numpy pass
        per type (only the changed chunks are asked for; a first frame uploads thousands)."""
        by_type: dict[str, list[ChunkKey]] = {}
        for key in keys:
            by_type.setdefault(key[1], []).append(key)
        out: dict[ChunkKey, np.ndarray] = {}
        v = self.volume
        for type_name, group in by_type.items():
            boxes = records_bounds([c.records for c in v.chunk_list(group)], v.extent_of(type_name))
            out.update(zip(group, boxes, strict=True))
        return out

    def _stream_chunks(self, frame: FrameContext, dirty: set[ChunkKey]) -> tuple[set[ChunkKey], bool]:
        """The dirty chunks near enough to upload, with those that came near; resident chunks that
        went far are released. Returns (chunks to upload, whether any was released)."""
        v = self.volume
        eye = frame.camera.eye()
        if not dirty and not self._all_dirty and np.array_equal(eye, self._stream_eye) \
                and self._proxy_start == self._stream_start:
            return dirty, False  # nothing changed and the camera stood still: nothing comes or goes
        self._stream_eye = eye
        self._stream_start = self._proxy_start
        live = v.key_set()
        gone_keys = dirty - live  # (set operations: no Python call per chunk of a big volume)
        if self._all_dirty or gone_keys or not dirty <= self._stream_row.keys():
            keys = self._stream_keys = v.keys()
            self._stream_row = dict(zip(keys, range(len(keys)), strict=True))
            cells = v.key_cells(keys).astype(np.float64)
            s = v.cell_size  # each cell's box, as `cell_box` gives it
            self._stream_box = np.concatenate([cells * s, (cells + 1) * s], axis=1).reshape(-1, 4)
            names = list(map(itemgetter(1), keys))
            self._stream_types = sorted(set(names))
            index = {t: i for i, t in enumerate(self._stream_types)}
            self._stream_type = np.fromiter(map(index.__getitem__, names), np.int64, len(names))
        # full instances end where the proxies take over (or at the type's far end)
        ends = np.array([self.plan(t).full_end() for t in self._stream_types] + [0.0], np.float64)
        self._stream_end = ends[self._stream_type] if len(self._stream_keys) else np.empty(0)
        b = self._stream_box
        dx = np.maximum(np.maximum(b[:, 0] - eye[0], eye[0] - b[:, 2]), 0.0)
        dz = np.maximum(np.maximum(b[:, 1] - eye[2], eye[2] - b[:, 3]), 0.0)
        d = np.hypot(dx, dz) - v.cell_size  # a cell of margin for instances reaching past their cell
        near = {self._stream_keys[i] for i in np.flatnonzero(d <= self._stream_end)}
        gone = [k for k in self._gpu if (i := self._stream_row.get(k)) is not None
                and d[i] > self._stream_end[i] * RELEASE_FACTOR]
        for key in gone:
            self._delete_chunk(self._gpu.pop(key))
            self._boxes.pop(key, None)
            self.released[key] += 1
        wanted = (dirty & near) | (dirty & self._gpu.keys()) | gone_keys
        wanted |= near - self._gpu.keys()
        # a far chunk that changed needs nothing now: it is uploaded whole when it comes near
        return wanted, bool(gone)

    @property
    def resident_chunks(self) -> int:
        return len(self._gpu)

    def _delete_chunk(self, gc: _GpuChunk) -> None:
        self._drop_vaos(gc)
        GL.glDeleteBuffers(1, [gc.vbo])
        if gc.mask_vbo:
            GL.glDeleteBuffers(1, [gc.mask_vbo])
