"""Square tiles of a grid, as scene format version 2 stores heights and layer weights.

A `rows` x `columns` grid is cut into `tile` x `tile` blocks from the top-left corner (edge
tiles are smaller). Each tile is one side file named by its position and the CRC-32 of its bytes
(`<stem>.heights_<i>_<j>.<crc>.bin`), so a save writes only tiles whose bytes changed and a
version-control diff lists only them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

TILE = 512  # samples a side: 1 MiB of float32 heights, 256 KiB of weights per layer
MIN_TILE, MAX_TILE = 16, 8192
_TILE_NAME = re.compile(r".*\.[a-z0-9_]+\.([0-9a-f]{8})\.bin")


def tile_counts(rows: int, columns: int, tile: int) -> tuple[int, int]:
    """Tiles down and across."""
    return math.ceil(rows / tile), math.ceil(columns / tile)


def tile_slices(i: int, j: int, rows: int, columns: int, tile: int) -> tuple[slice, slice]:
    """The rows and columns of the grid that tile (i, j) holds."""
    return (slice(i * tile, min(rows, (i + 1) * tile)), slice(j * tile, min(columns, (j + 1) * tile)))


def tiles_of(rows: int, columns: int, tile: int) -> Iterator[tuple[int, int, slice, slice]]:
    """(i, j, row_slice, col_slice) of every tile, row by row."""
    n_i, n_j = tile_counts(rows, columns, tile)
    for i in range(n_i):
        for j in range(n_j):
            yield (i, j, *tile_slices(i, j, rows, columns, tile))


def tiles_meeting(rows: slice, cols: slice, tile: int) -> Iterator[tuple[int, int]]:
    """(i, j) of every tile a non-empty window meets."""
    for i in range(rows.start // tile, (rows.stop - 1) // tile + 1):
        for j in range(cols.start // tile, (cols.stop - 1) // tile + 1):
            yield i, j


def tile_path(manifest: Path, kind: str, i: int, j: int, crc: int) -> Path:
    return manifest.with_name(f"{manifest.stem}.{kind}_{i}_{j}.{crc:08x}.bin")


def crc_in_name(name: str) -> int | None:
    """The CRC-32 a tile's file name ends in (`….<8 hex digits>.bin`), None if it has none."""
    m = _TILE_NAME.fullmatch(name)
    return None if m is None else int(m.group(1), 16)
