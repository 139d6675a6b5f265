"""Impostors: a foliage mesh baked offscreen into a hemi-octahedral atlas, drawn far away as one card.

`bake(mesh)` renders the textured mesh, with its materials' cut-outs, from `FRAMES` × `FRAMES`
directions over the upper hemisphere, mapped by the hemi-octahedral encoding (as Unreal's Impostor
Baker and Amplify Impostors lay them out): frame (i, j) looks along the direction at grid point
(i, j) / (FRAMES - 1) of the encoded square, orthographic, the mesh's bounding sphere filling it.
Three textures: unlit colour with the coverage and the mesh's own-frame normal (0.5 + 0.5 n) with
the leaves' translucency, both premultiplied by the coverage (empty texels are 0, so filtering and
mips weigh a texel by how much of it is covered), so the card is lit by the same code as the mesh
(`shaders/foliage_shading.glsl`) and turns with the sun; and the depth towards the camera (0.5 on
the frame's plane through the sphere's centre, and where nothing is).
A card faces the camera and shows the three frames nearest the view direction, blended by the
grid's barycentrics (`nearest_frames`), so nothing pops as the camera moves round or over a tree,
and a tree seen from above shows its crown's top; one parallax step with the baked depth moves
each frame's texture coordinates to where the view ray meets the surface, so the three agree.
Needs a current OpenGL 3.3 context; the caller's framebuffer, viewport and state are put back.
The numpy functions here are the shaders' twins (`shaders/foliage_octahedral.glsl`), for tests.
"""

from __future__ import annotations

import ctypes
import hashlib
from dataclasses import dataclass

import numpy as np
from OpenGL import GL

from model.foliage.meshes import VERTEX_FLOATS, Mesh
from rendering.foliage_materials import BASE_UNIT, LEAF_TRANSLUCENCY, NORMAL_UNIT, OCCLUSION_UNIT
from rendering.gl_program import ShaderProgram, load_shader_source
from rendering.renderer import FrameContext

FRAMES = 13  # frames along each side of the grid: 169 views, one straight above, about 15° apart
FRAME_TEXELS = 128  # texels along a frame's side (a power of two: its mips never mix frames)
FRAME_LOD = FRAME_TEXELS.bit_length() - 1  # the mip level where a frame is one texel
DEPTH_UNIT = 5  # the depth atlas's texture unit (0 and 1: colour and normals; 2 to 4: materials)
MARGIN = 1.03  # a frame's half side over the bounding sphere's radius: an empty ring round each
CORNERS = np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]], np.float32)  # a triangle strip


@dataclass
class Impostor:
    """The baked atlas of one mesh: two textures and the sphere its frames show."""

    albedo: int
    normals: int
    depth: int
    sphere: tuple[float, float, float, float]  # centre (the mesh's frame, scale 1) and frame half side
    box: tuple[float, float, float] = (1.0, 1.0, 1.0)  # the bounding box's half size about the centre
    frames: int = FRAMES
    texels: int = FRAME_TEXELS

    @property
    def side(self) -> float:
        """The card's side at scale 1 (metres)."""
        return 2.0 * self.sphere[3]

    @property
    def size(self) -> int:
        """Atlas texels along a side."""
        return self.frames * self.texels

    def bind(self) -> None:
        """The atlases on the card shaders' texture units."""
        for unit, tex in ((DEPTH_UNIT, self.depth), (1, self.normals), (0, self.albedo)):
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, tex)

    def release(self) -> None:
        GL.glDeleteTextures(3, [self.albedo, self.normals, self.depth])


def unbind_cards() -> None:
    """No atlas left bound after the card draws."""
    for unit in (DEPTH_UNIT, 1, 0):
        GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)


