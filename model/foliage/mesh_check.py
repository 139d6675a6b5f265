"""Whether a foliage mesh file can be drawn: checked where a mesh is chosen and where a scene
opens, so a bad file is refused with one sentence instead of failing later in the 3-D view."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from model.errors import FormatError
from model.foliage.palette import Palette

MESH_SUFFIXES = (".obj", ".gltf", ".glb")


def mesh_file_problem(mesh: str, folder: str | Path | None) -> str | None:
    """None when `mesh` (a built-in, or a file relative to `folder`) can be drawn; else one
    sentence naming the file and what is wrong with it."""
    if mesh.startswith("builtin:"):
        return None
    base = Path(folder) if folder is not None else Path.cwd()
    target = (base / mesh.replace("\\", "/")).resolve()
    if base.resolve() not in target.parents:
        return f"{mesh} lies outside the scene's folder {base}"
    if target.suffix.lower() not in MESH_SUFFIXES:
        return f"{target.name} is not an OBJ or glTF file (.obj, .gltf, .glb)"
    try:
        stat = target.stat()
    except OSError:
        return f"{target.name} was not found in {target.parent}"
    return _checked(str(target), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _checked(path: str, _mtime: int, _size: int) -> str | None:
    from model.foliage.meshes import load_mesh_file  # trimesh: only when a file is checked

    try:
        mesh = load_mesh_file(path)
    except FormatError as e:
        return f"{Path(path).name}: {e.reason}"
    except (OSError, MemoryError, ValueError) as e:
        return f"{Path(path).name}: cannot read the mesh ({getattr(e, 'strerror', None) or e})"
    if len(mesh.vertices) == 0:
        return f"{Path(path).name}: the file holds no triangles with any area"
    return None


def palette_mesh_problems(palette: Palette, folder: str | Path | None) -> dict[str, str]:
    """Type name → the first sentence about a mesh file (own, variant or level) it cannot draw."""
    from model.foliage.foliage_type import mesh_places

    out: dict[str, str] = {}
    for ftype in palette:
        for mesh in dict.fromkeys(m for _, m in mesh_places(ftype)):
            problem = mesh_file_problem(mesh, folder)
            if problem is not None:
                out[ftype.name] = problem
                break
    return out
