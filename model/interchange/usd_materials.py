"""USD materials of an export: `UsdPreviewSurface` shaders fed by `UsdUVTexture` nodes reading the
mesh's `st` primvar (`UsdPrimvarReader_float2`), bound to the prototype meshes (one GeomSubset per
material where a mesh has several) and to the terrain's tiles.

Texture files are named relative to the stage (`./<stem>_textures/<image>.png`): the writer puts
them in that folder beside a `.usda` / `.usdc`, and inside the package of a `.usdz`. USD's `st`
runs up the image (t = 0 at the bottom row), glTF's and ours down: t = 1 - v.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.foliage.materials import Material, Texture
from model.interchange.geometry import IndexedMesh
from model.interchange.textures import ImageTable

WRAP = {"repeat": "repeat", "mirror": "mirror", "clamp": "clamp"}


def _pxr():
    from pxr import Gf, Sdf, UsdGeom, UsdShade, Vt

    return Gf, Sdf, UsdGeom, UsdShade, Vt


def write_st(mesh_prim, uvs: np.ndarray) -> None:
    """The mesh's texture coordinates as the `st` primvar (vertex interpolation)."""
    Gf, Sdf, UsdGeom, UsdShade, Vt = _pxr()
    st = np.empty((len(uvs), 2), np.float32)
    st[:, 0] = uvs[:, 0]
    st[:, 1] = np.float32(1.0) - uvs[:, 1]
    UsdGeom.PrimvarsAPI(mesh_prim).CreatePrimvar("st", Sdf.ValueTypeNames.TexCoord2fArray,
                                                 UsdGeom.Tokens.vertex).Set(Vt.Vec2fArray.FromNumpy(st))


