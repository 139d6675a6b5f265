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

The parts live beside it: chunk upload and streaming in `foliage_chunks`, far proxies in
`foliage_proxy_draw`, per-level statistics in `foliage_counting`, a type's plan in `foliage_plan`.
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
from model.foliage.lods import far_end, impostor_level, mesh_levels
from model.foliage.palette import changed_types
from model.foliage.variants import variant_thresholds
from model.foliage.volume import RECORD_BYTES, ChunkKey
from model.scene import Scene
from rendering.culling import box_distance, box_far_distance, boxes_in_frustum, frustum_planes
from rendering.foliage_chunks import (  # noqa: F401 (RELEASE_FACTOR: tests)
    RELEASE_FACTOR,
    SELECTED_LOCATION,
    ChunkStreaming,
    _GpuChunk,
)
from rendering.foliage_counting import LevelCounting
from rendering.foliage_materials import (
    GpuMaterial,
    MaterialTextures,
    bind_material,
    set_material_units,
    unbind_materials,
)
from rendering.foliage_plan import TypePlan
from rendering.foliage_proxies import PROXY_PIXELS
from rendering.foliage_proxy_draw import ProxyDrawing
from rendering.foliage_proxy_tree import BUDGET_MB, MAX_LEVELS, ProxyTree
from rendering.gl_program import (
    ShaderProgram,
    capture_points,
    feedback_program,
    load_shader_source,
)
from rendering.impostors import (
    CORNERS,
    Impostor,
    bake,
    bake_program,
    card_of,
    content_key,
    set_card_uniforms,
    unbind_cards,
)
from rendering.meshes import Mesh, builtin_mesh, mesh_for
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_renderer import foliage_fog, set_lit_uniforms

SECTION = "foliage"
POINT_PIXELS = 24.0  # cards drawn smaller than this (pixels) are point sprites
MIN_SCALE, MAX_SCALE = 0.25, 4.0  # record scales the per-chunk split of quads and points allows for
PLACEHOLDER_MESH = "builtin:rock"  # drawn for a type whose mesh cannot be read, or is not in the palette
VERSION = "#version 330 core\n"
FEEDBACK_VARYINGS = ("f_variant", "f_shift")


def foliage_vertex_source(main: str, *parts: str) -> str:
    """`main` after the shared foliage code (and `parts`, more shared files)."""
    return VERSION + "\n".join(load_shader_source(p) for p in ("foliage_common.glsl", *parts, main))


def foliage_fragment_source(main: str, common: bool = False) -> str:
    parts = (["foliage_common.glsl"] if common else []) + ["foliage_shading.glsl", main]
    return VERSION + "\n".join(load_shader_source(p) for p in parts)




@dataclass
class _GpuMesh:
    vbo: int
    vertices: int
    materials: list[GpuMaterial] = field(default_factory=list)  # runs of triangles, by material
    height: float = 1.0  # the mesh's top at scale 1 (the wind bends it by the share of it)
    sways: bool = True  # plants sway in the wind preview; rocks (no leaves) stand still


def mesh_sways(name: str, mesh: Mesh) -> bool:
    """Whether the wind preview moves a mesh: the built-in plants, and mesh files with foliage (a
    cut-out, blended or two-sided material); a rock does not."""
    if name.startswith("builtin:"):
        return name.partition("#")[0] != "builtin:rock"
    return any(m.alpha_mode != "OPAQUE" or m.double_sided for m in mesh.materials)


