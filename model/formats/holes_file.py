"""The terrain's hole mask beside the scene: a `[holes]` table in the manifest and uint8 tiles.

    [holes]
    tile = 512
    tiles = ["<stem>.holes_0_0.<crc>.bin", …]   # only tiles with a hole in them

Tiles are named by position and CRC-32 like the heights' (`tiles.tile_path`), so a save writes
only tiles whose bytes changed. A scene without the table has no holes. Registered into
`model.formats.scene_file` when imported.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from model.checksum import crc32
from model.errors import FormatError
from model.formats import scene_file
from model.formats import tiles as tiling
from model.holes import HOLE
from model.paged import PagedGrid, PagedPlane
from model.scene import Scene

KEY = "holes"
_KEYS = {"tile", "tiles"}


def write_section(scene: Scene, manifest: Path, files: dict[Path, bytes | None]) -> dict | None:
    mask = scene.terrain.holes
    if mask is None:
        return None
    grid = mask.grid
    names = []
    for i, j in sorted(grid.held_tiles()):
        values = np.ascontiguousarray(grid.tile_array(i, j)[mask.plane], np.uint8)
        if not values.any():
            continue
        data = values.tobytes()
        path = tiling.tile_path(manifest, KEY, i, j, crc32(data))
        files[path] = None if scene_file._on_disk(path, len(data)) else data
        names.append(path.name)
    if not names:
        return None
    return {"tile": grid.tile, "tiles": names}


def read_section(scene: Scene, manifest: Path, doc: object) -> None:
    doc = scene_file.section_table(manifest, doc, KEY, _KEYS)
    if doc is None:
        return
    terrain = scene.terrain
    shape = (terrain.rows, terrain.columns)
    tile = scene_file._require(manifest, doc, "tile", int, KEY)
    if not 16 <= tile <= 8192:
        raise FormatError(manifest, f"{KEY}.tile", f"must be from 16 to 8192 samples, got {tile}")
    names = doc.get("tiles", [])
    if not isinstance(names, list):
        raise FormatError(manifest, f"{KEY}.tiles", "expected an array of tile file names")
    n_i, n_j = tiling.tile_counts(*shape, tile)
    grid = PagedGrid.zeros(1, shape[0], shape[1], np.uint8, tile)
    pattern = re.compile(re.escape(manifest.stem) + rf"\.{KEY}_(\d+)_(\d+)\.([0-9a-f]{{8}})\.bin")
    seen = set()
    for k, name in enumerate(names):
        place = f"{KEY}.tiles[{k}]"
        m = pattern.fullmatch(name) if isinstance(name, str) else None
        if m is None:
            raise FormatError(manifest, place, f"expected a tile named {manifest.stem}.{KEY}_<i>_<j>"
                              f".<crc32>.bin, got {str(name)[:80]!r}")
        i, j = int(m.group(1)), int(m.group(2))
        if i >= n_i or j >= n_j or (i, j) in seen:
            raise FormatError(manifest, place, f"tile {i}, {j} lies outside the grid ({n_i} x {n_j} "
                              "tiles) or is listed twice")
        seen.add((i, j))
        side, size = scene_file._checked_side(manifest, name, place, "hole tile")
        rs, cs = tiling.tile_slices(i, j, *shape, tile)
        expected = (rs.stop - rs.start) * (cs.stop - cs.start)
        if size != expected:
            raise FormatError(side, None, f"hole tile holds {size} bytes, expected {expected}")
        try:
            data = side.read_bytes()
        except OSError as e:
            raise FormatError(side, None, f"cannot read the hole tile: {e.strerror or e}") from None
        if len(data) != expected or crc32(data) != int(m.group(3), 16):
            raise FormatError(side, None, "hole tile checksum mismatch (file damaged)")
        values = np.frombuffer(data, np.uint8).reshape(rs.stop - rs.start, cs.stop - cs.start)
        if np.any((values != 0) & (values != HOLE)):
            raise FormatError(side, None, f"hole tile holds values other than 0 and {HOLE}")
        grid.write(rs, cs, values, 0)
    terrain.holes = PagedPlane(grid, 0) if seen else None


def register() -> None:
    scene_file.SECTION_WRITERS[KEY] = write_section
    scene_file.SECTION_READERS[KEY] = read_section


register()
