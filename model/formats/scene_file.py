"""`.boscage` scene: a TOML manifest plus binary side files beside it.

Side files carry a checksum of their bytes in their name and are written first, the manifest
last, each atomically; stale side files are removed only once the new manifest is in place.
So an interrupted save leaves the previous manifest with every side file it names, and saving
an unchanged scene rewrites the same names with the same bytes. A save holds the scene's lock
(`model.scene_lock`): a second writer is refused rather than mixing its files with ours.
"""

from __future__ import annotations

import importlib
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np
import tomli_w

from model import extent
from model.atomic import atomic_write, atomic_write_text, make_folder, remove_stale_temps, retarget
from model.checksum import crc32
from model.errors import (
    FormatError,
    WriteError,
    parse_toml,
    read_text_file,
    refuse_link_outside,
)
from model.formats import tiles as tiling
from model.layer_material import material_entry, parse_material
from model.paged import PagedGrid, PagedPlane, file_identity, int_sum
from model.scene import Scene
from model.scene_lock import scene_lock
from model.terrain import Terrain, TerrainLayer

FORMAT = "boscage-scene"
VERSION = 2  # what a save writes: heights and weights in tiles (version 1: one file each)
READ_VERSIONS = (1, 2)
MAX_CELLS = extent.MAX_CELLS
MAX_EXTENT = extent.MAX_EXTENT
MAX_LAYERS = 256
NAME_FILTER = "Boscage scenes (*.boscage)"


def side_path(manifest: Path, suffix: str) -> Path:
    return manifest.with_name(manifest.stem + suffix)


def _crc(data: bytes) -> str:
    return f"{crc32(data):08x}"


def versioned_side_path(manifest: Path, kind: str, data: bytes, crc32: int | None = None) -> Path:
    """`<stem>.<kind>.<crc32>.bin`: new content gets a new name, so the old file survives.

    Section writers should name their side files this way too: a save then never overwrites a
    file the previous manifest still names, and the stale one is removed after the manifest.
    `crc32`: the content's checksum where the writer has it already (a file that ends in its own
    CRC-32 passes that; the CRC-32 of such a whole file is the same constant for every file)."""
    return side_path(manifest, f".{kind}.{_crc(data) if crc32 is None else f'{crc32:08x}'}.bin")


# Fixed side-file suffixes that older saves used (`<stem><suffix>`), registered by the sections
# that now name their files by checksum: dropped with the stale files once a manifest that no
# longer names them is in place.
RETIRED_SIDE_SUFFIXES: set[str] = set()


def _stale_side_files(manifest: Path, keep: set[Path]) -> list[Path]:
    """Checksum-named side files of this manifest (any kind, sections' too) that it no longer names."""
    pattern = re.compile(re.escape(manifest.stem) + r"\.[a-z0-9_]+\.[0-9a-f]{8}\.bin")
    if not manifest.parent.is_dir():
        return []
    retired = {side_path(manifest, suffix).name for suffix in RETIRED_SIDE_SUFFIXES}
    return [p for p in manifest.parent.iterdir()
            if (pattern.fullmatch(p.name) or p.name in retired) and p not in keep and p.is_file()]


def _is_scene_file(manifest: Path, name: str) -> bool:
    """Whether `name` is one of the files a save of `manifest` writes (its temp files are ours)."""
    side = re.fullmatch(re.escape(manifest.stem) + r"\.[a-z0-9_]+\.[0-9a-f]{8}\.bin", name)
    retired = {side_path(manifest, suffix).name for suffix in RETIRED_SIDE_SUFFIXES}
    return name == manifest.name or side is not None or name in retired


