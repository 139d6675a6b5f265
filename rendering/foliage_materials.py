"""Foliage materials on the GPU: each image uploaded once with its mipmaps, and the uniforms one
material's triangles are drawn with (`shaders/foliage_mesh_frag.glsl`).

Alpha-tested (MASK) textures get coverage-preserving mipmaps: each smaller level's alpha is scaled
so that the share of its texels above the cutoff matches level 0's. A plain box-filtered mip
averages a leaf's opaque texels with the cut ones around it, its alpha sinks under the cutoff and
far crowns thin out to bare twigs. Alpha-to-coverage would do the same job but needs a multisampled
framebuffer, and the viewport renders without MSAA (see `app/gl_format.py`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from OpenGL import GL

from model.foliage.materials import DEFAULT_MATERIAL, Material, Texture
from model.foliage.meshes import Mesh

ALPHA_MODE = {"OPAQUE": 0, "MASK": 1, "BLEND": 2}
WRAP = {"repeat": GL.GL_REPEAT, "mirror": GL.GL_MIRRORED_REPEAT, "clamp": GL.GL_CLAMP_TO_EDGE}
BASE_UNIT, NORMAL_UNIT, OCCLUSION_UNIT = 2, 3, 4  # units 0 and 1 hold the impostor atlases
LEAF_TRANSLUCENCY = 0.45  # share of the sun a two-sided cut-out card lets through to its back


@dataclass
class GpuMaterial:
    """One run of a mesh's triangles and the textures it is drawn with (0: none)."""

    material: Material
    first: int
    count: int
    base: int
    normal: int
    occlusion: int
    mirror_sideways: bool  # the built-in look: back faces mirror the sideways part of the normal only


def box_down(rgba: np.ndarray) -> np.ndarray:
    """Half size (at least 1 texel a side): colours averaged weighted by alpha, so cut texels
    (often black or any colour) do not bleed into the leaf's edge; alpha averaged."""
    h, w = rgba.shape[:2]
    h2, w2 = max(h // 2, 1), max(w // 2, 1)
    a = rgba[:h2 * 2 if h > 1 else 1, :w2 * 2 if w > 1 else 1].astype(np.float64)
    fy, fx = (2 if h > 1 else 1), (2 if w > 1 else 1)
    blocks = a.reshape(h2, fy, w2, fx, 4)
    alpha = blocks[..., 3].mean(axis=(1, 3))
    weight = blocks[..., 3:4] + 1e-3
    colour = (blocks[..., :3] * weight).sum(axis=(1, 3)) / weight.sum(axis=(1, 3))
    return np.concatenate([colour, alpha[..., None]], axis=2).round().clip(0, 255).astype(np.uint8)


def bleed(rgba: np.ndarray, cutoff: float, passes: int = 8) -> np.ndarray:
    """The cut texels take their shown neighbours' colour (a few rings out), so the bilinear
    filter at a leaf's edge mixes leaf with leaf, not with whatever colour the cut area was painted
    (black, white or green halos otherwise); alpha is left as it is."""
    out = rgba.copy()
    valid = rgba[..., 3].astype(np.float64) / 255.0 >= cutoff
    if valid.all() or not valid.any():
        return out
    colour = out[..., :3].astype(np.float64)
    for _ in range(passes):
        total = np.zeros_like(colour)
        count = np.zeros(valid.shape)
        for axis, shift in ((0, 1), (0, -1), (1, 1), (1, -1)):
            v = np.roll(valid, shift, axis)
            total += np.roll(colour, shift, axis) * v[..., None]
            count += v
        grow = ~valid & (count > 0)
        if not grow.any():
            break
        colour[grow] = total[grow] / count[grow][:, None]
        valid = valid | grow
    out[..., :3] = colour.round().clip(0, 255).astype(np.uint8)
    return out


def coverage(alpha: np.ndarray, cutoff: float) -> float:
    return float((alpha.astype(np.float64) / 255.0 >= cutoff).mean())


def coverage_mips(rgba: np.ndarray, cutoff: float | None) -> list[np.ndarray]:
    """Level 0 and every smaller level down to 1 × 1; with a `cutoff`, each level's alpha scaled so
    its coverage (the share of texels at or above the cutoff) is level 0's."""
    levels = [np.ascontiguousarray(bleed(rgba, cutoff) if cutoff is not None else rgba, np.uint8)]
    target = coverage(rgba[..., 3], cutoff) if cutoff is not None else None
    while levels[-1].shape[0] > 1 or levels[-1].shape[1] > 1:
        level = box_down(levels[-1])
        if target is not None and 0.0 < target < 1.0:
            a = level[..., 3].astype(np.float64) / 255.0
            edge = float(np.quantile(a, 1.0 - target))  # this alpha and above: the share to keep
            # texels of one alpha (a stroke half over a block) are kept together: thin needles
            # would rather grow a little than vanish
            if edge > 1e-6:
                scaled = a * (cutoff / edge) * 255.0 + 0.5  # + 0.5: the edge itself rounds up
                level[..., 3] = np.clip(scaled, 0, 255).astype(np.uint8)
        levels.append(level)
    return levels


# the built-in images' levels, per image and cutoff: made once (ahead, by `prepare_textures`)
_BUILTIN_MIPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def mips_of(tex: Texture, cutoff: float | None) -> list[np.ndarray]:
    """`coverage_mips` of an image; a built-in image's are made once and kept."""
    if not tex.source.startswith("builtin:"):
        return coverage_mips(tex.pixels, cutoff)
    per = _BUILTIN_MIPS.get(tex)
    if per is None:
        per = _BUILTIN_MIPS.setdefault(tex, {})
    if cutoff not in per:
        per[cutoff] = coverage_mips(tex.pixels, cutoff)
    return per[cutoff]


def prepare_textures(mesh: Mesh) -> None:
    """Make the levels of the mesh's built-in images that `MaterialTextures.materials_of` uploads,
    ahead of a first frame (no GL: a helper thread may call this)."""
    for index, _, _ in mesh.material_ranges():
        m = mesh.material(index)
        for tex, cutoff in ((m.base_texture, m.alpha_cutoff if m.alpha_tested else None),
                            (m.normal_texture, None), (m.occlusion_texture, None)):
            if tex is not None and tex.source.startswith("builtin:"):
                mips_of(tex, cutoff)


class MaterialTextures:
    """The GL textures of the drawn meshes' materials, one per image (and cutoff), uploaded once
    with mipmaps; `uploads` counts the images sent (tests)."""

    def __init__(self) -> None:
        self._textures: dict[tuple, int] = {}
        self.uploads = 0

    def texture(self, tex: Texture | None, cutoff: float | None = None, wrap=("repeat", "repeat")) -> int:
        if tex is None:
            return 0
        key = (tex.source, cutoff, tuple(wrap))
        if key not in self._textures:
            self._textures[key] = self._upload(mips_of(tex, cutoff), wrap)
            self.uploads += 1
        return self._textures[key]

    @staticmethod
    def _upload(levels: list[np.ndarray], wrap=("repeat", "repeat")) -> int:
        name = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, name)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        for i, level in enumerate(levels):
            h, w = level.shape[:2]
            GL.glTexImage2D(GL.GL_TEXTURE_2D, i, GL.GL_RGBA8, w, h, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, level)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 4)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAX_LEVEL, len(levels) - 1)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
        for axis, mode in zip((GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T), wrap, strict=True):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, axis, WRAP[mode])
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        return name

    def materials_of(self, mesh: Mesh) -> list[GpuMaterial]:
        """The mesh's runs of triangles, each with its material's textures uploaded."""
        out = []
        for index, first, count in mesh.material_ranges():
            m = mesh.material(index)
            cutoff = m.alpha_cutoff if m.alpha_tested else None
            out.append(GpuMaterial(m, first, count, self.texture(m.base_texture, cutoff, m.wrap),
                                   self.texture(m.normal_texture), self.texture(m.occlusion_texture),
                                   m is DEFAULT_MATERIAL))
        return out

    def release(self) -> None:
        if self._textures:
            GL.glDeleteTextures(len(self._textures), list(self._textures.values()))
        self._textures = {}


