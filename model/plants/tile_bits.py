"""Tile maps as bits: one bit per tile, 64 tiles of a row to a word.

Growth asks "is any plant of this kind within reach of this tile?" for every tile of a zone; on bit
maps a whole 2048² zone is 512 KiB, so the dilations that answer it (a square, a disc) cost a few
dozen word operations over the zone instead of one byte operation per tile and offset.

Each row is stored as `[left guard, words…, right guard, separator]`: bit `x & 63` of word
`[y, (x >> 6) + 1]` is tile (y, x). The guards keep what a shift pushes past the zone's edges
(up to 63 tiles), so a dilation that grows outwards and back loses nothing; the separator is
cleared after every shift, so nothing carries from one row into the next. That lets a shift run
over the whole map as one flat array. `clear_tail` clears the guards and the bits beyond the width.
"""

from __future__ import annotations

import math

import numpy as np

_WORD = 64
_EXTRA = 3  # left guard, right guard, separator


def _words(width: int) -> int:
    return -(-width // _WORD)


def pack(mask: np.ndarray) -> np.ndarray:
    """A (h, w) boolean map as (h, ceil(w / 64) + 3) uint64 words."""
    h, w = mask.shape
    pad = -w % _WORD
    if pad:
        mask = np.pad(mask, ((0, 0), (0, pad)))
    n = _words(w)
    out = np.zeros((h, n + _EXTRA), np.uint64)
    out[:, 1:n + 1] = np.packbits(mask, axis=1, bitorder="little").view("<u8").reshape(h, n)
    return out


def unpack(bits: np.ndarray, width: int) -> np.ndarray:
    """The (h, width) boolean map of `bits`."""
    n = _words(width)
    rows = np.ascontiguousarray(bits[:, 1:n + 1])
    return np.unpackbits(rows.view(np.uint8), axis=1, count=width, bitorder="little").view(bool)


def words_for(height: int, width: int, fill: bool = False) -> np.ndarray:
    """A map of `height` × `width` tiles, all clear (or all set)."""
    n = _words(width)
    out = np.zeros((height, n + _EXTRA), np.uint64)
    if fill:
        out[:, 1:n + 1] = ~np.uint64(0)
        clear_tail(out, width)
    return out


def test(bits: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Whether tiles (ys, xs) are set."""
    words = bits[ys, (xs >> 6) + 1]
    return ((words >> (xs & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)


def clear_tail(bits: np.ndarray, width: int) -> np.ndarray:
    """`bits` with the guards and the bits beyond `width` cleared, in place."""
    n = _words(width)
    bits[:, 0] = 0
    bits[:, n + 1:] = 0
    spare = n * _WORD - width
    if spare:
        bits[:, n] &= np.uint64((1 << (_WORD - spare)) - 1)
    return bits


def shift_x(bits: np.ndarray, d: int) -> np.ndarray:
    """out[y, x] = bits[y, x - d], |d| < 64 (tiles pushed past an edge wait in its guard)."""
    if not -_WORD < d < _WORD:
        raise ValueError(f"a shift of {d} tiles: at most 63 either way")
    if d == 0:
        return bits.copy()
    flat = bits.reshape(-1)
    s = np.uint64(abs(d))
    back = np.uint64(_WORD - abs(d))
    if d > 0:  # towards higher x: higher bits, the carry into the next word
        out = flat << s
        out[1:] |= flat[:-1] >> back
    else:
        out = flat >> s
        out[:-1] |= flat[1:] << back
    out = out.reshape(bits.shape)
    out[:, -1] = 0  # the separator: what crossed a row's end goes no further
    return out


def shift_y(bits: np.ndarray, d: int) -> np.ndarray:
    """out[y, x] = bits[y - d, x] (0 where that is outside the map)."""
    out = np.zeros_like(bits)
    h = bits.shape[0]
    if d >= 0:
        out[d:] = bits[:h - d] if d < h else out[d:]
    else:
        out[:h + d] = bits[-d:]
    return out


def _grow(bits: np.ndarray, r: int, shift) -> np.ndarray:
    # `acc` covers offsets [-a, a]; or-ing it shifted by ±k (k <= 2a + 1) covers [-a - k, a + k].
    acc, a = bits, 0
    while a < r:
        k = min(2 * a + 1, r - a)
        acc = acc | shift(acc, k) | shift(acc, -k)
        a += k
    return acc


def dilate_x(bits: np.ndarray, r: int, width: int) -> np.ndarray:
    """Set where any tile within `r` (< 64) columns (same row) is set; `width` is the map's width."""
    acc = _grow(bits, r, shift_x)
    return clear_tail(acc.copy() if acc is bits else acc, width)


def dilate_y(bits: np.ndarray, r: int) -> np.ndarray:
    """Set where any tile within `r` rows (same column) is set."""
    padded = np.pad(bits, ((r, r), (0, 0)))  # rows past the edges keep what grows out and back
    return np.ascontiguousarray(_grow(padded, r, shift_y)[r:r + bits.shape[0]])


def dilate_square(bits: np.ndarray, r: int, width: int) -> np.ndarray:
    """Set where any tile of the (2r + 1)² square around it is set."""
    return dilate_y(dilate_x(bits, r, width), r)


def disc_half_widths(kd: int) -> list[tuple[int, int]]:
    """(dy, half width) rows of the disc dy² + dx² < kd²."""
    return [(dy, math.isqrt(kd * kd - dy * dy - 1)) for dy in range(-kd + 1, kd)]


def dilate_disc(bits: np.ndarray, kd: int, width: int, punctured: bool = False) -> np.ndarray:
    """Set where a set tile lies closer than `kd` (<= 64, Euclidean): the tile itself included, or
    with `punctured` only other tiles (a set tile alone in its disc stays clear)."""
    rows = disc_half_widths(kd)
    by_width: dict[int, np.ndarray] = {}
    acc, at = bits, 0
    for w in sorted({w for _, w in rows}):  # row dilations grown a column at a time, kept where needed
        while at < w:
            acc = acc | shift_x(acc, 1) | shift_x(acc, -1)
            at += 1
        by_width[w] = acc
    out = np.zeros_like(bits)
    for dy, w in rows:  # rows shift one at a time: nothing is lost past the top or bottom edge
        if not (punctured and dy == 0):
            out |= shift_y(by_width[w], dy)
    if punctured:  # the tile's own row without the tile: 1 … w columns either side
        left, right = bits, bits
        for _ in range(math.isqrt(kd * kd - 1)):
            left, right = shift_x(left, 1), shift_x(right, -1)
            out |= left | right
    return clear_tail(out, width)
