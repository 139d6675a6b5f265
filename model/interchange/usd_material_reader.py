"""A USD prototype mesh's look read back: its `st` primvar and the `UsdPreviewSurface` materials
bound to it (or to its GeomSubsets), as `model.foliage.materials.Material`s.

Texture files are read only from inside the input's folder or from inside the `.usdz` package
being read, regular files of bounded size, their size checked from the header before decoding
(`materials.decode_image`); a texture that cannot be used is a warning and the surface keeps its
colour.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from model.foliage.materials import ImageError, Material, Texture, decode_image

MAX_TEXTURE_BYTES = 256 << 20
WRAP = {"repeat": "repeat", "mirror": "mirror", "clamp": "clamp"}


def read_st(mesh_prim, points: int) -> np.ndarray | None:
    """(points, 2) float32 glTF-style coordinates (v down) from a vertex `st` primvar, else None."""
    from pxr import UsdGeom

    api = UsdGeom.PrimvarsAPI(mesh_prim)
    primvar = api.GetPrimvar("st") if api.HasPrimvar("st") else None
    if primvar is None or primvar.GetInterpolation() not in (UsdGeom.Tokens.vertex, UsdGeom.Tokens.varying):
        return None
    value = primvar.ComputeFlattened()
    if value is None:
        return None
    st = np.asarray(value, np.float32).reshape(-1, 2)
    if len(st) != points or not np.isfinite(st).all():
        return None
    out = st.copy()
    out[:, 1] = np.float32(1.0) - st[:, 1]
    return out


class MaterialReader:
    """Materials of one stage, each read once, textures confined to `folder` (the input's) or the
    package `package`."""

    def __init__(self, path: Path, warnings: list[str]) -> None:
        self.path = path
        self.folder = path.parent.resolve()
        self.package = path.resolve() if path.suffix.lower() == ".usdz" else None
        self.warnings = warnings
        self._materials: dict[str, Material | None] = {}
        self._textures: dict[str, Texture | None] = {}

    def bound(self, prim) -> Material | None:
        """The material bound to `prim` (a mesh or a subset), read as ours."""
        from pxr import UsdShade

        material, _ = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial()
        if not material:
            return None
        key = str(material.GetPath())
        if key not in self._materials:
            self._materials[key] = self._material(material)
        return self._materials[key]

    def _material(self, material) -> Material | None:
        from pxr import UsdShade

        surface = material.ComputeSurfaceSource()[0]
        if not surface or surface.GetIdAttr().Get() != "UsdPreviewSurface":
            return None
        where = str(material.GetPath())

        def value(name: str, default):
            """An input's value as numbers like `default` (a float or a tuple); the default where it
            is missing or not numbers (an input authored with another type)."""
            i = surface.GetInput(name)
            v = i.Get() if i else None
            try:
                if isinstance(default, tuple):
                    out = tuple(float(c) for c in v)
                    ok = len(out) == len(default)
                else:
                    out = float(v)
                    ok = True
            except (TypeError, ValueError):
                return default
            return out if ok and np.isfinite(out).all() else default

        def texture_of(name: str):
            i = surface.GetInput(name)
            if not i or not i.HasConnectedSource():
                return None
            source = i.GetConnectedSources()[0][0].source
            shader = UsdShade.Shader(source.GetPrim())
            return shader if shader.GetIdAttr().Get() == "UsdUVTexture" else None

        colour = value("diffuseColor", (0.18, 0.18, 0.18))
        base_color = [*colour, value("opacity", 1.0)]
        base_texture, wrap = None, ("repeat", "repeat")
        colour_tex = texture_of("diffuseColor")
        if colour_tex is not None:
            scale = colour_tex.GetInput("scale").Get() if colour_tex.GetInput("scale") else None
            try:
                base_color = [float(c) for c in scale][:4] if scale is not None else [1.0] * 4
            except (TypeError, ValueError):
                base_color = [1.0] * 4
            if len(base_color) != 4 or not np.isfinite(base_color).all():
                base_color = [1.0] * 4
            base_texture = self._texture(colour_tex, where)
            wrap = tuple(WRAP.get(str(colour_tex.GetInput(k).Get()) if colour_tex.GetInput(k) else "repeat",
                                  "repeat") for k in ("wrapS", "wrapT"))
        threshold = value("opacityThreshold", 0.0)
        cut = texture_of("opacity") is not None or base_color[3] < 1.0
        mode = "MASK" if threshold > 0 else ("BLEND" if cut else "OPAQUE")
        normal_tex = texture_of("normal")
        occlusion_tex = texture_of("occlusion")
        metal_tex = texture_of("roughness")
        mesh_sided = False  # a material has no sides in USD: the mesh's doubleSided says it
        return Material(
            name=material.GetPrim().GetName(), base_color=tuple(base_color), base_texture=base_texture,
            alpha_mode=mode, alpha_cutoff=threshold if threshold > 0 else 0.5, double_sided=mesh_sided,
            normal_texture=self._texture(normal_tex, where) if normal_tex is not None else None,
            metallic=value("metallic", 0.0), roughness=value("roughness", 0.5),
            metallic_roughness_texture=self._texture(metal_tex, where) if metal_tex is not None else None,
            occlusion_texture=self._texture(occlusion_tex, where) if occlusion_tex is not None else None,
            wrap=wrap)

    def _texture(self, shader, where: str) -> Texture | None:
        file = shader.GetInput("file")
        asset = file.Get() if file else None
        if not hasattr(asset, "resolvedPath") or not asset.path:  # unset, or not an asset path
            return None
        resolved = asset.resolvedPath or ""
        key = resolved or asset.path
        if key not in self._textures:
            try:
                self._textures[key] = Texture(decode_image(self._bytes(asset.path, resolved)), key)
            except ImageError as e:
                self.warnings.append(f"{self.path}: {where}: texture {asset.path!r}: {e}; drawn with the "
                                     "material's colour")
                self._textures[key] = None
        return self._textures[key]

    def _bytes(self, authored: str, resolved: str) -> bytes:
        """The texture's bytes: a file inside the input's folder, or an entry of our package."""
        if not resolved:
            raise ImageError("file not found")
        if resolved.endswith("]") and "[" in resolved:
            outer, inner = resolved[:-1].split("[", 1)
            if self.package is None or Path(outer).resolve() != self.package or "[" in inner:
                raise ImageError("refused: it lies in another package")
            with zipfile.ZipFile(self.package) as z:
                try:
                    info = z.getinfo(inner)
                except KeyError:
                    raise ImageError("not in the package") from None
                if info.file_size > MAX_TEXTURE_BYTES:
                    raise ImageError(f"{info.file_size} bytes; at most {MAX_TEXTURE_BYTES}")
                try:
                    return z.read(info)
                except zipfile.BadZipFile:  # its bytes changed since it was packed (pxr never checks)
                    raise ImageError("damaged in the package (its checksum does not match)") from None
        target = Path(resolved)
        if not (target.resolve().is_relative_to(self.folder)
                and Path(os.path.normpath(resolved)).is_relative_to(self.folder)):
            raise ImageError("refused: it lies outside the input's folder")
        if not target.is_file():
            raise ImageError("refused: not a regular file")
        if target.stat().st_size > MAX_TEXTURE_BYTES:
            raise ImageError(f"over {MAX_TEXTURE_BYTES} bytes")
        return target.read_bytes()


def mesh_looks(reader: MaterialReader, mesh_prim, faces_of_triangle: np.ndarray):
    """(materials, material per triangle or None) of a mesh: its subsets' materials where it has
    any, else the mesh's own; None when nothing is bound."""
    from pxr import UsdGeom, UsdShade

    double = bool(UsdGeom.Mesh(mesh_prim).GetDoubleSidedAttr().Get())
    subsets = UsdShade.MaterialBindingAPI(mesh_prim).GetMaterialBindSubsets()
    per_triangle = np.full(len(faces_of_triangle), -1, np.int64)
    materials: list[Material] = []

    def add(m: Material | None) -> int:
        if m is None:
            return -1
        if double != m.double_sided:
            from dataclasses import replace

            m = replace(m, double_sided=double)
        materials.append(m)
        return len(materials) - 1

    for subset in subsets:
        index = add(reader.bound(subset.GetPrim()))
        faces = np.asarray(subset.GetIndicesAttr().Get() or [], np.int64)
        if index >= 0 and len(faces):
            per_triangle[np.isin(faces_of_triangle, faces)] = index
    own = reader.bound(mesh_prim) if (per_triangle < 0).any() else None
    if own is not None:
        per_triangle[per_triangle < 0] = add(own)
    if not materials:
        return (), None
    per_triangle[per_triangle < 0] = len(materials)
    if (per_triangle == len(materials)).any():
        materials.append(Material(name="default", double_sided=double))
    return tuple(materials), per_triangle