def bind_material(program, gm: GpuMaterial) -> None:
    """The material's uniforms and textures for the mesh shaders (a program in use)."""
    m = gm.material
    p = program
    p.set_uniform("u_base_factor", np.array(m.base_color, np.float32))
    p.set_uniform("u_alpha_mode", ALPHA_MODE[m.alpha_mode])
    p.set_uniform("u_cutoff", float(m.alpha_cutoff))
    a, b, c, d, e, f = m.uv_transform
    p.set_uniform("u_uv_u", np.array([a, b, c], np.float32))
    p.set_uniform("u_uv_v", np.array([d, e, f], np.float32))
    p.set_uniform("u_textured", bool(gm.base))
    p.set_uniform("u_normal_mapped", bool(gm.normal))
    p.set_uniform("u_normal_scale", float(m.normal_scale))
    p.set_uniform("u_occluded", bool(gm.occlusion))
    p.set_uniform("u_occlusion_strength", float(m.occlusion_strength))
    p.set_uniform("u_mirror_sideways", gm.mirror_sideways)
    p.set_uniform("u_translucency", LEAF_TRANSLUCENCY if m.double_sided and m.alpha_mode != "OPAQUE" else 0.0)
    for unit, tex in ((BASE_UNIT, gm.base), (NORMAL_UNIT, gm.normal), (OCCLUSION_UNIT, gm.occlusion)):
        if tex:
            GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
            GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
    GL.glActiveTexture(GL.GL_TEXTURE0)
    if m.double_sided:
        GL.glDisable(GL.GL_CULL_FACE)
    else:
        GL.glEnable(GL.GL_CULL_FACE)


def set_material_units(program) -> None:
    """The samplers' texture units (once per program use)."""
    program.set_uniform("u_base", BASE_UNIT)
    program.set_uniform("u_normal_map", NORMAL_UNIT)
    program.set_uniform("u_occlusion", OCCLUSION_UNIT)


def unbind_materials() -> None:
    for unit in (BASE_UNIT, NORMAL_UNIT, OCCLUSION_UNIT):
        GL.glActiveTexture(GL.GL_TEXTURE0 + unit)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
    GL.glActiveTexture(GL.GL_TEXTURE0)
    GL.glDisable(GL.GL_CULL_FACE)
