"""Draws a scene's stored foliage: one instance buffer per chunk, instanced meshes, culled per chunk.

Each chunk's records go to the GPU as they are (28 bytes each); the vertex shader builds the
transform. The renderer follows `scene.sections["foliage"]` (looked up every frame, so a palette
or volume swapped in later is picked up) and the volume's `changed` event: a changed chunk is
re-uploaded, nothing else. Chunks are culled against the view frustum by their grown bounds and
beyond their type's far end. Each instance picks its variant mesh and colour shift from its hash
(`model.foliage.variants`, `shaders/foliage_common.glsl`) and its level of detail from its
distance (`model.foliage.lods`): a chunk is drawn once per variant and per level its distance
range meets, and the vertex shader drops the instances that are not of that variant or level;
levels hand over with a complementary ordered dither.
Selected instances are drawn tinted and rimmed: a chunk with a selection has a one-float-per-
instance mask buffer, sent again only when that chunk's selection (or its records) changed.
Far away, where a chunk's cell spans under `PROXY_PIXELS` on screen, a type with impostors is
drawn from its proxy tree instead (`rendering.foliage_proxy_tree`: per chunk a fixed,
hash-ordered handful of its instances grown to cover for the rest, fewer as the chunk shrinks;
further out the same for groups of 2^L × 2^L cells, each level twice as far as the one below),
all of a level's nodes in one multi-draw per variant; the impostors dissolve into the proxies,
and each proxy level into the next, over a band, as levels do. Chunks stream by view distance: a
chunk's instances go to the GPU once its cell comes within the distance where its type's full
instances end (its far end, or where its proxies take over), with a cell of margin, and are
released past `RELEASE_FACTOR` times that, so GPU memory follows what is near the camera plus the
proxies the frame drew (held in a budget of `proxy_budget_mb` on the host, shared by the types).
"""

from __future__ import annotations

import ctypes
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from OpenGL import GL

from model.errors import FormatError
from model.foliage.foliage_type import FoliageType
from model.foliage.hashing import pcg, type_key
from model.foliage.lods import BAND, Level, far_end, impostor_level, mesh_levels, proxy_level
from model.foliage.palette import changed_types
from model.foliage.variants import variant_thresholds
from model.foliage.volume import RECORD_BYTES, ChunkKey
from model.scene import Scene
from rendering.culling import box_distance, boxes_in_frustum, frustum_planes
from rendering.foliage_proxies import PROXY_PIXELS, kept_share, presence
from rendering.foliage_proxy_tree import BUDGET_MB, MAX_LEVELS, ProxyTree
from rendering.gl_program import (
    ShaderProgram,
    capture_points,
    feedback_program,
    load_shader_source,
)
from rendering.impostors import CORNERS, VIEWS, Impostor, bake, card_of
from rendering.meshes import VERTEX_FLOATS, Mesh, builtin_mesh, mesh_for
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_renderer import foliage_fog, set_lit_uniforms

SECTION = "foliage"
SELECTED_LOCATION = 5  # the per-instance selection mask (1.0 selected); 0.0 where a chunk has none
POINT_PIXELS = 24.0  # cards drawn smaller than this (pixels) are point sprites
MIN_SCALE, MAX_SCALE = 0.25, 4.0  # record scales the per-chunk split of quads and points allows for
IMPOSTOR_VAO = "@impostor"
POINTS_VAO = "@points"  # a chunk's vertex array for its cards
PLACEHOLDER_MESH = "builtin:rock"  # drawn for a type whose mesh cannot be read, or is not in the palette
VERSION = "#version 330 core\n"
FEEDBACK_VARYINGS = ("f_variant", "f_shift")


def foliage_vertex_source(main: str) -> str:
    return VERSION + load_shader_source("foliage_common.glsl") + "\n" + load_shader_source(main)


def foliage_fragment_source(main: str, common: bool = False) -> str:
    parts = (["foliage_common.glsl"] if common else []) + ["foliage_shading.glsl", main]
    return VERSION + "\n".join(load_shader_source(p) for p in parts)


@dataclass
class _Plan:
    """How one type is drawn: its levels, far end and variation uniforms; `proxy` (and the
    impostors' end, `drawn_impostor`) follow the frame's proxy start (`set_proxy_start`)."""

    ftype: FoliageType
    levels: list[Level]
    impostor: Level | None
    far_end: float
    salt: int
    thresholds: np.ndarray
    hue: tuple[float, float]
    value: tuple[float, float]
    card_area: float = 1.0  # the first mesh's impostor card at scale 1 (m²)
    proxy: Level | None = None
    drawn_impostor: Level | None = None
    proxy_for: float = math.nan

    def set_proxy_start(self, start: float) -> None:
        if start == self.proxy_for:
            return
        self.proxy_for = start
        self.proxy = proxy_level(self.ftype, start) if math.isfinite(start) else None
        self.drawn_impostor = self.impostor if self.proxy is None or self.impostor is None else Level(
            self.impostor.meshes, self.impostor.fade_in, self.proxy.fade_in)

    def full_end(self) -> float:
        """Where the type's own instances end: its far end, or where its proxies have taken over."""
        return self.proxy.fade_in[1] if self.proxy is not None else self.far_end

    def names(self) -> list[str]:
        return [f"LOD {i}" for i in range(len(self.levels))] + (["impostor"] if self.impostor else [])

    def owner_edges(self) -> np.ndarray:
        """Distances where each level's share begins (the middle of its dissolve-in band), and
        where the last one's ends: an instance counts for the level that holds most of it."""
        last = self.drawn_impostor
        every = self.levels + ([last] if last else [])
        return np.array([0.0] + [sum(lv.fade_in) / 2 for lv in every[1:]] + [sum(every[-1].fade_out) / 2])
