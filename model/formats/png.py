"""A minimal PNG codec (grey 8/16-bit, RGB(A) 8-bit), with zlib and struct only.

Reading accepts every filter type (0–4), grey, grey+alpha, RGB and RGBA at 8 or 16 bits (the
first channel is the value), and `tEXt` metadata. Interlaced and palette images are refused
with a clear error. Writing produces 8/16-bit grey or 8-bit RGB(A) images, filtered per row
(adaptive by default).
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from model.atomic import atomic_write
from model.errors import FormatError

SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_PIXELS = 16384 * 16384
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type → samples per pixel
_COLOUR_TYPES = {1: 0, 3: 2, 4: 6}  # samples per pixel written → colour type
_IDAT_SIZE = 1 << 20
COMPRESSION = 3  # zlib level: most of level 9's gain on heightmaps at a fraction of the time


class PngImage(NamedTuple):
    """Decoded pixels (rows × columns: the first channel, or rows × columns × channels when all
    channels were asked for; uint8 or uint16) and the tEXt entries."""

    pixels: np.ndarray
    text: dict[str, str]


# ---- writing ---------------------------------------------------------------------------------
def encode_png(image: np.ndarray, filters: int | str | np.ndarray = "adaptive",
               text: dict[str, str] | None = None) -> bytes:
    """PNG bytes for a 2-D uint8/uint16 grey image, or a uint8 RGB/RGBA image (h, w, 3|4).

    `filters` is one filter type for every row, an array of one type per row, or "adaptive"
    (per row, the type whose output has the smallest sum of absolute signed bytes).
    """
    image = np.asarray(image)
    if image.ndim == 3 and image.dtype == np.uint8 and image.shape[2] in _COLOUR_TYPES:
        channels = image.shape[2]
    elif image.ndim == 2 and image.dtype in (np.uint8, np.uint16):
        channels = 1
    else:
        raise ValueError("encode_png takes a 2-D uint8/uint16 grey or an (h, w, 3|4) uint8 image")
    if min(image.shape[:2]) < 1:
        raise ValueError("encode_png takes a non-empty image")
    height, width = image.shape[:2]
    depth = 8 * image.dtype.itemsize
    raw = np.ascontiguousarray(image.astype(">u2") if depth == 16 else image)
    bpp = image.dtype.itemsize * channels
    rows = raw.view(np.uint8).reshape(height, width * bpp)
    filtered = _filter_rows(rows, bpp, filters)
    ihdr = struct.pack(">IIBBBBB", width, height, depth, _COLOUR_TYPES[channels], 0, 0, 0)
    out = [SIGNATURE, _chunk(b"IHDR", ihdr)]
    for key, value in (text or {}).items():
        out.append(_chunk(b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1")))
    data = zlib.compress(filtered.tobytes(), COMPRESSION)
    for start in range(0, len(data), _IDAT_SIZE):
        out.append(_chunk(b"IDAT", data[start:start + _IDAT_SIZE]))
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)


def write_png(path: str | Path, image: np.ndarray, filters: int | str | np.ndarray = "adaptive",
              text: dict[str, str] | None = None) -> None:
    """Write a grey PNG atomically."""
    atomic_write(path, encode_png(image, filters, text))


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def _predictions(rows: np.ndarray, prev: np.ndarray, bpp: int) -> list[np.ndarray]:
    """What each filter type predicts for every byte (int16), from the unfiltered bytes."""
    x = rows.astype(np.int16)
    b = prev.astype(np.int16)
    a = np.zeros_like(x)
    a[:, bpp:] = x[:, :-bpp]
    c = np.zeros_like(x)
    c[:, bpp:] = b[:, :-bpp]
    return [np.zeros_like(x), a, b, (a + b) >> 1, _paeth(a, b, c)]


def _filter_rows(rows: np.ndarray, bpp: int, filters: int | str | np.ndarray) -> np.ndarray:
    height, stride = rows.shape
    out = np.empty((height, stride + 1), np.uint8)
    block = max(1, (1 << 20) // max(1, stride))  # bound the temporary arrays
    for start in range(0, height, block):
        chunk = rows[start:start + block]
        prev = np.zeros_like(chunk)
        prev[1:] = chunk[:-1]
        if start:
            prev[0] = rows[start - 1]
        residues = [(chunk.astype(np.int16) - p) & 0xFF for p in _predictions(chunk, prev, bpp)]
        if isinstance(filters, str):
            if filters != "adaptive":
                raise ValueError(f"unknown filter choice {filters!r}")
            cost = np.stack([np.abs(r.astype(np.int8).astype(np.int32)).sum(axis=1) for r in residues])
            kinds = np.argmin(cost, axis=0)
        else:
            kinds = np.broadcast_to(np.asarray(filters, np.int64), (height,))[start:start + block]
            if ((kinds < 0) | (kinds > 4)).any():
                raise ValueError("PNG filter types are 0..4")
        stacked = np.stack(residues)
        out[start:start + block, 0] = kinds
        out[start:start + block, 1:] = stacked[kinds, np.arange(len(chunk))]
    return out


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


# ---- reading ---------------------------------------------------------------------------------
def read_png(path: str | Path, all_channels: bool = False) -> PngImage:
    """Decode a PNG file; any problem raises FormatError naming the file and the byte offset."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FormatError(path, None, "file not found") from None
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    return decode_png(data, path, all_channels)


