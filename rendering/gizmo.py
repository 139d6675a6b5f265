"""Draws the selection gizmo's handles: coloured line segments on top of the scene."""

from __future__ import annotations

import ctypes

import numpy as np
from OpenGL import GL

from rendering.gl_program import ShaderProgram
from rendering.renderer import FrameContext, Renderer

VERTEX = """#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 colour;
uniform mat4 view_projection;
out vec4 v_colour;
void main() {
    v_colour = colour;
    gl_Position = view_projection * vec4(position, 1.0);
}
"""

FRAGMENT = """#version 330 core
in vec4 v_colour;
out vec4 frag_colour;
void main() { frag_colour = v_colour; }
"""


def line_vertices(handles: dict[str, np.ndarray], colours: dict[str, tuple]) -> np.ndarray:
    """(n, 7) float32 vertices (x, y, z, r, g, b, a): two per segment, every handle."""
    parts = []
    for name, segments in handles.items():
        pts = np.asarray(segments, np.float32).reshape(-1, 3)
        rgba = np.broadcast_to(np.asarray(colours.get(name, (1, 1, 1, 1)), np.float32), (len(pts), 4))
        parts.append(np.concatenate([pts, rgba], axis=1))
    return np.concatenate(parts) if parts else np.empty((0, 7), np.float32)


class GizmoRenderer(Renderer):
    """Line segments from `source()` (handle name → segments), drawn without depth test."""

    def __init__(self, source, colours: dict[str, tuple]) -> None:
        self.source = source
        self.colours = colours
        self.program: ShaderProgram | None = None
        self.vao = self.vbo = 0
        self.vertex_count = 0  # what the last frame drew (tests read it)

    def initialize(self) -> None:
        self.program = ShaderProgram(VERTEX, FRAGMENT, "gizmo")
        self.vao = int(GL.glGenVertexArrays(1))
        self.vbo = int(GL.glGenBuffers(1))
        GL.glBindVertexArray(self.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        stride = 7 * 4
        GL.glEnableVertexAttribArray(0)
        GL.glVertexAttribPointer(0, 3, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(0))
        GL.glEnableVertexAttribArray(1)
        GL.glVertexAttribPointer(1, 4, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(12))
        GL.glBindVertexArray(0)

    def draw(self, frame: FrameContext) -> None:
        vertices = line_vertices(self.source(), self.colours)
        self.vertex_count = len(vertices)
        if not len(vertices) or self.program is None:
            return
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        data = np.ascontiguousarray(vertices)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, data, GL.GL_STREAM_DRAW)
        self.program.use()
        self.program.set_uniform("view_projection", frame.view_projection)
        GL.glDisable(GL.GL_DEPTH_TEST)  # handles stay grabbable behind trees and hills
        GL.glBindVertexArray(self.vao)
        GL.glDrawArrays(GL.GL_LINES, 0, len(vertices))
        GL.glBindVertexArray(0)
        GL.glEnable(GL.GL_DEPTH_TEST)

    def release(self) -> None:
        if self.vbo:
            GL.glDeleteBuffers(1, [self.vbo])
        if self.vao:
            GL.glDeleteVertexArrays(1, [self.vao])
        self.vao = self.vbo = 0
        if self.program is not None:
            self.program.delete()
            self.program = None
