"""The range every terrain grid keeps, checked alike wherever one is made (imports, TRN regions,
command-line options) and where a scene is read: what one writes, the other opens. Heights keep
the same range as positions (`height_problem`; a 16-bit mapping's offset and scale with it).

A spacing is checked with what derives from it: the span of the grid it spaces (samples − 1
times the spacing) and the sample count a span divided by it gives, each computed in float64
before anything is rounded, allocated or written.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from model.errors import FormatError, is_finite_number

MAX_EXTENT = 1.0e7  # metres: no terrain (nor its origin) reaches 10,000 km; beyond it float32 breaks down
MIN_SPACING = 1.0e-3  # metres: a millimetre; below it slopes and normals are noise
MAX_CELLS = 16384 * 16384  # samples in one terrain grid


def _not_positive(spacing: object) -> str | None:
    if not is_finite_number(spacing) or not spacing > 0:  # type: ignore[operator]
        return f"must be a positive number of metres, got {spacing!r}"
    return None


def spacing_problem(spacing: object) -> str | None:
    """Why `spacing` cannot space any grid (None when it can)."""
    problem = _not_positive(spacing)
    if problem is None and not MIN_SPACING <= spacing <= MAX_EXTENT:  # type: ignore[operator]
        problem = f"must be {MIN_SPACING:g} to {MAX_EXTENT:g} m, got {spacing:g}"
    return problem


def grid_problem(columns: int, rows: int, spacing: float,
                 origin: tuple[float, float] = (0.0, 0.0)) -> tuple[str, str] | None:
    """(what, why) a grid of that size, spacing and origin cannot be a scene's terrain ('size',
    'spacing' or 'origin'), or None."""
    if columns < 2 or rows < 2 or columns * rows > MAX_CELLS:
        return "size", f"impossible grid size {columns} x {rows}"
    problem = _not_positive(spacing)
    if problem is not None:
        return "spacing", problem
    if (max(columns, rows) - 1) * spacing > MAX_EXTENT:
        return "spacing", f"{columns} x {rows} samples {spacing:g} m apart span more than {MAX_EXTENT:g} m"
    if spacing < MIN_SPACING:
        return "spacing", f"must be at least {MIN_SPACING:g} m, got {spacing:g}"
    if not all(is_finite_number(v) and abs(v) <= MAX_EXTENT for v in origin):
        return "origin", f"must be finite and within {MAX_EXTENT:g} m, got {list(origin)!r}"
    return None


def height_problem(height: object) -> str | None:
    """Why `height` cannot be a terrain height or a height option's value (None when it can):
    heights keep the range positions keep, where float32 still resolves centimetres."""
    if not is_finite_number(height) or not abs(height) <= MAX_EXTENT:  # type: ignore[arg-type]
        return f"must be a finite number of metres within {MAX_EXTENT:g}, got {height!r}"
    return None


def height_grid_faults(heights: np.ndarray) -> tuple[tuple[int, int] | None, int, int]:
    """((row, column) of the first sample `height_problem` refuses, how many are NaN or infinite,
    how many finite but beyond MAX_EXTENT) of a grid of heights; (None, 0, 0) when every one holds."""
    if heights.size == 0:
        return None, 0, 0
    low, high = float(heights.min()), float(heights.max())  # NaN wins both; nothing allocated
    if -MAX_EXTENT <= low and high <= MAX_EXTENT:
        return None, 0, 0
    bad = ~(np.abs(heights) <= MAX_EXTENT)  # NaN compares false
    row, column = np.unravel_index(int(np.argmax(bad)), bad.shape)
    not_finite = int(np.count_nonzero(~np.isfinite(heights)))
    return (int(row), int(column)), not_finite, int(np.count_nonzero(bad)) - not_finite


def check_heights(path: str | Path, heights: np.ndarray, row0: int = 0,
                  column0: int = 0) -> tuple[float, float]:
    """The (lowest, highest) height of a grid (or of a block of one starting at `row0`, `column0`);
    a NaN, an infinity or a value past ±MAX_EXTENT is one FormatError naming the file, the first such
    sample's row and column in the whole grid and how many there are. Allocates nothing when every
    value holds."""
    if heights.size == 0:
        return math.inf, -math.inf
    low, high = float(heights.min()), float(heights.max())  # NaN wins both
    if -MAX_EXTENT <= low and high <= MAX_EXTENT:
        return low, high
    (row, column), not_finite, beyond = height_grid_faults(heights)
    raise FormatError(path, f"row {row0 + row}, column {column0 + column}",
                      height_grid_reason(float(heights[row, column]), not_finite, beyond))


def height_grid_reason(value: float, not_finite: int, beyond: int) -> str:
    """One sentence on a grid's first refused height `value` and how many there are of each kind."""
    counts = [f"{not_finite} NaN or infinite samples"] if not_finite else []
    counts += [f"{beyond} beyond ±{MAX_EXTENT / 1000:,.0f} km"] if beyond else []
    advice = " and ".join((["fill the holes"] if not_finite else []) + (["rescale it"] if beyond else []))
    return f"height is {value:.9g} ({', '.join(counts)}); {advice} in the tool that wrote the file"


def height_mapping_problem(offset: float, scale: float) -> tuple[str, str] | None:
    """(which, why) the 16-bit mapping height = offset + scale × value / 65535 gives heights a
    terrain cannot hold ('offset' or 'scale'), or None; checked before any sample is read."""
    problem = height_problem(offset)
    if problem is not None:
        return "offset", problem
    if not is_finite_number(scale) or not 0 < scale <= 2 * MAX_EXTENT:  # type: ignore[operator]
        return "scale", f"must be a positive number of metres up to {2 * MAX_EXTENT:g}, got {scale!r}"
    if height_problem(offset + scale) is not None:
        return "scale", (f"offset {offset:g} + scale {scale:g} gives heights up to {offset + scale:g} m, "
                         f"beyond {MAX_EXTENT:g}")
    return None


def samples_across(low: float, high: float, spacing: float) -> float:
    """How many samples `spacing` apart cover low..high (a float: infinite or huge is said, not
    rounded into an overflow)."""
    with_span = abs(float(high) - float(low))
    try:
        return with_span / float(spacing) + 1.0
    except (OverflowError, ZeroDivisionError):
        return math.inf
