"""The extent (radius sideways, height upward) of a foliage mesh file, for a type whose `extent`
is "from the mesh": OBJ vertices, or glTF's POSITION accessor bounds (which glTF requires).

Only what the bounds need is read: no faces, no buffers. Node transforms of a glTF are not
applied (a foliage mesh is authored at the origin, up +Y). A file that cannot be read gives None
and the caller falls back to one metre each way; a bad file is the renderer's to report.
"""

from __future__ import annotations

import math
import struct
from functools import lru_cache
from pathlib import Path

import numpy as np

from model import portable_math as pmath
from model.errors import FormatError
from model.json_doc import parse_json

MAX_BYTES = 512 << 20  # a foliage mesh beyond this is no foliage mesh: not read for its bounds


def mesh_extent(mesh: str, folder: str | Path | None) -> tuple[float, float] | None:
    """(radius, height) of the mesh file `mesh` relative to `folder`, or None when it cannot be
    read (no folder, missing, outside the folder, unreadable)."""
    if folder is None or mesh.startswith("builtin:"):
        return None
    base = Path(folder).resolve()
    target = (base / mesh.replace("\\", "/")).resolve()
    if base not in target.parents:
        return None
    try:
        stat = target.stat()
    except OSError:
        return None
    return _cached(str(target), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _cached(path: str, mtime: int, size: int) -> tuple[float, float] | None:
    if size > MAX_BYTES:
        return None
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    suffix = Path(path).suffix.lower()
    try:
        if suffix == ".obj":
            return _obj(data)
        if suffix == ".gltf":
            return _gltf(parse_json(data, path))
        if suffix == ".glb":
            return _glb(data)
    except (FormatError, ValueError, KeyError, IndexError, TypeError, AttributeError, struct.error):
        return None
    return None


def _extent(points: list[tuple[float, float, float]]) -> tuple[float, float] | None:
    points = [p for p in points if all(math.isfinite(v) for v in p)]
    if not points:
        return None
    p = np.asarray(points, np.float64)
    radius = float(pmath.hypot(p[:, 0], p[:, 2]).max())
    height = max(float(p[:, 1].max()), 0.0)
    return (radius, height)


def _obj(data: bytes) -> tuple[float, float] | None:
    points = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        if line.startswith("v "):
            parts = line.split()
            points.append((float(parts[1]), float(parts[2]), float(parts[3])))
    found = _extent(points)
    return None if found is None else (max(found[0], 0.0), max(found[1], 0.0))


def _gltf(doc: dict) -> tuple[float, float] | None:
    accessors = doc.get("accessors", [])
    corners: list[tuple[float, float, float]] = []
    for mesh in doc.get("meshes", []):
        for primitive in mesh.get("primitives", []):
            index = primitive.get("attributes", {}).get("POSITION")
            if not isinstance(index, int) or not 0 <= index < len(accessors):
                continue
            lo, hi = accessors[index].get("min"), accessors[index].get("max")
            if not (isinstance(lo, list) and isinstance(hi, list) and len(lo) == 3 and len(hi) == 3):
                continue
            corners += [(x, y, z) for x in (float(lo[0]), float(hi[0])) for y in (float(lo[1]), float(hi[1]))
                        for z in (float(lo[2]), float(hi[2]))]
    return _extent(corners)


def _glb(data: bytes) -> tuple[float, float] | None:
    magic, _version, _length = struct.unpack_from("<4sII", data, 0)
    if magic != b"glTF":
        return None
    chunk_length, chunk_type = struct.unpack_from("<II", data, 12)
    if chunk_type != 0x4E4F534A or 20 + chunk_length > len(data):  # "JSON"
        return None
    return _gltf(parse_json(data[20:20 + chunk_length], None))
