"""Impostors: a foliage mesh baked offscreen into a ring of views, drawn far away as one card.

`bake(mesh)` renders the mesh from `VIEWS` directions around its up axis, orthographic, into two
textures side by side: unlit colour with coverage, and the mesh's own-frame normal, so the card
is lit by the same code as the mesh (`shaders/foliage_shading.glsl`) and turns with the sun.
Needs a current OpenGL 3.3 context; the caller's framebuffer and viewport are put back.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np
from OpenGL import GL

from model.foliage.meshes import VERTEX_FLOATS, Mesh
from rendering.gl_program import ShaderProgram

VIEWS = 8
CELL_WIDTH = 96  # texels across one view; its height follows the mesh's proportions
MAX_CELL_HEIGHT = 384
CORNERS = np.array([[-1.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [1.0, 1.0]], np.float32)  # a triangle strip


@dataclass
class Impostor:
    """The baked ring of one mesh: two textures and the card's size at scale 1."""

    albedo: int
    normals: int
    card: tuple[float, float, float]  # half width, bottom, top (metres)
    size: tuple[int, int]  # atlas texels (width, height)

    def release(self) -> None:
        GL.glDeleteTextures(2, [self.albedo, self.normals])


def card_of(mesh: Mesh) -> tuple[float, float, float]:
    """Half width (the furthest reach from the up axis) and the height range of a mesh."""
    p = mesh.vertices[:, :3].astype(np.float64)
    reach = float(np.hypot(p[:, 0], p[:, 2]).max()) if len(p) else 1.0
    bottom, top = (float(p[:, 1].min()), float(p[:, 1].max())) if len(p) else (0.0, 1.0)
    return max(reach, 1e-3), bottom, max(top, bottom + 1e-3)


def _texture(width: int, height: int) -> int:
    tex = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
    GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA8, width, height, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, None)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)
    return tex


def _mean_colour(mesh: Mesh) -> np.ndarray:
    """The mesh's mean colour as seen (textures included)."""
    return mesh.surface_colours().mean(axis=0) if len(mesh.vertices) else np.zeros(3)


def _bind_bake_material(program: ShaderProgram, gm) -> None:
    m = gm.material if gm is not None else None
    textured = gm is not None and bool(gm.base)
    program.set_uniform("u_textured", textured)
    program.set_uniform("u_cutoff", float(m.alpha_cutoff) if m is not None and m.alpha_mode == "MASK" else
                        (0.5 if m is not None and m.alpha_mode == "BLEND" else -1.0))
    if m is not None:
        a, b, c, d, e, f = m.uv_transform
        program.set_uniform("u_uv_u", np.array([a, b, c], np.float32))
        program.set_uniform("u_uv_v", np.array([d, e, f], np.float32))
    if textured:
        GL.glActiveTexture(GL.GL_TEXTURE2)
        GL.glBindTexture(GL.GL_TEXTURE_2D, gm.base)
        GL.glActiveTexture(GL.GL_TEXTURE0)


def bake(mesh: Mesh, program: ShaderProgram, materials: list | None = None) -> Impostor:
    """The ring of views of `mesh` (program: the bake shaders), each run of triangles with its
    material's texture and cut-out (`materials`: `foliage_materials.GpuMaterial`s; none: the
    vertex colours only)."""
    card = card_of(mesh)
    half, bottom, top = card
    cell_h = int(np.clip(round(CELL_WIDTH * (top - bottom) / (2 * half)), 16, MAX_CELL_HEIGHT))
    width, height = CELL_WIDTH * VIEWS, cell_h
    previous_draw = GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING)
    previous_read = GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING)
    viewport = GL.glGetIntegerv(GL.GL_VIEWPORT)
    clear = GL.glGetFloatv(GL.GL_COLOR_CLEAR_VALUE)
    depth_on, blend_on = GL.glIsEnabled(GL.GL_DEPTH_TEST), GL.glIsEnabled(GL.GL_BLEND)
    albedo, normals = _texture(width, height), _texture(width, height)
    depth = int(GL.glGenRenderbuffers(1))
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, depth)
    GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_DEPTH_COMPONENT24, width, height)
    fbo = int(GL.glGenFramebuffers(1))
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, albedo, 0)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT1, GL.GL_TEXTURE_2D, normals, 0)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_DEPTH_ATTACHMENT, GL.GL_RENDERBUFFER, depth)
    GL.glDrawBuffers(2, [GL.GL_COLOR_ATTACHMENT0, GL.GL_COLOR_ATTACHMENT1])
    vao, vbo = int(GL.glGenVertexArrays(1)), int(GL.glGenBuffers(1))
    try:
        # empty texels take the mesh's mean colour, so filtering at the outline does not darken it
        mean = _mean_colour(mesh)
        GL.glClearBufferfv(GL.GL_COLOR, 0, np.array([*mean, 0.0], np.float32))
        GL.glClearBufferfv(GL.GL_COLOR, 1, np.array([0.5, 1.0, 0.5, 0.0], np.float32))
        GL.glClear(GL.GL_DEPTH_BUFFER_BIT)
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glBindVertexArray(vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
        verts = np.ascontiguousarray(mesh.vertices, np.float32)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, verts.nbytes, verts, GL.GL_STATIC_DRAW)
        for loc, size, offset in ((0, 3, 0), (1, 3, 12), (2, 3, 24), (6, 2, 36)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, size, GL.GL_FLOAT, GL.GL_FALSE, VERTEX_FLOATS * 4,
                                     ctypes.c_void_p(offset))
        program.use()
        program.set_uniform("u_card", np.array(card, np.float32))
        program.set_uniform("u_base", 2)
        runs = [(m.first, m.count, m) for m in materials] if materials else [(0, len(verts), None)]
        for k in range(VIEWS):
            GL.glViewport(k * CELL_WIDTH, 0, CELL_WIDTH, height)
            program.set_uniform("u_angle", float(k * 2.0 * np.pi / VIEWS))
            for first, count, gm in runs:
                _bind_bake_material(program, gm)
                GL.glDrawArrays(GL.GL_TRIANGLES, first, count)
        GL.glActiveTexture(GL.GL_TEXTURE2)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        for tex in (albedo, normals):
            GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
            GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
    finally:
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        GL.glDeleteVertexArrays(1, [vao])
        GL.glDeleteBuffers(1, [vbo])
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, int(previous_draw))
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, int(previous_read))
        GL.glDeleteFramebuffers(1, [fbo])
        GL.glDeleteRenderbuffers(1, [depth])
        GL.glViewport(*[int(v) for v in viewport])
        GL.glClearColor(*[float(v) for v in clear])
        (GL.glEnable if depth_on else GL.glDisable)(GL.GL_DEPTH_TEST)
        (GL.glEnable if blend_on else GL.glDisable)(GL.GL_BLEND)
    return Impostor(albedo, normals, card, (width, height))
