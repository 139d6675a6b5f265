"""Float heightmaps in and out: 32-bit float OpenEXR, float32 TIFF and RAW R32 (little-endian).

What Gaea, World Machine, World Creator and Houdini write. Heights travel as float32 with no
mapping, so a round trip is bit-for-bit. EXR goes through the `openexr` package (the Academy
Software Foundation's own bindings: FLOAT channels straight to numpy, stream I/O, custom
header attributes; imageio would need a FreeImage binary for EXR), TIFF through `tifffile`.

Reading accepts a FLOAT or HALF EXR channel (`Y`, else `R`, else the only channel: HALF widens
exactly) and a float16/32/64 TIFF (the first sample of each pixel; float64 rounds to float32;
strips or tiles, uncompressed or LZW/Deflate/Zstd with any predictor, through `imagecodecs`).
Integer EXR/TIFF data, a truncated or unreadable file and a RAW file of the wrong size are one
`FormatError`. A NaN or infinite height is refused too, naming the first such sample and the
count: a terrain needs a height everywhere, and filling holes silently would invent ground. So is
a height beyond ±10,000 km (`extent.height_problem`: where float32 positions still hold
centimetres), never clamped: a clamped cliff would be ground nobody made.

`float_heightmap_bands` reads the same heights a band of rows at a time (RAW R32 by reads, TIFF
by strips or tile rows, EXR by scanline ranges, scanline or tiled), for importers that write a
scene tile by tile.

EXR and TIFF files written here carry the terrain's spacing (EXR header attribute
`boscage.spacing`, TIFF ImageDescription JSON `{"boscage.spacing": …}`); RAW files carry nothing.
"""

from __future__ import annotations

import io
import json
import logging
import math
from pathlib import Path

import numpy as np

from model.atomic import atomic_write
from model.errors import FormatError
from model.extent import check_heights, height_grid_faults, height_grid_reason
from model.formats.raw_grid import MAX_CELLS, file_size, raw_grid_shape
from model.json_doc import parse_json

# tifffile logs what it finds wrong in a damaged file; the refusal here says it once, in one line
logging.getLogger("tifffile").addHandler(logging.NullHandler())
logging.getLogger("tifffile").propagate = False

FLOAT_FORMATS = ("exr", "tif", "r32")
FLOAT_SUFFIXES = {".exr": "exr", ".tif": "tif", ".tiff": "tif", ".r32": "r32"}
SPACING_KEY = "boscage.spacing"
_EXR_CHANNELS = ("Y", "R", "Z", "height")


def write_float_heightmap(path: str | Path, heights: np.ndarray, fmt: str,
                          spacing: float | None = None) -> None:
    """Write float32 heights (rows = Z) atomically as `fmt` ("exr", "tif" or "r32")."""
    heights = np.ascontiguousarray(heights, dtype=np.float32)
    if heights.ndim != 2:
        raise ValueError("heights must be a 2-D grid")
    if fmt == "r32":
        atomic_write(path, heights.astype("<f4", copy=False).tobytes())
    elif fmt == "exr":
        atomic_write(path, lambda f: _write_exr(f, heights, spacing))
    elif fmt == "tif":
        atomic_write(path, lambda f: _write_tif(f, heights, spacing))
    else:
        raise ValueError(f"not a float heightmap format: {fmt!r}")


def read_float_heightmap(path: str | Path, fmt: str,
                         size: tuple[int, int] | None = None) -> tuple[np.ndarray, float | None]:
    """(float32 heights, spacing the file stores or None). `size` = (columns, rows) for RAW R32."""
    path = Path(path)
    if fmt == "r32":
        heights, spacing = _read_r32(path, size), None
    elif fmt == "exr":
        heights, spacing = _read_exr(path)
    elif fmt == "tif":
        heights, spacing = _read_tif(path)
    else:
        raise ValueError(f"not a float heightmap format: {fmt!r}")
    check_heights(path, heights)
    return heights, spacing


# ---- RAW R32 -------------------------------------------------------------------------------
def _read_r32(path: Path, size: tuple[int, int] | None) -> np.ndarray:
    columns, rows = raw_grid_shape(path, size, 4, "32-bit float")
    try:
        data = np.fromfile(path, dtype="<f4")
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    return data.reshape(rows, columns).astype(np.float32, copy=False)


# ---- OpenEXR -------------------------------------------------------------------------------
def _write_exr(f, heights: np.ndarray, spacing: float | None) -> None:
    import OpenEXR

    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    if spacing is not None:
        header[SPACING_KEY] = float(spacing)
    with OpenEXR.File(header, {"Y": heights}) as exr:
        exr.write(f)


