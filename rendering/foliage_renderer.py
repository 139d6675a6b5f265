"""Draws a scene's stored foliage: one instance buffer per chunk, instanced meshes, culled per chunk.

Each chunk's records go to the GPU as they are (28 bytes each); the vertex shader builds the
transform. The renderer follows `scene.sections["foliage"]` (looked up every frame, so a palette
or volume swapped in later is picked up) and the volume's `changed` event: a changed chunk is
re-uploaded, nothing else. Chunks are culled against the view frustum by their grown bounds and
beyond their type's fade distance; inside `cull` instances dissolve with an ordered dither.
Selected instances are drawn tinted and rimmed: a chunk with a selection has a one-float-per-
instance mask buffer, sent again only when that chunk's selection (or its records) changed.
Chunks stream by view distance: a chunk goes to the GPU once its cell comes within its type's
fade end (and a cell of margin) of the eye and is released past `RELEASE_FACTOR` times that, so
GPU memory follows what is near the camera, not the scene.
"""

from __future__ import annotations

import ctypes
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from OpenGL import GL

from model.errors import FormatError
from model.foliage.volume import RECORD_BYTES, ChunkKey
from model.scene import Scene
from rendering.culling import box_distance, boxes_in_frustum, frustum_planes
from rendering.gl_program import ShaderProgram
from rendering.meshes import VERTEX_FLOATS, Mesh, builtin_mesh, mesh_for
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_renderer import FOG_COLOUR

SECTION = "foliage"
SELECTED_LOCATION = 5  # the per-instance selection mask (1.0 selected); 0.0 where a chunk has none
PLACEHOLDER_MESH = "builtin:rock"  # drawn for a type whose mesh cannot be read, or is not in the palette
RELEASE_FACTOR = 1.5  # resident chunks are released this many fade ends away (hysteresis: no churn)


@dataclass
class _GpuMesh:
    vbo: int
    vertices: int


@dataclass
class _GpuChunk:
    vao: int
    vbo: int
    capacity: int = 0  # bytes allocated
    count: int = 0
    version: int = -1
    mesh: str = ""
    mask_vbo: int = 0  # selection mask, made on the chunk's first selection


