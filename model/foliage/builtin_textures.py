"""The built-in trees' textures, generated in code: bark, a spruce branch and a cluster of broad
leaves, as RGBA bytes (cut texels at alpha 0).

Only integer hashing and +, -, *, /, sqrt are used (no sin/exp), so every machine makes the same
bytes. Rows run top to bottom (glTF's texture coordinates: v = 0 at the top).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from model.foliage.materials import Texture


def _hash(*parts: np.ndarray | int) -> np.ndarray:
    """A uint32 hash of integer arrays (wrapping arithmetic, as `model.demo`)."""
    h = np.uint32(0x9E3779B9)
    with np.errstate(over="ignore"):
        for i, p in enumerate(parts):
            h = h ^ (np.asarray(p).astype(np.uint32) * np.uint32((0x85EBCA6B + 0x6A09E667 * i) & 0xFFFFFFFF))
            h = h ^ (h >> np.uint32(15))
            h = h * np.uint32(0x2C1B3C6D)
            h = h ^ (h >> np.uint32(12))
            h = h * np.uint32(0x297A2D39)
            h = h ^ (h >> np.uint32(15))
    return h


def _unit(*parts) -> np.ndarray:
    """[0, 1) floats from a hash."""
    return (_hash(*parts) >> np.uint32(8)).astype(np.float64) / 16777216.0


def _rgba(colour: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    out = np.empty(colour.shape[:2] + (4,), np.uint8)
    out[..., :3] = np.clip(np.floor(colour * 255.0 + 0.5), 0, 255).astype(np.uint8)
    out[..., 3] = np.where(alpha, 255, 0).astype(np.uint8)
    return out


def bark(width: int = 64, height: int = 128) -> np.ndarray:
    """Furrowed bark: ridges running up the trunk, wandering a little, darker in the furrows."""
    y, x = np.mgrid[0:height, 0:width]
    column = x + (_hash(y // 16, 3) % 3).astype(np.int64) - 1  # ridges wander every 16 rows
    ridge = (column // 4) % (width // 4)
    inside = (column % 4).astype(np.float64)
    furrow = np.abs(inside - 1.5) / 1.5  # 0 in a ridge's middle, 1 at its edges
    light = 0.75 + 0.35 * _unit(ridge, y // 6, 1) - 0.45 * furrow * furrow + 0.12 * _unit(x, y, 2)
    base = np.array([0.40, 0.29, 0.19])
    return _rgba(base * light[..., None], np.ones_like(light, bool))


def _segment_distance(px, py, ax, ay, bx, by) -> tuple[np.ndarray, np.ndarray]:
    """Distance from points to a segment, and how far along it (0..1) the nearest point lies."""
    dx, dy = bx - ax, by - ay
    t = np.clip(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy), 0.0, 1.0)
    qx, qy = ax + t * dx - px, ay + t * dy - py
    return np.sqrt(qx * qx + qy * qy), t


def spruce_branch(size: int = 128) -> np.ndarray:
    """A spruce branch seen from above: a stem from the left edge (the trunk) to the right, needles
    combed forward on both sides, shorter towards the tip."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float64) + 0.5
    s = float(size)
    mid = s / 2
    stem_d, _ = _segment_distance(x, y, 0.0, mid, s * 0.97, mid)
    cut = stem_d > 1.2
    colour = np.zeros((size, size, 3))
    colour[...] = (0.30, 0.22, 0.14)
    shade = np.zeros((size, size))
    spacing = 3
    for k, bx in enumerate(range(2, int(s * 0.95), spacing)):
        along = bx / s
        length = s * (0.40 - 0.30 * along) * (0.8 + 0.4 * float(_unit(k, 7)))
        for side in (-1.0, 1.0):
            # needles lean forward: 2 units along for each unit out (no angles needed)
            tip_x = bx + length * 0.55
            tip_y = mid + side * length * 0.85
            d, t = _segment_distance(x, y, float(bx), mid, tip_x, tip_y)
            needle = d < 1.3 - 0.5 * t
            cut &= ~needle
            tone = 0.75 + 0.5 * float(_unit(k, int(side), 9))
            shade = np.where(needle, tone * (0.8 + 0.3 * t), shade)
    green = np.array([0.14, 0.30, 0.13])
    colour = np.where(shade[..., None] > 0, green * shade[..., None], colour)
    colour *= (0.92 + 0.16 * _unit(x.astype(np.int64), y.astype(np.int64), 4))[..., None]
    return _rgba(colour, ~cut)


def leaf_cluster(size: int = 128) -> np.ndarray:
    """Broad leaves on a few twigs: hashed ellipses with a lighter midrib, overlapping."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float64) + 0.5
    s = float(size)
    alpha = np.zeros((size, size), bool)
    colour = np.zeros((size, size, 3))
    for k in range(34):
        cx = s * (0.12 + 0.76 * float(_unit(k, 11)))
        cy = s * (0.12 + 0.76 * float(_unit(k, 12)))
        ux, uy = float(_unit(k, 13)) - 0.5, float(_unit(k, 14)) - 0.5
        n = float(np.sqrt(ux * ux + uy * uy)) or 1.0
        ux, uy = ux / n, uy / n  # the leaf's direction
        a = s * (0.085 + 0.04 * float(_unit(k, 15)))  # half length
        b = a * 0.5  # half width
        dx, dy = x - cx, y - cy
        along, across = dx * ux + dy * uy, -dx * uy + dy * ux
        leaf = (along / a) ** 2 + (across / b) ** 2 <= 1.0
        tone = 0.8 + 0.4 * float(_unit(k, 16))
        base = np.array([0.22, 0.42, 0.14]) * tone
        rib = np.abs(across) < 0.7
        lit = base * (0.85 + 0.25 * (along / a + 1.0) / 2.0)[..., None]  # lighter towards the tip
        this = np.where(rib[..., None], np.minimum(lit * 1.35, 1.0), lit)
        colour = np.where(leaf[..., None], this, colour)
        alpha |= leaf
    return _rgba(colour, alpha)


@cache
def builtin_texture(name: str) -> Texture:
    """`bark`, `spruce_branch` or `leaf_cluster`, made once."""
    makers = {"bark": bark, "spruce_branch": spruce_branch, "leaf_cluster": leaf_cluster}
    return Texture(makers[name](), f"builtin:{name}")
