"""The seeded hash every random draw of foliage comes from, shared by CPU and GPU scatter.

Only 32-bit unsigned integer multiply, add, xor and shift, so a GLSL 3.3 shader reproduces it
bit for bit. The GLSL twin (keep in step with this module):

    uint pcg(uint v) {                       // PCG-RXS-M-XS, Jarzynski & Olano 2020
        uint state = v * 747796405u + 2891336453u;
        uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
        return (word >> 22u) ^ word;
    }
    uint candidate_hash(uint seed, uint type_key, uint stamp, uint index) {
        return pcg(pcg(pcg(pcg(seed) ^ type_key) ^ stamp) ^ index);
    }
    float draw(uint h, uint channel) {       // uniform in [0, 1), exact in float32
        return float(pcg(h ^ channel) >> 8u) * (1.0 / 16777216.0);
    }

`type_key` is the CRC-32 of the type name's UTF-8 bytes, so two types painted by one stamp do
not land on the same spots. Channels are listed in `Channel`.
"""

from __future__ import annotations

import zlib
from enum import IntEnum

import numpy as np

_MASK = 0xFFFFFFFF


class Channel(IntEnum):
    """Which random draw of a candidate: each is an independent stream of the same hash."""

    X = 0
    Z = 1
    YAW = 2
    TILT = 3
    TILT_AZIMUTH = 4
    SCALE = 5
    SINK = 6
    THIN = 7
    RETRY = 16  # and up: further position draws (a lasso's retries, a layer sample's offset)


def pcg(v) -> np.ndarray:
    """PCG-RXS-M-XS 32-bit hash of a uint32 array (or scalar), element-wise."""
    with np.errstate(over="ignore"):  # uint32 wrap-around is the point
        state = np.asarray(v, dtype=np.uint32) * np.uint32(747796405) + np.uint32(2891336453)
        word = ((state >> ((state >> np.uint32(28)) + np.uint32(4))) ^ state) * np.uint32(277803737)
        return (word >> np.uint32(22)) ^ word


def pcg_scalar(v: int) -> int:
    """Pure-Python PCG hash: the plain reference the vectorised one is tested against."""
    state = (v * 747796405 + 2891336453) & _MASK
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & _MASK
    return (word >> 22) ^ word


def type_key(name: str) -> int:
    """The per-type salt: CRC-32 of the name."""
    return zlib.crc32(name.encode("utf-8")) & _MASK


def stamp_base(seed: int, type_name: str, stamp: int) -> np.uint32:
    """Hash state shared by every candidate of one type in one stamp."""
    h = pcg(np.uint32(seed & _MASK)) ^ np.uint32(type_key(type_name))
    return np.uint32(pcg(pcg(h) ^ np.uint32(stamp & _MASK)))


def candidate_hashes(seed: int, type_name: str, stamp: int, indices) -> np.ndarray:
    """uint32 hash per candidate index: `candidate_hash(seed, type_key, stamp, index)`."""
    base = stamp_base(seed, type_name, stamp)
    idx = np.asarray(indices, dtype=np.int64).astype(np.uint32)
    return pcg(idx ^ base)


def draw(hashes, channel: int) -> np.ndarray:
    """Uniform float64 in [0, 1) from each hash for `channel`; exactly representable in float32."""
    h = pcg(np.asarray(hashes, dtype=np.uint32) ^ np.uint32(channel))
    return (h >> np.uint32(8)).astype(np.float64) * (2.0 ** -24)


def position_hashes(x, z, seed: int) -> np.ndarray:
    """Hash of an existing instance's position bits: deterministic thinning without indices."""
    xb = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    zb = np.ascontiguousarray(z, dtype=np.float32).view(np.uint32)
    return pcg(pcg(xb ^ pcg(np.uint32(seed & _MASK))) ^ zb)
