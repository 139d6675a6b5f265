"""Draws a terrain as one lit, layer-coloured triangle mesh; follows the terrain's change events."""

from __future__ import annotations

import ctypes

import numpy as np
from OpenGL import GL

from model.terrain import Terrain
from rendering.gl_program import ShaderProgram
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_mesh import VERTEX_FLOATS, grid_indices, vertex_rows

FOG_COLOUR = np.array([0.62, 0.71, 0.80], np.float32)


class TerrainRenderer(Renderer):
    """One VBO of per-sample vertices, one index buffer; edits re-upload only the touched rows."""

    def __init__(self, terrain: Terrain) -> None:
        self.terrain = terrain
        self.program: ShaderProgram | None = None
        self._vao = self._vbo = self._ebo = 0
        self._index_count = 0
        self._dirty_rows: tuple[int, int] | None = None
        self._rebuild = True
        terrain.heights_changed.connect(self._on_rows_changed)
        terrain.layer_weights_changed.connect(self._on_layer_changed)
        terrain.layers_changed.connect(self._on_layers_changed)

    # ---- model events -----------------------------------------------------------------
    def _on_rows_changed(self, rows: slice, cols: slice | None = None) -> None:
        r0, r1, _ = rows.indices(self.terrain.rows)
        # Normals of the neighbouring rows change too.
        r0, r1 = max(0, r0 - 1), min(self.terrain.rows, r1 + 1)
        if self._dirty_rows is not None:
            r0, r1 = min(r0, self._dirty_rows[0]), max(r1, self._dirty_rows[1])
        self._dirty_rows = (r0, r1)

    def _on_layer_changed(self, index: int, rows: slice, cols: slice | None = None) -> None:
        self._on_rows_changed(rows, cols)

    def _on_layers_changed(self) -> None:
        self._dirty_rows = (0, self.terrain.rows)

    # ---- GL ---------------------------------------------------------------------------
    def initialize(self) -> None:
        self.program = ShaderProgram.from_files("terrain_vert.glsl", "terrain_frag.glsl")
        self._vao = GL.glGenVertexArrays(1)
        self._vbo, self._ebo = GL.glGenBuffers(2)
        self._rebuild = True

    def _upload_all(self) -> None:
        t = self.terrain
        vertices = vertex_rows(t)
        indices = grid_indices(t.rows, t.columns)
        GL.glBindVertexArray(self._vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, vertices.nbytes, vertices, GL.GL_DYNAMIC_DRAW)
        GL.glBindBuffer(GL.GL_ELEMENT_ARRAY_BUFFER, self._ebo)
        GL.glBufferData(GL.GL_ELEMENT_ARRAY_BUFFER, indices.nbytes, indices, GL.GL_STATIC_DRAW)
        stride = VERTEX_FLOATS * 4
        for location, offset in ((0, 0), (1, 12), (2, 24)):
            GL.glEnableVertexAttribArray(location)
            GL.glVertexAttribPointer(location, 3, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset))
        GL.glBindVertexArray(0)
        self._index_count = int(indices.size)
        self._rebuild = False
        self._dirty_rows = None

    def _upload_rows(self, r0: int, r1: int) -> None:
        vertices = vertex_rows(self.terrain, r0, r1)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vbo)
        offset = r0 * self.terrain.columns * VERTEX_FLOATS * 4
        GL.glBufferSubData(GL.GL_ARRAY_BUFFER, offset, vertices.nbytes, vertices)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self._dirty_rows = None

    def draw(self, frame: FrameContext) -> None:
        if self.program is None:
            self.initialize()
        if self._rebuild:
            self._upload_all()
        elif self._dirty_rows is not None:
            self._upload_rows(*self._dirty_rows)
        p = self.program
        p.use()
        p.set_uniform("u_view_projection", frame.view_projection)
        p.set_uniform("u_light_direction", frame.light_direction)
        p.set_uniform("u_eye", frame.camera.eye().astype(np.float32))
        p.set_uniform("u_fog_color", FOG_COLOUR)
        sx, sz = self.terrain.size
        p.set_uniform("u_fog_distance", float(max(sx, sz) * 3.0 + frame.camera.distance))
        GL.glBindVertexArray(self._vao)
        GL.glDrawElements(GL.GL_TRIANGLES, self._index_count, GL.GL_UNSIGNED_INT, None)
        GL.glBindVertexArray(0)

    def release(self) -> None:
        t = self.terrain
        t.heights_changed.disconnect(self._on_rows_changed)
        t.layer_weights_changed.disconnect(self._on_layer_changed)
        t.layers_changed.disconnect(self._on_layers_changed)
        if self.program is not None:
            self.program.delete()
            self.program = None
        if self._vao:
            GL.glDeleteVertexArrays(1, [self._vao])
            GL.glDeleteBuffers(2, [self._vbo, self._ebo])
            self._vao = self._vbo = self._ebo = 0

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        x0, z0, x1, z1 = self.terrain.bounds()
        lo, hi = self.terrain.height_range()
        return np.array([x0, lo, z0]), np.array([x1, hi, z1])
