"""Heightmaps in and out: 16-bit PNG, RAW R16 (little-endian), float32 `.npy`; layer weights as 8-bit PNG.

Float EXR, TIFF and RAW R32 live in `model.formats.float_heightmap`; this module dispatches to it.

16-bit formats store `value = round((height - offset) / scale * 65535)`, so a height comes back
as `offset + scale * value / 65535`: exact within one 16-bit step (float32 resolves every step
while |height| stays below about 64 × scale, which the default mapping, min to max, ensures).
A PNG written here carries offset, scale and spacing in `tEXt` chunks, so reading it back
needs no settings; RAW files carry nothing, and their size must be given (or be a square).

`open_heightmap` reads any of them a band of rows at a time (the header checked first), and
`write_scene_from_heightmap` turns such a file into a scene tile by tile, in bounded memory.
"""

from __future__ import annotations

import ast
import math
import struct
import tokenize
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np

from model.atomic import atomic_write
from model.errors import FormatError
from model.extent import check_heights, grid_problem, height_mapping_problem
from model.formats.float_heightmap import (
    FLOAT_FORMATS,
    FLOAT_SUFFIXES,
    checked_bands,
    float_heightmap_bands,
    read_float_heightmap,
    write_float_heightmap,
)
from model.formats.png import PngBands, read_png, write_png
from model.formats.raw_grid import MAX_CELLS, file_size, raw_grid_shape
from model.scene import Scene
from model.terrain import Terrain

FORMATS = ("png16", "r16", "npy") + FLOAT_FORMATS
SUFFIXES = {".png": "png16", ".r16": "r16", ".raw": "r16", ".npy": "npy"} | FLOAT_SUFFIXES
NAME_FILTER = "Heightmaps (*.png *.r16 *.raw *.npy *.exr *.tif *.tiff *.r32)"
LAYER_NAME_FILTER = "Layer weights (*.png)"
DEFAULT_SCALE = 100.0  # metres for the full 16-bit range, when a file does not say
_KEY = "boscage."


class HeightMapping(NamedTuple):
    """height = offset + scale * value / 65535 for a 16-bit value."""

    offset: float
    scale: float


class Heightmap(NamedTuple):
    """What a heightmap file held: float32 heights (rows = Z), and the settings it carried."""

    heights: np.ndarray
    mapping: HeightMapping | None  # None for float files
    spacing: float | None  # None when the file does not say


