"""A foliage mesh from a Wavefront OBJ file and its `.mtl` libraries: positions, texture
coordinates, normals, polygons fanned into triangles, and per `usemtl` its material (`Kd` colour,
`map_Kd` colour texture, `map_d` cut-out mask: alpha-tested at 0.5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from model.errors import FormatError
from model.foliage.materials import ImageError, Material, Texture, read_image_file, safe_image_path

MAX_OBJ_BYTES = 256 << 20


def _floats(parts: list[str], count: int, path: Path, line: int) -> list[float]:
    try:
        values = [float(p) for p in parts[:count]]
    except ValueError:
        raise FormatError(path, line, f"expected {count} numbers") from None
    if len(values) < count or not np.all(np.isfinite(values)):
        raise FormatError(path, line, f"expected {count} finite numbers")
    return values


def _map_name(parts: list[str]) -> str:
    """The file name of a `map_*` statement, past its options (`-o 0 0 0`, `-bm 1`…)."""
    return parts[-1] if parts else ""


def _with_mask(colour: Texture | None, mask: Texture | None, source: str) -> Texture | None:
    """The colour texture with the mask's brightness as its alpha (`map_d`)."""
    if mask is None:
        return colour
    m = mask.pixels
    alpha = m[..., 3] if np.any(m[..., 3] < 255) else m[..., :3].mean(axis=2).astype(np.uint8)
    if colour is None:
        rgba = np.full(m.shape, 255, np.uint8)
    elif colour.pixels.shape[:2] != m.shape[:2]:
        return colour  # masks of another size are not resampled: drawn without the cut-out
    else:
        rgba = colour.pixels.copy()
    rgba[..., 3] = alpha
    return Texture(rgba, source)


def _read_mtl(path: Path, folder: Path, warnings: list[str]) -> dict[str, Material]:
    out: dict[str, Material] = {}
    name, kd, maps, d = None, (1.0, 1.0, 1.0), {}, 1.0

    def close() -> None:
        if name is None:
            return
        textures: dict[str, Texture | None] = {}
        for key, file in maps.items():
            try:
                textures[key] = read_image_file(folder, file)
            except ImageError as e:
                warnings.append(f"{e}; drawn with the material's colour")
        base = _with_mask(textures.get("map_Kd"), textures.get("map_d"), f"{path}#{name}")
        mask = "map_d" in textures and textures["map_d"] is not None
        out[name] = Material(name=name, base_color=(*kd, d), base_texture=base,
                             alpha_mode="MASK" if mask else ("BLEND" if d < 1.0 else "OPAQUE"),
                             double_sided=mask, metallic=0.0)  # OBJ has no metals

    for number, raw in enumerate(path.read_text(errors="replace").splitlines(), 1):
        parts = raw.split("#", 1)[0].split()
        if not parts:
            continue
        key = parts[0]
        if key == "newmtl":
            close()
            name, kd, maps, d = " ".join(parts[1:]), (1.0, 1.0, 1.0), {}, 1.0
        elif key == "Kd":
            kd = tuple(_floats(parts[1:], 3, path, number))
        elif key == "d":
            d = _floats(parts[1:], 1, path, number)[0]
        elif key in ("map_Kd", "map_d"):
            maps[key] = _map_name(parts[1:])
    close()
    return out


def read_obj_mesh(path: Path, max_triangles: int):
    """As `gltf_mesh.read_gltf_mesh`: corners, normals (NaN where none), colours, uvs, material per
    triangle, materials, warnings."""
    if path.stat().st_size > MAX_OBJ_BYTES:
        raise FormatError(path, None, f"over {MAX_OBJ_BYTES >> 20} MB; not a foliage mesh")
    v, vt, vn = [], [], []
    faces: list[tuple[int, list[tuple[int, int, int]]]] = []  # (material, corners (v, vt, vn))
    libraries: dict[str, Material] = {}
    warnings: list[str] = []
    names: list[str] = ["default"]
    current = 0
    triangles = 0
    for number, raw in enumerate(path.read_text(errors="replace").splitlines(), 1):
        parts = raw.split("#", 1)[0].split()
        if not parts:
            continue
        key = parts[0]
        if key == "v":
            v.append(_floats(parts[1:], 3, path, number))
        elif key == "vt":
            uv = _floats(parts[1:], 1, path, number) + _floats(parts[2:] or ["0"], 1, path, number)
            vt.append(uv)
        elif key == "vn":
            vn.append(_floats(parts[1:], 3, path, number))
        elif key == "mtllib":
            for lib in parts[1:]:
                try:
                    libraries.update(_read_mtl(safe_image_path(path.parent, lib), path.parent, warnings))
                except ImageError as e:
                    warnings.append(f"{path.parent / lib}: {e}; materials drawn grey")
        elif key == "usemtl":
            name = " ".join(parts[1:])
            if name not in names:
                names.append(name)
            current = names.index(name)
        elif key == "f":
            corners = []
            for item in parts[1:]:
                refs = (item.split("/") + ["", ""])[:3]
                try:
                    ids = [int(x) if x else 0 for x in refs]
                except ValueError:
                    raise FormatError(path, number, f"bad face corner {item!r}") from None
                sizes = (len(v), len(vt), len(vn))
                ids = [i - 1 if i > 0 else (size + i if i < 0 else -1)
                       for i, size in zip(ids, sizes, strict=True)]
                if not 0 <= ids[0] < len(v) or ids[1] >= len(vt) or ids[2] >= len(vn) or ids[1] < -1 \
                        or ids[2] < -1:
                    raise FormatError(path, number, f"face corner {item!r} refers to a missing vertex")
                corners.append(tuple(ids))
            if len(corners) >= 3:
                faces.append((current, corners))
                triangles += len(corners) - 2
                if triangles > max_triangles:
                    raise FormatError(path, number, f"more than {max_triangles} triangles; at most "
                                      f"{max_triangles} per foliage mesh")
    if not faces:
        raise FormatError(path, None, "the file holds no triangles")
    fanned = [(m, (c[0], c[k], c[k + 1])) for m, c in faces for k in range(1, len(c) - 1)]
    material_ids = np.array([m for m, _ in fanned], np.int64)
    ids = np.array([t for _, t in fanned], np.int64)  # (m, 3 corners, v/vt/vn)
    P = np.asarray(v, np.float64)
    T = np.vstack([np.asarray(vt, np.float64).reshape(-1, 2), [[0.0, 1.0]]])  # index -1: no vt
    N = np.vstack([np.asarray(vn, np.float64).reshape(-1, 3), [[np.nan] * 3]])
    corners, uvs, normals = P[ids[..., 0]], T[ids[..., 1]], N[ids[..., 2]]
    uvs = np.stack([uvs[..., 0], 1.0 - uvs[..., 1]], axis=-1)  # OBJ's v runs up the image
    materials = tuple(libraries.get(n, Material(name=n, base_color=(0.55, 0.60, 0.45, 1.0)))
                      if n != "default" else Material(base_color=(0.55, 0.60, 0.45, 1.0)) for n in names)
    for n in names[1:]:
        if n not in libraries:
            warnings.append(f"{path}: material {n!r} is not in its .mtl; drawn grey-green")
    colours = np.asarray([m.base_color[:3] for m in materials], np.float64)[material_ids]
    colours = np.broadcast_to(colours[:, None, :], corners.shape).copy()
    return corners, normals, colours, uvs, material_ids, materials, tuple(warnings)