def _exr_header(path: Path):
    """An EXR's header checked as a heightmap's, before any pixel is read: (y0, rows, columns,
    height channel name, stored spacing)."""
    import OpenEXR

    file_size(path)
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    if magic != b"\x76\x2f\x31\x01":
        raise FormatError(path, 0, "not an OpenEXR file (bad magic number)")
    try:  # the header first: refuse an impossible size before any pixel is allocated
        with OpenEXR.File(str(path), header_only=True) as exr:  # the header dies with the file: copy
            header = exr.header()
            window = [np.asarray(v).tolist() for v in header.get("dataWindow", ((0, 0), (-1, -1)))]
            names = [str(c.name) for c in header.get("channels", [])]
            stored_spacing = header.get(SPACING_KEY)
    except Exception as e:  # noqa: BLE001 — the library raises RuntimeError/ValueError/IndexError
        raise FormatError(path, "header", f"unreadable OpenEXR header: {e}") from None
    (x0, y0), (x1, y1) = window
    columns, rows = x1 - x0 + 1, y1 - y0 + 1
    if columns < 2 or rows < 2 or columns * rows > MAX_CELLS:
        raise FormatError(path, "dataWindow", f"impossible grid size {columns} x {rows}")
    name = next((n for n in _EXR_CHANNELS if n in names), names[0] if len(names) == 1 else None)
    if name is None:
        found = ", ".join(names) or "none"
        raise FormatError(path, "channels", f"no height channel: expected one of "
                          f"{', '.join(_EXR_CHANNELS)} or a single channel, found {found}")
    return y0, rows, columns, name, stored_spacing


def _read_exr(path: Path) -> tuple[np.ndarray, float | None]:
    import OpenEXR

    _, rows, columns, name, stored_spacing = _exr_header(path)
    try:
        with OpenEXR.File(str(path), separate_channels=True) as exr:
            channels = exr.channels()
            pixels = np.array(channels[name].pixels) if name in channels else None
    except Exception as e:  # noqa: BLE001
        raise FormatError(path, f"channel {name}", f"cannot read the pixels (truncated or corrupt?): {e}") \
            from None
    if not isinstance(pixels, np.ndarray) or pixels.shape != (rows, columns):
        raise FormatError(path, f"channel {name}", "cannot read the pixels (truncated or corrupt?)")
    if pixels.dtype not in (np.float32, np.float16):
        raise FormatError(path, f"channel {name}", f"holds {pixels.dtype} samples; a heightmap must be "
                          "a FLOAT (32-bit) or HALF channel")
    spacing = _spacing(path, stored_spacing, f"header {SPACING_KEY}")
    return np.ascontiguousarray(pixels, dtype=np.float32), spacing


# ---- TIFF ----------------------------------------------------------------------------------
def _write_tif(f, heights: np.ndarray, spacing: float | None) -> None:
    import tifffile

    description = json.dumps({SPACING_KEY: float(spacing)}) if spacing is not None else None
    # Uncompressed, one strip per 64 rows: what every heightmap tool reads.
    buffer = io.BytesIO()  # tifffile wants a named file; the atomic temp file is an anonymous fd
    tifffile.imwrite(buffer, heights, photometric="minisblack", description=description, metadata=None,
                     rowsperstrip=64)
    f.write(buffer.getbuffer())


def _tif_page(path: Path, tif) -> tuple[object, int, int, float | None]:
    """The first page of an open TIFF checked as a float heightmap: (page, rows, columns, spacing).
    Raises FormatError; tifffile's own errors are the caller's to turn into one."""
    actual = file_size(path)
    if not tif.pages:
        raise FormatError(path, None, "TIFF holds no image")
    page = tif.pages.first
    shape, dtype = tuple(page.shape), np.dtype(page.dtype) if page.dtype is not None else None
    samples = int(page.samplesperpixel)
    if dtype is None or dtype.kind != "f":
        raise FormatError(path, "page 0", f"holds {dtype} samples; a heightmap TIFF must be float "
                          "(32-bit floating point, SampleFormat 3)")
    if samples > 1 and len(shape) == 3 and shape[-1] == samples:
        rows, columns = shape[0], shape[1]
    elif samples > 1 and len(shape) == 3 and shape[0] == samples and int(page.planarconfig) == 2:
        rows, columns = shape[1], shape[2]  # separate planes: the heights are the first
    elif len(shape) == 2:
        rows, columns = shape
    else:
        raise FormatError(path, "page 0", f"expected one 2-D image, got shape {shape}")
    if columns < 2 or rows < 2 or rows * columns > MAX_CELLS:
        raise FormatError(path, "page 0", f"impossible grid size {columns} x {rows}")
    needed, what = _segments_needed(page, rows, columns)
    have = min(len(page.dataoffsets), len(page.databytecounts))
    if have != needed:  # a table that does not cover the image: rows of garbage, or of nothing
        raise FormatError(path, "page 0", f"the {what} table lists {have} {what}s; a {columns} x {rows} "
                          f"image in these {what}s needs {needed}")
    missing = next((k for k, o in enumerate(page.dataoffsets) if int(o) == 0), None)
    if missing is not None:  # offset 0 is the header: tifffile reads such a segment as absent
        raise FormatError(path, "page 0", f"{what} {missing} has no data (offset 0)")
    counts = [int(n) for n in page.databytecounts]
    wanted = _segment_bytes(page, rows, columns, needed) if int(page.compression) == 1 else [1] * needed
    short = next((k for k, (n, w) in enumerate(zip(counts, wanted, strict=True)) if n < w), None)
    if short is not None:  # tifffile would hand back uninitialised memory for the rest
        raise FormatError(path, "page 0", f"{what} {short} holds {counts[short]} bytes; its samples need "
                          f"{wanted[short]}")
    ends = [int(o) + int(n) for o, n in zip(page.dataoffsets, page.databytecounts, strict=False)]
    if not ends or max(ends) > actual:
        raise FormatError(path, "page 0", f"image data ends at byte {max(ends, default=0)} but the "
                          f"file holds {actual} (truncated)")
    spacing = None
    description = page.description
    if description.startswith("{"):
        try:
            meta = parse_json(description, path)
        except FormatError:  # another program's description: not ours to read
            meta = {}
        if isinstance(meta, dict):
            spacing = _spacing(path, meta.get(SPACING_KEY), f"ImageDescription {SPACING_KEY}")
    return page, int(rows), int(columns), spacing


