"""The zone layers: element types, file names, and the 7-byte PlantInfo record."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from model.errors import FormatError

# Per-tile plant state, exactly as the plant layer stores it (7 bytes, no padding).
PLANT_INFO = np.dtype([("type", "u1"), ("state", "u1"), ("time", "u1"), ("spawn", "u1"),
                       ("health", "u1"), ("material", "u1"), ("groundType", "u1")])
# A `blocks` tile: flags, then blocking height.
BLOCK_INFO = np.dtype([("flags", "u1"), ("height", "u1")])


@dataclass(frozen=True)
class LayerKind:
    """One layer file: its name and the little-endian element each tile holds."""

    name: str
    dtype: np.dtype
    meaning: str

    @property
    def tile_bytes(self) -> int:
        return self.dtype.itemsize


LAYERS: dict[str, LayerKind] = {k.name: k for k in (
    LayerKind("altitude", np.dtype("<u2"), "height; raw / 32 is the altitude in units"),
    LayerKind("altitude_original", np.dtype("<u2"), "altitude before terraforming"),
    LayerKind("altitude_blend", np.dtype("<u2"), "terraforming blend"),
    LayerKind("blocks", BLOCK_INFO, "block flags and blocking height"),
    LayerKind("control", np.dtype("<u2"), "control bits"),
    LayerKind("plants", PLANT_INFO, "PlantInfo: type, state, time, spawn, health, material, groundType"),
)}
LAYER_NAMES = tuple(LAYERS)

MAX_ZONE_ID = 99_999_999
# Largest zone side accepted (real zones are at most 2048); refuses absurd sizes before allocating.
MAX_SIDE = 16384

_FILE_RE = re.compile(r"^([a-z_]+)\.(\d{4,})\.bin(\.gz)?$")


def layer_filename(layer: str, zone_id: int, gz: bool = False) -> str:
    """`{layer}.{zoneId:04d}.bin` (or `.bin.gz`)."""
    if layer not in LAYERS:
        raise ValueError(f"unknown zone layer {layer!r}")
    if not 0 <= zone_id <= MAX_ZONE_ID:
        raise ValueError(f"zone id must be 0..{MAX_ZONE_ID}, got {zone_id}")
    return f"{layer}.{zone_id:04d}.bin" + (".gz" if gz else "")


def parse_layer_filename(name: str) -> tuple[str, int, bool]:
    """(layer, zone id, gzipped) from a layer file's name; FormatError for a name that is not one."""
    m = _FILE_RE.match(name)
    if not m or m.group(1) not in LAYERS:
        lowered = _FILE_RE.match(name.lower())
        hint = ""
        if lowered and lowered.group(1) in LAYERS and name != name.lower():
            hint = " (layer file names are lower case)"
        raise FormatError(name, None, "not a zone layer file name: expected "
                          f"{{layer}}.{{zoneId:04d}}.bin[.gz] with layer one of "
                          f"{', '.join(LAYER_NAMES)}{hint}")
    return m.group(1), int(m.group(2)), m.group(3) is not None


def parse_size(text: str) -> tuple[int, int]:
    """'W' or 'WxH' → (width, height); ValueError when it is not that."""
    parts = text.lower().split("x")
    if len(parts) not in (1, 2) or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"expected W or WxH, got {text!r}")
    w = int(parts[0])
    h = int(parts[-1])
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"zone size must be 1..{MAX_SIDE} per side, got {text!r}")
    return w, h
