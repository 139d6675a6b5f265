"""Draws a terrain as lit, layer-coloured mesh chunks; follows the terrain's change events.

The height grid is cut into square chunks of `CHUNK_CELLS` cells (neighbours share their edge
samples). Each chunk has its own vertex buffer and bounds: chunks outside the view are not drawn,
and an edit re-meshes and re-uploads only the band of rows it changed in each chunk it touched
(one `glBufferSubData` per chunk), so a brush stamp's cost follows the brush, not the chunk.
"""

from __future__ import annotations

import ctypes

import numpy as np
from OpenGL import GL

from model.terrain import Terrain
from rendering.culling import boxes_in_frustum, frustum_planes
from rendering.foliage_density import FoliageDensity
from rendering.gl_program import ShaderProgram
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_mesh import VERTEX_FLOATS, grid_indices, vertex_block

FOG_COLOUR = np.array([0.62, 0.71, 0.80], np.float32)
CHUNK_CELLS = 64


def chunk_ranges(samples: int, cells: int = CHUNK_CELLS) -> list[tuple[int, int]]:
    """Sample ranges [a, b) of the chunks along one axis; neighbours share a sample."""
    starts = list(range(0, max(samples - 1, 1), cells))
    return [(a, min(a + cells + 1, samples)) for a in starts]


