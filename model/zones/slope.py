"""The derived slope layer, exactly as the server computes it from the altitude layer."""

from __future__ import annotations

import numpy as np


def altitude_units(altitude: np.ndarray) -> np.ndarray:
    """Altitude in whole units (`raw >> 5`, 0..2047) as int16."""
    return (np.asarray(altitude, np.uint16) >> 5).astype(np.int16)


def derive_slope(altitude: np.ndarray) -> np.ndarray:
    """Slope per tile (uint8): from a=(x,y), b=(x+1,y), c=(x+1,y+1), d=(x,y+1), clamped at the edges,
    e=(a+b)>>1, f=(b+c)>>1, g=(c+d)>>1, h=(d+e)>>1, i=(a+b+c+d)>>2, slope = 2·Σ|i−k|, at most 255."""
    u = altitude_units(altitude)
    # Edge clamping = repeating the last column and row; int16 holds every intermediate (≤ 32752).
    p = np.pad(u, ((0, 1), (0, 1)), mode="edge")
    a = p[:-1, :-1]
    b = p[:-1, 1:]
    c = p[1:, 1:]
    d = p[1:, :-1]
    e = (a + b) >> 1
    f = (b + c) >> 1
    g = (c + d) >> 1
    h = (d + e) >> 1
    i = (a + b + c + d) >> 2
    total = np.abs(i - a)
    for k in (b, c, d, e, f, g, h):
        total += np.abs(i - k)
    total <<= 1
    return np.minimum(total, 255).astype(np.uint8)


def slope_at(altitude: np.ndarray, x: int, y: int) -> int:
    """The slope of one tile, without deriving the whole layer (for read-outs)."""
    rows, cols = altitude.shape
    x1 = min(x + 1, cols - 1)
    y1 = min(y + 1, rows - 1)
    window = altitude[[y, y, y1, y1], [x, x1, x1, x]]
    a, b, c, d = (int(v) >> 5 for v in window)
    e = (a + b) >> 1
    f = (b + c) >> 1
    g = (c + d) >> 1
    h = (d + e) >> 1
    i = (a + b + c + d) >> 2
    return min(2 * sum(abs(i - k) for k in (a, b, c, d, e, f, g, h)), 255)
