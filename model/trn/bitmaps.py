"""Bitmap families' images for FBIT filters: grey PNG or uncompressed TGA found beside the TRN file.

A family names its image by a path from the game's data tree; only the file name is looked up, and
only inside the folder the TRN was opened from, so a reference can never escape that folder.
"""

from __future__ import annotations

import struct
from pathlib import Path, PureWindowsPath

import numpy as np

from model.errors import FormatError, check_available
from model.formats.png import read_png
from model.trn.document import TrnDocument

SUFFIXES = (".png", ".tga")


def decode_tga(data: bytes, path: str | Path | None = None) -> np.ndarray:
    """Uncompressed grey (type 3) or true-colour (type 2) TGA → float 0..1, row 0 at the bottom edge."""
    if len(data) < 18:
        raise FormatError(path, 0, "TGA header needs 18 bytes")
    id_len, cmap_type, kind = data[0], data[1], data[2]
    width, height, depth, desc = struct.unpack_from("<HHBB", data, 12)
    if cmap_type != 0 or kind not in (2, 3):
        raise FormatError(path, 2, f"TGA image type {kind} is not supported "
                                   "(uncompressed grey or colour only)")
    channels = depth // 8
    if depth not in (8, 24, 32) or width == 0 or height == 0:
        raise FormatError(path, 16, f"TGA depth {depth} or size {width}x{height} is not supported")
    start = 18 + id_len
    check_available(path, 12, width * height * channels, len(data) - start, "TGA pixels")
    pixels = np.frombuffer(data, np.uint8, width * height * channels, start).reshape(height, width, channels)
    grey = pixels[..., 0] if channels == 1 else pixels[..., :3].mean(axis=2)
    if desc & 0x20:  # stored top row first: flip so row 0 is the bottom, as the map's south edge
        grey = grey[::-1]
    return np.ascontiguousarray(grey, np.float64) / 255.0


def _find(folder: Path, reference: str) -> Path | None:
    name = PureWindowsPath(reference).name  # game paths use either separator
    if not name:
        return None
    stem = Path(name).stem
    for candidate in [name] + [stem + s for s in SUFFIXES]:
        try:
            path = (folder / candidate).resolve()
            if path.parent == folder.resolve() and path.is_file():
                return path
        except (OSError, ValueError):  # a name no file here can have (too long for the file system)
            continue
    return None


def load_bitmaps(doc: TrnDocument,
                 folder: str | Path | None = None) -> tuple[dict[int, np.ndarray], list[str]]:
    """Images of the document's bitmap families found in `folder` (default: the TRN's own folder).

    Returns (family id → 0..1 array with row 0 at the map's south edge, messages for those missing)."""
    folder = Path(folder) if folder is not None else (doc.path.parent if doc.path else None)
    images: dict[int, np.ndarray] = {}
    missing: list[str] = []
    for fam in doc.families["bitmap"]:
        ref = str(fam.record["bitmapFile"])
        path = _find(folder, ref) if folder is not None else None
        if path is None:
            missing.append(f"bitmap family {fam.id}: {ref!r} not found beside the TRN file")
            continue
        if path.suffix.lower() == ".png":
            img = read_png(path).pixels
            scale = 65535.0 if img.dtype == np.uint16 else 255.0
            images[fam.id] = np.ascontiguousarray(img[::-1], np.float64) / scale  # PNG rows run north → south
        else:
            try:
                data = path.read_bytes()
            except OSError as e:
                raise FormatError(path, None, f"cannot read: {e.strerror or e}") from None
            images[fam.id] = decode_tga(data, path)
    return images, missing