def card_of(mesh: Mesh) -> tuple[float, float, float]:
    """Half width (the furthest reach from the up axis) and the height range of a mesh: its outline
    seen from the side (what a far chunk's proxies reckon their cover in)."""
    p = mesh.vertices[:, :3].astype(np.float64)
    reach = float(np.hypot(p[:, 0], p[:, 2]).max()) if len(p) else 1.0
    bottom, top = (float(p[:, 1].min()), float(p[:, 1].max())) if len(p) else (0.0, 1.0)
    return max(reach, 1e-3), bottom, max(top, bottom + 1e-3)


def sphere_of(mesh: Mesh) -> tuple[float, float, float, float]:
    """Centre (of the bounding box) and half side of the frames: the bounding sphere's radius
    about that centre, with a margin."""
    p = mesh.vertices[:, :3].astype(np.float64)
    if not len(p):
        return 0.0, 0.5, 0.0, 1.0
    centre = (p.min(axis=0) + p.max(axis=0)) / 2.0
    radius = float(np.sqrt(((p - centre) ** 2).sum(axis=1)).max())
    return (*(float(c) for c in centre), max(radius, 1e-3) * MARGIN)


def box_of(mesh: Mesh) -> tuple[float, float, float]:
    """Half the size of the mesh's bounding box (its centre is `sphere_of`'s)."""
    if not len(mesh.vertices):
        return 1.0, 1.0, 1.0
    lo, hi = mesh.bounds()
    return tuple(max(float(h - lo_) / 2.0, 1e-3) for lo_, h in zip(lo, hi, strict=True))