class TerrainRenderer(Renderer):
    """Terrain chunks; `uploads` counts chunk uploads per (row chunk, column chunk), cumulative."""

    def __init__(self, terrain: Terrain, density: FoliageDensity | None = None) -> None:
        self.terrain = terrain
        self.density = density  # stored foliage's cover, drawn on the ground where it is culled
        self.show_density = True
        self._density_tex = 0
        self._density_shape: tuple[int, ...] | None = None
        self.program: ShaderProgram | None = None
        self._rows = chunk_ranges(terrain.rows)
        self._cols = chunk_ranges(terrain.columns)
        self._vao: dict[tuple[int, int], int] = {}
        self._vbo: dict[tuple[int, int], int] = {}
        self._ebo: dict[tuple[int, int], tuple[int, int]] = {}  # block shape → (buffer, index count)
        self._dirty: dict[tuple[int, int], tuple[int, int]] = {}  # chunk → grid rows [a, b) to re-mesh
        self._rebuild = True
        self._lo = np.empty((0, 3))
        self._hi = np.empty((0, 3))
        self._order: list[tuple[int, int]] = []
        self._boxes: dict[tuple[int, int], tuple[tuple, tuple]] = {}
        self.uploads: dict[tuple[int, int], int] = {}
        self.upload_bytes = 0  # vertex bytes sent since creation (full builds and edits)
        self.visible: list[tuple[int, int]] = []
        self._subscribed = False
        self._subscribe()

    # ---- model events -----------------------------------------------------------------
    def _subscribe(self) -> None:
        """Follow the terrain's edits; after a release (context lost) the next draw subscribes again."""
        if not self._subscribed:
            t = self.terrain
            t.heights_changed.connect(self._on_rows_changed)
            t.layer_weights_changed.connect(self._on_layer_changed)
            t.layers_changed.connect(self._on_layers_changed)
            self._subscribed = True
            self._rebuild = True

    @staticmethod
    def _touching(ranges: list[tuple[int, int]], a: int, b: int) -> list[int]:
        return [i for i, (s, e) in enumerate(ranges) if s < b and a < e]

    def _on_rows_changed(self, rows: slice, cols: slice | None = None) -> None:
        r0, r1, _ = rows.indices(self.terrain.rows)
        c0, c1, _ = (cols if cols is not None else slice(None)).indices(self.terrain.columns)
        # Normals of the neighbouring samples change too.
        r0, r1 = max(0, r0 - 1), min(self.terrain.rows, r1 + 1)
        c0, c1 = max(0, c0 - 1), min(self.terrain.columns, c1 + 1)
        for i in self._touching(self._rows, r0, r1):
            a, b = max(r0, self._rows[i][0]), min(r1, self._rows[i][1])
            for j in self._touching(self._cols, c0, c1):
                old = self._dirty.get((i, j))
                self._dirty[(i, j)] = (a, b) if old is None else (min(a, old[0]), max(b, old[1]))

    def _on_layer_changed(self, index: int, rows: slice, cols: slice | None = None) -> None:
        self._on_rows_changed(rows, cols)

    def _on_layers_changed(self) -> None:
        self._dirty.update({(i, j): self._rows[i] for i in range(len(self._rows))
                            for j in range(len(self._cols))})

    # ---- GL ---------------------------------------------------------------------------
    def initialize(self) -> None:
        self.program = ShaderProgram.from_files("terrain_vert.glsl", "terrain_frag.glsl")
        self._rebuild = True

    def _indices(self, rows: int, cols: int) -> tuple[int, int]:
        if (rows, cols) not in self._ebo:
            idx = grid_indices(rows, cols)
            ebo = int(GL.glGenBuffers(1))
            GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, ebo)
            GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, idx.nbytes, idx, GL.GL_STATIC_DRAW)
            self._ebo[(rows, cols)] = (ebo, int(idx.size))
        return self._ebo[(rows, cols)]

    def _upload(self, key: tuple[int, int], band: tuple[int, int] | None = None) -> None:
        """Mesh and send the chunk; with `band` (grid rows [a, b) inside it) only those rows."""
        (r0, r1), (c0, c1) = self._rows[key[0]], self._cols[key[1]]
        if key not in self._vao:
            band = None
        a, b = band if band is not None else (r0, r1)
        vertices = vertex_block(self.terrain, a, b, c0, c1)
        self.upload_bytes += vertices.nbytes
        if key not in self._vao:
            vao, vbo = int(GL.glGenVertexArrays(1)), int(GL.glGenBuffers(1))
            self._vao[key], self._vbo[key] = vao, vbo
            GL.glBindVertexArray(vao)
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
            GL.glBufferData(GL.GL_ARRAY_BUFFER, vertices.nbytes, vertices, GL.GL_DYNAMIC_DRAW)
            stride = VERTEX_FLOATS * 4
            for location, offset in ((0, 0), (1, 12), (2, 24)):
                GL.glEnableVertexAttribArray(location)
                GL.glVertexAttribPointer(location, 3, GL.GL_FLOAT, GL.GL_FALSE, stride,
                                         ctypes.c_void_p(offset))
            GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, self._indices(r1 - r0, c1 - c0)[0])
            GL.glBindVertexArray(0)
        else:
            GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vbo[key])
            offset = (a - r0) * (c1 - c0) * VERTEX_FLOATS * 4  # rows are contiguous in the buffer
            GL.glBufferSubData(GL.GL_ARRAY_BUFFER, offset, vertices.nbytes, vertices)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self.uploads[key] = self.uploads.get(key, 0) + 1

    def _chunk_box(self, key: tuple[int, int]) -> tuple[tuple, tuple]:
        x0, z0 = self.terrain.origin
        s = self.terrain.spacing
        (r0, r1), (c0, c1) = self._rows[key[0]], self._cols[key[1]]
        block = self.terrain.heights[r0:r1, c0:c1]
        return ((x0 + c0 * s, float(np.nanmin(block)), z0 + r0 * s),
                (x0 + (c1 - 1) * s, float(np.nanmax(block)), z0 + (r1 - 1) * s))

    def _bounds(self, changed: list[tuple[int, int]]) -> None:
        for key in changed:
            self._boxes[key] = self._chunk_box(key)
        self._order = sorted(self._vao)
        self._lo = np.array([self._boxes[k][0] for k in self._order], np.float64).reshape(-1, 3)
        self._hi = np.array([self._boxes[k][1] for k in self._order], np.float64).reshape(-1, 3)

    def _sync(self, frame: FrameContext) -> None:
        if self._rebuild:
            bands = {(i, j): None for i in range(len(self._rows)) for j in range(len(self._cols))}
            self._dirty.clear()
            self._rebuild = False
        elif self._dirty:
            bands, self._dirty = dict(sorted(self._dirty.items())), {}
        else:
            return
        keys = list(bands)
        for key, band in bands.items():
            self._upload(key, band)
        frame.stats.count_upload("terrain chunks", len(keys))
        self._bounds(keys)

    def _sync_density(self, frame: FrameContext) -> bool:
        """Send the cover texels that changed (all of them the first time); False without foliage."""
        d = self.density
        if d is None or not self.show_density:
            return False
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
            GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA32F, shape[1], shape[0], 0, GL.GL_RGBA,
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
        self._sync(frame)
        density_on = self._sync_density(frame)
        shown = boxes_in_frustum(self._lo, self._hi, frustum_planes(frame.view_projection))
        self.visible = [k for k, s in zip(self._order, shown, strict=True) if s]
        p = self.program
        p.use()
        p.set_uniform("u_view_projection", frame.view_projection)
        p.set_uniform("u_light_direction", frame.light_direction)
        p.set_uniform("u_eye", frame.camera.eye().astype(np.float32))
        p.set_uniform("u_fog_color", FOG_COLOUR)
        sx, sz = self.terrain.size
        p.set_uniform("u_fog_distance", float(max(sx, sz) * 3.0 + frame.camera.distance))
        self._set_density_uniforms(p, density_on)
        for key in self.visible:
            (r0, r1), (c0, c1) = self._rows[key[0]], self._cols[key[1]]
            GL.glBindVertexArray(self._vao[key])
            GL.glDrawElements(GL.GL_TRIANGLES, self._indices(r1 - r0, c1 - c0)[1], GL.GL_UNSIGNED_INT, None)
        GL.glBindVertexArray(0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)

    def release(self) -> None:
        if self._density_tex:
            GL.glDeleteTextures(1, [self._density_tex])
            self._density_tex = 0
        if self.density is not None:
            self.density.release()
        t = self.terrain
        t.heights_changed.disconnect(self._on_rows_changed)
        t.layer_weights_changed.disconnect(self._on_layer_changed)
        t.layers_changed.disconnect(self._on_layers_changed)
        self._subscribed = False
        if self.program is not None:
            self.program.delete()
            self.program = None
        if self._vao:
            GL.glDeleteVertexArrays(len(self._vao), list(self._vao.values()))
            GL.glDeleteBuffers(len(self._vbo), list(self._vbo.values()))
        if self._ebo:
            GL.glDeleteBuffers(len(self._ebo), [b for b, _ in self._ebo.values()])
        self._vao.clear()
        self._vbo.clear()
        self._ebo.clear()
        self._order = []
        self._rebuild = True

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        x0, z0, x1, z1 = self.terrain.bounds()
        lo, hi = self.terrain.height_range()
        return np.array([x0, lo, z0]), np.array([x1, hi, z1])
