"""Which variant mesh and which colour shift an instance gets: derived from its hash, never stored.

The hash is `hashing.position_hashes(x, z, type_key(name))` of the record's own float32 position
bits, so an instance keeps its look when saved, loaded, moved back by undo or exported, and the
28-byte record does not change. The GPU twin is `rendering/shaders/foliage_common.glsl`
(`instance_hash`, `variant_of`, `colour_shift`); keep them in step. The variant is chosen with
integer thresholds (24-bit), so CPU and GPU agree exactly, not just closely.
"""

from __future__ import annotations

import numpy as np

from model import portable_math as pmath
from model.foliage.hashing import pcg, position_hashes, type_key

VARIANT_CHANNEL = 0x100  # far from the scatter's channels (0..7, 16 and up)
HUE_CHANNEL = 0x101
VALUE_CHANNEL = 0x102
ONE = 1 << 24  # the 24-bit draws are integers in [0, ONE)


def instance_hashes(records: np.ndarray, type_name: str) -> np.ndarray:
    """uint32 hash per instance record (n, 7) of type `type_name`."""
    rec = np.asarray(records, np.float32).reshape(-1, 7)
    return position_hashes(rec[:, 0], rec[:, 2], type_key(type_name))


def draw24(hashes: np.ndarray, channel: int) -> np.ndarray:
    """The 24-bit integer draw of `channel`: `pcg(h ^ channel) >> 8` (uint32)."""
    return pcg(np.asarray(hashes, np.uint32) ^ np.uint32(channel)) >> np.uint32(8)


def variant_thresholds(weights) -> np.ndarray:
    """uint32 cumulative thresholds in [0, ONE]: variant i takes draws below t[i] (and at or
    above t[i-1]); the last is ONE so every draw lands somewhere."""
    w = np.asarray(weights, np.float64)
    cum = np.cumsum(w) / w.sum()
    t = np.round(cum * ONE).astype(np.int64)
    t[-1] = ONE
    return t.astype(np.uint32)


def variant_indices(records: np.ndarray, type_name: str, weights) -> np.ndarray:
    """int32 variant index per instance (0 for a type with one mesh)."""
    h = instance_hashes(records, type_name)
    t = variant_thresholds(weights)
    if len(t) == 1:
        return np.zeros(len(h), np.int32)
    u = draw24(h, VARIANT_CHANNEL)
    return (u[:, None] >= t[None, :-1]).sum(axis=1).astype(np.int32)


def colour_shifts(records: np.ndarray, type_name: str, hue: tuple[float, float],
                  value: tuple[float, float]) -> np.ndarray:
    """float32 (n, 2): hue shift in degrees and value change per instance, in float32 like the GPU."""
    h = instance_hashes(records, type_name)
    scale = np.float32(1.0 / ONE)
    uh = draw24(h, HUE_CHANNEL).astype(np.float32) * scale
    uv = draw24(h, VALUE_CHANNEL).astype(np.float32) * scale
    lo = np.float32([hue[0], value[0]])
    hi = np.float32([hue[1], value[1]])
    return np.stack([lo[0] + (hi[0] - lo[0]) * uh, lo[1] + (hi[1] - lo[1]) * uv], axis=1)


def shifted_colours(rgb: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Colours (n, 3) after a hue rotation about the grey axis and a value change (n, 2 shifts)."""
    rgb = np.asarray(rgb, np.float64).reshape(-1, 3)
    a = pmath.radians(np.asarray(shift, np.float64)[:, 0])[:, None]
    k = np.full(3, 1.0 / np.sqrt(3.0))
    # Rodrigues about (1, 1, 1)/√3: keeps the grey level, turns the hue
    grey = (rgb[:, 0] * k[0] + rgb[:, 1] * k[1]) + rgb[:, 2] * k[2]  # not `rgb @ k`: BLAS may fuse
    rotated = rgb * pmath.cos(a) + np.cross(k, rgb) * pmath.sin(a) + k * grey[:, None] * (1 - pmath.cos(a))
    out = rotated * (1.0 + np.asarray(shift, np.float64)[:, 1:2])
    return np.clip(out, 0.0, 1.0)
