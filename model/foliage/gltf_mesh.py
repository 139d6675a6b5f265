"""A foliage mesh from a glTF 2.0 file (`.glb` / `.gltf`): every triangle primitive of the default
scene's nodes (their transforms composed), with normals, first texture coordinates, vertex colours
and its material (`model.foliage.materials`). Uses the interchange reader's checked accessors."""

from __future__ import annotations

import base64
import math
from pathlib import Path

import numpy as np

from model.errors import FormatError
from model.foliage.materials import (
    ALPHA_MODES,
    IDENTITY_UV,
    WRAP_MODES,
    ImageError,
    Material,
    Texture,
    decode_image,
    read_image_file,
    uv_transform,
)
from model.interchange.gltf_reader import _load, _local_matrix, _Reader

TRIANGLES = 4
MAX_NODES = 100_000


def _number(value, default: float, path: Path, where: str) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)) \
            or abs(value) > 1e30:
        raise FormatError(path, where, f"{str(value)[:40]} is not a usable number")
    return float(value)


def _factor(value, default: tuple, path: Path, where: str) -> tuple[float, ...]:
    if value is None:
        return default
    if not isinstance(value, list) or len(value) != len(default):
        raise FormatError(path, where, f"must be {len(default)} numbers")
    return tuple(_number(v, 0.0, path, f"{where}[{i}]") for i, v in enumerate(value))