class FoliageRenderer(Renderer):
    """Instanced stored foliage of one scene. `uploads` counts chunk uploads per key (cumulative)."""

    def __init__(self, scene: Scene, on_error: Callable[[str], None] | None = None,
                 request_update: Callable[[], None] = lambda: None) -> None:
        self.scene = scene
        self.on_error = on_error
        self.request_update = request_update  # a change in the model asks for a repaint
        self.program: ShaderProgram | None = None
        self.volume = None
        self.palette = None
        self._gpu: dict[ChunkKey, _GpuChunk] = {}
        self._meshes: dict[str, _GpuMesh] = {}
        self._dirty: set[ChunkKey] = set()
        self._all_dirty = True
        self._mesh_dirty = True
        self._order: list[ChunkKey] = []
        self._boxes: dict[ChunkKey, np.ndarray] = {}  # grown bounds (2, 3) per uploaded chunk
        self._row: dict[ChunkKey, int] = {}  # a chunk's row in the culling arrays (draw order)
        self._lo = np.empty((0, 3))
        self._hi = np.empty((0, 3))
        self._fade_end = np.empty(0)
        self._counts = np.empty(0, np.int64)
        self.uploads: Counter[ChunkKey] = Counter()
        self.selection_uploads: Counter[ChunkKey] = Counter()  # mask uploads per chunk (cumulative)
        self._selection: dict[ChunkKey, np.ndarray] = {}
        self._selection_dirty: set[ChunkKey] = set()
        self.mesh_errors: dict[str, str] = {}
        self.visible: list[ChunkKey] = []  # chunks drawn in the last frame
        self.stream = True  # upload by view distance and release beyond it (False: every chunk)
        self.released: Counter[ChunkKey] = Counter()  # chunks released for distance (cumulative)
        self._stream_keys: list[ChunkKey] = []  # every chunk of the volume, with its cell box
        self._stream_row: dict[ChunkKey, int] = {}
        self._stream_box = np.empty((0, 4))
        self._stream_end = np.empty(0)
        self._stream_eye = np.full(3, np.nan)
        self._bind()

    # ---- following the scene -------------------------------------------------------------------
    def _bind(self) -> None:
        """Subscribe to the scene's current foliage volume and palette (they may be replaced)."""
        section = self.scene.sections.get(SECTION)
        volume = getattr(section, "volume", None)
        palette = getattr(volume, "palette", None)
        if volume is self.volume and palette is self.palette:
            return
        self._unbind()
        self.volume, self.palette = volume, palette
        if volume is not None:
            volume.changed.connect(self._on_chunks_changed)
        if palette is not None:
            palette.changed.connect(self._on_palette_changed)
        self._all_dirty = self._mesh_dirty = True

    def _unbind(self) -> None:
        if self.volume is not None:
            self.volume.changed.disconnect(self._on_chunks_changed)
        if self.palette is not None:
            self.palette.changed.disconnect(self._on_palette_changed)
        self.volume = self.palette = None

    def _on_chunks_changed(self, keys) -> None:
        self._dirty.update(keys)
        self.request_update()

    def _on_palette_changed(self) -> None:
        self._mesh_dirty = True  # meshes, extents (bounds) and fade distances may have changed
        self._all_dirty = True
        self.request_update()

    def set_selection(self, selection: dict) -> None:
        """Draw these instances ({chunk key: record indices}) as selected; only chunks whose
        selection changed get their mask sent again."""
        new = {tuple(k): np.unique(np.asarray(v, np.int64)) for k, v in selection.items() if len(v)}
        old = self._selection
        changed = {k for k in new.keys() | old.keys()
                   if k not in new or k not in old or not np.array_equal(new[k], old[k])}
        self._selection = new
        if changed:
            self._selection_dirty |= changed
            self.request_update()

    # ---- meshes --------------------------------------------------------------------------------
    def mesh_name(self, type_name: str) -> str:
        ftype = self.palette.get(type_name) if self.palette is not None else None
        if ftype is None or type_name in self.mesh_errors:
            return PLACEHOLDER_MESH
        return ftype.mesh

    def _gpu_mesh(self, name: str) -> _GpuMesh:
        if name in self._meshes:
            return self._meshes[name]
        try:
            folder = self.scene.path.parent if self.scene.path is not None else None
            mesh: Mesh = mesh_for(name, folder)
        except (FormatError, KeyError) as e:
            mesh = builtin_mesh(PLACEHOLDER_MESH.removeprefix("builtin:"))
            for t in (self.palette or []):
                if t.mesh == name and t.name not in self.mesh_errors:
                    self.mesh_errors[t.name] = str(e)
                    if self.on_error is not None:
                        self.on_error(f"foliage type {t.name!r}: {e}")
        vbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, mesh.vertices.nbytes, mesh.vertices, GL.GL_STATIC_DRAW)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self._meshes[name] = _GpuMesh(vbo, len(mesh.vertices))
        return self._meshes[name]

    def _attach_mesh(self, gc: _GpuChunk, name: str) -> None:
        mesh = self._gpu_mesh(name)
        GL.glBindVertexArray(gc.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, mesh.vbo)
        stride = VERTEX_FLOATS * 4
        for loc, offset in ((0, 0), (1, 12), (2, 24)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, 3, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, gc.vbo)
        for loc, size, offset in ((3, 3, 0), (4, 4, 12)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, size, GL.GL_FLOAT, GL.GL_FALSE, RECORD_BYTES,
                                     ctypes.c_void_p(offset))
            GL.glVertexAttribDivisor(loc, 1)
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        gc.mesh = name

    # ---- GL ------------------------------------------------------------------------------------
    def initialize(self) -> None:
        self.program = ShaderProgram.from_files("foliage_vert.glsl", "foliage_frag.glsl")
        self._all_dirty = self._mesh_dirty = True

    def _upload(self, key: ChunkKey) -> None:
        chunk = self.volume.chunk(*key)
        gc = self._gpu.get(key)
        if chunk is None or len(chunk) == 0:
            if gc is not None:
                self._delete_chunk(gc)
                del self._gpu[key]
            return
        if gc is None:
            gc = self._gpu[key] = _GpuChunk(int(GL.glGenVertexArrays(1)), int(GL.glGenBuffers(1)))
        data = np.ascontiguousarray(chunk.records, np.float32)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, gc.vbo)
        if data.nbytes > gc.capacity:
            gc.capacity = max(data.nbytes, int(gc.capacity * 1.5))  # room to grow without reallocating
            GL.glBufferData(GL.GL_ARRAY_BUFFER, gc.capacity, None, GL.GL_DYNAMIC_DRAW)
        GL.glBufferSubData(GL.GL_ARRAY_BUFFER, 0, data.nbytes, data)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        gc.count, gc.version = len(data), chunk.version
        name = self.mesh_name(key[1])
        if gc.mesh != name:
            self._attach_mesh(gc, name)
        self.uploads[key] += 1
        if key in self._selection or gc.mask_vbo:
            self._selection_dirty.add(key)  # new records: the mask must match their count

    def _upload_mask(self, key: ChunkKey) -> None:
        gc = self._gpu.get(key)
        if gc is None:
            return
        idx = self._selection.get(key)
        GL.glBindVertexArray(gc.vao)
        if idx is None:
            GL.glDisableVertexAttribArray(SELECTED_LOCATION)  # reads the constant 0: not selected
        else:
            mask = np.zeros(gc.count, np.float32)
            mask[idx[(idx >= 0) & (idx < gc.count)]] = 1.0
            if not gc.mask_vbo:
                gc.mask_vbo = int(GL.glGenBuffers(1))
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, gc.mask_vbo)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, mask.nbytes, mask, GL.GL_DYNAMIC_DRAW)
            GL.glEnableVertexAttribArray(SELECTED_LOCATION)
            GL.glVertexAttribPointer(SELECTED_LOCATION, 1, GL.GL_FLOAT, GL.GL_FALSE, 4, ctypes.c_void_p(0))
            GL.glVertexAttribDivisor(SELECTED_LOCATION, 1)
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
            self.selection_uploads[key] += 1
        GL.glBindVertexArray(0)

    def _sync(self, frame: FrameContext) -> None:
        """Upload what changed since the last frame and refresh the culling arrays."""
        if self.volume is None:
            return
        self._sync_chunks(frame)
        if self._selection_dirty:
            for key in sorted(self._selection_dirty, key=lambda k: (k[1], k[0])):
                self._upload_mask(key)
            self._selection_dirty = set()

    def _sync_chunks(self, frame: FrameContext) -> None:
        if self._all_dirty:
            stale = {k for k, gc in self._gpu.items() if (c := self.volume.chunk(*k)) is None or
                     c.version != gc.version}
            dirty = stale | self._dirty | {k for k in self.volume.keys() if k not in self._gpu}
            if self._mesh_dirty:
                for key, gc in self._gpu.items():
                    if key not in dirty and gc.mesh != self.mesh_name(key[1]):
                        self._attach_mesh(gc, self.mesh_name(key[1]))
        else:
            dirty = self._dirty
        released = False
        if self.stream:
            dirty, released = self._stream_chunks(frame, dirty)
        if not dirty and not self._all_dirty and not released:
            return
        uploaded = 0
        for key in sorted(dirty, key=lambda k: (k[1], k[0])):
            self._upload(key)
            uploaded += 1
            self._boxes.pop(key, None)
        if uploaded:
            frame.stats.count_upload("foliage chunks", uploaded)
        rebuild = self._all_dirty or released or any(k not in self._row for k in dirty if k in self._gpu) \
            or any(k not in self._gpu for k in dirty if k in self._row)
        if self._all_dirty:
            self._boxes.clear()  # a palette change may change every type's extent
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
        for k in self._order:  # bounds of the changed chunks only; the others are kept
            if k not in self._boxes:
                self._boxes[k] = self.volume.bounds(*k)
        boxes = np.stack([self._boxes[k] for k in self._order]) if self._order else np.empty((0, 2, 3))
        self._lo, self._hi = boxes[:, 0].copy(), boxes[:, 1].copy()
        ends = {}
        for _, t in self._order:
            if t not in ends:
                ends[t] = self._fade(t)[1]
        self._fade_end = np.array([ends[t] for _, t in self._order], np.float64)
        self._counts = np.array([self._gpu[k].count for k in self._order], np.int64)

    def _stream_chunks(self, frame: FrameContext, dirty: set[ChunkKey]) -> tuple[set[ChunkKey], bool]:
        """The dirty chunks near enough to upload, with those that came near; resident chunks that
        went far are released. Returns (chunks to upload, whether any was released)."""
        v = self.volume
        eye = frame.camera.eye()
        if not dirty and not self._all_dirty and np.array_equal(eye, self._stream_eye):
            return dirty, False  # nothing changed and the camera stood still: nothing comes or goes
        self._stream_eye = eye
        if self._all_dirty or any(k not in self._stream_row or v.chunk(*k) is None for k in dirty):
            self._stream_keys = v.keys()
            self._stream_row = {k: i for i, k in enumerate(self._stream_keys)}
            boxes = [v.cell_box(c) for c, _ in self._stream_keys]
            self._stream_box = np.array(boxes, np.float64).reshape(-1, 4)
            ends = {t: self._fade(t)[1] for t in {t for _, t in self._stream_keys}}
            self._stream_end = np.array([ends[t] for _, t in self._stream_keys], np.float64)
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
        wanted = {k for k in dirty if k in near or k in self._gpu or v.chunk(*k) is None}
        wanted |= {k for k in near if k not in self._gpu}
        # a far chunk that changed needs nothing now: it is uploaded whole when it comes near
        return wanted, bool(gone)

    @property
    def resident_chunks(self) -> int:
        return len(self._gpu)

    def _fade(self, type_name: str) -> tuple[float, float]:
        ftype = self.palette.get(type_name) if self.palette is not None else None
        start, end = ftype.cull if ftype is not None else (150.0, 200.0)
        return float(start), float(max(end, start + 1e-3))

    def cull(self, frame: FrameContext) -> np.ndarray:
        """Which chunks (in draw order) the frame shows: in the frustum and nearer than their fade end."""
        if not self._order:
            return np.zeros(0, bool)
        planes = frustum_planes(frame.view_projection)
        eye = frame.camera.eye()
        near_enough = box_distance(self._lo, self._hi, eye) <= self._fade_end
        return boxes_in_frustum(self._lo, self._hi, planes) & near_enough

    def draw(self, frame: FrameContext) -> None:
        if self.program is None:
            self.initialize()
        self._bind()
        self._sync(frame)
        if not self._order:
            self.visible = []
            return
        shown = self.cull(frame)
        frame.stats.chunks_drawn += int(shown.sum())
        frame.stats.chunks_culled += int((~shown).sum())
        frame.stats.instances += int(self._counts[shown].sum())
        self.visible = [k for k, s in zip(self._order, shown, strict=True) if s]
        self._draw_chunks(frame, self.visible)

    def _draw_chunks(self, frame: FrameContext, keys: list[ChunkKey]) -> None:
        p = self.program
        p.use()
        p.set_uniform("u_view_projection", frame.view_projection)
        p.set_uniform("u_light_direction", frame.light_direction)
        p.set_uniform("u_eye", frame.camera.eye().astype(np.float32))
        p.set_uniform("u_fog_color", FOG_COLOUR)
        p.set_uniform("u_fog_distance", float(frame.camera.scene_extent * 2.0 + frame.camera.distance))
        GL.glVertexAttrib1f(SELECTED_LOCATION, 0.0)  # what chunks without a selection mask read
        current = None
        for key in keys:
            if key[1] != current:
                current = key[1]
                p.set_uniform("u_fade", np.array(self._fade(current), np.float32))
            gc = self._gpu[key]
            GL.glBindVertexArray(gc.vao)
            GL.glDrawArraysInstanced(GL.GL_TRIANGLES, 0, self._meshes[gc.mesh].vertices, gc.count)
        GL.glBindVertexArray(0)

    def draw_unculled(self, frame: FrameContext) -> None:
        """Every uploaded chunk, no culling and no bookkeeping: the bare instanced draw (benchmarks)."""
        self._draw_chunks(frame, self._order)

    def _delete_chunk(self, gc: _GpuChunk) -> None:
        GL.glDeleteVertexArrays(1, [gc.vao])
        GL.glDeleteBuffers(1, [gc.vbo])
        if gc.mask_vbo:
            GL.glDeleteBuffers(1, [gc.mask_vbo])

    def release(self) -> None:
        self._unbind()
        for gc in self._gpu.values():
            self._delete_chunk(gc)
        for mesh in self._meshes.values():
            GL.glDeleteBuffers(1, [mesh.vbo])
        self._gpu.clear()
        self._meshes.clear()
        self._boxes.clear()
        self._row = {}
        self._selection_dirty = set(self._selection)  # a new context needs the masks again
        self._stream_eye = np.full(3, np.nan)
        self._order = []
        if self.program is not None:
            self.program.delete()
            self.program = None

    def bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        self._bind()
        v = self.volume
        if v is None or not v.keys():
            return None
        boxes = np.stack([v.bounds(*k) for k in v.keys()])
        return boxes[:, 0].min(axis=0), boxes[:, 1].max(axis=0)