def _segments_needed(page, rows: int, columns: int) -> tuple[int, str]:
    """How many strips (or tiles) an image of that size needs, and which it is stored in."""
    planes = int(page.samplesperpixel) if int(page.planarconfig) == 2 else 1
    if page.is_tiled:
        down, across = int(page.tilelength), int(page.tilewidth)
        if down < 1 or across < 1:
            return -1, "tile"
        return planes * -(-rows // down) * -(-columns // across), "tile"
    per = max(1, min(int(page.rowsperstrip) or rows, rows))
    return planes * -(-rows // per), "strip"


def _segment_bytes(page, rows: int, columns: int, count: int) -> list[int]:
    """The bytes each uncompressed strip or tile must hold (the last strip of a plane may be short)."""
    samples = int(page.samplesperpixel)
    chunky = int(page.planarconfig) != 2
    item = np.dtype(page.dtype).itemsize * (samples if chunky else 1)
    if page.is_tiled:
        return [int(page.tilelength) * int(page.tilewidth) * item] * count
    per = max(1, min(int(page.rowsperstrip) or rows, rows))
    strips = -(-rows // per)
    return [min(per, rows - (k % strips) * per) * columns * item for k in range(count)]


def _read_tif(path: Path) -> tuple[np.ndarray, float | None]:
    # the band reader's segments, joined: the whole-file read and the band read cannot disagree
    # (tifffile's own whole read pads a short or missing strip with zeros where the band read refuses)
    rows, columns, spacing, bands = _tif_source(path)
    heights = np.empty((rows, columns), np.float32)
    for r0, band in bands():
        heights[r0:r0 + len(band)] = band
    return heights, spacing


def _spacing(path: Path, value, place: str) -> float | None:
    if value is None:
        return None
    try:
        spacing = float(value)
    except (TypeError, ValueError):
        try:
            shown = repr(value)[:60]
        except Exception:  # noqa: BLE001 - a library value whose repr decodes damaged bytes
            shown = f"a {type(value).__name__}"
        raise FormatError(path, place, f"not a number: {shown}") from None
    if not (math.isfinite(spacing) and spacing > 0):
        raise FormatError(path, place, f"spacing must be positive and finite, got {spacing}")
    return spacing


# ---- band by band --------------------------------------------------------------------------
def float_heightmap_bands(path: str | Path, fmt: str, size: tuple[int, int] | None = None):
    """(rows, columns, spacing, bands) where `bands()` yields (first row, float32 rows) top to
    bottom, the heights `read_float_heightmap` gives, never the whole grid at once: RAW R32 by
    plain reads, TIFF strip by strip or tile row by tile row (a file stored as one strip is one
    band), EXR by scanline ranges (OpenEXR's `InputFile.channel`). A NaN, infinite or out-of-range
    height is the same refusal as `read_float_heightmap`'s, raised once every band has been looked at."""
    path = Path(path)
    if fmt == "r32":
        columns, rows = raw_grid_shape(path, size, 4, "32-bit float")
        spacing, raw = None, lambda: _r32_bands(path, rows, columns)
    elif fmt == "exr":
        rows, columns, spacing, raw = _exr_source(path)
    elif fmt == "tif":
        rows, columns, spacing, raw = _tif_source(path)
    else:
        raise ValueError(f"not a float heightmap format: {fmt!r}")
    return rows, columns, spacing, lambda: checked_bands(path, raw())


def checked_bands(path: Path, bands):
    """The bands as they come, until one holds a height `check_heights` refuses: then the rest are
    counted, not yielded, and the refusal names the first such sample."""
    first, not_finite, beyond = None, 0, 0
    for r0, heights in bands:
        at, n, m = height_grid_faults(heights)
        if at is not None:
            if first is None:
                first = (r0 + at[0], at[1], float(heights[at]))
            not_finite, beyond = not_finite + n, beyond + m  # all counted, as the whole-file check does
        elif first is None:
            yield r0, heights
    if first is not None:
        row, column, value = first
        raise FormatError(path, f"row {row}, column {column}", height_grid_reason(value, not_finite, beyond))


BAND_ROWS = 512  # rows read at a time where the file leaves the choice to us


def _r32_bands(path: Path, rows: int, columns: int):
    try:
        with open(path, "rb") as f:
            for r0 in range(0, rows, BAND_ROWS):
                n = min(BAND_ROWS, rows - r0)
                data = np.fromfile(f, dtype="<f4", count=n * columns)
                if data.size != n * columns:
                    raise FormatError(path, r0 * columns * 4, "the file ended early (changed while read?)")
                yield r0, data.reshape(n, columns).astype(np.float32, copy=False)
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None


def _exr_source(path: Path):
    import Imath
    import OpenEXR

    y0, rows, columns, name, stored_spacing = _exr_header(path)
    try:
        legacy = OpenEXR.InputFile(str(path))
        types = {str(k): v.type.v for k, v in legacy.header()["channels"].items()}
    except Exception as e:  # noqa: BLE001 — the library raises RuntimeError/ValueError/IndexError
        raise FormatError(path, "header", f"unreadable OpenEXR header: {e}") from None
    kind = types.get(name)
    if kind not in (Imath.PixelType.FLOAT, Imath.PixelType.HALF):
        held = "uint32" if kind == Imath.PixelType.UINT else str(kind)
        raise FormatError(path, f"channel {name}", f"holds {held} samples; a heightmap must be "
                          "a FLOAT (32-bit) or HALF channel")
    spacing = _spacing(path, stored_spacing, f"header {SPACING_KEY}")
    as_float = Imath.PixelType(Imath.PixelType.FLOAT)  # HALF widens exactly, as the whole read does

    def bands():
        for r0 in range(0, rows, BAND_ROWS):
            n = min(BAND_ROWS, rows - r0)
            try:
                data = legacy.channel(name, as_float, y0 + r0, y0 + r0 + n - 1)
                block = np.frombuffer(data, np.float32).reshape(n, columns)
            except Exception as e:  # noqa: BLE001
                raise FormatError(path, f"channel {name}", "cannot read the pixels (truncated or "
                                  f"corrupt?): {e}") from None
            yield r0, block.copy()

    return rows, columns, spacing, bands


def _tif_source(path: Path):
    import tifffile

    try:
        tif = tifffile.TiffFile(path)
    except Exception as e:  # noqa: BLE001
        raise FormatError(path, None, f"unreadable TIFF: {e}") from None
    try:
        page, rows, columns, spacing = _tif_page(path, tif)
    except FormatError:
        tif.close()
        raise
    except Exception as e:  # noqa: BLE001 — tifffile raises TiffFileError/ValueError/OSError/…
        tif.close()
        raise FormatError(path, None, f"unreadable TIFF: {e}") from None

    def bands():
        # segments come row of chunks by row of chunks; a band is one such row, cropped
        band, band_y = None, -1
        try:
            with tif:
                for seg, index, _ in page.segments(maxworkers=1, buffersize=1 << 20):
                    # index: (sample plane, depth, y, x); only the first plane and slice are heights
                    if seg is None or index[0] != 0 or index[1] != 0:
                        continue
                    y, x = int(index[2]), int(index[3])
                    block = np.asarray(seg).reshape(seg.shape[-3:])[..., 0]
                    h, w = min(block.shape[0], rows - y), min(block.shape[1], columns - x)
                    if y != band_y:
                        if band is not None:
                            yield band_y, band
                        if y != (0 if band is None else band_y + len(band)):
                            raise FormatError(path, "page 0", f"the image data skips rows before row {y}")
                        band, band_y = np.zeros((h, columns), np.float32), y  # a missing chunk reads as 0
                    band[:, x:x + w] = block[:h, :w]
                if band is not None:
                    yield band_y, band
                if band is None or band_y + len(band) != rows:
                    raise FormatError(path, "page 0", f"the image data stops before row {rows}")
        except FormatError:
            raise
        except Exception as e:  # noqa: BLE001
            raise FormatError(path, None, f"unreadable TIFF: {e}") from None

    return rows, columns, spacing, bands
