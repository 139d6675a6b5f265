"""Tile maps as bits: one bit per tile, 64 tiles of a row to a word.

Growth asks "is any plant of this kind within reach of this tile?" for every tile of a zone; on bit
maps a whole 2048² zone is 512 KiB, so the dilations that answer it (a square, a disc) cost a few
dozen word operations over the zone instead of one byte operation per tile and offset.
Bit `x & 63` of word `[x >> 6, y]` is tile (y, x): words are stored column of words by column, so
a shift along x (carrying into the next word of the row) and one along y are both whole
contiguous blocks. Bits beyond the zone's width stay 0.
"""

from __future__ import annotations

import math

import numpy as np

_WORD = 64


def pack(mask: np.ndarray) -> np.ndarray:
    """A (h, w) boolean map as (ceil(w / 64), h) uint64 words."""
    h, w = mask.shape
    pad = -w % _WORD
    if pad:
        mask = np.pad(mask, ((0, 0), (0, pad)))
    rows = np.packbits(mask, axis=1, bitorder="little").view("<u8").reshape(h, -1)
    return np.ascontiguousarray(rows.T)


def unpack(bits: np.ndarray, width: int) -> np.ndarray:
    """The (h, width) boolean map of `bits`."""
    rows = np.ascontiguousarray(bits.T)
    out = np.unpackbits(rows.view(np.uint8), axis=1, count=width, bitorder="little")
    return out.view(bool)


def words_for(height: int, width: int, fill: bool = False) -> np.ndarray:
    """A map of `height` × `width` tiles, all clear (or all set)."""
    out = np.zeros((-(-width // _WORD), height), np.uint64)
    if fill:
        out[...] = ~np.uint64(0)
        clear_tail(out, width)
    return out


def test(bits: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Whether tiles (ys, xs) are set."""
    words = bits[xs >> 6, ys]
    return ((words >> (xs & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)


def shift_x(bits: np.ndarray, d: int) -> np.ndarray:
    """out[y, x] = bits[y, x - d] (0 where that is outside the map)."""
    if d == 0:
        return bits.copy()
    q, s = divmod(abs(d), _WORD)
    out = np.zeros_like(bits)
    n = bits.shape[0]
    if q >= n:
        return out
    if d > 0:  # towards higher x: higher bits, later words
        src = bits[:n - q]
        out[q:] = src << np.uint64(s)
        if s:
            out[q + 1:] |= src[:-1] >> np.uint64(_WORD - s)
    else:
        src = bits[q:]
        out[:n - q] = src >> np.uint64(s)
        if s:
            out[:n - q - 1] |= src[1:] << np.uint64(_WORD - s)
    return out


def shift_y(bits: np.ndarray, d: int) -> np.ndarray:
    """out[y, x] = bits[y - d, x] (0 where that is outside the map)."""
    out = np.zeros_like(bits)
    h = bits.shape[1]
    if d >= 0:
        out[:, d:] = bits[:, :h - d] if d < h else out[:, d:]
    else:
        out[:, :h + d] = bits[:, -d:]
    return out


def clear_tail(bits: np.ndarray, width: int) -> np.ndarray:
    """`bits` with the bits beyond `width` (the last word's unused ones) cleared, in place."""
    spare = bits.shape[0] * _WORD - width
    if spare:
        bits[-1] &= np.uint64((1 << (_WORD - spare)) - 1)
    return bits


def _grow(bits: np.ndarray, r: int, shift) -> np.ndarray:
    # `acc` covers offsets [-a, a]; or-ing it shifted by ±k (k <= 2a + 1) covers [-a - k, a + k].
    acc, a = bits, 0
    while a < r:
        k = min(2 * a + 1, r - a)
        acc = acc | shift(acc, k) | shift(acc, -k)
        a += k
    return acc


def dilate_x(bits: np.ndarray, r: int, width: int) -> np.ndarray:
    """Set where any tile within `r` columns (same row) is set; `width` is the map's width in tiles."""
    q = -(-r // _WORD)  # zero words either side keep what is shifted past an edge on the way
    padded = np.pad(bits, ((q, q), (0, 0)))
    return clear_tail(_grow(padded, r, shift_x)[q:q + bits.shape[0]], width)


def dilate_y(bits: np.ndarray, r: int) -> np.ndarray:
    """Set where any tile within `r` rows (same column) is set."""
    padded = np.pad(bits, ((0, 0), (r, r)))
    return np.ascontiguousarray(_grow(padded, r, shift_y)[:, r:r + bits.shape[1]])


def dilate_square(bits: np.ndarray, r: int, width: int) -> np.ndarray:
    """Set where any tile of the (2r + 1)² square around it is set."""
    return dilate_y(dilate_x(bits, r, width), r)


def disc_half_widths(kd: int) -> list[tuple[int, int]]:
    """(dy, half width) rows of the disc dy² + dx² < kd²."""
    return [(dy, math.isqrt(kd * kd - dy * dy - 1)) for dy in range(-kd + 1, kd)]


def dilate_disc(bits: np.ndarray, kd: int, width: int) -> np.ndarray:
    """Set where a set tile lies closer than `kd` (Euclidean), the tile itself included."""
    rows = disc_half_widths(kd)
    q = -(-kd // _WORD)
    acc, at = np.pad(bits, ((q, q), (0, 0))), 0
    by_width: dict[int, np.ndarray] = {}
    for w in sorted({w for _, w in rows}):  # row dilations grown a column at a time, kept where needed
        while at < w:
            acc = acc | shift_x(acc, 1) | shift_x(acc, -1)
            at += 1
        by_width[w] = acc[q:q + bits.shape[0]]
    out = np.zeros_like(bits)
    for dy, w in rows:  # rows shift one at a time: nothing is lost past the top or bottom edge
        out |= shift_y(by_width[w], dy)
    return clear_tail(out, width)