class _Materials:
    """The file's materials and images, each read once; image problems become warnings."""

    def __init__(self, r: _Reader) -> None:
        self.r = r
        self.images: dict[int, Texture | None] = {}
        self.warnings: list[str] = []

    def texture(self, info, where: str) -> Texture | None:
        if info is None:
            return None
        if not isinstance(info, dict):
            raise FormatError(self.r.path, where, "must be an object")
        if info.get("texCoord", 0) != 0:
            self.warnings.append(f"{self.r.path}: {where} uses texCoord {info['texCoord']}; "
                                 "TEXCOORD_0 is used")
        tex = self.r.item("textures", info.get("index"), f"{where}.index")
        source = tex.get("source")
        if source is None:
            return None
        if not isinstance(source, int) or isinstance(source, bool):  # a dict would crash the cache
            raise FormatError(self.r.path, f"{where}.index",
                              f"its texture's source {str(source)[:40]} is not an index")
        if source not in self.images:
            self.images[source] = self._image(source)
        return self.images[source]

    def _image(self, index: int) -> Texture | None:
        r = self.r
        place = f"images[{index}]"
        image = r.item("images", index, place)
        try:
            if "bufferView" in image:
                view = r.item("bufferViews", image["bufferView"], place)
                data = r.buffer(view.get("buffer"), f"bufferViews[{image['bufferView']}]")
                start, length = view.get("byteOffset", 0), view.get("byteLength")
                if not all(isinstance(x, int) and x >= 0 for x in (start, length)) \
                        or start + length > len(data):
                    raise ImageError("its bufferView lies outside its buffer")
                return Texture(decode_image(data[start:start + length]), f"{r.path}#{place}")
            uri = image.get("uri")
            if not isinstance(uri, str):
                raise ImageError("has neither a uri nor a bufferView")
            if uri.startswith("data:"):
                try:
                    data = base64.b64decode(uri.split(",", 1)[1], validate=True)
                except (IndexError, ValueError):
                    raise ImageError("bad data URI") from None
                return Texture(decode_image(data), f"{r.path}#{place}")
            from urllib.parse import unquote

            return read_image_file(r.path.parent, unquote(uri))
        except ImageError as e:
            text = str(e)
            where = "" if text.startswith(str(r.path.parent)) else f"{r.path}: {place}: "
            self.warnings.append(f"{where}{text}; drawn with the material's colour")
            return None

    def material(self, index: int) -> Material:
        r = self.r
        place = f"materials[{index}]"
        m = r.item("materials", index, place)
        pbr = m.get("pbrMetallicRoughness", {})
        if not isinstance(pbr, dict):
            raise FormatError(r.path, f"{place}.pbrMetallicRoughness", "must be an object")
        mode = m.get("alphaMode", "OPAQUE")
        if mode not in ALPHA_MODES:
            raise FormatError(r.path, f"{place}.alphaMode", f"{mode!r}; expected {', '.join(ALPHA_MODES)}")
        cutoff = _number(m.get("alphaCutoff"), 0.5, r.path, f"{place}.alphaCutoff")
        if cutoff < 0:
            raise FormatError(r.path, f"{place}.alphaCutoff", f"{cutoff} must not be negative")
        base_info = pbr.get("baseColorTexture")
        transform = IDENTITY_UV
        extensions = base_info.get("extensions") if isinstance(base_info, dict) else None
        ext = extensions.get("KHR_texture_transform") if isinstance(extensions, dict) else None
        if isinstance(ext, dict):
            where = f"{place}.pbrMetallicRoughness.baseColorTexture.extensions.KHR_texture_transform"
            transform = uv_transform(_factor(ext.get("offset"), (0.0, 0.0), r.path, f"{where}.offset"),
                                     _number(ext.get("rotation"), 0.0, r.path, f"{where}.rotation"),
                                     _factor(ext.get("scale"), (1.0, 1.0), r.path, f"{where}.scale"))
        wrap = ("repeat", "repeat")
        if isinstance(base_info, dict):
            tex = r.item("textures", base_info.get("index"), f"{place}.pbrMetallicRoughness.baseColorTexture")
            if "sampler" in tex:
                sampler = r.item("samplers", tex["sampler"], "textures.sampler")
                wrap = tuple(WRAP_MODES.get(v, "repeat") if isinstance(v, int) else "repeat"
                             for v in (sampler.get("wrapS"), sampler.get("wrapT")))
        normal_info = m.get("normalTexture")
        occlusion_info = m.get("occlusionTexture")
        return Material(
            name=str(m.get("name", f"material {index}")),
            base_color=_factor(pbr.get("baseColorFactor"), (1.0, 1.0, 1.0, 1.0), r.path,
                               f"{place}.pbrMetallicRoughness.baseColorFactor"),
            base_texture=self.texture(base_info, f"{place}.pbrMetallicRoughness.baseColorTexture"),
            alpha_mode=mode,
            alpha_cutoff=cutoff,
            double_sided=bool(m.get("doubleSided", False)),
            normal_texture=self.texture(normal_info, f"{place}.normalTexture"),
            normal_scale=_number(normal_info.get("scale") if isinstance(normal_info, dict) else None, 1.0,
                                 r.path, f"{place}.normalTexture.scale"),
            metallic=_number(pbr.get("metallicFactor"), 1.0, r.path, f"{place}.metallicFactor"),
            roughness=_number(pbr.get("roughnessFactor"), 1.0, r.path, f"{place}.roughnessFactor"),
            metallic_roughness_texture=self.texture(pbr.get("metallicRoughnessTexture"),
                                                    f"{place}.pbrMetallicRoughness.metallicRoughnessTexture"),
            occlusion_texture=self.texture(occlusion_info, f"{place}.occlusionTexture"),
            occlusion_strength=_number(occlusion_info.get("strength") if isinstance(occlusion_info, dict)
                                       else None, 1.0, r.path, f"{place}.occlusionTexture.strength"),
            uv_transform=transform,
            wrap=wrap,
        )


def _placed_meshes(r: _Reader) -> list[tuple[int, np.ndarray]]:
    """(mesh index, world matrix) of every node with a mesh in the default scene (every mesh once,
    untransformed, for a file without scenes)."""
    doc, path = r.doc, r.path
    scenes = doc.get("scenes")
    if not isinstance(scenes, list) or not scenes:
        return [(i, np.eye(4)) for i in range(len(doc.get("meshes", [])))]
    scene = r.item("scenes", doc.get("scene", 0), "scene")
    out, stack, seen = [], [(n, np.eye(4), "scenes.nodes") for n in scene.get("nodes", [])], 0
    while stack:
        index, parent, where = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise FormatError(path, "nodes", f"more than {MAX_NODES} nodes reached (a cycle?)")
        node = r.item("nodes", index, where)
        world = parent @ _local_matrix(node, path, f"nodes[{index}]")
        if "mesh" in node:
            out.append((node["mesh"], world))
        stack.extend((c, world, f"nodes[{index}].children") for c in node.get("children", []))
    return out


