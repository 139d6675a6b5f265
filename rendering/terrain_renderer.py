"""Draws a terrain as lit, layer-coloured mesh tiles chosen by level of detail; follows its edits.

The height grid is a quadtree of tiles (`rendering.terrain_lod`): every tile is 64 x 64 cells of
its level's sample grid, so a frame's triangles follow the screen, not the terrain's size. Each
frame picks tiles by screen-space error (under a pixel by default) within a tile budget; tiles are
meshed on demand and kept on the GPU in a least-recently-used cache bounded in bytes. Neighbours
of different levels meet without cracks: each tile hangs a skirt from its inner edges, as deep as
the largest gap a coarser neighbour can leave (drawn in the vertex shader, so it costs no upload).

Terrains small enough to draw whole (`FULL_DETAIL_TRIANGLES`) are drawn at full detail, exactly
as before: level-0 tiles of 64 cells culled by the view. An edit re-meshes and re-uploads only the
band of rows it changed in each resident tile it touched, at every level (one `glBufferSubData`
per tile), and recomputes only the touched nodes' errors, so a brush stamp's cost follows the brush.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from OpenGL import GL

from model.terrain import Terrain
from rendering.culling import boxes_in_frustum, frustum_planes
from rendering.foliage_density import FoliageDensity
from rendering.gl_program import ShaderProgram, load_shader_source
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_base_cache import CACHE_UNIT, TerrainBaseCache
from rendering.terrain_lod import MAX_TILES, PIXEL_ERROR, TILE, Key, LodPyramid
from rendering.terrain_mesh import VERTEX_FLOATS, grid_indices, vertex_grid
from rendering.terrain_textures import UNITS, TerrainTextures

HOLES_UNIT = CACHE_UNIT + 1  # the hole mask's texture unit (0: foliage cover, 1-4 layers, 5 cache)

FOG_COLOUR = np.array([0.62, 0.71, 0.80], np.float32)


def set_lit_uniforms(p: ShaderProgram, frame: FrameContext, fog_distance: float) -> None:
    """What every lit pass reads from the frame: camera, light, eye and fog (`p` in use)."""
    p.set_uniform("u_view_projection", frame.view_projection)
    p.set_uniform("u_light_direction", frame.light_direction)
    p.set_uniform("u_eye", frame.camera.eye().astype(np.float32))
    p.set_uniform("u_fog_color", FOG_COLOUR)
    p.set_uniform("u_fog_distance", float(fog_distance))


def foliage_fog(frame: FrameContext) -> float:
    """Fog distance of foliage and grass: past the scene, wherever the camera stands."""
    return float(frame.camera.scene_extent * 2.0 + frame.camera.distance)
CHUNK_CELLS = TILE
FULL_DETAIL_TRIANGLES = 600_000  # up to 513 x 513 samples the whole grid is drawn, as before
STEEP_NORMAL_Y = 0.85  # the shader's STEEP_FROM: steeper ground is projected sideways, not from above
CACHE_BYTES = 64 << 20  # GPU bytes of tile meshes kept at most (about 380 tiles)


def chunk_ranges(samples: int, cells: int = CHUNK_CELLS) -> list[tuple[int, int]]:
    """Sample ranges [a, b) of the chunks along one axis; neighbours share a sample."""
    starts = list(range(0, max(samples - 1, 1), cells))
    return [(a, min(a + cells + 1, samples)) for a in starts]


def skirt_indices(rows: int, cols: int, edges: tuple[bool, bool, bool, bool]) -> np.ndarray:
    """Triangles joining a grid's edges (top, bottom, left, right) to its skirt vertices, which
    follow the grid: top row, bottom row, left column, right column."""
    g = rows * cols
    parts = []
    across, down = np.arange(cols), np.arange(rows) * cols
    segments = ((across, g), (across + (rows - 1) * cols, g + cols),
                (down, g + 2 * cols), (down + cols - 1, g + 2 * cols + rows))
    for on, (edge, first) in zip(edges, segments, strict=True):
        if not on:
            continue
        n = len(edge)
        skirt = first + np.arange(n)
        a, b, sa, sb = edge[:-1], edge[1:], skirt[:-1], skirt[1:]
        parts.append(np.stack([a, sa, b, b, sa, sb], axis=1).ravel())
    return np.concatenate(parts).astype(np.uint32) if parts else np.empty(0, np.uint32)


@dataclass
class _Tile:
    vao: int
    vbo: int
    rows: int  # vertex rows and columns of the grid (the skirt follows it)
    cols: int
    index_count: int
    nbytes: int
    skirt: float = 0.0
    steep: bool = False  # has ground the base colour cache does not draw (see STEEP_NORMAL_Y)


class TerrainRenderer(Renderer):
    """Terrain tiles. `uploads` counts uploads of full-detail (level 0) tiles per (tile row, tile
    column) and `visible` lists the level-0 tiles drawn, as with the chunks of old; `tile_uploads`
    counts every level's uploads per (level, row, column), `drawn` lists the last frame's tiles
    and `triangles` its triangle count (skirts included). The tile cache holds at most
    `cache_bytes`, or the tiles of the current frame where those need more (at most `max_tiles`)."""

    def __init__(self, terrain: Terrain, density: FoliageDensity | None = None,
                 pixel_error: float = PIXEL_ERROR, max_tiles: int = MAX_TILES,
                 cache_bytes: int = CACHE_BYTES, full_detail_triangles: int = FULL_DETAIL_TRIANGLES,
                 textures: TerrainTextures | None = None) -> None:
        self.terrain = terrain
        self.textures = textures  # the layers' texture arrays (None: flat colours only)
        self.base_cache = TerrainBaseCache()  # textured tiles' baked blend, drawn past the near radius
        self.density = density  # stored foliage's cover, drawn on the ground where it is culled
        self.show_density = True
        self.pixel_error = pixel_error
        self.max_tiles = max_tiles
        self.cache_bytes = cache_bytes
        self.full_detail_triangles = full_detail_triangles
        self._density_tex = 0
        self._density_shape: tuple[int, ...] | None = None
        self._holes_tex = 0
        self._holes_dirty: list[tuple[int, int, int, int]] | None = None  # None: every texel
        self.program: ShaderProgram | None = None
        self.far_program: ShaderProgram | None = None
        self.flat_program: ShaderProgram | None = None
        self.pyramid: LodPyramid | None = None
        self._tiles: OrderedDict[Key, _Tile] = OrderedDict()  # least recently drawn first
        self._ebo: dict[tuple, tuple[int, int]] = {}  # (rows, cols, edges) → (buffer, index count)
        self._dirty: dict[Key, tuple[int, int, int, int] | None] = {}  # tile → sample rect, None = all
        self._pending: list[tuple[int, int, int, int]] = []  # edited sample rects the pyramid has not seen
        self._rebuild = True
        self.resident_bytes = 0
        self.uploads: dict[tuple[int, int], int] = {}
        self.tile_uploads: dict[Key, int] = {}
        self.upload_bytes = 0  # vertex bytes sent since creation (full builds and edits)
        self.visible: list[tuple[int, int]] = []
        self.drawn: list[Key] = []
        self.triangles = 0
        self._subscribed = False
        self._subscribe()

    @property
    def full_detail(self) -> bool:
        t = self.terrain
        return 2 * (t.rows - 1) * (t.columns - 1) <= self.full_detail_triangles

    # ---- model events -----------------------------------------------------------------
    def _subscribe(self) -> None:
        """Follow the terrain's edits; after a release (context lost) the next draw subscribes again."""
        if not self._subscribed:
            t = self.terrain
            t.heights_changed.connect(self._on_rows_changed)
            t.layer_weights_changed.connect(self._on_layer_changed)
            t.layers_changed.connect(self._on_layers_changed)
            t.holes_changed.connect(self._on_holes_changed)
            self._subscribed = True
            self._holes_dirty = None
            self._rebuild = True

    def _rect(self, rows: slice, cols: slice | None) -> tuple[int, int, int, int]:
        r0, r1, _ = rows.indices(self.terrain.rows)
        c0, c1, _ = (cols if cols is not None else slice(None)).indices(self.terrain.columns)
        return r0, r1, c0, c1

    def _mark(self, rect: tuple[int, int, int, int]) -> None:
        """Resident tiles of every level whose vertices see the samples in `rect` re-mesh them."""
        if self.pyramid is None:
            return
        r0, r1, c0, c1 = rect
        for key in self._tiles:
            lv, i, j = key
            span, s = TILE << lv, 1 << lv
            # a vertex moves with its sample; its normal with the samples one stride away
            a, b = max(r0 - s, i * span), min(r1 + s, (i + 1) * span + 1)
            c, d = max(c0 - s, j * span), min(c1 + s, (j + 1) * span + 1)
            if a >= b or c >= d:
                continue
            if key in self._dirty:
                old = self._dirty[key]
                if old is None:
                    continue
                a, b, c, d = min(a, old[0]), max(b, old[1]), min(c, old[2]), max(d, old[3])
            self._dirty[key] = (a, b, c, d)

    def _on_rows_changed(self, rows: slice, cols: slice | None = None) -> None:
        rect = self._rect(rows, cols)
        self._pending.append(rect)
        self._mark(rect)
        self._mark_cache(rect)

    def _on_layer_changed(self, index: int, rows: slice, cols: slice | None = None) -> None:
        rect = self._rect(rows, cols)
        self._mark(rect)
        self._mark_cache(rect)

    def _on_holes_changed(self, rows: slice, cols: slice) -> None:
        if self._holes_dirty is not None:
            self._holes_dirty.append(self._rect(rows, cols))

    def _on_layers_changed(self) -> None:
        self._dirty.update({k: None for k in self._tiles})
        self.base_cache.invalidate()

    def _mark_cache(self, rect: tuple[int, int, int, int]) -> None:
        """The base-colour texels over the edited samples bake again (a tile's normals and
        interpolation reach two of its sample strides)."""
        r0, r1, c0, c1 = rect
        t = self.terrain
        s, (ox, oz) = t.spacing, t.origin
        self.base_cache.mark(ox + c0 * s, oz + r0 * s, ox + (c1 - 1) * s, oz + (r1 - 1) * s,
                             lambda key: (2 << key[0]) * s)

    # ---- GL ---------------------------------------------------------------------------
    def initialize(self) -> None:
        vertex, fragment = load_shader_source("terrain_vert.glsl"), load_shader_source("terrain_frag.glsl")

        def variant(define: str, label: str) -> ShaderProgram:
            vs, fs = (f"{first}\n#define {define}\n{rest}" for first, rest in
                      (vertex.split("\n", 1), fragment.split("\n", 1)))
            return ShaderProgram(vs, fs, f"terrain ({label})")

        # A software rasteriser runs both sides of a branch, so what a tile does not need is compiled
        # out: the per-layer blend of tiles drawn from their base colour alone, all texturing of
        # flat-coloured ground.
        self.program = ShaderProgram(vertex, fragment, "terrain")
        self.far_program = variant("FAR_TILES", "far tiles")
        self.flat_program = variant("FLAT_COLOURS", "flat colours")
        for p in (self.program, self.far_program, self.flat_program):
            p.use()
            for kind, unit in UNITS.items():  # samplers of two types may not share a unit, even unused
                p.set_uniform(f"u_{kind}", unit)
            p.set_uniform("u_cache", CACHE_UNIT)
            p.set_uniform("u_holes", HOLES_UNIT)
        self._rebuild = True

    def _indices(self, rows: int, cols: int, edges: tuple[bool, ...]) -> tuple[int, int]:
        key = (rows, cols, edges)
        if key not in self._ebo:
            idx = np.concatenate([grid_indices(rows, cols), skirt_indices(rows, cols, edges)])
            ebo = int(GL.glGenBuffers(1))
            GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, ebo)
            GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, idx.nbytes, idx, GL.GL_STATIC_DRAW)
            self._ebo[key] = (ebo, int(idx.size))
        return self._ebo[key]

    def _count(self, key: Key) -> None:
        self.tile_uploads[key] = self.tile_uploads.get(key, 0) + 1
        if key[0] == 0:
            self.uploads[key[1:]] = self.uploads.get(key[1:], 0) + 1

    def _build(self, key: Key) -> None:
        """Mesh the tile and its skirt and send them to a new buffer."""
        p = self.pyramid
        rows, cols = p.samples[key[0]]
        a, b, c, d = p.tile_range(key)
        grid = vertex_grid(self.terrain, rows, cols, a, b, c, d, p.take_heights)
        n, m = b - a, d - c
        g = grid.reshape(n, m, VERTEX_FLOATS)
        vertices = np.concatenate([grid, g[0], g[-1], g[:, 0], g[:, -1]])  # skirt: copies of the edges
        self.upload_bytes += vertices.nbytes
        edges = (a > 0, b < len(rows), c > 0, d < len(cols))  # the terrain's own edges hang no skirt
        vao, vbo = int(GL.glGenVertexArrays(1)), int(GL.glGenBuffers(1))
        GL.glBindVertexArray(vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, vertices.nbytes, vertices, GL.GL_DYNAMIC_DRAW)
        stride = VERTEX_FLOATS * 4
        for location, offset in ((0, 0), (1, 12), (2, 24)):
            GL.glEnableVertexAttribArray(location)
            GL.glVertexAttribPointer(location, 3, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset))
        for k in range(4):  # the textured layers' weights: 16 normalised bytes
            GL.glEnableVertexAttribArray(3 + k)
            GL.glVertexAttribPointer(3 + k, 4, GL.GL_UNSIGNED_BYTE, GL.GL_TRUE, stride,
                                     ctypes.c_void_p(36 + 4 * k))
        ebo, count = self._indices(n, m, edges)
        GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, ebo)
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        steep = bool(grid[:, 4].min() < STEEP_NORMAL_Y)  # normals' y
        self._tiles[key] = _Tile(vao, vbo, n, m, count, vertices.nbytes, p.skirt_depth(key), steep)
        self.resident_bytes += vertices.nbytes
        self._count(key)

    def _patch(self, key: Key, rect: tuple[int, int, int, int]) -> None:
        """Re-mesh the tile's rows that see the samples in `rect` (one contiguous band of the
        buffer) and the skirt vertices copied from them."""
        p, tile = self.pyramid, self._tiles[key]
        rows, cols = p.samples[key[0]]
        a, b, c, d = p.tile_range(key)
        r0, r1, c0, c1 = rect
        ra = a + int(np.searchsorted(rows[a:b], r0))
        rb = a + int(np.searchsorted(rows[a:b], r1))
        ca = c + int(np.searchsorted(cols[c:d], c0))
        cb = c + int(np.searchsorted(cols[c:d], c1))
        if ra >= rb or ca >= cb:
            return
        band = vertex_grid(self.terrain, rows, cols, ra, rb, c, d, p.take_heights)
        tile.steep = tile.steep or bool(band[:, 4].min() < STEEP_NORMAL_Y)  # (kept until re-meshed whole)
        n, m = tile.rows, tile.cols
        item = VERTEX_FLOATS * 4
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, tile.vbo)
        GL.glBufferSubData(GL.GL_ARRAY_BUFFER, (ra - a) * m * item, band.nbytes, band)
        sent = band.nbytes
        g = band.reshape(rb - ra, m, VERTEX_FLOATS)
        skirts = []  # (first skirt vertex, vertices) where the band reaches an edge
        if ra == a:
            skirts.append((n * m, g[0]))
        if rb == b:
            skirts.append((n * m + m, g[-1]))
        if ca == c:
            skirts.append((n * m + 2 * m + (ra - a), g[:, 0]))
        if cb == d:
            skirts.append((n * m + 2 * m + n + (ra - a), g[:, -1]))
        for first, v in skirts:
            v = np.ascontiguousarray(v)
            GL.glBufferSubData(GL.GL_ARRAY_BUFFER, first * item, v.nbytes, v)
            sent += v.nbytes
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self.upload_bytes += sent
        self._count(key)

    def _drop(self, key: Key) -> None:
        tile = self._tiles.pop(key)
        GL.glDeleteVertexArrays(1, [tile.vao])
        GL.glDeleteBuffers(1, [tile.vbo])
        self.resident_bytes -= tile.nbytes
        self._dirty.pop(key, None)

    def _select(self, frame: FrameContext) -> list[Key]:
        p = self.pyramid
        planes = frustum_planes(frame.view_projection)
        if self.full_detail:
            keys = p.all_tiles(0)
            lo, hi = p.box(keys)
            return [k for k, s in zip(keys, boxes_in_frustum(lo, hi, planes), strict=True) if s]
        height = frame.height * frame.pixel_ratio
        pixels_per_radian = 0.5 * height * float(frame.projection[1, 1])
        return p.select(frame.camera.eye(), planes, pixels_per_radian, self.pixel_error, self.max_tiles)

    def _sync(self, frame: FrameContext) -> list[Key]:
        """Bring the pyramid up to date, choose the frame's tiles, build or patch what they need and
        evict the least recently drawn tiles past the cache's bytes."""
        if self._rebuild or self.pyramid is None:
            for key in list(self._tiles):
                self._drop(key)
            self.pyramid = LodPyramid(self.terrain, TILE)
            self.base_cache.invalidate()
            self._pending.clear()
            self._dirty.clear()
            self._rebuild = False
        for rect in self._pending:
            self.pyramid.update(*rect)
        refresh_skirts = bool(self._pending)
        self._pending.clear()
        # full-detail terrains keep every tile (as the chunks of old); others what the view needs
        need = self.pyramid.all_tiles(0) if self.full_detail else None
        chosen = self._select(frame)
        built = 0
        for key in chosen if need is None else need:
            if key in self._tiles and self._dirty.get(key, 0) is None:
                self._drop(key)
            if key not in self._tiles:
                self._build(key)
                built += 1
            elif key in self._dirty:
                self._patch(key, self._dirty.pop(key))
                built += 1
            self._tiles.move_to_end(key)
        if refresh_skirts:
            for key, tile in self._tiles.items():
                tile.skirt = self.pyramid.skirt_depth(key)
        if built:
            frame.stats.count_upload("terrain tiles", built)
        keep = set(chosen if need is None else need)
        while self.resident_bytes > self.cache_bytes:
            old = next((k for k in self._tiles if k not in keep), None)
            if old is None:
                break
            self._drop(old)
        return chosen

    def _sync_density(self, frame: FrameContext) -> bool:
        """Send the cover texels that changed (all of them the first time); False without foliage."""
        d = self.density
        if d is None or not self.show_density:
            return False
        d.bind()  # the scene's foliage may have been replaced
        if d.volume is None or not len(d.volume.keys()):
            return False  # no stored foliage: nothing to tint, no cover grid to compute (2048² on 16 km)
        first = not self._density_tex
        if first:
            self._density_tex = int(GL.glGenTextures(1))
            GL.glBindTexture(GL.GL_TEXTURE_2D, self._density_tex)
            for name in (GL.GL_TEXTURE_MIN_FILTER, GL.GL_TEXTURE_MAG_FILTER):
                GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_LINEAR)
            for name in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
                GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_CLAMP_TO_EDGE)
            d.invalidate()  # a new texture: every texel
        rects = d.take_dirty()
        shape = d.cover.shape
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._density_tex)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        if rects is None or first or self._density_shape != d.cover.shape:
            # half floats: a cover of colours and fractions needs no more, and a 16 km world's
            # 2048² texture is then 32 MB on the GPU (llvmpipe: in this process), not 64
            GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA16F, shape[1], shape[0], 0, GL.GL_RGBA,
                            GL.GL_FLOAT, np.ascontiguousarray(d.cover))
            self._density_shape = d.cover.shape
            frame.stats.count_upload("foliage cover", 1)
        else:
            for r0, r1, c0, c1 in rects:  # only the texels under the cells an edit touched
                GL.glTexSubImage2D(GL.GL_TEXTURE_2D, 0, c0, r0, c1 - c0, r1 - r0, GL.GL_RGBA, GL.GL_FLOAT,
                                   np.ascontiguousarray(d.cover[r0:r1, c0:c1]))
            if rects:
                frame.stats.count_upload("foliage cover", len(rects))
        return True

    def _sync_holes(self, frame: FrameContext) -> bool:
        """Send the hole mask's texels that changed (all the first time); False without holes."""
        mask = self.terrain.holes
        if mask is None:
            self._holes_dirty = None  # a mask made later is sent whole
            return False
        first = not self._holes_tex
        if first:
            self._holes_tex = int(GL.glGenTextures(1))
            GL.glBindTexture(GL.GL_TEXTURE_2D, self._holes_tex)
            for name in (GL.GL_TEXTURE_MIN_FILTER, GL.GL_TEXTURE_MAG_FILTER):
                GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_LINEAR)
            for name in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
                GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_CLAMP_TO_EDGE)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._holes_tex)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        t = self.terrain
        if first or self._holes_dirty is None:
            GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_R8, t.columns, t.rows, 0, GL.GL_RED,
                            GL.GL_UNSIGNED_BYTE, np.ascontiguousarray(mask[0:t.rows, 0:t.columns]))
            frame.stats.count_upload("holes", 1)
        else:
            for r0, r1, c0, c1 in self._holes_dirty:
                GL.glTexSubImage2D(GL.GL_TEXTURE_2D, 0, c0, r0, c1 - c0, r1 - r0, GL.GL_RED,
                                   GL.GL_UNSIGNED_BYTE, np.ascontiguousarray(mask[r0:r1, c0:c1]))
        self._holes_dirty = []
        return True

    def _set_holes_uniforms(self, p: ShaderProgram, on: bool) -> None:
        p.set_uniform("u_holes_on", 1.0 if on else 0.0)
        GL.glActiveTexture(GL.GL_TEXTURE0 + HOLES_UNIT)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._holes_tex if on else 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        if on:
            p.set_uniform("u_holes_origin", np.array(self.terrain.origin, np.float32))
            p.set_uniform("u_holes_spacing", float(self.terrain.spacing))

    def _set_density_uniforms(self, p: ShaderProgram, on: bool) -> None:
        p.set_uniform("u_density_on", 1.0 if on else 0.0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._density_tex if on else 0)
        if not on:
            return
        d = self.density
        rows, cols = d.cover.shape[:2]
        p.set_uniform("u_density_origin", np.array(self.terrain.origin, np.float32))
        p.set_uniform("u_density_extent", np.array([cols * d.texel, rows * d.texel], np.float32))
        p.set_uniform("u_density_fade", np.array(d.fade(), np.float32))

    def draw(self, frame: FrameContext) -> None:
        if self.program is None:
            self.initialize()
        self._subscribe()
        chosen = self._sync(frame)
        density_on = self._sync_density(frame)
        holes_on = self._sync_holes(frame)
        self.drawn = chosen
        self.visible = [k[1:] for k in chosen if k[0] == 0]
        cache = self.base_cache
        textured = False
        if self.textures is not None:
            self.textures.sync()
            textured = self.textures.slots_in_use() > 0
        near = self.program if textured else self.flat_program
        for p in (self.program, self.far_program) if textured else (near,):
            p.use()
            sx, sz = self.terrain.size
            set_lit_uniforms(p, frame, max(sx, sz) * 3.0 + frame.camera.distance)
            self._set_density_uniforms(p, density_on)
            self._set_holes_uniforms(p, holes_on)
            cache.set_uniforms(p)
            if self.textures is not None:
                self.textures.bind(p)
            else:
                p.set_uniform("u_slots", 0)
        far: list[Key] = []
        cache.pending = False  # until a bake this frame leaves tiles waiting
        if textured:
            self.program.use()
            distance = self._prepare_cache(frame, chosen)
            far = [k for k in chosen if not self._tiles[k].steep and cache.covers(k, distance.get(k, 0.0))]
        triangles = 0
        if far:
            self.far_program.use()
            for key in far:
                cache.bind(self.far_program, key)
                triangles += self._draw_tile(self.far_program, key, self._tiles[key].skirt)
        p = near
        p.use()
        taken = set(far)
        for key in chosen:
            if key in taken:
                continue
            if textured:
                cache.bind(p, key)
            triangles += self._draw_tile(p, key, self._tiles[key].skirt)
        self.triangles = triangles
        GL.glBindVertexArray(0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        if self.textures is not None:
            cache.unbind()
            self.textures.unbind()

    def _draw_tile(self, p: ShaderProgram, key: Key, skirt: float) -> int:
        """Draw one tile's mesh with `p` (in use); its triangle count."""
        tile = self._tiles[key]
        p.set_uniform("u_skirt_depth", float(skirt))
        p.set_uniform("u_grid_vertices", tile.rows * tile.cols)
        GL.glBindVertexArray(tile.vao)
        GL.glDrawElements(GL.GL_TRIANGLES, tile.index_count, GL.GL_UNSIGNED_INT, None)
        return tile.index_count // 3

    def _prepare_cache(self, frame: FrameContext, chosen: list[Key]) -> dict[Key, float]:
        """Bake the base colour the frame's tiles need (edits, new tiles, changed layers or maps);
        each tile's distance from the eye."""
        cache = self.base_cache
        cache.follow(self.textures.content_key())
        if not chosen or not cache.enabled or self.textures.pending:
            return {}  # (while maps stream in, each would undo the last frame's bakes: the full blend)
        lo, hi = self.pyramid.box(chosen)
        lo[:, 1] -= np.array([self._tiles[k].skirt for k in chosen])  # the skirts hang below
        eye = frame.camera.eye()
        dist = np.linalg.norm(np.clip(eye, lo, hi) - eye, axis=1)
        tiles = {k: (lo[n, 0], lo[n, 2], hi[n, 0], hi[n, 2], float(dist[n])) for n, k in enumerate(chosen)}
        pixels_per_radian = 0.5 * frame.height * frame.pixel_ratio * float(frame.projection[1, 1])
        before = cache.bakes + cache.patches
        p = self.program
        cache.prepare(chosen, tiles, pixels_per_radian, lambda key: self._draw_tile(p, key, 0.0), p)
        if cache.bakes + cache.patches > before:
            frame.stats.count_upload("terrain base colour", cache.bakes + cache.patches - before)
        if cache.pending:
            self.textures.request_update()
        return {k: v[4] for k, v in tiles.items()}

    def release(self) -> None:
        self.base_cache.release()
        if self.textures is not None:
            self.textures.release()
        if self._density_tex:
            GL.glDeleteTextures(1, [self._density_tex])
            self._density_tex = 0
        if self._holes_tex:
            GL.glDeleteTextures(1, [self._holes_tex])
            self._holes_tex = 0
        if self.density is not None:
            self.density.release()
        t = self.terrain
        t.heights_changed.disconnect(self._on_rows_changed)
        t.layer_weights_changed.disconnect(self._on_layer_changed)
        t.layers_changed.disconnect(self._on_layers_changed)
        t.holes_changed.disconnect(self._on_holes_changed)
        self._subscribed = False
        if self.program is not None:
            self.program.delete()
            self.program = None
        for name in ("far_program", "flat_program"):
            if getattr(self, name) is not None:
                getattr(self, name).delete()
                setattr(self, name, None)
        for key in list(self._tiles):
            self._drop(key)
        if self._ebo:
            GL.glDeleteBuffers(len(self._ebo), [b for b, _ in self._ebo.values()])
        self._ebo.clear()
        self.pyramid = None  # edits while released are not followed: measure again
        self._rebuild = True

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        x0, z0, x1, z1 = self.terrain.bounds()
        lo, hi = self.terrain.height_range()
        return np.array([x0, lo, z0]), np.array([x1, hi, z1])