RELEASE_FACTOR = 1.5  # resident chunks are released this many fade ends away (hysteresis: no churn)


@dataclass
class _GpuMesh:
    vbo: int
    vertices: int


@dataclass
class _GpuChunk:
    vbo: int
    capacity: int = 0  # bytes allocated
    count: int = 0
    version: int = -1
    mask_vbo: int = 0  # selection mask, made on the chunk's first selection
    vaos: dict[str, int] = field(default_factory=dict)  # one per mesh drawn, made on first draw


class FoliageRenderer(Renderer):
    """Instanced stored foliage of one scene. `uploads` counts chunk uploads per key (cumulative)."""

    def __init__(self, scene: Scene, on_error: Callable[[str], None] | None = None,
                 request_update: Callable[[], None] = lambda: None) -> None:
        self.scene = scene
        self.on_error = on_error
        self.request_update = request_update  # a change in the model asks for a repaint
        self.program: ShaderProgram | None = None
        self.impostor_program: ShaderProgram | None = None
        self._bake_program: ShaderProgram | None = None
        self._quad_vbo = 0
        self.impostors: dict[str, Impostor] = {}  # baked per mesh, on first need
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
        self._order_types: list[str] = []
        self._order_type = np.empty(0, np.int64)
        self._counts = np.empty(0, np.int64)
        self.uploads: Counter[ChunkKey] = Counter()
        self.selection_uploads: Counter[ChunkKey] = Counter()  # mask uploads per chunk (cumulative)
        self._selection: dict[ChunkKey, np.ndarray] = {}
        self._selection_dirty: set[ChunkKey] = set()
        self.mesh_errors: dict[str, str] = {}
        self._plans: dict[str, _Plan] = {}
        self.plans_built: Counter[str] = Counter()  # plans made per type (cumulative): edits redo one type
        self._seen: dict = {}  # the palette's types as last planned, to tell which an edit changed
        self.visible: list[ChunkKey] = []  # chunks drawn in the last frame
        self.stream = True  # upload by view distance and release beyond it (False: every chunk)
        self.released: Counter[ChunkKey] = Counter()  # chunks released for distance (cumulative)
        self._stream_keys: list[ChunkKey] = []  # every chunk of the volume, with its cell box
        self._stream_row: dict[ChunkKey, int] = {}
        self._stream_box = np.empty((0, 4))
        self._stream_end = np.empty(0)
        self._stream_eye = np.full(3, np.nan)
        self._stream_start = math.nan
        self._stream_types: list[str] = []
        self._stream_type = np.empty(0, np.int64)
        self.proxy_pixels = PROXY_PIXELS  # a chunk's proxy takes over when its cell spans fewer pixels
        self._proxy_start = math.inf  # this frame's: the cell size over the pixels, in metres
        self._proxies: dict[str, ProxyTree] = {}  # per type with impostors
        self.proxy_budget_mb = BUDGET_MB  # proxies kept on the host, all types together (shared equally)
        self.proxy_max_level = MAX_LEVELS - 1  # 0: chunk proxies only, to the end (comparisons, tests)
        self.proxy_nodes: list[int] = []  # nodes drawn per proxy level in the last frame (all types)
        self._proxy_dirty: set[ChunkKey] = set()
        self._proxy_all_dirty = True
        self._proxy_stale_types: set[str] = set()  # their proxies are remade (with a GL context)
        self.proxy_visible: list[ChunkKey] = []  # chunks drawn from their own proxy in the last frame
        self.proxy_selected: list[ChunkKey] = []  # far chunks with a selection drawn amber from theirs
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
        self._seen = changed_types({}, palette)[1]
        self._all_dirty = self._mesh_dirty = self._proxy_all_dirty = True

    def _unbind(self) -> None:
        if self.volume is not None:
            self.volume.changed.disconnect(self._on_chunks_changed)
        if self.palette is not None:
            self.palette.changed.disconnect(self._on_palette_changed)
        self.volume = self.palette = None

    def _on_chunks_changed(self, keys) -> None:
        self._dirty.update(keys)
        self._proxy_dirty.update(keys)
        self.request_update()

    def _on_palette_changed(self) -> None:
        # only the edited types' plans (meshes, levels, variation, fade distances), chunk bounds
        # (extents) and proxies (cover is reckoned in the card) are redone; no chunk is sent again
        changed, self._seen = changed_types(self._seen, self.palette)
        for name in changed:
            self._plans.pop(name, None)
        self._boxes = {k: b for k, b in self._boxes.items() if k[1] not in changed}
        self._proxy_stale_types |= set(changed)
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

    # ---- meshes and plans ----------------------------------------------------------------------
    def mesh_name(self, type_name: str) -> str:
        """The type's (first variant's) mesh; the placeholder where it is not in the palette."""
        ftype = self.palette.get(type_name) if self.palette is not None else None
        if ftype is None or type_name in self.mesh_errors:
            return PLACEHOLDER_MESH
        return ftype.meshes[0]

    def plan(self, type_name: str) -> _Plan:
        """Levels and variation of a type (cached until the palette changes)."""
        if type_name not in self._plans:
            ftype = self.palette.get(type_name) if self.palette is not None else None
            if ftype is None:
                ftype = FoliageType(type_name, mesh=PLACEHOLDER_MESH)
            self.plans_built[type_name] += 1
            self._plans[type_name] = _Plan(
                ftype, mesh_levels(ftype), impostor_level(ftype), far_end(ftype),
                int(pcg(np.uint32(type_key(type_name)))),
                variant_thresholds(ftype.weights), ftype.hue, ftype.value, self._card_area(type_name))
        plan = self._plans[type_name]
        plan.set_proxy_start(self._proxy_start)
        return plan

    def _card_area(self, type_name: str) -> float:
        """Area of the type's impostor card at scale 1 (its proxies' cover is reckoned in it)."""
        folder = self.scene.path.parent if self.scene.path is not None else None
        try:
            mesh = mesh_for(self.mesh_name(type_name), folder)
        except (FormatError, KeyError):
            mesh = builtin_mesh(PLACEHOLDER_MESH.removeprefix("builtin:"))
        half, bottom, top = card_of(mesh)
        return 2.0 * half * (top - bottom)

    def _gpu_mesh(self, name: str) -> _GpuMesh:
        if name in self._meshes:
            return self._meshes[name]
        try:
            folder = self.scene.path.parent if self.scene.path is not None else None
            mesh: Mesh = mesh_for(name, folder)
        except (FormatError, KeyError) as e:
            mesh = builtin_mesh(PLACEHOLDER_MESH.removeprefix("builtin:"))
            for t in (self.palette or []):
                if name in t.meshes and t.name not in self.mesh_errors:
                    self.mesh_errors[t.name] = str(e)
                    if self.on_error is not None:
                        self.on_error(f"foliage type {t.name!r}: {e}")
        vbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, mesh.vertices.nbytes, mesh.vertices, GL.GL_STATIC_DRAW)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self._meshes[name] = _GpuMesh(vbo, len(mesh.vertices))
        return self._meshes[name]

    def impostor(self, name: str) -> Impostor:
        """The baked ring of views of mesh `name` (baked on first need; a current context)."""
        if name not in self.impostors:
            self._gpu_mesh(name)  # reports an unreadable mesh once, as a mesh draw would
            folder = self.scene.path.parent if self.scene.path is not None else None
            try:
                mesh = mesh_for(name, folder)
            except (FormatError, KeyError):
                mesh = builtin_mesh(PLACEHOLDER_MESH.removeprefix("builtin:"))
            self.impostors[name] = bake(mesh, self._bake_program)
        return self.impostors[name]


    def _bind_card(self, p, mesh_name: str, variant: int):
        """The variant's impostor: its card size and atlases bound for the card shaders."""
        imp = self.impostor(mesh_name)
        GL.glUniform1i(p.location("u_variant"), variant)
        p.set_uniform("u_card", np.array(imp.card, np.float32))
        GL.glActiveTexture(GL.GL_TEXTURE1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, imp.normals)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, imp.albedo)
        return imp
    def _impostor_vao(self, key: ChunkKey, gc: _GpuChunk) -> int:
        if IMPOSTOR_VAO in gc.vaos:
            return gc.vaos[IMPOSTOR_VAO]
        vao = gc.vaos[IMPOSTOR_VAO] = int(GL.glGenVertexArrays(1))
        GL.glBindVertexArray(vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._quad_vbo)
        GL.glEnableVertexAttribArray(0)
        GL.glVertexAttribPointer(0, 2, GL.GL_FLOAT, GL.GL_FALSE, 8, ctypes.c_void_p(0))
        self._instance_attributes(key, gc)
        GL.glBindVertexArray(0)
        return vao

    def _points_vao(self, key: ChunkKey, gc: _GpuChunk) -> int:
        """The records as plain vertices: one point per instance in a single non-instanced draw
        (software rasterisers run instanced draws instance by instance)."""
        if POINTS_VAO in gc.vaos:
            return gc.vaos[POINTS_VAO]
        vao = gc.vaos[POINTS_VAO] = int(GL.glGenVertexArrays(1))
        GL.glBindVertexArray(vao)
        self._instance_attributes(key, gc, divisor=0)
        GL.glBindVertexArray(0)
        return vao

    def _vao(self, key: ChunkKey, gc: _GpuChunk, name: str) -> int:
        """The chunk's vertex array for mesh `name`: its vertices, the records, the selection mask."""
        if name in gc.vaos:
            return gc.vaos[name]
        mesh = self._gpu_mesh(name)
        vao = gc.vaos[name] = int(GL.glGenVertexArrays(1))
        GL.glBindVertexArray(vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, mesh.vbo)
        stride = VERTEX_FLOATS * 4
        for loc, offset in ((0, 0), (1, 12), (2, 24)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, 3, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset))
        self._instance_attributes(key, gc)
        GL.glBindVertexArray(0)
        return vao

    def _instance_attributes(self, key: ChunkKey, gc: _GpuChunk, divisor: int = 1) -> None:
        """Records at locations 3 and 4, the mask at 5, per instance (divisor 0: per vertex, for
        one point per record), into the bound vertex array."""
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, gc.vbo)
        for loc, size, offset in ((3, 3, 0), (4, 4, 12)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, size, GL.GL_FLOAT, GL.GL_FALSE, RECORD_BYTES,
                                     ctypes.c_void_p(offset))
            GL.glVertexAttribDivisor(loc, divisor)
        if gc.mask_vbo and key in self._selection:
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, gc.mask_vbo)
            GL.glEnableVertexAttribArray(SELECTED_LOCATION)
            GL.glVertexAttribPointer(SELECTED_LOCATION, 1, GL.GL_FLOAT, GL.GL_FALSE, 4, ctypes.c_void_p(0))
            GL.glVertexAttribDivisor(SELECTED_LOCATION, divisor)
        else:
            GL.glDisableVertexAttribArray(SELECTED_LOCATION)  # reads the constant 0: not selected
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)

    def _drop_vaos(self, gc: _GpuChunk) -> None:
        if gc.vaos:
            GL.glDeleteVertexArrays(len(gc.vaos), list(gc.vaos.values()))
        gc.vaos = {}

    # ---- GL ------------------------------------------------------------------------------------
    def initialize(self) -> None:
        self.program = ShaderProgram(foliage_vertex_source("foliage_vert.glsl"),
                                     foliage_fragment_source("foliage_mesh_frag.glsl"), "foliage")
        self.impostor_program = ShaderProgram(
            foliage_vertex_source("foliage_impostor_vert.glsl"),
            foliage_fragment_source("foliage_impostor_frag.glsl", common=True), "foliage impostor")
        self._bake_program = ShaderProgram.from_files("foliage_impostor_bake_vert.glsl",
                                                      "foliage_impostor_bake_frag.glsl")
        self._quad_vbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._quad_vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, CORNERS.nbytes, CORNERS, GL.GL_STATIC_DRAW)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
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

    def _sync(self, frame: FrameContext) -> None:
        """Upload what changed since the last frame and refresh the culling arrays."""
        if self.volume is None:
            return
        if self._all_dirty and self._mesh_dirty:
            self._plans.clear()  # meshes, levels or variation may have changed (proxies need them)
        self._sync_proxies()
        self._sync_chunks(frame)
        if self._selection_dirty:
            for key in sorted(self._selection_dirty, key=lambda k: (k[1], k[0])):
                self._upload_mask(key)
            self._selection_dirty = set()

    def _sync_proxies(self) -> None:
        """The proxy tables of the types with impostors follow the volume: a changed chunk's row
        is refreshed and its proxy rebuilt on its next far draw; nothing else is touched."""
        v = self.volume
        if self._proxy_all_dirty:
            for ps in self._proxies.values():
                ps.release()
            self._proxies = {}
            dirty = set(v.keys())
            self._proxy_all_dirty = False
        else:
            dirty = self._proxy_dirty
            for name in self._proxy_stale_types:  # an edited type: its proxies afresh
                ps = self._proxies.pop(name, None)
                if ps is not None:
                    ps.release()
                    dirty = dirty | {k for k in v.keys() if k[1] == name}
        self._proxy_dirty = set()
        self._proxy_stale_types = set()
        if not dirty:
            return
        by_type: dict[str, list[ChunkKey]] = {}
        for key in dirty:
            by_type.setdefault(key[1], []).append(key)
        for type_name, keys in by_type.items():
            ps = self._proxies.get(type_name)
            if ps is None:
                plan = self.plan(type_name)
                if plan.impostor is None:
                    continue
                ps = self._proxies[type_name] = ProxyTree(type_name, plan.card_area, v.cell_size,
                                                          self.proxy_budget_mb)
            ps.apply(v, keys)
            if not len(ps):
                ps.release()
                del self._proxies[type_name]

    def _sync_chunks(self, frame: FrameContext) -> None:
        if self._all_dirty:
            stale = {k for k, gc in self._gpu.items() if (c := self.volume.chunk(*k)) is None or
                     c.version != gc.version}
            dirty = stale | self._dirty | {k for k in self.volume.keys() if k not in self._gpu}
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
        for k in self._order:  # bounds of the changed chunks only; the others are kept
            if k not in self._boxes:
                self._boxes[k] = self.volume.bounds(*k)
        boxes = np.stack([self._boxes[k] for k in self._order]) if self._order else np.empty((0, 2, 3))
        self._lo, self._hi = boxes[:, 0].copy(), boxes[:, 1].copy()
        types = sorted({t for _, t in self._order})
        index = {t: i for i, t in enumerate(types)}
        self._order_types = types
        self._order_type = np.array([index[t] for _, t in self._order], np.int64)
        self._counts = np.array([self._gpu[k].count for k in self._order], np.int64)

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
        if self._all_dirty or any(k not in self._stream_row or v.chunk(*k) is None for k in dirty):
            self._stream_keys = v.keys()
            self._stream_row = {k: i for i, k in enumerate(self._stream_keys)}
            boxes = [v.cell_box(c) for c, _ in self._stream_keys]
            self._stream_box = np.array(boxes, np.float64).reshape(-1, 4)
            self._stream_types = sorted({t for _, t in self._stream_keys})
            index = {t: i for i, t in enumerate(self._stream_types)}
            self._stream_type = np.array([index[t] for _, t in self._stream_keys], np.int64)
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
        wanted = {k for k in dirty if k in near or k in self._gpu or v.chunk(*k) is None}
        wanted |= {k for k in near if k not in self._gpu}
        # a far chunk that changed needs nothing now: it is uploaded whole when it comes near
        return wanted, bool(gone)

    @property
    def resident_chunks(self) -> int:
        return len(self._gpu)

    def cull(self, frame: FrameContext) -> np.ndarray:
        """Which chunks (in draw order) the frame shows: in the frustum and nearer than their far end."""
        if not self._order:
            return np.zeros(0, bool)
        planes = frustum_planes(frame.view_projection)
        eye = frame.camera.eye()
        ends = np.array([self.plan(t).full_end() for t in self._order_types], np.float64)[self._order_type]
        near_enough = box_distance(self._lo, self._hi, eye) <= ends
        return boxes_in_frustum(self._lo, self._hi, planes) & near_enough

    def set_proxy_start(self, frame: FrameContext) -> None:
        """This frame's proxy start: where a cell spans `proxy_pixels` device pixels."""
        focal = float(frame.projection[1, 1]) * frame.height / 2.0
        cell = self.volume.cell_size if self.volume is not None else 32.0
        start = cell * focal / self.proxy_pixels if self.proxy_pixels > 0 else math.inf
        self._proxy_start = float(start) if math.isfinite(start) and start > 0 else math.inf

    def draw(self, frame: FrameContext) -> None:
        if self.program is None:
            self.initialize()
        self._bind()
        self.set_proxy_start(frame)
        self._sync(frame)
        eye = frame.camera.eye()
        shown = self.cull(frame) if self._order else np.zeros(0, bool)
        self.visible = [k for k, s in zip(self._order, shown, strict=True) if s]
        proxied = np.array([t in self._proxies for _, t in self._order], bool)
        own = shown & ~proxied  # chunks of types without proxies: counted here, the rest below
        frame.stats.chunks_drawn += int(own.sum())
        frame.stats.chunks_culled += int((~shown & ~proxied).sum())
        frame.stats.instances += int(self._counts[own].sum())
        if self.visible:
            rows = np.flatnonzero(shown)
            near = box_distance(self._lo[rows], self._hi[rows], eye)
            far = _box_far_distance(self._lo[rows], self._hi[rows], eye)
            self._count_levels(frame, near, far, eye)
            self._draw_chunks(frame, self.visible, near, far)
        self._draw_proxies(frame, eye)

    def proxy_levels(self, plan: _Plan, count: int) -> list[Level]:
        """The proxy levels of a type whose tree has `count` levels: level 0 (chunks) dissolves in
        where a cell spans `proxy_pixels`, each next level twice as far (where its node spans as
        many), the last to the impostors' end."""
        base = plan.proxy
        if base is None:
            return []
        centre = sum(base.fade_in) / 2
        levels, fade_in = [], base.fade_in
        for level in range(count):
            d = centre * 2.0 ** (level + 1)
            w = max(1.0, d * BAND) / 2.0
            nxt = (d - w, d + w)
            if level == count - 1 or nxt[1] >= base.fade_out[0]:
                levels.append(Level(base.meshes, fade_in, base.fade_out))
                break
            levels.append(Level(base.meshes, fade_in, nxt))
            fade_in = nxt
        return levels

    @staticmethod
    def proxy_level_name(level: int) -> str:
        return "proxy" if level == 0 else f"proxy {level}"

    def _draw_proxies(self, frame: FrameContext, eye: np.ndarray) -> None:
        """Each proxied type's far foliage from its proxy tree: per level, the nodes whose distance
        meets the level's band, one multi-draw per variant; far chunks with a selection get their
        own proxy again, amber, on top. Counts every chunk of those types as drawn or culled."""
        self.proxy_visible = []
        self.proxy_nodes = []
        self.proxy_selected = []
        if not self._proxies:
            return
        planes = frustum_planes(frame.view_projection)
        full_cells: dict[str, list] = {}
        for key in self.visible:
            if key[1] in self._proxies:
                full_cells.setdefault(key[1], []).append(key[0])
        jobs = []
        share = int(self.proxy_budget_mb * 1e6 / len(self._proxies))
        for type_name, ps in self._proxies.items():
            plan = self.plan(type_name)
            ps.budget_bytes = share
            ps.begin_frame()
            levels = self.proxy_levels(plan, min(len(ps.levels), self.proxy_max_level + 1))
            codes: list[set] = [set() for _ in ps.levels]
            placed = []
            before = ps.builds
            full = np.unique(ps.rows_of(full_cells.get(type_name, [])))
            chunks_drawn, instances = len(full), int(ps.count[full].sum())
            if levels:
                walk = self._walk(ps, levels, planes, eye)
                rows0, near0, far0 = walk["chunks"]
                far_chunks = rows0[(far0 >= levels[0].fade_in[0]) & (near0 <= levels[-1].fade_out[1])]
                extra = np.setdiff1d(far_chunks, full)
                chunks_drawn += len(extra) + walk["settled_chunks"]
                instances += int(ps.count[extra].sum()) + walk["settled_instances"]
                self._count_proxy(frame, ps, levels, walk, eye)
                selected = self._far_selected(ps, levels, planes, eye)
                for lv, level in enumerate(levels):
                    rows, n_near = walk["drawn"][lv]
                    if lv == 0:
                        self.proxy_visible += ps.keys(rows)
                    if not len(rows) and not (lv == 0 and len(selected)):
                        continue
                    rows = rows[np.argsort(n_near, kind="stable")]  # near first: the depth test then
                    n_near = np.sort(n_near, kind="stable")           # skips the cards behind
                    both = np.r_[rows, selected].astype(np.int64) if lv == 0 else rows
                    reps = ps.place(self.volume, lv, both)
                    t = ps.levels[lv]
                    codes[lv] = {int(t.codes[r]) for r in both}
                    placed.append((lv, level, rows, n_near, reps[:len(rows)], False))
                    if lv == 0 and len(selected):
                        whole = Level(level.meshes, levels[0].fade_in, levels[-1].fade_out)
                        sel_near = box_distance(ps.lo[selected], ps.hi[selected], eye)
                        placed.append((0, whole, selected, sel_near, reps[len(rows):], True))
                        self.proxy_selected += ps.keys(selected)
            ps.end_frame(codes)
            if ps.builds > before:
                frame.stats.count_upload("foliage proxies", ps.builds - before)
            for lv, level, rows, n_near, reps, amber in placed:
                start = level.fade_in[0] if not amber else levels[0].fade_in[0]
                n = np.array([len(r) for r in reps], np.int64)
                counts = np.minimum(n, np.floor(n * kept_share(n_near, start)).astype(np.int64) + 1)
                if not amber:
                    self._count_cards(frame, lv, levels, reps, counts, eye)
                jobs.append((plan, ps.gpu[lv].vertex_array(), level, start,
                             ps.firsts(lv, rows).astype(np.int32), counts.astype(np.int32), amber))
            while len(self.proxy_nodes) < len(ps.levels):
                self.proxy_nodes.append(0)
            for lv, c in enumerate(codes):
                self.proxy_nodes[lv] += len(c)
            frame.stats.chunks_drawn += chunks_drawn
            frame.stats.chunks_culled += len(ps) - chunks_drawn
            frame.stats.instances += instances
        if jobs:
            self._draw_proxy_jobs(frame, jobs)

    @staticmethod
    def _walk(ps: ProxyTree, levels: list[Level], planes, eye) -> dict:
        """The tree from its root down: a node outside the view is dropped with what it holds, one
        wholly past the levels below it stops the descent (its chunks count as drawn, whole), so a
        frame tests the nodes near the cut, not every chunk. Returns per drawn level (rows, near);
        the chunks reached (rows, near, far); what the stopped nodes hold (chunks, instances) and
        the stopped nodes themselves per level (for the statistics)."""
        count = len(levels)
        top = len(ps.levels) - 1
        cand = np.arange(len(ps.levels[top]))
        drawn: list = [(np.zeros(0, np.int64), np.zeros(0))] * count
        stopped: list = []
        settled_chunks = settled_instances = 0
        chunks = (np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
        for lv in range(top, -1, -1):
            t = ps.levels[lv]
            rows = cand[boxes_in_frustum(t.lo[cand], t.hi[cand], planes)]
            near = box_distance(t.lo[rows], t.hi[rows], eye)
            far = _box_far_distance(t.lo[rows], t.hi[rows], eye)
            if lv < count:
                mine = (far >= levels[lv].fade_in[0]) & (near <= levels[lv].fade_out[1])
                drawn[lv] = (rows[mine], near[mine])
            if lv == 0:
                chunks = (rows, near, far)
                break
            finer = near <= levels[lv - 1].fade_out[1] if lv - 1 < count else np.ones(len(rows), bool)
            done = rows[~finer & (near <= levels[-1].fade_out[1])]  # beyond: nothing is drawn
            stopped.append((lv, done))
            settled_chunks += int((t.chunk_end[done] - t.chunk_first[done]).sum())
            settled_instances += int(t.count[done].sum())
            go = rows[finer & (near <= levels[-1].fade_out[1])]  # past the cards' end: nothing below
            first, end = t.child_first[go], t.child_end[go]
            cand = np.repeat(first - np.r_[0, np.cumsum(end - first)[:-1]], end - first) + np.arange(
                int((end - first).sum())) if len(go) else np.zeros(0, np.int64)
        return {"drawn": drawn, "chunks": chunks, "stopped": stopped,
                "settled_chunks": settled_chunks, "settled_instances": settled_instances}

    def _far_selected(self, ps: ProxyTree, levels: list[Level], planes, eye) -> np.ndarray:
        """Level-0 rows of far chunks of this tree with a selection (drawn amber from their proxy)."""
        cells = [key[0] for key in self._selection if key[1] == ps.type_name and key not in self._gpu]
        rows = np.unique(ps.rows_of(cells))
        rows = rows[rows >= 0]
        if not len(rows):
            return rows
        far = _box_far_distance(ps.lo[rows], ps.hi[rows], eye)
        return rows[boxes_in_frustum(ps.lo[rows], ps.hi[rows], planes) & (far >= levels[0].fade_in[0])]

    def _draw_proxy_jobs(self, frame: FrameContext, jobs) -> None:
        p = self.impostor_program
        for plan, *_ in jobs:  # bake before the program is in use: baking switches programs
            for name in plan.proxy.meshes:
                self.impostor(name)
        p.use()
        set_lit_uniforms(p, frame, foliage_fog(frame))
        p.set_uniform("u_views", VIEWS)
        p.set_uniform("u_albedo", 0)
        p.set_uniform("u_normals", 1)
        focal = float(frame.projection[1, 1]) * frame.height / 2.0
        p.set_uniform("u_focal", focal)
        p.set_uniform("u_point_pixels", POINT_PIXELS)
        p.set_uniform("u_points", True)
        p.set_uniform("u_proxy", True)
        GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        for plan, vao, level, start, firsts, counts, amber in jobs:
            GL.glVertexAttrib1f(SELECTED_LOCATION, 1.0 if amber else 0.0)
            self._set_type_uniforms(p.id, plan)
            p.set_uniform("u_varied", bool(plan.hue != (0.0, 0.0) or plan.value != (0.0, 0.0)))
            p.set_uniform("u_band", np.array(level.band(), np.float32))
            p.set_uniform("u_proxy_start", float(start))
            GL.glBindVertexArray(vao)
            for v, name in enumerate(level.meshes):
                self._bind_card(p, name, v)
                GL.glMultiDrawArrays(GL.GL_POINTS, firsts, counts, len(firsts))
        GL.glVertexAttrib1f(SELECTED_LOCATION, 0.0)
        p.set_uniform("u_proxy", False)
        GL.glActiveTexture(GL.GL_TEXTURE1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glBindVertexArray(0)

    def _count_proxy(self, frame: FrameContext, ps: ProxyTree, levels: list[Level], walk: dict,
                     eye) -> None:
        """The instances the proxies stand for: those past the middle of level 0's dissolve band
        (by their own distance where a chunk straddles it), counted for the level that holds
        their chunk's centre, or their stopped node's (the middle of that level's dissolve-in band
        and the next one's; no finer than the node's own level)."""
        mids = np.array([sum(lv.fade_in) / 2 for lv in levels])
        per = np.zeros(len(mids), np.int64)

        def owners(lo, hi, at_least: int) -> np.ndarray:
            centre = np.sqrt((((lo + hi) / 2 - eye) ** 2).sum(axis=1))
            return np.clip(np.searchsorted(mids, centre, side="right") - 1, at_least, len(mids) - 1)

        rows, near, far = walk["chunks"]
        keep = far >= mids[0]
        rows, near = rows[keep], near[keep]
        stands = ps.count[rows].astype(np.int64)
        for j in np.flatnonzero(near < mids[0]):
            rec = self.volume.chunk(*ps.key(int(rows[j]))).records
            d = np.sqrt(((rec[:, :3].astype(np.float64) - eye) ** 2).sum(axis=1))
            stands[j] = int((d >= mids[0]).sum())
        per += np.bincount(owners(ps.lo[rows], ps.hi[rows], 0), stands, len(mids)).astype(np.int64)
        for lv, done in walk["stopped"]:
            if len(done):
                t = ps.levels[lv]
                per += np.bincount(owners(t.lo[done], t.hi[done], min(lv, len(mids) - 1)),
                                   t.count[done], len(mids)).astype(np.int64)
        for lv, n in enumerate(per):
            frame.stats.count_level(self.proxy_level_name(lv), int(n))

    def _count_cards(self, frame: FrameContext, lv: int, levels: list[Level], reps, counts, eye) -> None:
        """Cards a level's nodes drew, where that level holds most of them (past the middle of its
        dissolve-in band, before the middle of its dissolve-out band)."""
        parts = [r[:c] for r, c in zip(reps, counts, strict=True) if c]
        if not parts:
            return
        rows = np.concatenate(parts)
        level = levels[lv]
        d = np.sqrt(((rows[:, :3].astype(np.float64) - eye) ** 2).sum(axis=1))
        shows = (presence(rows, kept_share(d, level.fade_in[0])) > 0) & (d >= sum(level.fade_in) / 2) \
            & (d < sum(level.fade_out) / 2)
        frame.stats.count_proxy_cards(self.proxy_level_name(lv), int(shows.sum()))

    @staticmethod
    def _runs(keys: list[ChunkKey]) -> list[tuple[str, int, int]]:
        """(type, first, end) of each run of one type in `keys` (draw order groups by type)."""
        runs: list[tuple[str, int, int]] = []
        for i, key in enumerate(keys):
            if not runs or runs[-1][0] != key[1]:
                runs.append((key[1], i, i + 1))
            else:
                runs[-1] = (key[1], runs[-1][1], i + 1)
        return runs

    def _count_levels(self, frame: FrameContext, near: np.ndarray, far: np.ndarray, eye) -> None:
        """Instances drawn per level: a chunk wholly inside one level's share counts whole; one
        that straddles an edge counts its instances by their own distance."""
        eye = np.asarray(eye, np.float64)
        counts = np.array([self._gpu[k].count for k in self.visible], np.int64)
        for type_name, a, b in self._runs(self.visible):
            plan = self.plan(type_name)
            self._count_rows(frame, np.arange(a, b), plan.owner_edges(), plan.names(), near, far, counts, eye)

    def _count_rows(self, frame: FrameContext, rows, edges, names, near, far, counts, eye) -> None:
        """Instances per level of visible chunks `rows`, with these owner edges."""
        lo = np.searchsorted(edges, near[rows], side="right") - 1
        hi = np.searchsorted(edges, far[rows], side="right") - 1
        whole = lo == hi
        inside = whole & (lo >= 0) & (lo < len(names))
        for level, n in enumerate(np.bincount(lo[inside], counts[rows][inside], minlength=len(names))):
            frame.stats.count_level(names[level], int(n))
        for i in rows[~whole]:
            rec = self.volume.chunk(*self.visible[i]).records
            d = np.sqrt(((rec[:, :3].astype(np.float64) - eye) ** 2).sum(axis=1))
            which = np.searchsorted(edges, d, side="right") - 1
            per = np.bincount(which[(which >= 0) & (which < len(names))], minlength=len(names))
            for name, n in zip(names, per, strict=False):
                frame.stats.count_level(name, int(n))

    def _set_type_uniforms(self, program: int, plan: _Plan) -> None:
        GL.glUniform1ui(GL.glGetUniformLocation(program, "u_type_salt"), plan.salt)
        GL.glUniform1i(GL.glGetUniformLocation(program, "u_variant_count"), len(plan.thresholds))
        t = np.zeros(8, np.uint32)
        t[:len(plan.thresholds)] = plan.thresholds
        GL.glUniform1uiv(GL.glGetUniformLocation(program, "u_thresholds"), 8, t)
        GL.glUniform2f(GL.glGetUniformLocation(program, "u_hue"), *plan.hue)
        GL.glUniform2f(GL.glGetUniformLocation(program, "u_value"), *plan.value)

    def _draw_chunks(self, frame: FrameContext, keys: list[ChunkKey], near=None, far=None) -> None:
        """Each chunk once per variant and level its distance range [near, far] meets: the meshes
        first, then the impostor cards. GL state is set once per type and level; per chunk only
        its vertex array is bound (a Frame All draws thousands of chunks)."""
        GL.glVertexAttrib1f(SELECTED_LOCATION, 0.0)  # what chunks without a selection mask read
        n = len(keys)
        near = np.zeros(n) if near is None else near
        far = np.full(n, np.inf) if far is None else far
        runs = self._runs(keys)
        for type_name, _, _ in runs:  # bake before any program is in use: baking switches programs
            level = self.plan(type_name).drawn_impostor
            for name in (level.meshes if level is not None else ()):
                self.impostor(name)
        for p in (self.program, self.impostor_program):
            p.use()
            set_lit_uniforms(p, frame, foliage_fog(frame))
        p = self.program
        p.use()
        for type_name, a, b in runs:
            plan = self.plan(type_name)
            self._set_type_uniforms(p.id, plan)
            for level in plan.levels:
                rows = np.flatnonzero((far[a:b] >= level.fade_in[0]) & (near[a:b] <= level.fade_out[1])) + a
                if not len(rows):
                    continue
                p.set_uniform("u_band", np.array(level.band(), np.float32))
                for v, name in enumerate(level.meshes):
                    GL.glUniform1i(p.location("u_variant"), v)
                    vertices = self._gpu_mesh(name).vertices
                    for i in rows:
                        key = keys[i]
                        gc = self._gpu[key]
                        GL.glBindVertexArray(self._vao(key, gc, name))
                        GL.glDrawArraysInstanced(GL.GL_TRIANGLES, 0, vertices, gc.count)
        p = self.impostor_program
        p.use()
        p.set_uniform("u_proxy", False)
        p.set_uniform("u_views", VIEWS)
        p.set_uniform("u_albedo", 0)
        p.set_uniform("u_normals", 1)
        focal = float(frame.projection[1, 1]) * frame.height / 2.0  # height: device pixels
        p.set_uniform("u_focal", focal)
        p.set_uniform("u_point_pixels", POINT_PIXELS)
        GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        for type_name, level, rows in self._impostor_groups(runs, near, far):
            plan = self.plan(type_name)
            self._set_type_uniforms(p.id, plan)
            p.set_uniform("u_varied", bool(plan.hue != (0.0, 0.0) or plan.value != (0.0, 0.0)))
            p.set_uniform("u_band", np.array(level.band(), np.float32))
            for v, name in enumerate(level.meshes):
                imp = self._bind_card(p, name, v)
                # near cards as quads, far ones (under POINT_PIXELS tall) as one point each: a
                # quarter of the vertex work where a forest has the most instances
                side = max(2.0 * imp.card[0], imp.card[2] - imp.card[1]) * focal / POINT_PIXELS
                for points in (False, True):
                    chunk_rows = rows[far[rows] >= side * MIN_SCALE] if points else \
                        rows[near[rows] <= side * MAX_SCALE]
                    if not len(chunk_rows):
                        continue
                    p.set_uniform("u_points", points)
                    for i in chunk_rows:
                        key = keys[i]
                        gc = self._gpu[key]
                        if points:
                            GL.glBindVertexArray(self._points_vao(key, gc))
                            GL.glDrawArrays(GL.GL_POINTS, 0, gc.count)
                        else:
                            GL.glBindVertexArray(self._impostor_vao(key, gc))
                            GL.glDrawArraysInstanced(GL.GL_TRIANGLE_STRIP, 0, 4, gc.count)
        GL.glActiveTexture(GL.GL_TEXTURE1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glBindVertexArray(0)

    def _impostor_groups(self, runs, near: np.ndarray, far: np.ndarray):
        """(type, impostor level, rows) to draw: per type, the chunks whose distance meets its cards' band."""
        for type_name, a, b in runs:
            plan = self.plan(type_name)
            level = plan.drawn_impostor
            if level is None:
                continue
            rows = np.flatnonzero((far[a:b] >= level.fade_in[0]) & (near[a:b] <= level.fade_out[1]))
            if len(rows):
                yield type_name, level, rows + a

    def draw_unculled(self, frame: FrameContext) -> None:
        """Every uploaded chunk, no culling and no bookkeeping: the bare instanced draw (benchmarks);
        each chunk still draws only the levels its distance meets, as a culled frame does."""
        eye = frame.camera.eye()
        self._draw_chunks(frame, self._order, box_distance(self._lo, self._hi, eye),
                          _box_far_distance(self._lo, self._hi, eye))

    # ---- the GPU's variants, read back (tests compare them with the CPU reference) -------------
    def gpu_variation(self, type_name: str, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Variant index (int32) and colour shift (float32 (n, 2)) per record, as the vertex shader
        computes them, through transform feedback. Needs a current context."""
        rec = np.ascontiguousarray(records, np.float32).reshape(-1, 7)
        program = feedback_program(foliage_vertex_source("foliage_feedback_vert.glsl"), FEEDBACK_VARYINGS,
                                   "foliage feedback")
        out = np.zeros((max(len(rec), 1), 3), np.float32)
        GL.glUseProgram(program)
        self._set_type_uniforms(program, self.plan(type_name))
        vao, src = int(GL.glGenVertexArrays(1)), int(GL.glGenBuffers(1))
        GL.glBindVertexArray(vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, src)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, rec.nbytes, rec, GL.GL_STATIC_DRAW)
        GL.glEnableVertexAttribArray(3)
        GL.glVertexAttribPointer(3, 3, GL.GL_FLOAT, GL.GL_FALSE, RECORD_BYTES, ctypes.c_void_p(0))
        capture_points(len(rec), out)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        GL.glBindVertexArray(0)
        GL.glDeleteBuffers(1, [src])
        GL.glDeleteVertexArrays(1, [vao])
        GL.glUseProgram(0)
        GL.glDeleteProgram(program)
        out = out[:len(rec)]
        return out[:, 0].view(np.int32).copy(), out[:, 1:3].copy()

    def _delete_chunk(self, gc: _GpuChunk) -> None:
        self._drop_vaos(gc)
        GL.glDeleteBuffers(1, [gc.vbo])
        if gc.mask_vbo:
            GL.glDeleteBuffers(1, [gc.mask_vbo])

    def release(self) -> None:
        self._unbind()
        for gc in self._gpu.values():
            self._delete_chunk(gc)
        for mesh in self._meshes.values():
            GL.glDeleteBuffers(1, [mesh.vbo])
        for ps in self._proxies.values():
            ps.release()
        self._proxies = {}
        self._proxy_all_dirty = True
        self._gpu.clear()
        self._meshes.clear()
        self._plans.clear()
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


def _box_far_distance(lo: np.ndarray, hi: np.ndarray, point) -> np.ndarray:
    """Distance from `point` to the furthest corner of each box."""
    p = np.asarray(point, np.float64).reshape(1, 3)
    gap = np.maximum(np.abs(lo - p), np.abs(hi - p))
    return np.sqrt(np.einsum("ij,ij->i", gap, gap))
