"""The scene's edit layers: a `[edit_layers]` table in the manifest and tiled side files.

    [edit_layers]
    tile = 512
    base = ["<stem>.base_0_0.<crc>.bin", …]      # the base, only where a layer holds deltas
    [[edit_layers.layers]]
    name = "erode"  kind = "erosion"  visible = true  opacity = 1.0  id = 0
    tiles = ["<stem>.edit0_0_0.<crc>.bin", …]     # float32 deltas, only the tiles a layer touches
    params = { … }

The terrain's own height tiles hold the composite, so every reader (and an older build) sees the
heights as they look; the base is the composite wherever no layer holds a tile of deltas, so only
the other tiles of it are stored. Tiles are named by position and CRC-32 like the heights'
(`tiles.tile_path`): a save writes only tiles whose bytes changed, and a layer's tiles keep their
names when layers are reordered (`id` names them). A scene without the table is a base with no
edit layers. Registered into `model.formats.scene_file` when imported.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from model.checksum import crc32
from model.edit_layers import KINDS, MAX_EDIT_LAYERS, EditLayer, EditStack
from model.errors import FormatError, is_finite_number
from model.extent import check_heights
from model.formats import scene_file
from model.formats import tiles as tiling
from model.paged import PagedGrid, PagedPlane, file_identity
from model.scene import Scene

KEY = "edit_layers"
_KEYS = {"tile", "base", "layers"}
_LAYER_KEYS = {"name", "kind", "visible", "opacity", "id", "tiles", "params"}


# ---- writing ---------------------------------------------------------------------------------
def _tile_file(manifest: Path, kind: str, grid: PagedGrid, key: tuple[int, int],
               files: dict[Path, bytes | None]) -> str | None:
    """Name tile `key` of `grid` by position and CRC-32, adding its bytes to `files` unless that
    file is there already; None for a tile of zeros (nothing to store)."""
    i, j = key
    rs, cs = tiling.tile_slices(i, j, grid.rows, grid.columns, grid.tile)
    size = (rs.stop - rs.start) * (cs.stop - cs.start) * 4
    same = grid.unchanged_file(i, j)
    if (same is not None and same.parent == manifest.parent
            and same.name.startswith(f"{manifest.stem}.{kind}_{i}_{j}.") and scene_file._on_disk(same, size)):
        files[same] = None
        return same.name
    values = np.ascontiguousarray(grid.tile_array(i, j)[0], "<f4")
    if kind != "base" and not np.any(values):
        return None
    data = values.tobytes()
    path = tiling.tile_path(manifest, kind, i, j, crc32(data))
    files[path] = None if scene_file._on_disk(path, len(data)) else data
    return path.name


def _base_grid(stack: EditStack) -> PagedGrid:
    base = stack.base
    if isinstance(base, PagedPlane):
        return base.grid
    n_i, n_j = tiling.tile_counts(*base.shape, stack.tile)
    grid = PagedGrid(1, base.shape[0], base.shape[1], np.float32, stack.tile,
                     [[None] * n_j for _ in range(n_i)])
    grid._full = base[None]  # an array, read through the grid's tiles: a view, no copy
    return grid


def write_section(scene: Scene, manifest: Path, files: dict[Path, bytes | None]) -> dict | None:
    stack = scene.terrain.edits
    if stack is None or not stack.layers:
        return None
    held: set[tuple[int, int]] = set()
    layers = []
    for layer in stack.layers:
        names = []
        for key in sorted(layer.held_tiles()):
            name = _tile_file(manifest, f"edit{layer.uid}", layer.deltas, key, files)
            if name is not None:
                names.append(name)
                held.add(key)
        layers.append({"name": layer.name, "kind": layer.kind, "visible": layer.visible,
                       "opacity": layer.opacity, "id": layer.uid, "tiles": names,
                       "params": dict(layer.params)})
    base = _base_grid(stack)
    return {"tile": stack.tile,
            "base": [_tile_file(manifest, "base", base, key, files) for key in sorted(held)],
            "layers": layers}


# ---- reading ---------------------------------------------------------------------------------
def _tile_name_pattern(manifest: Path, kind: str) -> re.Pattern:
    return re.compile(re.escape(manifest.stem) + rf"\.{kind}_(\d+)_(\d+)\.([0-9a-f]{{8}})\.bin")


def _read_tiles(manifest: Path, names: object, kind: str, where: str, shape: tuple[int, int],
                tile: int) -> tuple[dict, dict]:
    """{(i, j): file} and {(i, j): identity} of a list of tile names, each file checked (a plain
    name in the folder, its size, the CRC-32 its name carries, finite values)."""
    if not isinstance(names, list):
        raise FormatError(manifest, where, "expected an array of tile file names")
    n_i, n_j = tiling.tile_counts(*shape, tile)
    pattern = _tile_name_pattern(manifest, kind)
    files: dict[tuple[int, int], Path] = {}
    identities: dict[tuple[int, int], tuple[int, ...]] = {}
    for k, name in enumerate(names):
        place = f"{where}[{k}]"
        m = pattern.fullmatch(name) if isinstance(name, str) else None
        if m is None:
            raise FormatError(manifest, place, f"expected a tile named {manifest.stem}.{kind}_<i>_<j>"
                              f".<crc32>.bin, got {name!r}")
        key = (int(m.group(1)), int(m.group(2)))
        if key[0] >= n_i or key[1] >= n_j:
            raise FormatError(manifest, place, f"tile {key[0]}, {key[1]} lies outside the grid "
                              f"({n_i} x {n_j} tiles)")
        if key in files:
            raise FormatError(manifest, place, f"tile {key[0]}, {key[1]} is listed twice")
        side, size = scene_file._checked_side(manifest, name, place, "edit layer tile")
        rs, cs = tiling.tile_slices(*key, *shape, tile)
        expected = (rs.stop - rs.start) * (cs.stop - cs.start) * 4
        if size != expected:
            raise FormatError(side, None, f"edit layer tile holds {size} bytes, expected {expected}")
        try:
            with open(side, "rb") as f:
                identity = file_identity(os.fstat(f.fileno()))
                data = f.read(expected + 1)
        except OSError as e:
            raise FormatError(side, None, f"cannot read the edit layer tile: {e.strerror or e}") from None
        if len(data) != expected or crc32(data) != int(m.group(3), 16):
            raise FormatError(side, None, "edit layer tile checksum mismatch (file damaged)")
        values = np.frombuffer(data, "<f4").reshape(rs.stop - rs.start, cs.stop - cs.start)
        check_heights(side, values, rs.start, cs.start)
        files[key], identities[key] = side, identity
    return files, identities


def _grid(shape: tuple[int, int], tile: int, files: dict, identities: dict,
          under: PagedGrid | None = None) -> PagedGrid:
    """A grid of those files (zeros elsewhere, or `under`'s files where given)."""
    n_i, n_j = tiling.tile_counts(*shape, tile)
    table = [[files.get((i, j), None if under is None else under.files[i][j]) for j in range(n_j)]
             for i in range(n_i)]
    known = dict(under.identities) if under is not None else {}
    known.update(identities)
    grid = PagedGrid(1, shape[0], shape[1], np.float32, tile, table, known)
    if under is None:
        for key in set(tiling.tiles_meeting(slice(0, shape[0]), slice(0, shape[1]), tile)) - set(files):
            grid.sums[key], grid.counts[key], grid.ranges[key] = [0.0], [0], [(0.0, 0.0)]
    return grid


def _layer(manifest: Path, entry: object, where: str, shape, tile: int, seen: set, uids: set) -> EditLayer:
    if not isinstance(entry, dict):
        raise FormatError(manifest, where, "must be a table")
    for key in entry:
        if key not in _LAYER_KEYS:
            raise FormatError(manifest, f"{where}.{key}", f"unknown key '{key}'")
    name = scene_file._require(manifest, entry, "name", str, where)
    if not name.strip() or name in seen:
        raise FormatError(manifest, f"{where}.name", f"empty or duplicate edit layer name {name!r}")
    kind = scene_file._require(manifest, entry, "kind", str, where)
    if kind not in KINDS:
        raise FormatError(manifest, f"{where}.kind",
                          f"unknown kind {kind!r} (expected one of {', '.join(KINDS)})")
    uid = scene_file._require(manifest, entry, "id", int, where)
    if uid < 0 or uid in uids:
        raise FormatError(manifest, f"{where}.id", f"must be a number of its own, 0 or more, got {uid}")
    visible = entry.get("visible", True)
    if not isinstance(visible, bool):
        raise FormatError(manifest, f"{where}.visible", f"expected true or false, got {visible!r}")
    opacity = entry.get("opacity", 1.0)
    if isinstance(opacity, bool) or not is_finite_number(opacity) or not 0.0 <= opacity <= 1.0:
        raise FormatError(manifest, f"{where}.opacity", f"must be a number from 0 to 1, got {opacity!r}")
    params = entry.get("params", {})
    if not isinstance(params, dict):
        raise FormatError(manifest, f"{where}.params", "must be a table")
    files, identities = _read_tiles(manifest, entry.get("tiles", []), f"edit{uid}", f"{where}.tiles",
                                    shape, tile)
    seen.add(name)
    uids.add(uid)
    return EditLayer(name, kind, _grid(shape, tile, files, identities), params, visible,
                     float(opacity), uid)


def read_section(scene: Scene, manifest: Path, doc: object) -> None:
    doc = scene_file.section_table(manifest, doc, KEY, _KEYS)
    if doc is None:
        return
    terrain = scene.terrain
    shape = (terrain.rows, terrain.columns)
    heights = terrain.paged_heights
    tile = scene_file._require(manifest, doc, "tile", int, KEY)
    if heights is None or heights.grid.tile != tile:
        raise FormatError(manifest, f"{KEY}.tile", "edit layers need a version 2 scene whose height "
                          f"tiles are {tile} samples a side")
    entries = doc.get("layers", [])
    if not isinstance(entries, list) or len(entries) > MAX_EDIT_LAYERS:
        raise FormatError(manifest, f"{KEY}.layers", f"must be an array of at most {MAX_EDIT_LAYERS} tables")
    seen: set[str] = set()
    uids: set[int] = set()
    layers = [_layer(manifest, entry, f"{KEY}.layers[{k}]", shape, tile, seen, uids)
              for k, entry in enumerate(entries)]
    if not layers:
        return
    files, identities = _read_tiles(manifest, doc.get("base", []), "base", f"{KEY}.base", shape, tile)
    held = set().union(*(la.held_tiles() for la in layers))
    if held - set(files):
        i, j = sorted(held - set(files))[0]
        raise FormatError(manifest, f"{KEY}.base", f"no base tile {i}, {j} under the edit layers' deltas")
    base = PagedPlane(_grid(shape, tile, files, identities, heights.grid), 0)
    EditStack(terrain, base, layers)


def register() -> None:
    scene_file.SECTION_WRITERS[KEY] = write_section
    scene_file.SECTION_READERS[KEY] = read_section


register()