def decode_png(data: bytes, path: str | Path | None = None, all_channels: bool = False) -> PngImage:
    if not data.startswith(SIGNATURE):
        raise FormatError(path, 0, "not a PNG file (bad signature)")
    pos = len(SIGNATURE)
    header = None
    idat: list[bytes] = []
    text: dict[str, str] = {}
    idat_offset = None
    while True:
        if len(data) - pos < 12:
            raise FormatError(path, pos, "truncated: missing chunk or IEND")
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if length > len(data) - pos - 12:
            raise FormatError(path, pos, f"chunk {kind!r} claims {length} bytes but only "
                              f"{max(0, len(data) - pos - 12)} remain")
        payload = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + payload) != crc:
            raise FormatError(path, pos, f"chunk {kind.decode('latin-1')!r} checksum mismatch (file damaged)")
        if header is None and kind != b"IHDR":
            raise FormatError(path, pos, "the first chunk must be IHDR")
        if kind == b"IHDR":
            header = _parse_header(payload, path, pos)
        elif kind == b"IDAT":
            idat_offset = pos if idat_offset is None else idat_offset
            idat.append(payload)
        elif kind == b"tEXt":
            key, _, value = payload.partition(b"\0")
            text[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"IEND":
            break
        elif kind[0:1].isupper() and kind != b"PLTE":
            raise FormatError(path, pos, f"unknown critical chunk {kind.decode('latin-1')!r}")
        pos += 12 + length
    if not idat:
        raise FormatError(path, pos, "no image data (IDAT)")
    width, height, depth, channels = header
    pixels = _decode_pixels(b"".join(idat), width, height, depth, channels, path, idat_offset)
    if not all_channels:
        pixels = np.ascontiguousarray(pixels[:, :, 0])
    elif channels == 1:
        pixels = pixels[:, :, 0]
    return PngImage(pixels, text)


def _parse_header(payload: bytes, path, pos: int) -> tuple[int, int, int, int]:
    if len(payload) != 13:
        raise FormatError(path, pos, "IHDR must hold 13 bytes")
    width, height, depth, colour, compression, filter_method, interlace = struct.unpack(">IIBBBBB", payload)
    if width == 0 or height == 0 or width * height > MAX_PIXELS:
        raise FormatError(path, pos + 8, f"impossible image size {width} x {height}")
    if colour == 3:
        raise FormatError(path, pos + 16, "palette images are not heightmaps; save as greyscale")
    if colour not in _CHANNELS or depth not in (8, 16):
        raise FormatError(path, pos + 16, f"unsupported PNG: colour type {colour}, {depth}-bit "
                          "(grey, grey+alpha, RGB or RGBA at 8 or 16 bits are read)")
    if compression != 0 or filter_method != 0:
        raise FormatError(path, pos + 18, "unknown compression or filter method")
    if interlace != 0:
        raise FormatError(path, pos + 20, "interlaced PNG is not supported; save without interlacing")
    return width, height, depth, _CHANNELS[colour]


def _decode_pixels(compressed: bytes, width: int, height: int, depth: int, channels: int,
                   path, offset: int | None) -> np.ndarray:
    bpp = channels * depth // 8
    stride = width * bpp
    expected = height * (stride + 1)
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(compressed, expected + 1)
    except zlib.error as e:
        raise FormatError(path, offset, f"damaged image data: {e}") from None
    if len(raw) != expected:
        what = "more" if len(raw) > expected else "less"
        raise FormatError(path, offset, f"image data holds {what} than {width} x {height} needs "
                          f"(expected {expected} bytes after inflating, got "
                          f"{len(raw) if len(raw) <= expected else 'more'})")
    lines = np.frombuffer(raw, np.uint8).reshape(height, stride + 1)
    kinds = lines[:, 0]
    bad = np.nonzero(kinds > 4)[0]
    if bad.size:
        raise FormatError(path, offset, f"row {int(bad[0])} has unknown filter type {int(kinds[bad[0]])}")
    rows = unfilter(lines[:, 1:], kinds, bpp)
    samples = rows.reshape(height, width, channels * depth // 8)
    if depth == 16:
        return np.ascontiguousarray(samples).view(">u2").astype(np.uint16)
    return samples


def unfilter(rows: np.ndarray, kinds: np.ndarray, bpp: int, prev: np.ndarray | None = None) -> np.ndarray:
    """Undo PNG row filters. Sub/Up rows go a row at a time; Average/Paeth sweep anti-diagonals.

    `prev`: the decoded row above the first (a band of a larger image); zeros when absent."""
    if (kinds <= 2).all():
        return _unfilter_rows(rows, kinds, bpp, prev)
    return _unfilter_wavefront(rows, kinds, bpp, prev)


def _unfilter_rows(rows: np.ndarray, kinds: np.ndarray, bpp: int,
                   prev: np.ndarray | None = None) -> np.ndarray:
    out = np.empty_like(rows)
    prev = np.zeros(rows.shape[1], np.uint8) if prev is None else prev
    for r in range(rows.shape[0]):
        kind = kinds[r]
        if kind == 0:
            out[r] = rows[r]
        elif kind == 2:
            out[r] = rows[r] + prev
        else:  # Sub: a running sum per byte lane, wrapping at 256
            out[r] = np.cumsum(rows[r].reshape(-1, bpp), axis=0, dtype=np.uint8).reshape(-1)
        prev = out[r]
    return out


def _unfilter_wavefront(rows: np.ndarray, kinds: np.ndarray, bpp: int,
                        prev: np.ndarray | None = None) -> np.ndarray:
    """Each pixel needs its left, upper and upper-left neighbours, so every anti-diagonal is
    independent. Bands of rows are sheared so that each diagonal is a contiguous row of an array.
    """
    height, stride = rows.shape
    width = stride // bpp
    x = rows.reshape(height, width, bpp)
    out = np.empty_like(x)
    prev = np.zeros((width, bpp), np.uint8) if prev is None else prev.reshape(width, bpp)
    for start in range(0, height, WAVEFRONT_BAND):
        band = slice(start, min(height, start + WAVEFRONT_BAND))
        out[band] = _unfilter_band(x[band], kinds[band].astype(np.int16), prev)
        prev = out[band.stop - 1]
    return out.reshape(height, stride)


WAVEFRONT_BAND = 512  # rows per band: fewer bands mean fewer steps, larger ones more memory


def _unfilter_band(x: np.ndarray, kinds: np.ndarray, prev: np.ndarray) -> np.ndarray:
    """Decode rows of (h, w, bpp) filtered bytes whose upper neighbour row is `prev`.

    Pixel (r, c) lives at diagonal d = r + c. Sheared input: s[d, r]. Decoded output:
    p[d + 2, r + 1], where column 0 holds the row above (p[c + 1, 0] = prev[c]) and every cell
    outside the image stays zero, so the borders need no special cases.
    """
    h, w, bpp = x.shape
    s = np.zeros((h + w - 1, h, bpp), np.uint8)
    for r in range(h):
        s[r:r + w, r] = x[r]
    p = np.zeros((h + w + 1, h + 1, bpp), np.uint8)
    p[1:w + 1, 0] = prev
    for d in range(h + w - 1):
        r0, r1 = max(0, d - w + 1), min(h - 1, d) + 1
        a = p[d + 1, r0 + 1:r1 + 1].astype(np.int16)  # left: (r, c - 1) on diagonal d - 1
        b = p[d + 1, r0:r1].astype(np.int16)  # up: (r - 1, c) on diagonal d - 1
        c = p[d, r0:r1].astype(np.int16)  # up-left: (r - 1, c - 1) on diagonal d - 2
        k = kinds[r0:r1, None]
        pred = np.where(k == 1, a, np.where(k == 2, b, np.where(k == 3, (a + b) >> 1,
                                                                np.where(k == 4, _paeth(a, b, c), 0))))
        p[d + 2, r0 + 1:r1 + 1] = (s[d, r0:r1] + pred) & 0xFF
    out = np.empty_like(x)
    for r in range(h):
        out[r] = p[r + 2:r + 2 + w, r + 1]
    return out


# ---- reading band by band ------------------------------------------------------------------
_READ_PIECE = 1 << 20  # bytes of compressed data read (and inflated) at a time


class PngBands:
    """A PNG read a band of rows at a time (for images too big to hold whole): the chunks are
    walked and checked first, with the errors `read_png` gives; then `bands(n)` inflates and
    unfilters `n` rows at a time, the same pixels `read_png` gives, in bounded memory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.text: dict[str, str] = {}
        self._idat: list[tuple[int, int]] = []  # (offset of the payload, length)
        self._idat_offset: int | None = None
        try:
            with open(self.path, "rb") as f:
                self._walk(f, os.fstat(f.fileno()).st_size)
        except FileNotFoundError:
            raise FormatError(self.path, None, "file not found") from None
        except OSError as e:
            raise FormatError(self.path, None, e.strerror or str(e)) from None
        self.width, self.height, self.depth, self.channels = self._header

    def _walk(self, f, size: int) -> None:
        path = self.path
        if f.read(len(SIGNATURE)) != SIGNATURE:
            raise FormatError(path, 0, "not a PNG file (bad signature)")
        pos = len(SIGNATURE)
        header = None
        while True:
            if size - pos < 12:
                raise FormatError(path, pos, "truncated: missing chunk or IEND")
            f.seek(pos)
            length, kind = struct.unpack(">I4s", f.read(8))
            if length > size - pos - 12:
                raise FormatError(path, pos, f"chunk {kind!r} claims {length} bytes but only "
                                  f"{max(0, size - pos - 12)} remain")
            crc = zlib.crc32(kind)
            keep = kind != b"IDAT"
            payload = bytearray()
            left = length
            while left:
                piece = f.read(min(left, _READ_PIECE))
                if not piece:
                    raise FormatError(path, pos, "truncated: missing chunk or IEND")
                crc = zlib.crc32(piece, crc)
                if keep:
                    payload += piece
                left -= len(piece)
            (stored,) = struct.unpack(">I", f.read(4))
            if crc != stored:
                raise FormatError(path, pos, f"chunk {kind.decode('latin-1')!r} checksum mismatch "
                                  "(file damaged)")
            if header is None and kind != b"IHDR":
                raise FormatError(path, pos, "the first chunk must be IHDR")
            if kind == b"IHDR":
                header = _parse_header(bytes(payload), path, pos)
            elif kind == b"IDAT":
                self._idat_offset = pos if self._idat_offset is None else self._idat_offset
                self._idat.append((pos + 8, length))
            elif kind == b"tEXt":
                key, _, value = bytes(payload).partition(b"\0")
                self.text[key.decode("latin-1")] = value.decode("latin-1")
            elif kind == b"IEND":
                break
            elif kind[0:1].isupper() and kind != b"PLTE":
                raise FormatError(path, pos, f"unknown critical chunk {kind.decode('latin-1')!r}")
            pos += 12 + length
        if not self._idat:
            raise FormatError(path, pos, "no image data (IDAT)")
        self._header = header

    def _inflated(self, f):
        inflater = zlib.decompressobj()
        try:
            for offset, length in self._idat:
                f.seek(offset)
                left = length
                while left:
                    piece = f.read(min(left, _READ_PIECE))
                    left -= len(piece)
                    out = inflater.decompress(piece, _READ_PIECE * 4)
                    yield out
                    while inflater.unconsumed_tail:
                        yield inflater.decompress(inflater.unconsumed_tail, _READ_PIECE * 4)
            yield inflater.flush()
        except zlib.error as e:
            raise FormatError(self.path, self._idat_offset, f"damaged image data: {e}") from None

    def bands(self, rows: int):
        """(first row, pixels) of every band of up to `rows` rows, top to bottom: the first
        channel, uint8 or uint16, as `read_png` gives them."""
        width, height, depth, channels = self._header
        bpp = channels * depth // 8
        stride = width * bpp
        expected = height * (stride + 1)
        band = np.empty((min(rows, height), stride + 1), np.uint8)  # one band, filled in place
        flat = band.reshape(-1)
        got = pos = r0 = 0
        prev = None
        try:
            f = open(self.path, "rb")
        except OSError as e:
            raise FormatError(self.path, None, e.strerror or str(e)) from None
        with f:
            for piece in self._inflated(f):
                got += len(piece)
                if got > expected:
                    break
                data = np.frombuffer(piece, np.uint8)
                off = 0
                while off < data.size:
                    n = min(rows, height - r0)
                    need = n * (stride + 1)
                    take = min(need - pos, data.size - off)
                    flat[pos:pos + take] = data[off:off + take]
                    pos += take
                    off += take
                    if pos < need:
                        continue
                    lines = band[:n]
                    kinds = lines[:, 0]
                    bad = np.nonzero(kinds > 4)[0]
                    if bad.size:
                        raise FormatError(self.path, self._idat_offset, f"row {r0 + int(bad[0])} has "
                                          f"unknown filter type {int(kinds[bad[0]])}")
                    decoded = unfilter(lines[:, 1:], kinds, bpp, prev)
                    prev = decoded[-1].copy()
                    samples = decoded.reshape(n, width, bpp)
                    if depth == 16:
                        first = np.ascontiguousarray(samples[:, :, :2])
                        pixels = first.view(">u2")[:, :, 0].astype(np.uint16)
                    else:
                        pixels = np.ascontiguousarray(samples[:, :, 0])
                    del decoded, samples
                    yield r0, pixels
                    r0 += n
                    pos = 0
            if got != expected:
                what = "more" if got > expected else "less"
                raise FormatError(self.path, self._idat_offset, f"image data holds {what} than {width} x "
                                  f"{height} needs (expected {expected} bytes after inflating, got "
                                  f"{got if got <= expected else 'more'})")