class FoliageRenderer(ChunkStreaming, ProxyDrawing, LevelCounting, Renderer):
    """Instanced stored foliage of one scene. `uploads` counts chunk uploads per key (cumulative)."""

    point_pixels = POINT_PIXELS  # cards drawn smaller than this (pixels) are point sprites

    def __init__(self, scene: Scene, on_error: Callable[[str], None] | None = None,
                 request_update: Callable[[], None] = lambda: None) -> None:
        self.scene = scene
        self.on_error = on_error
        self.request_update = request_update  # a change in the model asks for a repaint
        self.program: ShaderProgram | None = None
        self.impostor_program: ShaderProgram | None = None
        self._bake_program: ShaderProgram | None = None
        self._quad_vbo = 0
        self.impostors: dict[str, Impostor] = {}  # per mesh name, baked on first need
        self._baked: dict[str, Impostor] = {}  # per mesh content hash: one atlas per distinct mesh
        self.bakes = 0  # atlases baked (cumulative)
        # False: a frame bakes every atlas it draws. True (the editor's viewport): its first frame
        # bakes none and each later one at most one, the cards of a type waiting for their atlas
        # (four atlases cost the opening view half a second in software)
        self.defer_bakes = False
        self.bakes_waiting = False  # the last frame left out cards whose atlas was not baked yet
        self._bake_allowance = math.inf
        self._draws = 0
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
        self.mesh_warnings: dict[str, list[str]] = {}  # per mesh: images that could not be used
        self.textures = MaterialTextures()
        self.wind = 0.0  # the wind preview's strength (0: still)
        self.wind_time = 0.0  # seconds: where in its sway the wind is
        self._plans: dict[str, TypePlan] = {}
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

    def plan(self, type_name: str) -> TypePlan:
        """Levels and variation of a type (cached until the palette changes)."""
        if type_name not in self._plans:
            ftype = self.palette.get(type_name) if self.palette is not None else None
            if ftype is None:
                ftype = FoliageType(type_name, mesh=PLACEHOLDER_MESH)
            self.plans_built[type_name] += 1
            self._plans[type_name] = TypePlan(
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

    def _mesh(self, name: str) -> Mesh:
        """The mesh `name` reads to, or the placeholder (reported once per type) where it cannot be
        read; its image warnings are reported once."""
        folder = self.scene.path.parent if self.scene.path is not None else None
        try:
            mesh = mesh_for(name, folder)
        except (FormatError, KeyError) as e:
            for t in (self.palette or []):
                if name in t.meshes and t.name not in self.mesh_errors:
                    self.mesh_errors[t.name] = str(e)
                    if self.on_error is not None:
                        self.on_error(f"foliage type {t.name!r}: {e}")
            return builtin_mesh(PLACEHOLDER_MESH.removeprefix("builtin:"))
        if mesh.warnings and name not in self.mesh_warnings:
            self.mesh_warnings[name] = list(mesh.warnings)
            if self.on_error is not None:
                for w in mesh.warnings:
                    self.on_error(f"warning: {w}")
        return mesh

    def _gpu_mesh(self, name: str) -> _GpuMesh:
        if name in self._meshes:
            return self._meshes[name]
        mesh = self._mesh(name)
        vbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, mesh.vertices.nbytes, mesh.vertices, GL.GL_STATIC_DRAW)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        top = float(mesh.vertices[:, 1].max()) if len(mesh.vertices) else 1.0
        self._meshes[name] = _GpuMesh(vbo, len(mesh.vertices), self.textures.materials_of(mesh),
                                      max(top, 0.1), mesh_sways(name, mesh))
        return self._meshes[name]

    def impostor(self, name: str) -> Impostor:
        """The hemi-octahedral atlas of mesh `name`: baked on first need (a current context), once
        per distinct mesh content."""
        if name not in self.impostors:
            gm = self._gpu_mesh(name)  # reports an unreadable mesh once, as a mesh draw would
            mesh = self._mesh(name)
            key = content_key(mesh)
            if key not in self._baked:
                self._baked[key] = bake(mesh, self._bake_program, gm.materials)
                self.bakes += 1
            self.impostors[name] = self._baked[key]
        return self.impostors[name]

    def _atlases_ready(self, names) -> bool:
        """Whether every atlas of `names` is in, baking those this frame may (see `defer_bakes`)."""
        ready = True
        for name in names:
            if name in self.impostors:
                continue
            if self._bake_allowance < 1:
                self.bakes_waiting, ready = True, False
                continue
            before = self.bakes
            self.impostor(name)
            self._bake_allowance -= self.bakes - before
        return ready

    def _drop_unused_impostors(self) -> None:
        """Free the atlases no type of the palette draws any more (a context current)."""
        used = {PLACEHOLDER_MESH} | {m for t in (self.palette or []) for m in t.meshes}
        self.impostors = {name: imp for name, imp in self.impostors.items() if name in used}
        kept = {id(imp) for imp in self.impostors.values()}
        for key in [k for k, imp in self._baked.items() if id(imp) not in kept]:
            self._baked.pop(key).release()

    def _bind_card(self, p, mesh_name: str, variant: int):
        """The variant's impostor: its card size and atlases bound for the card shaders."""
        imp = self.impostor(mesh_name)
        GL.glUniform1i(p.location("u_variant"), variant)
        p.set_uniform("u_sphere", np.array(imp.sphere, np.float32))
        p.set_uniform("u_box", np.array(imp.box, np.float32))
        p.set_uniform("u_frames", imp.frames)
        imp.bind()
        return imp

    # ---- GL ------------------------------------------------------------------------------------
    def initialize(self) -> None:
        self.program = ShaderProgram(foliage_vertex_source("foliage_vert.glsl"),
                                     foliage_fragment_source("foliage_mesh_frag.glsl", common=True),
                                     "foliage")
        self.impostor_program = ShaderProgram(
            foliage_vertex_source("foliage_impostor_vert.glsl", "foliage_octahedral.glsl"),
            foliage_fragment_source("foliage_impostor_frag.glsl", common=True), "foliage impostor")
        self._bake_program = bake_program()
        self._quad_vbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._quad_vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, CORNERS.nbytes, CORNERS, GL.GL_STATIC_DRAW)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self._all_dirty = self._mesh_dirty = True

    def _sync(self, frame: FrameContext) -> None:
        """Upload what changed since the last frame and refresh the culling arrays."""
        if self.volume is None:
            return
        if self._all_dirty:
            self._drop_unused_impostors()
        if self._all_dirty and self._mesh_dirty:
            self._plans.clear()  # meshes, levels or variation may have changed (proxies need them)
        self._sync_proxies()
        self._sync_chunks(frame)
        if self._selection_dirty:
            for key in sorted(self._selection_dirty, key=lambda k: (k[1], k[0])):
                self._upload_mask(key)
            self._selection_dirty = set()

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
        self._bake_allowance = math.inf if not self.defer_bakes else (1 if self._draws else 0)
        self._draws += 1
        self.bakes_waiting = False
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
        self.chunk_counted: dict[str, int] = {}  # per proxied type: instances its chunks drew (counting)
        if self.visible:
            rows = np.flatnonzero(shown)
            near = box_distance(self._lo[rows], self._hi[rows], eye)
            far = box_far_distance(self._lo[rows], self._hi[rows], eye)
            self._draw_chunks(frame, self.visible, near, far)
            self._count_levels(frame, near, far, eye)  # after the draws: cards left for later are not counted
        self._draw_proxies(frame, eye)
        if self.bakes_waiting:
            self.request_update()  # the next frame bakes another atlas

    def _set_type_uniforms(self, program: int, plan: TypePlan) -> None:
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
        # bake before any program is in use (baking switches programs), and only the atlases this
        # frame draws: an opening view near the ground needs few or none of them yet
        cards = [c for c in self._impostor_groups(runs, near, far) if self._atlases_ready(c[1].meshes)]
        for p in (self.program, self.impostor_program):
            p.use()
            set_lit_uniforms(p, frame, foliage_fog(frame))
        p = self.program
        p.use()
        set_material_units(p)
        p.set_uniform("u_wind", float(self.wind))
        p.set_uniform("u_time", float(self.wind_time))
        blended = []  # (chunk distance, plan, level, variant, mesh, material, row): after the opaque
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
                    gm = self._gpu_mesh(name)
                    p.set_uniform("u_mesh_height", gm.height)
                    p.set_uniform("u_wind", float(self.wind) if gm.sways else 0.0)
                    for gmat in gm.materials:
                        if gmat.material.blended:
                            blended += [(float(near[i]), plan, level, v, name, gmat, i) for i in rows]
                            continue
                        bind_material(p, gmat)
                        for i in rows:
                            key = keys[i]
                            gc = self._gpu[key]
                            GL.glBindVertexArray(self._vao(key, gc, name))
                            GL.glDrawArraysInstanced(GL.GL_TRIANGLES, gmat.first, gmat.count, gc.count)
        if blended:
            self._draw_blended(p, keys, blended)
        unbind_materials()
        p = self.impostor_program
        p.use()
        p.set_uniform("u_proxy", False)
        focal = set_card_uniforms(p, frame, self.point_pixels)
        for type_name, level, rows in cards:
            plan = self.plan(type_name)
            self._set_type_uniforms(p.id, plan)
            p.set_uniform("u_varied", bool(plan.hue != (0.0, 0.0) or plan.value != (0.0, 0.0)))
            p.set_uniform("u_band", np.array(level.band(), np.float32))
            for v, name in enumerate(level.meshes):
                imp = self._bind_card(p, name, v)
                # near cards as quads, far ones (under POINT_PIXELS tall) as one point each: a
                # quarter of the vertex work where a forest has the most instances
                side = imp.side * focal / self.point_pixels
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
        unbind_cards()
        GL.glBindVertexArray(0)

    def _draw_blended(self, p: ShaderProgram, keys: list[ChunkKey], jobs: list) -> None:
        """Blended (BLEND) materials after everything opaque, chunk by chunk from far to near,
        without writing depth: a chunk's own triangles are not sorted."""
        GL.glEnable(GL.GL_BLEND)
        GL.glBlendFunc(GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)
        GL.glDepthMask(GL.GL_FALSE)
        for _, plan, level, v, name, gmat, i in sorted(jobs, key=lambda j: -j[0]):
            self._set_type_uniforms(p.id, plan)
            p.set_uniform("u_band", np.array(level.band(), np.float32))
            GL.glUniform1i(p.location("u_variant"), v)
            p.set_uniform("u_mesh_height", self._gpu_mesh(name).height)
            p.set_uniform("u_wind", float(self.wind) if self._gpu_mesh(name).sways else 0.0)
            bind_material(p, gmat)
            gc = self._gpu[keys[i]]
            GL.glBindVertexArray(self._vao(keys[i], gc, name))
            GL.glDrawArraysInstanced(GL.GL_TRIANGLES, gmat.first, gmat.count, gc.count)
        GL.glDepthMask(GL.GL_TRUE)
        GL.glDisable(GL.GL_BLEND)

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
                          box_far_distance(self._lo, self._hi, eye))

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

    def release(self) -> None:
        self._unbind()
        for gc in self._gpu.values():
            self._delete_chunk(gc)
        for mesh in self._meshes.values():
            GL.glDeleteBuffers(1, [mesh.vbo])
        for imp in self._baked.values():
            imp.release()
        self._baked.clear()
        self.impostors.clear()
        self.textures.release()
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
        for name in ("program", "impostor_program", "_bake_program"):
            if getattr(self, name) is not None:
                getattr(self, name).delete()
                setattr(self, name, None)

    def bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        self._bind()
        v = self.volume
        if v is None or not v.keys():
            return None
        boxes = np.stack([v.bounds(*k) for k in v.keys()])
        return boxes[:, 0].min(axis=0), boxes[:, 1].max(axis=0)