def format_of(path: str | Path, fmt: str | None = None) -> str:
    """The format named, or the one the file suffix implies."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown heightmap format {fmt!r}; expected one of {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"cannot tell the heightmap format of {Path(path).name!r}; "
                         f"use one of {', '.join(sorted(SUFFIXES))} or name the format")
    return SUFFIXES[suffix]


# ---- quantisation ---------------------------------------------------------------------------
def mapping_for(heights: np.ndarray, offset: float | None = None,
                scale: float | None = None) -> HeightMapping:
    """The mapping that spans the heights (from their minimum over their range) unless given."""
    lo, hi = float(np.min(heights)), float(np.max(heights))
    given_offset, given_scale = offset, scale
    offset = lo if offset is None else float(offset)
    if scale is None:
        scale = hi - offset if hi > offset else 1.0
    if not (math.isfinite(offset) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"height scale must be a positive number, got {scale}")
    problem = height_mapping_problem(offset, scale)
    if problem is not None and (given_offset is not None or given_scale is not None):
        raise ValueError(f"height {problem[0]} {problem[1]}")  # a mapping the user asked for
    return HeightMapping(offset, float(scale))


def quantise(heights: np.ndarray, mapping: HeightMapping) -> np.ndarray:
    """Heights → uint16 values (clamped to the mapping's range)."""
    v = (np.asarray(heights, np.float64) - mapping.offset) / mapping.scale * 65535.0
    return np.clip(np.rint(v), 0, 65535).astype(np.uint16)


def dequantise(values: np.ndarray, mapping: HeightMapping) -> np.ndarray:
    return (mapping.offset + mapping.scale * (values.astype(np.float64) / 65535.0)).astype(np.float32)


# ---- writing --------------------------------------------------------------------------------
def write_heightmap(path: str | Path, heights: np.ndarray, fmt: str | None = None,
                    offset: float | None = None, scale: float | None = None,
                    spacing: float | None = None) -> HeightMapping | None:
    """Write heights atomically; returns the 16-bit mapping used (None for `.npy`)."""
    fmt = format_of(path, fmt)
    heights = np.asarray(heights, np.float32)
    if heights.ndim != 2:
        raise ValueError("heights must be a 2-D grid")
    if fmt == "npy":
        atomic_write(path, lambda f: np.save(f, np.ascontiguousarray(heights), allow_pickle=False))
        return None
    if fmt in FLOAT_FORMATS:  # float32 as is: no mapping
        write_float_heightmap(path, heights, fmt, spacing)
        return None
    mapping = mapping_for(heights, offset, scale)
    values = quantise(heights, mapping)
    if fmt == "r16":
        atomic_write(path, values.astype("<u2").tobytes())
    else:
        text = {_KEY + "height_offset": repr(mapping.offset), _KEY + "height_scale": repr(mapping.scale)}
        if spacing is not None:
            text[_KEY + "spacing"] = repr(float(spacing))
        write_png(path, values, text=text)
    return mapping


def write_layer_png(path: str | Path, weights: np.ndarray) -> None:
    """A layer's weights as an 8-bit grey PNG (rows = Z)."""
    write_png(path, np.asarray(weights, np.uint8))


# ---- reading --------------------------------------------------------------------------------
def read_heightmap(path: str | Path, fmt: str | None = None, size: tuple[int, int] | None = None,
                   offset: float | None = None, scale: float | None = None,
                   expected_shape: tuple[int, int] | None = None) -> Heightmap:
    """Read heights. `size` = (columns, rows) for RAW files; `offset`/`scale` override the file's.

    With `expected_shape` (rows, columns), a grid of any other size is refused, naming both.
    """
    path = Path(path)
    try:
        fmt = format_of(path, fmt)
    except ValueError as e:
        raise FormatError(path, None, str(e)) from None
    if fmt == "npy":
        result = _read_npy(path)
    elif fmt in FLOAT_FORMATS:
        heights, stored_spacing = read_float_heightmap(path, fmt, size)
        result = Heightmap(heights, None, stored_spacing)
    elif fmt == "r16":
        mapping = _mapping(None, offset, scale, path)
        result = Heightmap(dequantise(_read_r16(path, size), mapping), mapping, None)
    else:
        image = read_png(path)
        pixels = image.pixels
        if pixels.dtype == np.uint8:  # an 8-bit heightmap: spread it over the same range
            pixels = pixels.astype(np.uint16) * 257
        mapping = _mapping(image.text, offset, scale, path)
        spacing = _text_float(image.text, "spacing", path)
        result = Heightmap(dequantise(pixels, mapping), mapping, spacing)
    if expected_shape is not None:
        check_shape(path, "heightmap", tuple(expected_shape), result.heights.shape)
    return result


def read_layer_png(path: str | Path, expected_shape: tuple[int, int] | None = None) -> np.ndarray:
    """Layer weights 0..255 from a grey PNG (16-bit images are scaled down)."""
    image = read_png(path)
    pixels = image.pixels
    if pixels.dtype == np.uint16:
        pixels = ((pixels.astype(np.uint32) + 128) // 257).astype(np.uint8)
    if expected_shape is not None:
        check_shape(path, "layer weights", tuple(expected_shape), pixels.shape)
    return pixels


def check_shape(path: str | Path, what: str, expected: tuple[int, int], actual: tuple[int, ...]) -> None:
    """Refuse a grid of the wrong size, naming both sizes as columns x rows."""
    if tuple(actual) != tuple(expected):
        raise FormatError(path, None, f"{what} is {actual[1]} x {actual[0]} (columns x rows), "
                          f"expected {expected[1]} x {expected[0]} to match the terrain")


def _mapping(text: dict[str, str] | None, offset, scale, path) -> HeightMapping:
    stored_offset = _text_float(text or {}, "height_offset", path)
    stored_scale = _text_float(text or {}, "height_scale", path)
    offset = offset if offset is not None else (stored_offset if stored_offset is not None else 0.0)
    scale = scale if scale is not None else (stored_scale if stored_scale is not None else DEFAULT_SCALE)
    problem = height_mapping_problem(offset, scale)  # the range every terrain keeps
    if problem is not None:
        raise FormatError(path, None, f"height {problem[0]} {problem[1]}")
    return HeightMapping(float(offset), float(scale))


def _text_float(text: dict[str, str], key: str, path) -> float | None:
    if _KEY + key not in text:
        return None
    try:
        value = float(text[_KEY + key])
    except ValueError:
        raise FormatError(path, f"tEXt {_KEY + key}", f"not a number: {text[_KEY + key]!r}") from None
    if not math.isfinite(value):
        raise FormatError(path, f"tEXt {_KEY + key}", f"not a finite number: {value}")
    return value


def _read_r16(path: Path, size: tuple[int, int] | None) -> np.ndarray:
    columns, rows = raw_grid_shape(path, size, 2, "16-bit")
    return np.fromfile(path, dtype="<u2").reshape(rows, columns).astype(np.uint16)


_NPY_HEADER_LENGTH = {(1, 0): struct.Struct("<H"), (2, 0): struct.Struct("<I")}
_NPY_MAX_HEADER = 1 << 16  # a 2-D grid's header is about 120 bytes; numpy itself refuses > 10,000


def _npy_header(path: Path) -> tuple[tuple[int, int], bool, np.dtype, int]:
    """(shape, Fortran order, dtype, data offset) of a 2-D grid's .npy file, checked against the file."""
    actual = file_size(path)
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version not in _NPY_HEADER_LENGTH:
                raise FormatError(path, 6, f"unsupported .npy format version {version[0]}.{version[1]} "
                                  "(1.0 and 2.0 are read)")
            # numpy reads the header length it is told before checking it: check it against the file first
            length = _NPY_HEADER_LENGTH[version]
            (header_bytes,) = length.unpack(f.read(length.size).ljust(length.size, b"\0"))
            if header_bytes > min(_NPY_MAX_HEADER, actual - 8 - length.size):
                raise FormatError(path, 8, f"header claims {header_bytes} bytes but the file holds "
                                  f"{actual} (at most {_NPY_MAX_HEADER} are read)")
            # numpy retries a header that is no Python literal through tokenize, whose regex takes
            # seconds on a few kilobytes of odd whitespace: only a literal goes on to numpy
            header = f.read(header_bytes).decode("latin-1")
            try:
                ast.literal_eval(header)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                raise FormatError(path, 8 + length.size, "not a NumPy .npy file: its header is not a "
                                  "Python dictionary literal") from None
            f.seek(8)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            data_offset = f.tell()
    except (ValueError, OSError, SyntaxError, tokenize.TokenError, RecursionError, MemoryError) as e:
        # numpy parses the header dictionary with tokenize and ast.literal_eval: any of their errors
        text = str(e).splitlines()[0] if str(e) else ""
        text = text if len(text) <= 120 else text[:117] + "…"  # numpy quotes the whole header
        raise FormatError(path, 0, f"not a NumPy .npy file: {type(e).__name__}: {text}") from None
    if len(shape) != 2 or min(shape) < 2:
        raise FormatError(path, data_offset, f"expected a 2-D grid of at least 2 x 2, got shape {shape}")
    if dtype.kind not in "fiu" or dtype.hasobject:
        raise FormatError(path, data_offset, f"expected float heights, got dtype {dtype}")
    if shape[0] * shape[1] > MAX_CELLS:
        raise FormatError(path, data_offset, f"impossible grid size {shape[1]} x {shape[0]}")
    needed = shape[0] * shape[1] * dtype.itemsize
    if needed > actual - data_offset:
        raise FormatError(path, data_offset, f"header claims {shape[1]} x {shape[0]} {dtype} "
                          f"({needed} bytes) but only {actual - data_offset} remain")
    return shape, fortran, dtype, data_offset


def _read_npy(path: Path) -> Heightmap:
    _, _, _, data_offset = _npy_header(path)
    try:
        array = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as e:
        raise FormatError(path, data_offset, f"cannot read the array: {e}") from None
    heights = np.ascontiguousarray(array, dtype=np.float32)
    check_heights(path, heights)
    return Heightmap(heights, None, None)


# ---- scenes ---------------------------------------------------------------------------------
def scene_from_heightmap(path: str | Path, fmt: str | None = None, size: tuple[int, int] | None = None,
                         offset: float | None = None, scale: float | None = None,
                         spacing: float | None = None, name: str | None = None) -> Scene:
    """A new scene whose terrain is the heightmap (spacing: given, else the file's, else 1 m)."""
    hm = read_heightmap(path, fmt, size, offset, scale)
    spacing = spacing if spacing is not None else (hm.spacing if hm.spacing is not None else 1.0)
    if not (math.isfinite(spacing) and spacing > 0):
        raise FormatError(path, None, f"spacing must be positive, got {spacing}")
    terrain = Terrain(hm.heights, spacing=float(spacing))
    return Scene(terrain=terrain, name=name or Path(path).stem)


def holes_mask_path(path: str | Path) -> Path:
    """Where a heightmap export puts the terrain's hole mask: `<name>.holes.png` beside it."""
    path = Path(path)
    return path.with_name(f"{path.stem}.holes.png")


def export_heights(terrain: Terrain, path: str | Path, fmt: str | None = None,
                   offset: float | None = None, scale: float | None = None) -> HeightMapping | None:
    """Write a terrain's heights, recording its spacing where the format can hold it; a terrain
    with holes also gets its hole mask (255 a hole) as an 8-bit PNG beside them."""
    mapping = write_heightmap(path, terrain.heights, fmt, offset, scale, spacing=terrain.spacing)
    if terrain.holes is not None and terrain.holes.grid.nonzero(0):
        write_layer_png(holes_mask_path(path), terrain.holes[0:terrain.rows, 0:terrain.columns])
    return mapping


# ---- big heightmaps: band by band, straight into a scene's tiles ----------------------------
TileProgress = Callable[[int, int, str], "bool | None"]  # (tiles done, tiles in all, what) → False stops
_CONVERT_COLUMNS = 1024  # columns dequantised at a time: float64 temporaries stay small


class ImportCancelled(Exception):
    """The progress callback asked to stop; nothing was written (what was, is removed)."""


class HeightmapBands(NamedTuple):
    """A heightmap opened for reading band by band: its size, the settings it carries, and
    `bands()`, yielding (first row, float32 rows) top to bottom: the heights `read_heightmap`
    gives, never all of them at once."""

    rows: int
    columns: int
    mapping: HeightMapping | None
    spacing: float | None
    bands: Callable[[], Iterator[tuple[int, np.ndarray]]]


def _dequantised(values: np.ndarray, mapping: HeightMapping) -> np.ndarray:
    out = np.empty(values.shape, np.float32)
    for c0 in range(0, values.shape[1], _CONVERT_COLUMNS):
        out[:, c0:c0 + _CONVERT_COLUMNS] = dequantise(values[:, c0:c0 + _CONVERT_COLUMNS], mapping)
    return out


def open_heightmap(path: str | Path, fmt: str | None = None, size: tuple[int, int] | None = None,
                   offset: float | None = None, scale: float | None = None) -> HeightmapBands:
    """What `read_heightmap` reads, opened to be read band by band (the header checked now)."""
    path = Path(path)
    try:
        fmt = format_of(path, fmt)
    except ValueError as e:
        raise FormatError(path, None, str(e)) from None
    if fmt == "npy":
        (rows, columns), fortran, dtype, data_offset = _npy_header(path)
        return HeightmapBands(rows, columns, None, None,
                              lambda: checked_bands(path, _npy_bands(path, rows, columns, fortran, dtype,
                                                                     data_offset)))
    if fmt in FLOAT_FORMATS:
        rows, columns, spacing, bands = float_heightmap_bands(path, fmt, size)
        return HeightmapBands(rows, columns, None, spacing, bands)
    if fmt == "r16":
        mapping = _mapping(None, offset, scale, path)
        columns, rows = raw_grid_shape(path, size, 2, "16-bit")
        return HeightmapBands(rows, columns, mapping, None, lambda: _r16_bands(path, rows, columns, mapping))
    png = PngBands(path)
    mapping = _mapping(png.text, offset, scale, path)
    spacing = _text_float(png.text, "spacing", path)

    def png_bands():
        for r0, pixels in png.bands(PNG_BAND_ROWS):
            if pixels.dtype == np.uint8:
                pixels = pixels.astype(np.uint16) * 257
            yield r0, _dequantised(pixels, mapping)

    return HeightmapBands(png.height, png.width, mapping, spacing, png_bands)


BAND_ROWS = 512  # rows read at a time where the format leaves the choice
PNG_BAND_ROWS = 256  # rows inflated and unfiltered at a time (~3.5x a band of pixels held meanwhile)


def _r16_bands(path: Path, rows: int, columns: int, mapping: HeightMapping):
    try:
        with open(path, "rb") as f:
            for r0 in range(0, rows, BAND_ROWS):
                n = min(BAND_ROWS, rows - r0)
                values = np.fromfile(f, dtype="<u2", count=n * columns)
                if values.size != n * columns:
                    raise FormatError(path, r0 * columns * 2, "the file ended early (changed while read?)")
                yield r0, _dequantised(values.reshape(n, columns).astype(np.uint16), mapping)
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None


def _npy_bands(path: Path, rows: int, columns: int, fortran: bool, dtype: np.dtype, offset: int):
    """Each band through its own read-only map, dropped before the next: a map kept open would
    keep every page read so far resident (they count as this process's memory)."""
    for r0 in range(0, rows, BAND_ROWS):
        n = min(BAND_ROWS, rows - r0)
        try:
            if fortran:
                view = np.memmap(path, dtype, "r", offset=offset, shape=(rows, columns), order="F")[r0:r0 + n]
            else:
                view = np.memmap(path, dtype, "r", offset=offset + r0 * columns * dtype.itemsize,
                                 shape=(n, columns))
            heights = np.ascontiguousarray(view, dtype=np.float32)
            del view
        except (ValueError, OSError) as e:
            raise FormatError(path, offset, f"cannot read the array: {e}") from None
        yield r0, heights


def tile_bands(bands: Iterator[tuple[int, np.ndarray]], tile: int, rows: int) -> Iterator[np.ndarray]:
    """Bands of any height, re-cut into bands of `tile` rows (the last one shorter), in order:
    each filled in place as the rows come, so one band and one incoming piece are all it holds."""
    out: np.ndarray | None = None
    start = filled = 0  # first row of `out`, rows of it filled
    for _, band in bands:
        taken = 0
        while taken < band.shape[0]:
            if out is None:
                if band.shape[0] - taken >= min(tile, rows - start) and taken == 0 \
                        and band.shape[0] == min(tile, rows - start):
                    yield band  # already a whole tile band: no copy
                    start += band.shape[0]
                    taken = band.shape[0]
                    continue
                out = np.empty((min(tile, rows - start), band.shape[1]), band.dtype)
            n = min(out.shape[0] - filled, band.shape[0] - taken)
            out[filled:filled + n] = band[taken:taken + n]
            filled += n
            taken += n
            if filled == out.shape[0]:
                yield out
                start += filled
                out, filled = None, 0


def write_scene_from_heightmap(path: str | Path, out: str | Path, fmt: str | None = None,
                               size: tuple[int, int] | None = None, offset: float | None = None,
                               scale: float | None = None, spacing: float | None = None,
                               name: str | None = None, progress: TileProgress | None = None) -> Scene:
    """`save_scene(scene_from_heightmap(...), out)` for a heightmap of any size: read a band of
    tiles at a time and written tile by tile (`SceneWriter`), the same bytes, in bounded memory.
    `progress(done, total, what)` hears every tile; False stops (ImportCancelled) and removes
    every tile written. Returns the written scene, paged."""
    from model.formats.scene_writer import SceneWriter

    source = open_heightmap(path, fmt, size, offset, scale)
    spacing = spacing if spacing is not None else (source.spacing if source.spacing is not None else 1.0)
    problem = grid_problem(source.columns, source.rows, spacing)  # as the scene reader checks it
    if problem is not None:
        raise FormatError(path, None, f"cannot be a terrain: {problem[1]}")
    with SceneWriter(out, source.rows, source.columns, float(spacing)) as writer:
        n_i, n_j = writer.tile_counts
        total, done = n_i * n_j, 0
        if progress is not None and progress(0, total, "reading") is False:
            raise ImportCancelled("reading")
        for i, band in enumerate(tile_bands(source.bands(), writer.tile, source.rows)):
            for j in range(n_j):
                cs = slice(j * writer.tile, min(source.columns, (j + 1) * writer.tile))
                writer.put_heights(i, j, band[:, cs])
                done += 1
                if progress is not None and progress(done, total, "writing tiles") is False:
                    raise ImportCancelled("writing tiles")
        return writer.finish(name or Path(path).stem)