def _color_hex(color: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


def _parse_color(path: Path, where: str, text: object) -> tuple[int, int, int]:
    if not (isinstance(text, str) and len(text) == 7 and text.startswith("#")):
        raise FormatError(path, where, f"colour must be '#rrggbb', got {text!r}")
    try:
        return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
    except ValueError:
        raise FormatError(path, where, f"colour must be '#rrggbb', got {text!r}") from None


def scene_manifest_v1(scene: Scene, manifest: Path) -> tuple[dict, dict[Path, bytes]]:
    """The version 1 manifest and side files (one file of heights, one of weights): what older
    builds wrote; this build reads it and writes version 2 (`scene_manifest`)."""
    t = scene.terrain
    heights = np.ascontiguousarray(t.heights, dtype="<f4").tobytes()
    heights_path = versioned_side_path(manifest, "heights", heights)
    files: dict[Path, bytes] = {heights_path: heights}
    doc: dict = {
        "format": FORMAT,
        "version": 1,
        "name": scene.name,
        "terrain": {
            "columns": t.columns,
            "rows": t.rows,
            "spacing": float(t.spacing),
            "origin": [float(t.origin[0]), float(t.origin[1])],
            "heights": heights_path.name,
            "heights_crc32": _crc(heights),
        },
        "layers": [{"name": layer.name, "color": _color_hex(layer.color)} for layer in t.layers],
    }
    for entry, layer in zip(doc["layers"], t.layers, strict=True):
        if not layer.weight_blend:  # absent means weight-blended: older scenes save as they were
            entry["weight_blend"] = False
        entry.update(material_entry(layer.material))  # none for a layer without maps
    if t.layers:
        weights = b"".join(np.ascontiguousarray(layer.weights, np.uint8).tobytes()
                           for layer in t.layers)
        layers_path = versioned_side_path(manifest, "layers", weights)
        files[layers_path] = weights
        doc["terrain"]["layers"] = layers_path.name
        doc["terrain"]["layers_crc32"] = _crc(weights)
    return doc, files


def _on_disk(path: Path, size: int) -> bool:
    """Whether a file of that name and size is there already: a tile's name carries its position
    and the CRC-32 of its bytes, so it holds those bytes and is not written again."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == size


def _holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file holding exactly `data` (read only when the size agrees)."""
    if not _on_disk(path, len(data)):
        return False
    try:
        with open(path, "rb") as f:
            return f.read(len(data) + 1) == data
    except OSError:
        return False


def _tile_bytes(planes: list, dtype: str, rows: slice, cols: slice) -> bytes:
    return b"".join(np.ascontiguousarray(p[rows, cols], dtype).tobytes() for p in planes)


def _intact(planes: list) -> PagedGrid | None:
    """The paged grid `planes` are, all of it in order (a scene's tiles as opened), else None."""
    if not planes or not all(isinstance(p, PagedPlane) for p in planes):
        return None
    grid = planes[0].grid
    if grid.is_full or grid.planes != len(planes) or any(
            p.grid is not grid or p.plane != k for k, p in enumerate(planes)):
        return None
    return grid


def _save_tiles(manifest: Path, kind: str, planes: list, dtype: str, tile: int,
                files: dict[Path, bytes | None]) -> list[list[str]]:
    """Name every tile of `planes` (stacked per tile) by position and CRC-32, adding to `files`
    the bytes of those not on disk yet (None for those that are); the names, row by row.

    Planes still paged from this scene's own tiles reuse the names of the tiles not written
    since opening, without reading a byte of them."""
    rows, cols = planes[0].shape
    paged = _intact(planes)
    if paged is not None and paged.tile != tile:
        paged = None
    names: list[list[str]] = []
    for i, j, rs, cs in tiling.tiles_of(rows, cols, tile):
        if j == 0:
            names.append([])
        same = paged.unchanged_file(i, j) if paged is not None else None
        size = (rs.stop - rs.start) * (cs.stop - cs.start) * len(planes) * np.dtype(dtype).itemsize
        if (same is not None and same.parent == manifest.parent
                and same.name.startswith(f"{manifest.stem}.{kind}_{i}_{j}.") and _on_disk(same, size)):
            files[same] = None
            names[-1].append(same.name)
            continue
        data = _tile_bytes(planes, dtype, rs, cs)
        path = tiling.tile_path(manifest, kind, i, j, crc32(data))
        files[path] = None if _on_disk(path, len(data)) else data
        names[-1].append(path.name)
    return names


def scene_manifest(scene: Scene, manifest: Path) -> tuple[dict, dict[Path, bytes | None]]:
    """The version 2 manifest and side-file bytes for `scene` saved at `manifest`: heights and the
    layers' weights in `tiles.TILE`-sample tiles; a None value is a tile already on disk."""
    t = scene.terrain
    tile = tiling.TILE
    files: dict[Path, bytes | None] = {}
    doc: dict = {
        "format": FORMAT,
        "version": VERSION,
        "name": scene.name,
        "terrain": {
            "columns": t.columns,
            "rows": t.rows,
            "spacing": float(t.spacing),
            "origin": [float(t.origin[0]), float(t.origin[1])],
            "tile": tile,
            "heights": _save_tiles(manifest, "heights", [t.heights_grid()], "<f4", tile, files),
        },
        "layers": [{"name": layer.name, "color": _color_hex(layer.color)} for layer in t.layers],
    }
    for entry, layer in zip(doc["layers"], t.layers, strict=True):
        if not layer.weight_blend:  # absent means weight-blended: older scenes save as they were
            entry["weight_blend"] = False
        entry.update(material_entry(layer.material))  # none for a layer without maps
    if t.layers:
        doc["terrain"]["layers"] = _save_tiles(manifest, "layers", [la.grid() for la in t.layers],
                                               "u1", tile, files)
    return doc, files


# Subsystems that store a section beside the scene register (save, load) hooks here.
SECTION_WRITERS: dict[str, object] = {}
SECTION_READERS: dict[str, object] = {}
SECTION_SAVED: dict[str, object] = {}  # called after a save that made the manifest the scene's file
# Importing these registers their hooks. Done before every load and save, so a process that
# never imported them still keeps (and writes back) a scene's foliage instead of dropping it.
SECTION_MODULES = ("model.foliage", "model.formats.edit_layers_file", "model.formats.holes_file")


def section_table(manifest: Path, doc: object, key: str, known: object) -> dict | None:
    """A section's table from the manifest (None when absent): a value that is not a table, or a key
    the section does not know, is refused naming its place."""
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise FormatError(manifest, key, "must be a table")
    for name in doc:
        if name not in known:  # type: ignore[operator]
            raise FormatError(manifest, f"{key}.{name}", f"unknown key '{name}'")
    return doc


def register_sections() -> None:
    for name in SECTION_MODULES:
        importlib.import_module(name)


def save_scene(scene: Scene, path: str | Path, copy: bool = False, copy_textures: bool = True,
               replace_textures: bool = False) -> None:
    """Write the scene atomically: side files first, the manifest last, then drop stale side files.
    The scene then lives at `path`; with `copy` (a recovery copy) it stays where it was, unchanged.

    Saved into another folder than its textures', the layers' texture files are copied there first
    under the same relative paths (`model.layer_texture_files`; a different file already there is
    refused unless `replace_textures`), and the scene then reads its textures from there; a failed
    save takes back the copies it made. `copy_textures=False` leaves them where they are (a
    recovery copy, which remembers their folder instead)."""
    from model.layer_texture_files import copy_textures as copy_files
    from model.layer_texture_files import remove_files, texture_copies

    manifest = Path(path)
    if manifest.is_dir():  # refused before any side file is written beside it
        raise WriteError(manifest, "cannot write: a folder has that name")
    register_sections()
    make_folder(manifest.parent, manifest)
    # one writer at a time (nested when the caller took the lock before reading the scene): the
    # stale-file clean-up below must never meet another writer's new side files
    with scene_lock(manifest):
        copies = texture_copies(scene, manifest)[0] if copy_textures else []
        doc, files = scene_manifest(scene, manifest)
        for key, writer in SECTION_WRITERS.items():
            section = writer(scene, manifest, files)  # type: ignore[operator]
            if section is not None:
                doc[key] = section
        created = copy_files(copies, replace_textures)
        try:
            try:
                for file, data in files.items():
                    # None: a tile already on disk under its checksum name; the same bytes there
                    # already are not written again (a save that changes nothing writes nothing)
                    if data is not None and not _holds(file, data):
                        atomic_write(file, data)
            except OSError as e:  # said of the scene: its side files are not names the user gave
                raise retarget(e, manifest) from None
            text = tomli_w.dumps(doc)
            if not _holds(manifest, text.encode("utf-8")):
                atomic_write_text(manifest, text)
        except BaseException:
            remove_files(created)
            raise
        for stale in _stale_side_files(manifest, set(files)):
            try:
                stale.unlink()
            except OSError:  # a leftover file is harmless; the manifest no longer names it
                pass
        remove_stale_temps(manifest.parent, lambda name: _is_scene_file(manifest, name))
    if not copy:
        scene.path = manifest
        if copy_textures:
            scene.asset_folder = manifest.parent
        for saved in SECTION_SAVED.values():
            saved(scene, manifest)  # type: ignore[operator]


# TOML names for the kinds a manifest value may have (a reader knows "table", not "dict").
_KIND_NAMES = {dict: "a table", int: "an integer", str: "a string", list: "an array",
               (int, float): "a number"}
_CRC_TEXT = re.compile(r"[0-9a-fA-F]{8}")


def _require(path: Path, table: dict, key: str, kind: type | tuple, where: str):
    if key not in table:
        raise FormatError(path, where or key, f"missing key '{key}'")
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        raise FormatError(path, f"{where}.{key}" if where else key,
                          f"expected {_KIND_NAMES.get(kind, kind)}, got {value!r}")
    return value


class LoadCancelled(Exception):
    """The progress callback asked to stop; nothing was changed."""


READ_CHUNK = 32 << 20  # bytes between progress reports


class _Progress:
    """Bytes of side files read so far, reported to `report(done, total)`; False from it cancels."""

    def __init__(self, report: Callable[[int, int], bool] | None, total: int) -> None:
        self.report, self.total, self.done = report, total, 0

    def advance(self, n: int) -> None:
        self.done += n
        if self.report is not None and self.report(self.done, self.total) is False:
            raise LoadCancelled("opening cancelled")


def _read_into(side: Path, size: int, progress: _Progress | None) -> np.ndarray:
    """The file's `size` bytes read straight into a new writable uint8 array: one copy, from the
    page cache into the array the terrain keeps (no bytes object, no second copy)."""
    data = np.empty(size, np.uint8)  # the size was checked against the file's already
    view = memoryview(data)
    step = READ_CHUNK if progress is not None and progress.report is not None else max(size, 1)
    with open(side, "rb", buffering=0) as f:
        pos = 0
        while pos < size:
            n = f.readinto(view[pos:pos + step])
            if not n:
                raise OSError(f"the file ended after {pos} of {size} bytes")
            pos += n
            if progress is not None:
                progress.advance(n)
    return data


MAX_NAME_BYTES = 255  # the longest file name Linux, macOS and Windows file systems hold


def side_file(manifest: Path, name: object, key: str, what: str) -> Path:
    """The side file the manifest names at `key`: a plain file name in the manifest's folder, and
    a regular file there or a link to one inside that folder (large-file stores keep links)."""
    return _checked_side(manifest, name, key, what)[0]


def checked_side_file(manifest: Path, name: object, key: str, what: str) -> tuple[Path, int]:
    """`side_file`, with the file's size (known before a byte of it is read)."""
    return _checked_side(manifest, name, key, what)


def _checked_side(manifest: Path, name: object, key: str, what: str) -> tuple[Path, int]:
    if (not isinstance(name, str) or "/" in name or "\\" in name or "\0" in name
            or name in ("", ".", "..")):
        raise FormatError(manifest, key, f"side file name {name!r} must be a plain file name")
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:  # the OS would say "File name too long" at the first look
        raise FormatError(manifest, key, f"side file name is {size} bytes long; a file name "
                          f"holds at most {MAX_NAME_BYTES}")
    side = manifest.with_name(name)
    return side, _side_size(manifest, side, what)


def side_file_size(owner: Path, side: Path, what: str) -> int:
    """The size of `side`, a file `owner` names, once it is known to be a regular file (or a link
    to one inside owner's folder): a FIFO or a device is refused before it is opened. A plain file
    costs one lstat; a link is resolved only then. Scene side files and glTF buffers alike."""
    return _side_size(owner, side, what)


def _side_size(manifest: Path, side: Path, what: str) -> int:
    try:
        st = os.lstat(side)
        if stat.S_ISLNK(st.st_mode):
            refuse_link_outside(manifest.parent, side, f"{what} side file", "scene")
            st = os.stat(side)
    except FileNotFoundError:
        raise FormatError(side, None, f"missing {what} side file (named in {manifest.name})") from None
    except (OSError, ValueError) as e:
        raise FormatError(side, None, f"cannot read the {what} side file: "
                          f"{getattr(e, 'strerror', None) or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FormatError(side, None, f"{what} side file is not a file")
    return st.st_size


def _read_side(manifest: Path, name: str, expected_size: int, crc_text: object,
               what: str, key: str, progress: _Progress | None = None) -> np.ndarray:
    """A side file the manifest names (`key` is where), read whole and checked against its CRC."""
    if crc_text is not None and not (isinstance(crc_text, str) and _CRC_TEXT.fullmatch(crc_text)):
        raise FormatError(manifest, f"{key}_crc32", f"expected 8 hexadecimal digits, got {crc_text!r}")
    side, actual = _checked_side(manifest, name, key, what)
    try:
        if actual != expected_size:
            raise FormatError(side, None, f"{what} file holds {actual} bytes, expected {expected_size}")
        data = _read_into(side, expected_size, progress)
    except OSError as e:
        raise FormatError(side, None, f"cannot read the {what} side file: {e.strerror or e}") from None
    if crc_text is not None and f"{crc32(data):08x}" != crc_text.lower():
        raise FormatError(side, None, f"{what} checksum mismatch (file damaged)")
    return data


def load_scene(path: str | Path, progress: Callable[[int, int], bool] | None = None) -> Scene:
    """Read a scene; any problem raises one FormatError naming the file and the place.

    `progress(done, total)` hears how many bytes of the side files are read; returning False
    stops the load with LoadCancelled (nothing is changed either way)."""
    manifest = Path(path)
    register_sections()
    text = read_text_file(manifest)
    if not text.strip():
        raise FormatError(manifest, None, "empty file (not a Boscage scene)")
    doc = parse_toml(text, manifest)
    if "format" not in doc:
        raise FormatError(manifest, "format", "missing key 'format': not a Boscage scene")
    if doc["format"] != FORMAT:
        raise FormatError(manifest, "format", f"not a Boscage scene (format = {doc['format']!r})")
    version = doc.get("version")
    if isinstance(version, bool) or version not in READ_VERSIONS:
        raise FormatError(manifest, "version", f"unsupported scene version {version!r} "
                          f"(this build reads versions 1 and {VERSION})")
    name = doc.get("name", manifest.stem)
    if not isinstance(name, str):
        raise FormatError(manifest, "name", "must be a string")
    terrain_doc = _require(manifest, doc, "terrain", dict, "")
    cols = _require(manifest, terrain_doc, "columns", int, "terrain")
    rows = _require(manifest, terrain_doc, "rows", int, "terrain")
    if cols < 2 or rows < 2 or cols * rows > MAX_CELLS:
        raise FormatError(manifest, "terrain", f"impossible grid size {cols} x {rows}")
    spacing = _require(manifest, terrain_doc, "spacing", (int, float), "terrain")
    origin = terrain_doc.get("origin", [0.0, 0.0])
    if (not isinstance(origin, list) or len(origin) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in origin)):
        raise FormatError(manifest, "terrain.origin", f"must be [x, z] in metres, got {origin!r}")
    # the same check every writer of a terrain makes (imports, TRN regions, options)
    problem = extent.grid_problem(cols, rows, spacing, (origin[0], origin[1]))
    if problem is not None:
        raise FormatError(manifest, {"size": "terrain"}.get(problem[0], f"terrain.{problem[0]}"), problem[1])
    if version == 1:
        heights_name = _require(manifest, terrain_doc, "heights", str, "terrain")
    else:
        tile = _require(manifest, terrain_doc, "tile", int, "terrain")
        if not tiling.MIN_TILE <= tile <= tiling.MAX_TILE:
            raise FormatError(manifest, "terrain.tile", f"tiles must be {tiling.MIN_TILE} to "
                              f"{tiling.MAX_TILE} samples a side, got {tile}")
        heights_tiles = _tile_names(manifest, terrain_doc, "heights", rows, cols, tile)

    # The layer list is checked before any side file is read: a bad entry costs no big read.
    layers_doc = doc.get("layers", [])
    if not isinstance(layers_doc, list) or len(layers_doc) > MAX_LAYERS:
        raise FormatError(manifest, "layers", "must be a list of at most 256 layers")
    entries: list[tuple[str, tuple[int, int, int]]] = []
    blends: list[bool] = []  # per layer: weight-blended (the default when the key is absent)
    materials: list = []  # per layer: texture maps (none when the keys are absent)
    seen: set[str] = set()
    for i, entry in enumerate(layers_doc):
        where = f"layers[{i}]"
        if not isinstance(entry, dict):
            raise FormatError(manifest, where, "must be a table")
        lname = _require(manifest, entry, "name", str, where)
        if lname in seen:
            raise FormatError(manifest, f"{where}.name", f"duplicate layer name {lname!r}")
        seen.add(lname)
        entries.append((lname, _parse_color(manifest, f"{where}.color", entry.get("color", "#808080"))))
        blend = entry.get("weight_blend", True)
        if not isinstance(blend, bool):
            raise FormatError(manifest, f"{where}.weight_blend", f"expected true or false, got {blend!r}")
        blends.append(blend)
        materials.append(parse_material(manifest, where, entry))
    tracker = _Progress(progress, rows * cols * (4 + len(entries)))
    if version == 2:
        layer_tiles = _tile_names(manifest, terrain_doc, "layers", rows, cols, tile) if entries else None
        # every tile's name, size and kind is checked before any byte is read
        heights_sides = _tile_sides(manifest, heights_tiles, "heights", "terrain.heights",
                                    rows, cols, tile, 4)
        layer_sides = (_tile_sides(manifest, layer_tiles, "layer weights", "terrain.layers",
                                   rows, cols, tile, len(entries)) if entries else None)
        ranges: dict = {}
        checked = _verify_tiles(heights_sides, "heights", np.dtype("<f4"), 1, rows, cols, tile,
                                tracker, ranges)
        # Nothing read is kept: the terrain maps each tile's file when it is first touched.
        grid = PagedGrid(1, rows, cols, "<f4", tile, [[f for f, _ in row] for row in heights_sides],
                         checked)
        grid.ranges = ranges
        heights = PagedPlane(grid, 0)
        weights = None
        if entries:
            sums: dict = {}
            counts: dict = {}
            checked = _verify_tiles(layer_sides, "layer weights", np.dtype(np.uint8), len(entries),
                                    rows, cols, tile, tracker, None, (sums, counts))
            lgrid = PagedGrid(len(entries), rows, cols, np.uint8, tile,
                              [[f for f, _ in row] for row in layer_sides], checked)
            # coverage (the Layers panel, `scene info`) from the bytes the check read anyway
            lgrid.sums, lgrid.counts = sums, counts
            weights = [PagedPlane(lgrid, k) for k in range(len(entries))]
        return _finish_load(manifest, doc, name, heights, weights, entries, blends, materials, spacing,
                            origin)
    layers_name = _require(manifest, terrain_doc, "layers", str, "terrain") if entries else None
    raw = _read_side(manifest, heights_name, rows * cols * 4, terrain_doc.get("heights_crc32"),
                     "heights", "terrain.heights", tracker)
    # The arrays are views of the buffers just read (writable, owned by nobody else): no copies.
    heights = raw.view("<f4").reshape(rows, cols).astype(np.float32, copy=False)
    extent.check_heights(manifest.with_name(heights_name), heights)
    weights = None
    if entries:
        raw = _read_side(manifest, layers_name, len(entries) * rows * cols,
                         terrain_doc.get("layers_crc32"), "layer weights", "terrain.layers", tracker)
        weights = raw.reshape(len(entries), rows, cols)
    return _finish_load(manifest, doc, name, heights, weights, entries, blends, materials, spacing,
                            origin)


def _finish_load(manifest: Path, doc: dict, name: str, heights: np.ndarray, weights, entries: list,
                 blends: list[bool], materials: list, spacing: float, origin: list) -> Scene:
    layers: list[TerrainLayer] = []
    if entries:
        layers = [TerrainLayer(lname, color, weights[i]) for i, (lname, color) in enumerate(entries)]
        for layer, blend, material in zip(layers, blends, materials, strict=True):
            layer.weight_blend = blend
            layer.material = material
    terrain = Terrain(heights, float(spacing), (float(origin[0]), float(origin[1])), layers)
    scene = Scene(terrain=terrain, name=name, path=manifest, asset_folder=manifest.parent)
    scene.file_version = doc["version"]  # `scene info` tells a version 1 scene from a version 2 one
    for key, reader in SECTION_READERS.items():
        reader(scene, manifest, doc.get(key))  # type: ignore[operator]
    return scene


def _tile_names(manifest: Path, terrain_doc: dict, key: str, rows: int, cols: int,
                tile: int) -> list[list[object]]:
    """The manifest's tile names for `key`: one array per tile row, covering the grid exactly."""
    where = f"terrain.{key}"
    table = _require(manifest, terrain_doc, key, list, "terrain")
    n_i, n_j = tiling.tile_counts(rows, cols, tile)
    grid = f"a {cols} x {rows} grid in {tile}-sample tiles has {n_i} rows of {n_j}"
    if len(table) != n_i:
        raise FormatError(manifest, where, f"lists {len(table)} rows of tiles; {grid}")
    for i, row in enumerate(table):
        if not isinstance(row, list) or len(row) != n_j:
            count = f"{len(row)} tiles" if isinstance(row, list) else repr(row)
            raise FormatError(manifest, f"{where}[{i}]", f"lists {count}; {grid}")
    return table


def _tile_sides(manifest: Path, names: list[list[object]], what: str, key: str, rows: int,
                cols: int, tile: int, item_bytes: int) -> list[list[tuple[Path, int]]]:
    """Each tile's file and the CRC-32 its name ends in, its size checked against its place."""
    out: list[list[tuple[Path, int]]] = []
    for i, j, rs, cs in tiling.tiles_of(rows, cols, tile):
        if j == 0:
            out.append([])
        name = names[i][j]
        place = f"{key}[{i}][{j}]"
        side, size = _checked_side(manifest, name, place, f"{what} tile")
        crc = tiling.crc_in_name(name)
        if crc is None:
            raise FormatError(manifest, place, f"tile name {name!r} must end in .<crc32>.bin")
        expected = (rs.stop - rs.start) * (cs.stop - cs.start) * item_bytes
        if size != expected:
            raise FormatError(side, None, f"{what} tile holds {size} bytes, expected {expected} "
                              f"(tile {i}, {j} of the grid)")
        out.append(out.pop() + [(side, crc)])
    return out


def _verify_tiles(sides: list[list[tuple[Path, int]]], what: str, dtype: np.dtype, planes: int,
                  rows: int, cols: int, tile: int, progress: _Progress, ranges: dict | None,
                  weights: tuple[dict, dict] | None = None) -> dict[tuple[int, int], tuple[int, ...]]:
    """Check every tile against the CRC-32 its name ends in, one tile in memory at a time (and
    with `ranges`, that it holds no NaN or infinity, keeping its (min, max) there; with `weights`,
    keeping each plane's sum and count of non-zero values in its two tables); the identity of
    each file checked, so a file replaced before its tile is mapped is refused then."""
    identities: dict[tuple[int, int], tuple[int, ...]] = {}
    buffer = np.empty(planes * min(tile, rows) * min(tile, cols) * dtype.itemsize, np.uint8)
    for i, j, rs, cs in tiling.tiles_of(rows, cols, tile):
        side, crc = sides[i][j]
        view = buffer[:planes * (rs.stop - rs.start) * (cs.stop - cs.start) * dtype.itemsize]
        try:
            identities[(i, j)] = _read_exact(side, view, progress)
        except OSError as e:
            raise FormatError(side, None, f"cannot read the {what} tile: {e.strerror or e}") from None
        if crc32(view) != crc:
            raise FormatError(side, None, f"{what} checksum mismatch (file damaged)")
        if ranges is not None:
            values = view.view(dtype)
            block = values.reshape(rs.stop - rs.start, cs.stop - cs.start)
            ranges[(i, j)] = [extent.check_heights(side, block, rs.start, cs.start)]
        if weights is not None:  # the tile is in the cache still: a pass over it costs little
            per_plane = view.view(dtype).reshape(planes, -1)
            weights[0][(i, j)] = [int_sum(p) for p in per_plane]
            weights[1][(i, j)] = [int(np.count_nonzero(p)) for p in per_plane]
    return identities


def _read_exact(side: Path, view: np.ndarray, progress: _Progress) -> tuple[int, ...]:
    """Fill `view` (its size was checked against the file's) from the file, reporting progress
    every READ_CHUNK bytes; the file's identity (`paged.file_identity`)."""
    mv = memoryview(view)
    step = READ_CHUNK if progress.report is not None else max(len(mv), 1)
    with open(side, "rb", buffering=0) as f:
        identity = file_identity(os.fstat(f.fileno()))
        pos = 0
        while pos < len(mv):
            n = f.readinto(mv[pos:pos + step])
            if not n:
                raise OSError(f"the file ended after {pos} of {len(mv)} bytes")
            pos += n
            progress.advance(n)
    return identity
