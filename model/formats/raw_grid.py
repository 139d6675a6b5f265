"""What the RAW heightmap readers (R16, R32) share: the file's size, and the grid it must hold."""

from __future__ import annotations

import math
from pathlib import Path

from model.errors import FormatError

MAX_CELLS = 16384 * 16384  # samples: a 32 km world at 2 m; beyond it a size field is a lie


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        raise FormatError(path, None, "file not found") from None
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None


def raw_grid_shape(path: Path, size: tuple[int, int] | None, itemsize: int, what: str) -> tuple[int, int]:
    """(columns, rows) of a headerless grid of `itemsize`-byte samples: square unless `size` is
    given; refused, naming both byte counts, unless the file holds exactly that many samples."""
    actual = file_size(path)
    if size is None:
        side = math.isqrt(actual // itemsize)
        if actual % itemsize or side * side * itemsize != actual or side < 2:
            raise FormatError(path, None, f"file holds {actual} bytes, which is not a square grid of "
                              f"{what} samples; give the size (columns x rows)")
        size = (side, side)
    columns, rows = (int(v) for v in size)
    if columns < 2 or rows < 2 or columns * rows > MAX_CELLS:
        raise FormatError(path, None, f"impossible grid size {columns} x {rows}")
    expected = columns * rows * itemsize
    if actual != expected:
        raise FormatError(path, None, f"expected {columns} x {rows} x {itemsize} = {expected} bytes, "
                          f"file holds {actual}")
    return columns, rows
