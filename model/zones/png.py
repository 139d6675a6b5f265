"""A minimal PNG encoder (8-bit grey or RGB/RGBA), so headless commands can write images without Qt."""

from __future__ import annotations

import struct
import zlib

import numpy as np

_COLOR_TYPES = {1: 0, 3: 2, 4: 6}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes of a uint8 image shaped (h, w), (h, w, 3) or (h, w, 4); row 0 is the top."""
    image = np.asarray(image)
    if image.dtype != np.uint8:
        raise ValueError("PNG images must be uint8")
    channels = 1 if image.ndim == 2 else image.shape[2]
    if image.ndim not in (2, 3) or channels not in _COLOR_TYPES:
        raise ValueError(f"unsupported image shape {image.shape}")
    h, w = image.shape[:2]
    rows = image.reshape(h, w * channels)
    # Filter type 0 (none) on every row.
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPES[channels], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b""))


def decode_png_gray(data: bytes) -> np.ndarray:
    """Read back an 8-bit, unfiltered, non-interlaced PNG as written by `encode_png` (for checks)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos = 8
    idat = b""
    w = h = channels = 0
    while pos < len(data):
        (n,) = struct.unpack_from(">I", data, pos)
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, _, ct = struct.unpack_from(">IIBB", body)
            channels = {0: 1, 2: 3, 6: 4}[ct]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * channels)
    if rows[:, 0].any():
        raise ValueError("filtered rows are not supported")
    out = rows[:, 1:]
    return out.reshape(h, w) if channels == 1 else out.reshape(h, w, channels)