def content_key(mesh: Mesh) -> str:
    """A hash of what the bake reads: the triangles and, per material, its look and its images
    (two names for the same bytes share one atlas; a file edited on disk gets a new one)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(np.ascontiguousarray(mesh.vertices, np.float32).tobytes())
    for m in mesh.materials:
        h.update(repr((m.base_color, m.alpha_mode, m.alpha_cutoff, m.double_sided, m.uv_transform,
                       m.normal_scale, m.occlusion_strength, m.wrap)).encode())
        for tex in (m.base_texture, m.normal_texture, m.occlusion_texture):
            h.update(b"-" if tex is None else np.ascontiguousarray(tex.pixels).tobytes())
    return h.hexdigest()


# ---- the grid (numpy twins of shaders/foliage_octahedral.glsl) ---------------------------------
def hemi_octahedral(d: np.ndarray) -> np.ndarray:
    """(…, 3) directions with y >= 0 → (…, 2) points of the square [-1, 1]²."""
    d = np.asarray(d, np.float64)
    p = d[..., [0, 2]] / np.abs(d).sum(axis=-1, keepdims=True)
    return np.stack([p[..., 0] + p[..., 1], p[..., 0] - p[..., 1]], axis=-1)


def hemi_direction(e: np.ndarray) -> np.ndarray:
    """(…, 2) points of the square → (…, 3) unit directions over the upper hemisphere."""
    e = np.asarray(e, np.float64)
    px, pz = 0.5 * (e[..., 0] + e[..., 1]), 0.5 * (e[..., 0] - e[..., 1])
    d = np.stack([px, 1.0 - np.abs(px) - np.abs(pz), pz], axis=-1)
    return d / np.linalg.norm(d, axis=-1, keepdims=True)


def frame_direction(cell, frames: int = FRAMES) -> np.ndarray:
    """The direction (from the mesh towards the camera) frame `cell` = (i, j) was baked from."""
    return hemi_direction(np.asarray(cell, np.float64) / (frames - 1) * 2.0 - 1.0)


def nearest_frames(direction, frames: int = FRAMES) -> tuple[np.ndarray, np.ndarray]:
    """The three frames round a view direction (the mesh's frame; below the horizon counts as on
    it) and their barycentric weights: (3, 2) cells and (3,) weights summing to 1."""
    d = np.array(direction, np.float64)
    d[1] = max(d[1], 0.0)
    if not np.any(d):
        d = np.array([0.0, 0.0, 1.0])
    g = (hemi_octahedral(d) * 0.5 + 0.5) * (frames - 1)
    cell = np.clip(np.floor(g), 0, frames - 2)
    fx, fy = g - cell
    if fx + fy <= 1.0:
        cells = cell + np.array([[0, 0], [1, 0], [0, 1]])
        weights = np.array([1.0 - fx - fy, fx, fy])
    else:
        cells = cell + np.array([[1, 1], [1, 0], [0, 1]])
        weights = np.array([fx + fy - 1.0, 1.0 - fy, 1.0 - fx])
    return cells.astype(np.int64), weights


def set_card_uniforms(p: ShaderProgram, frame: FrameContext, point_pixels: float) -> float:
    """The impostor card shaders' per-frame uniforms (`p` in use); returns the focal length in
    device pixels."""
    p.set_uniform("u_albedo", 0)
    p.set_uniform("u_normals", 1)
    p.set_uniform("u_depth", DEPTH_UNIT)
    p.set_uniform("u_frame_lod", float(FRAME_LOD))
    p.set_uniform("u_cam_right", np.asarray(frame.view[0, :3], np.float32))
    p.set_uniform("u_cam_up", np.asarray(frame.view[1, :3], np.float32))
    focal = float(frame.projection[1, 1]) * frame.height / 2.0  # height: device pixels
    p.set_uniform("u_focal", focal)
    p.set_uniform("u_point_pixels", float(point_pixels))
    GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
    return focal


# ---- baking ------------------------------------------------------------------------------------
def bake_program() -> ShaderProgram:
    """The bake shaders (a current context)."""
    version = "#version 330 core\n"
    vertex = version + load_shader_source("foliage_octahedral.glsl") + "\n" + \
        load_shader_source("foliage_impostor_bake_vert.glsl")
    return ShaderProgram(vertex, load_shader_source("foliage_impostor_bake_frag.glsl"), "impostor bake")


def _texture(width: int, levels: int, internal=GL.GL_RGBA8, layout=GL.GL_RGBA) -> int:
    tex = int(GL.glGenTextures(1))
    GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
    GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, internal, width, width, 0, layout, GL.GL_UNSIGNED_BYTE, None)
    # no level coarser than a frame's one texel: it would mix neighbouring frames
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, levels)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_S, GL.GL_CLAMP_TO_EDGE)
    GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_WRAP_T, GL.GL_CLAMP_TO_EDGE)
    return tex


def _bind_bake_material(program: ShaderProgram, gm) -> None:
    """The material's uniforms and textures, as `foliage_materials.bind_material` gives the mesh
    shader (`gm`: a `GpuMaterial`; None: vertex colours only)."""
    p = program
    m = gm.material if gm is not None else None
    p.set_uniform("u_textured", gm is not None and bool(gm.base))
    p.set_uniform("u_cutoff", float(m.alpha_cutoff) if m is not None and m.alpha_mode == "MASK" else
                  (0.5 if m is not None and m.alpha_mode == "BLEND" else -1.0))
    p.set_uniform("u_base_alpha", float(m.base_color[3]) if m is not None else 1.0)
    p.set_uniform("u_mirror_sideways", gm is None or gm.mirror_sideways)
    p.set_uniform("u_normal_mapped", gm is not None and bool(gm.normal))
    p.set_uniform("u_occluded", gm is not None and bool(gm.occlusion))
    p.set_uniform("u_translucency", LEAF_TRANSLUCENCY if m is not None and m.double_sided
                  and m.alpha_mode != "OPAQUE" else 0.0)
    if m is not None:
        a, b, c, d, e, f = m.uv_transform
        p.set_uniform("u_uv_u", np.array([a, b, c], np.float32))
        p.set_uniform("u_uv_v", np.array([d, e, f], np.float32))
        p.set_uniform("u_normal_scale", float(m.normal_scale))
        p.set_uniform("u_occlusion_strength", float(m.occlusion_strength))
        for unit, tex in ((BASE_UNIT, gm.base), (NORMAL_UNIT, gm.normal), (OCCLUSION_UNIT, gm.occlusion)):
            if tex:
                GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
                GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        (GL.glDisable if m.double_sided else GL.glEnable)(GL.GL_CULL_FACE)
    else:
        GL.glDisable(GL.GL_CULL_FACE)


def _draw_frames(program: ShaderProgram, runs, frames: int, texels: int) -> None:
    """Every frame, material by material (each bound once: the depth buffer sorts them out)."""
    location = program.location("u_frame")
    for first, n, gm in runs:
        _bind_bake_material(program, gm)
        for j in range(frames):
            for i in range(frames):
                GL.glViewport(i * texels, j * texels, texels, texels)
                GL.glUniform2f(location, float(i), float(j))
                GL.glDrawArrays(GL.GL_TRIANGLES, first, n)


def bake(mesh: Mesh, program: ShaderProgram, materials: list | None = None,
         frames: int = FRAMES, texels: int = FRAME_TEXELS) -> Impostor:
    """The atlas of `mesh` (program: `bake_program()`), each run of triangles with its material's
    textures and cut-out (`materials`: `foliage_materials.GpuMaterial`s; none: the vertex colours
    only). One draw of the mesh per frame."""
    sphere = sphere_of(mesh)
    width = frames * texels
    previous_draw = GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING)
    previous_read = GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING)
    viewport = GL.glGetIntegerv(GL.GL_VIEWPORT)
    enabled = {cap: bool(GL.glIsEnabled(cap)) for cap in (GL.GL_DEPTH_TEST, GL.GL_BLEND, GL.GL_CULL_FACE)}
    depth_mask = bool(GL.glGetBooleanv(GL.GL_DEPTH_WRITEMASK))
    levels = max(texels.bit_length() - 1, 0)
    albedo, normals = _texture(width, levels), _texture(width, levels)
    depths = _texture(width, levels, GL.GL_R8, GL.GL_RED)
    depth = int(GL.glGenRenderbuffers(1))
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, depth)
    GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_DEPTH_COMPONENT24, width, width)
    fbo = int(GL.glGenFramebuffers(1))
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, albedo, 0)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT1, GL.GL_TEXTURE_2D, normals, 0)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT2, GL.GL_TEXTURE_2D, depths, 0)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_DEPTH_ATTACHMENT, GL.GL_RENDERBUFFER, depth)
    GL.glDrawBuffers(3, [GL.GL_COLOR_ATTACHMENT0, GL.GL_COLOR_ATTACHMENT1, GL.GL_COLOR_ATTACHMENT2])
    vao, vbo = int(GL.glGenVertexArrays(1)), int(GL.glGenBuffers(1))
    try:
        # empty texels are 0 (premultiplied: no halo of any colour round the outline)
        GL.glClearBufferfv(GL.GL_COLOR, 0, np.zeros(4, np.float32))
        GL.glClearBufferfv(GL.GL_COLOR, 1, np.zeros(4, np.float32))
        GL.glClearBufferfv(GL.GL_COLOR, 2, np.full(4, 0.5, np.float32))  # depth: on the plane
        GL.glDepthMask(GL.GL_TRUE)
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
        program.set_uniform("u_sphere", np.array(sphere, np.float32))
        program.set_uniform("u_frames", frames)
        program.set_uniform("u_base", BASE_UNIT)
        program.set_uniform("u_normal_map", NORMAL_UNIT)
        program.set_uniform("u_occlusion", OCCLUSION_UNIT)
        runs = [(m.first, m.count, m) for m in materials] if materials else [(0, len(verts), None)]
        if len(verts):
            _draw_frames(program, runs, frames, texels)
        for unit in (BASE_UNIT, NORMAL_UNIT, OCCLUSION_UNIT):
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        for tex in (albedo, normals, depths):
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
        for cap, on in enabled.items():
            (GL.glEnable if on else GL.glDisable)(cap)
        GL.glDepthMask(GL.GL_TRUE if depth_mask else GL.GL_FALSE)
    return Impostor(albedo, normals, depths, sphere, box_of(mesh), frames, texels)
