"""The files a palette's mesh paths need on disk: each mesh file and what it names in turn (a
glTF's buffers and images, an OBJ's material libraries and their textures), relative to the
scene's folder. A scene written into another folder (Save As, a recovery copy) carries them so
it opens there with every file it references.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path, PurePosixPath

from model.foliage.palette import Palette

MAX_DESCRIPTOR_BYTES = 64 << 20  # a .gltf/.obj/.mtl read for the names it holds; beyond this: none
MAX_CARRIED_BYTES = 512 << 20  # a single file beyond this is not copied along


def palette_meshes(palette: Palette) -> list[str]:
    """The mesh file paths (not built-ins) the palette's types, variants and levels name."""
    found: set[str] = set()
    for ftype in palette:
        for mesh in (ftype.mesh, *(v.mesh for v in ftype.variants), *(lv.mesh for lv in ftype.lods or ())):
            if mesh and not mesh.startswith("builtin:"):
                found.add(mesh.replace("\\", "/"))
    return sorted(found)


def _inside(folder: Path, relative: str) -> Path | None:
    target = (folder / relative).resolve()
    return target if folder in target.parents else None


def _read_small(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_DESCRIPTOR_BYTES:
            return b""
        return path.read_bytes()
    except OSError:
        return b""


def _gltf_uris(doc: object) -> list[str]:
    if not isinstance(doc, dict):
        return []
    uris = []
    for key in ("buffers", "images"):
        items = doc.get(key)
        for item in items if isinstance(items, list) else []:
            uri = item.get("uri") if isinstance(item, dict) else None
            if isinstance(uri, str) and uri and not uri.startswith("data:") and "://" not in uri:
                uris.append(uri)
    return uris


def _glb_json(data: bytes) -> object:
    if len(data) < 20 or data[:4] != b"glTF":
        return None
    length, kind = struct.unpack_from("<II", data, 12)
    if kind != 0x4E4F534A or 20 + length > len(data):  # the JSON chunk
        return None
    return json.loads(data[20:20 + length].decode("utf-8"))


def named_by(path: Path) -> list[str]:
    """The files `path` names, relative to its own folder (nothing for a file it cannot parse)."""
    suffix = path.suffix.lower()
    data = _read_small(path)
    try:
        if suffix == ".gltf":
            return _gltf_uris(json.loads(data.decode("utf-8")))
        if suffix == ".glb":
            return _gltf_uris(_glb_json(data))
    except (ValueError, UnicodeDecodeError, struct.error):
        return []
    if suffix in (".obj", ".mtl"):
        words = ("mtllib",) if suffix == ".obj" else ("map_Kd", "map_Ka", "map_Ks", "map_d", "map_Bump",
                                                      "map_bump", "bump", "norm")
        out = []
        for line in data.decode("utf-8", errors="replace").splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] in words:
                out += parts[1:] if parts[0] == "mtllib" else parts[-1:]
        return out
    return []


def referenced_files(palette: Palette, folder: str | Path) -> list[str]:
    """Every file under `folder` the palette needs, relative to it (POSIX), sorted: the mesh files
    that exist there and what they name. Nothing outside `folder` is ever listed."""
    base = Path(folder).resolve()
    found: set[str] = set()
    todo = palette_meshes(palette)
    while todo:
        relative = todo.pop()
        target = _inside(base, relative)
        if target is None or not target.is_file():
            continue
        key = target.relative_to(base).as_posix()
        if key in found:
            continue
        found.add(key)
        parent = PurePosixPath(key).parent
        todo += [(parent / name.replace("\\", "/")).as_posix() for name in named_by(target)]
    return sorted(found)


def carried_files(palette: Palette, source: str | Path | None,
                  target: str | Path) -> dict[Path, bytes | None]:
    """The files a scene written into folder `target` needs from folder `source`: path → bytes to
    write, or None where `target` holds the same bytes already. A file of that name that differs
    is the user's own and is left alone (not listed)."""
    if source is None or Path(source).resolve() == Path(target).resolve():
        return {}
    out: dict[Path, bytes | None] = {}
    for relative in referenced_files(palette, source):
        src = Path(source) / relative
        dst = Path(target) / relative
        try:
            if src.stat().st_size > MAX_CARRIED_BYTES:
                continue
            data = src.read_bytes()
            if dst.exists():
                if dst.is_file() and dst.stat().st_size == len(data) and dst.read_bytes() == data:
                    out[dst] = None
                continue
        except OSError:  # unreadable: the scene draws its placeholder, as it does today
            continue
        out[dst] = data
    return out


def copy_into_folder(path: str | Path, folder: str | Path) -> str:
    """Copy mesh file `path`, with the files it names beside it, into `folder`/meshes; returns its
    path relative to `folder`. A different file already of that name is kept: the copy then goes
    into a folder of its own (`meshes/<stem>-2/`)."""
    from model.atomic import atomic_write

    source = Path(path)
    data = source.read_bytes()
    companions = [name.replace("\\", "/") for name in named_by(source)]
    base = Path(folder) / "meshes"
    target_dir, n = base, 1
    while True:
        clash = [target_dir / name for name in (source.name, *companions)
                 if (target_dir / name).exists() and (target_dir / name).read_bytes()
                 != _bytes_or_none(source.parent / name)]
        if not clash:
            break
        n += 1
        target_dir = base / f"{source.stem}-{n}"
    for name in companions:
        src = source.parent / name
        inside = _inside(source.parent.resolve(), name)
        if inside is not None and src.is_file():
            atomic_write(target_dir / name, src.read_bytes())
    atomic_write(target_dir / source.name, data)
    return (target_dir / source.name).relative_to(Path(folder)).as_posix()


def _bytes_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