def read_gltf_mesh(path: Path, max_triangles: int):
    """(corners (m, 3, 3), normals (m, 3, 3) or NaN where the file has none, colours (m, 3, 3),
    uvs (m, 3, 2), material per triangle (m,), materials, warnings)."""
    doc, blob = _load(path)
    r = _Reader(path, doc, blob)
    mats = _Materials(r)
    materials: list[Material] = []
    index_of: dict[int | None, int] = {}
    parts: list[tuple] = []
    total = 0
    for mesh_index, world in _placed_meshes(r):
        mesh = r.item("meshes", mesh_index, "nodes.mesh")
        for k, prim in enumerate(mesh.get("primitives", [])):
            where = f"meshes[{mesh_index}].primitives[{k}]"
            if not isinstance(prim, dict) or prim.get("mode", TRIANGLES) != TRIANGLES:
                continue  # points and lines are not foliage surfaces
            attrs = prim.get("attributes", {})
            if not isinstance(attrs, dict) or "POSITION" not in attrs:
                raise FormatError(path, f"{where}.attributes", "no POSITION")
            pos = r.accessor(attrs["POSITION"], where, ("VEC3",))
            n = len(pos)
            if "indices" in prim:
                idx = r.accessor(prim["indices"], where, ("SCALAR",), raw=True).reshape(-1).astype(np.int64)
            else:
                idx = np.arange(n, dtype=np.int64)
            idx = idx[:len(idx) - len(idx) % 3]
            total += len(idx) // 3
            if total > max_triangles:
                raise FormatError(path, where, f"more than {max_triangles} triangles; at most "
                                  f"{max_triangles} per foliage mesh")
            if len(idx) and (idx.min() < 0 or idx.max() >= n):
                raise FormatError(path, f"{where}.indices", "refer to vertices the primitive does not have")
            nrm = r.accessor(attrs["NORMAL"], where, ("VEC3",)) if "NORMAL" in attrs \
                else np.full((n, 3), np.nan)
            uv = r.accessor(attrs["TEXCOORD_0"], where, ("VEC2",)) if "TEXCOORD_0" in attrs \
                else np.zeros((n, 2))
            col = np.ones((n, 3))
            if "COLOR_0" in attrs:
                col = r.accessor(attrs["COLOR_0"], where, ("VEC3", "VEC4"))[:, :3]
            for name, a in (("POSITION", pos), ("NORMAL", nrm), ("TEXCOORD_0", uv), ("COLOR_0", col)):
                if len(a) != n:
                    raise FormatError(path, f"{where}.attributes.{name}", f"{len(a)} items; POSITION has {n}")
            material = prim.get("material")
            if material not in index_of:
                index_of[material] = len(materials)
                materials.append(mats.material(material) if material is not None else
                                 Material(double_sided=False))
            lin = world[:3, :3]
            p = pos @ lin.T + world[:3, 3]
            normal_matrix = np.linalg.inv(lin).T if abs(np.linalg.det(lin)) > 1e-12 else lin
            nn = nrm @ normal_matrix.T
            nn /= np.where((ln := np.linalg.norm(nn, axis=1, keepdims=True)) > 0, ln, 1.0)
            tri = idx.reshape(-1, 3)
            if np.linalg.det(lin) < 0:  # a mirroring node turns the winding over
                tri = tri[:, ::-1]
            factor = np.asarray(materials[index_of[material]].base_color[:3])
            parts.append((p[tri], nn[tri], col[tri] * factor, uv[tri],
                          np.full(len(tri), index_of[material], np.int64)))
    if not parts or total == 0:
        raise FormatError(path, None, "the file holds no triangles")
    corners, normals, colours, uvs, material_ids = (np.concatenate(x) for x in zip(*parts, strict=True))
    if not np.all(np.isfinite(corners)) or not np.all(np.isfinite(uvs)):
        raise FormatError(path, None, "non-finite vertex positions or texture coordinates")
    return corners, normals, colours, uvs, material_ids, tuple(materials), tuple(mats.warnings)