@dataclass
class UsdLooks:
    """Materials made so far (each material once per scope) and the images they name."""

    stage: object
    folder: str  # the textures' folder, relative to the stage's file
    images: ImageTable = field(default_factory=ImageTable)
    _made: dict[tuple[int, str], str] = field(default_factory=dict)
    _held: list[Material] = field(default_factory=list)
    _names: set[str] = field(default_factory=set)

    def _material_path(self, scope: str, name: str) -> str:
        from model.interchange.usd import safe_name

        if not self.stage.GetPrimAtPath(scope):
            _pxr()[2].Scope.Define(self.stage, scope)
        base = f"{scope}/{safe_name(name)}"
        path, k = base, 2
        while path in self._names:
            path, k = f"{base}_{k}", k + 1
        self._names.add(path)
        return path

    def material(self, m: Material, owner: str, scope: str = "/World/Looks") -> str:
        """The path of a material prim for `m` under `scope` (made the first time)."""
        key = (id(m), scope)
        if key in self._made:
            return self._made[key]
        self._held.append(m)
        Gf, Sdf, UsdGeom, UsdShade, Vt = _pxr()
        stem = f"{owner}_{m.name}"
        path = self._material_path(scope, stem)
        material, surface = self._surface(path)
        surface.CreateInput("metallic", Sdf.ValueTypeNames.Float).Set(float(m.metallic))
        surface.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(float(m.roughness))
        colour = surface.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f)
        opacity = surface.CreateInput("opacity", Sdf.ValueTypeNames.Float)
        if m.base_texture is not None:
            tex = self._texture(path, "baseColorTexture", m.base_texture, f"{stem}_basecolor", "sRGB",
                                m.wrap, scale=m.base_color)
            colour.ConnectToSource(tex.ConnectableAPI(), "rgb")
            if m.alpha_mode != "OPAQUE":
                opacity.ConnectToSource(tex.ConnectableAPI(), "a")
            else:
                opacity.Set(1.0)
        else:
            colour.Set(Gf.Vec3f(*(float(c) for c in m.base_color[:3])))
            opacity.Set(float(m.base_color[3]) if m.alpha_mode != "OPAQUE" else 1.0)
        if m.alpha_mode == "MASK":
            surface.CreateInput("opacityThreshold", Sdf.ValueTypeNames.Float).Set(float(m.alpha_cutoff))
        if m.normal_texture is not None:  # 0..1 texels to -1..1, x and y by the scale
            s = float(m.normal_scale)
            tex = self._texture(path, "normalTexture", m.normal_texture, f"{stem}_normal", "raw",
                                scale=(2 * s, 2 * s, 2.0, 1.0), bias=(-s, -s, -1.0, 0.0))
            surface.CreateInput("normal", Sdf.ValueTypeNames.Normal3f).ConnectToSource(
                tex.ConnectableAPI(), "rgb")
        if m.metallic_roughness_texture is not None:  # glTF's: roughness in green, metal in blue
            tex = self._texture(path, "metallicRoughnessTexture", m.metallic_roughness_texture,
                                f"{stem}_metalrough", "raw", scale=(1.0, m.roughness, m.metallic, 1.0))
            surface.GetInput("roughness").ConnectToSource(tex.ConnectableAPI(), "g")
            surface.GetInput("metallic").ConnectToSource(tex.ConnectableAPI(), "b")
        if m.occlusion_texture is not None:  # 1 + strength (r - 1)
            k = float(m.occlusion_strength)
            tex = self._texture(path, "occlusionTexture", m.occlusion_texture, f"{stem}_occlusion", "raw",
                                scale=(k, k, k, 1.0), bias=(1 - k, 1 - k, 1 - k, 0.0))
            surface.CreateInput("occlusion", Sdf.ValueTypeNames.Float).ConnectToSource(
                tex.ConnectableAPI(), "r")
        self._made[key] = path
        return path

    def terrain_tile(self, pixels: np.ndarray, name: str, scope: str = "/World/Looks") -> str:
        """A material showing one baked terrain tile."""
        Gf, Sdf, UsdGeom, UsdShade, Vt = _pxr()
        path = self._material_path(scope, name)
        material, surface = self._surface(path)
        surface.CreateInput("roughness", Sdf.ValueTypeNames.Float).Set(1.0)
        surface.CreateInput("metallic", Sdf.ValueTypeNames.Float).Set(0.0)
        image = self.images.add_pixels(pixels, name)
        tex = self._texture_of(path, "baseColorTexture", image, "sRGB", ("clamp", "clamp"))
        surface.CreateInput("diffuseColor", Sdf.ValueTypeNames.Color3f).ConnectToSource(
            tex.ConnectableAPI(), "rgb")
        return path

    def _surface(self, path: str):
        Gf, Sdf, UsdGeom, UsdShade, Vt = _pxr()
        material = UsdShade.Material.Define(self.stage, path)
        surface = UsdShade.Shader.Define(self.stage, f"{path}/PreviewSurface")
        surface.CreateIdAttr("UsdPreviewSurface")
        surface.CreateInput("useSpecularWorkflow", Sdf.ValueTypeNames.Int).Set(0)
        material.CreateSurfaceOutput().ConnectToSource(surface.ConnectableAPI(), "surface")
        reader = UsdShade.Shader.Define(self.stage, f"{path}/stReader")
        reader.CreateIdAttr("UsdPrimvarReader_float2")
        reader.CreateInput("varname", Sdf.ValueTypeNames.String).Set("st")
        reader.CreateOutput("result", Sdf.ValueTypeNames.Float2)
        return material, surface

    def _texture(self, path: str, name: str, texture: Texture, stem: str, space: str,
                 wrap: tuple[str, str] = ("repeat", "repeat"), scale=None, bias=None):
        return self._texture_of(path, name, self.images.add(texture, stem), space, wrap, scale, bias)

    def _texture_of(self, path: str, name: str, image: int, space: str, wrap: tuple[str, str],
                    scale=None, bias=None):
        Gf, Sdf, UsdGeom, UsdShade, Vt = _pxr()
        tex = UsdShade.Shader.Define(self.stage, f"{path}/{name}")
        tex.CreateIdAttr("UsdUVTexture")
        file = f"./{self.folder}/{self.images.images[image].name}"
        tex.CreateInput("file", Sdf.ValueTypeNames.Asset).Set(Sdf.AssetPath(file))
        reader = UsdShade.Shader(self.stage.GetPrimAtPath(f"{path}/stReader"))
        tex.CreateInput("st", Sdf.ValueTypeNames.Float2).ConnectToSource(reader.ConnectableAPI(), "result")
        tex.CreateInput("wrapS", Sdf.ValueTypeNames.Token).Set(WRAP.get(wrap[0], "repeat"))
        tex.CreateInput("wrapT", Sdf.ValueTypeNames.Token).Set(WRAP.get(wrap[1], "repeat"))
        tex.CreateInput("sourceColorSpace", Sdf.ValueTypeNames.Token).Set(space)
        if scale is not None and tuple(scale) != (1.0, 1.0, 1.0, 1.0):
            tex.CreateInput("scale", Sdf.ValueTypeNames.Float4).Set(Gf.Vec4f(*(float(v) for v in scale)))
        if bias is not None:
            tex.CreateInput("bias", Sdf.ValueTypeNames.Float4).Set(Gf.Vec4f(*(float(v) for v in bias)))
        for output, kind in (("rgb", Sdf.ValueTypeNames.Float3), ("r", Sdf.ValueTypeNames.Float),
                             ("g", Sdf.ValueTypeNames.Float), ("b", Sdf.ValueTypeNames.Float),
                             ("a", Sdf.ValueTypeNames.Float)):
            tex.CreateOutput(output, kind)
        return tex

    def bind(self, mesh_prim, mesh: IndexedMesh, owner: str, scope: str = "/World/Looks") -> None:
        """The mesh's `st` and its materials: bound to the mesh, or one GeomSubset per part."""
        Gf, Sdf, UsdGeom, UsdShade, Vt = _pxr()
        parts = [(m, a, n) for m, a, n in mesh.material_parts() if m is not None]
        if not parts:
            return
        if mesh.uvs is not None:
            write_st(mesh_prim, mesh.uvs)
        if any(m.double_sided for m, _, _ in parts):
            UsdGeom.Mesh(mesh_prim).CreateDoubleSidedAttr(True)
        api = UsdShade.MaterialBindingAPI.Apply(mesh_prim)
        if len(parts) == 1 and parts[0][2] == len(mesh.indices):
            api.Bind(UsdShade.Material(self.stage.GetPrimAtPath(self.material(parts[0][0], owner, scope))))
            return
        self.bind_parts(mesh_prim, [(self.material(m, owner, scope), a // 3, n // 3, m.name)
                                    for m, a, n in parts])

    def bind_parts(self, mesh_prim, parts: list[tuple[str, int, int, str]]) -> None:
        """One GeomSubset per (material path, first face, face count, name), bound to its material."""
        Gf, Sdf, UsdGeom, UsdShade, Vt = _pxr()
        from model.interchange.usd import safe_name

        api = UsdShade.MaterialBindingAPI.Apply(mesh_prim)
        used: set[str] = set()
        for material, first, count, name in parts:
            subset_name = safe_name(name)
            while subset_name in used:
                subset_name += "_"
            used.add(subset_name)
            faces = Vt.IntArray.FromNumpy(np.arange(first, first + count, dtype=np.int32))
            subset = api.CreateMaterialBindSubset(subset_name, faces, UsdGeom.Tokens.face)
            UsdShade.MaterialBindingAPI.Apply(subset.GetPrim()).Bind(
                UsdShade.Material(self.stage.GetPrimAtPath(material)))
        api.SetMaterialBindSubsetsFamilyType(UsdGeom.Tokens.nonOverlapping)
