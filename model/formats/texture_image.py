"""Texture images for terrain materials: PNG, JPEG and OpenEXR in, as (rows, columns, channels) arrays.

The header is read first and an impossible size refused before any pixel is allocated; every
problem is one FormatError naming the file and the place.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

from model.errors import FormatError

MAX_SIDE = 8192  # a texture larger than this is refused (a 2-D array layer of 8,192² RGBA is 256 MB)
MAX_FILE_BYTES = 512 << 20


def image_size(path: Path, data: bytes | None = None) -> tuple[int, int, str]:
    """(width, height, kind) from the file's header, checked: kind is "png", "jpeg" or "exr"."""
    head = data[:65536] if data is not None else _head(path)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        if len(head) < 24 or head[12:16] != b"IHDR":
            raise FormatError(path, 8, "PNG without its IHDR header (truncated?)")
        width, height = struct.unpack(">II", head[16:24])
        kind = "png"
    elif head.startswith(b"\xff\xd8"):
        width, height = _jpeg_size(path, data if data is not None else _read(path))
        kind = "jpeg"
    elif head.startswith(b"\x76\x2f\x31\x01"):
        width, height = _exr_size(path)
        kind = "exr"
    else:
        raise FormatError(path, 0, "not a PNG, JPEG or OpenEXR image")
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise FormatError(path, "header", f"image of {width} x {height} pixels; a texture is 1 to "
                          f"{MAX_SIDE} pixels a side")
    return width, height, kind


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(65536)
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None


def _read(path: Path) -> bytes:
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            raise FormatError(path, None, f"{size} bytes; a texture file holds at most {MAX_FILE_BYTES}")
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(path: Path, data: bytes) -> tuple[int, int]:
    """The frame size from the first SOF marker."""
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise FormatError(path, pos, "JPEG marker expected (damaged file)")
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        length = struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if marker in _SOF:
            if pos + 9 > len(data):
                break
            height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
            return width, height
        if marker == 0xDA or length < 2:
            break
        pos += 2 + length
    raise FormatError(path, pos, "JPEG without a frame header (truncated?)")


def _exr_size(path: Path) -> tuple[int, int]:
    import OpenEXR

    try:
        with OpenEXR.File(str(path), header_only=True) as exr:
            window = [np.asarray(v).tolist() for v in exr.header().get("dataWindow", ((0, 0), (-1, -1)))]
    except Exception as e:  # noqa: BLE001 — the library raises RuntimeError/ValueError/IndexError
        raise FormatError(path, "header", f"unreadable OpenEXR header: {e}") from None
    (x0, y0), (x1, y1) = window
    return x1 - x0 + 1, y1 - y0 + 1


def read_texture(path: str | Path) -> np.ndarray:
    """The image as (rows, columns, channels), 1 to 4 channels: uint8 as stored for 8-bit PNG and
    JPEG, else float32 (16-bit PNG scaled to 0..1, EXR as stored)."""
    path = Path(path)
    exr = _head(path).startswith(b"\x76\x2f\x31\x01")
    data = None if exr else _read(path)
    width, height, kind = image_size(path, data)
    if kind == "exr":
        pixels = _read_exr(path, width, height)
    else:
        import imagecodecs

        try:
            raw = imagecodecs.png_decode(data) if kind == "png" else imagecodecs.jpeg8_decode(data)
        except Exception as e:  # noqa: BLE001 — the codecs raise their own error types
            raise FormatError(path, None, f"cannot decode the {kind.upper()} image: {e}") from None
        if raw.shape[:2] != (height, width):
            raise FormatError(path, None, f"decoded {raw.shape[1]} x {raw.shape[0]} pixels, the header "
                              f"says {width} x {height}")
        if raw.dtype == np.uint8:
            pixels = raw  # 8-bit stays 8-bit: a 2,048² RGBA texture is 16 MB, not 64
        elif raw.dtype.kind == "u":
            pixels = raw.astype(np.float32) * np.float32(1.0 / np.iinfo(raw.dtype).max)
        else:
            raise FormatError(path, None, f"holds {raw.dtype} samples; expected 8 or 16 bits")
    if pixels.ndim == 2:
        pixels = pixels[..., None]
    if pixels.shape[2] > 4:
        raise FormatError(path, None, f"{pixels.shape[2]} channels; a texture has 1 to 4")
    if pixels.dtype != np.uint8 and not np.isfinite(pixels).all():
        raise FormatError(path, None, "holds NaN or infinite values")
    return pixels


def _read_exr(path: Path, width: int, height: int) -> np.ndarray:
    import OpenEXR

    try:
        with OpenEXR.File(str(path), separate_channels=True) as exr:
            channels = {k: np.array(v.pixels) for k, v in exr.channels().items()}
    except Exception as e:  # noqa: BLE001
        raise FormatError(path, None, f"cannot read the pixels (truncated or corrupt?): {e}") from None
    order = [c for c in ("R", "G", "B", "A") if c in channels] or [c for c in ("Y",) if c in channels]
    if not order:
        order = sorted(channels)[:1]
    if not order:
        raise FormatError(path, "channels", "no channels")
    planes = [channels[c] for c in order]
    if any(p.shape != (height, width) for p in planes):
        raise FormatError(path, "channels", "a channel's size differs from the data window")
    return np.stack([p.astype(np.float32) for p in planes], axis=-1)
