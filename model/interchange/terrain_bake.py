"""The terrain's look baked into one base-colour image per exported terrain tile.

Why baked tiles rather than a splat map and the layer textures: a splat map needs a shader that
blends the layers (a custom extension every engine and Blender would ignore, showing flat grey),
while a base-colour texture is core glTF and UsdPreviewSurface: Blender, every engine and every
USD viewer show what the viewport shows without any set-up. The raw weights still travel as
vertex colours (glTF COLOR_1…, USD `weight_*` primvars) for a pipeline that blends its own
materials.

Each texel is the viewport's blend at its centre: the layers' weights (bilinear between the full
resolution samples) times each layer's albedo, sampled from above at the layer's tiling, the mip
level chosen by the texel's footprint and tinted so the texture averages to the layer's colour;
untextured layers and bare ground give their flat colours. Height blending, sideways projection
on steep ground and the viewport's macro variation are not baked (they depend on the view).
Only +, -, *, / and floor: the same bytes on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.errors import FormatError
from model.interchange.geometry import BARE_COLOUR
from model.layer_material import resolve
from model.terrain import Terrain

TEXELS_PER_QUAD = (4, 2, 1)  # texels along one exported terrain quad, the most that fits the budget
MAX_TEXELS = 1 << 24          # baked texels in one export, at most (16.7 M: 50 MB of RGB)


@dataclass
class LayerLook:
    """One layer as the bake draws it: its colour, and its albedo's mip chain and tint when it has one."""

    colour: np.ndarray                  # (3,) 0..1
    levels: list[np.ndarray] | None     # uint8 (s, s, 4) largest first
    tint: np.ndarray | None             # colour / the texture's mean
    tiling: float


def terrain_looks(terrain: Terrain, folder: Path | None, warnings: list[str]) -> list[LayerLook] | None:
    """Every layer's look, or None when no layer has an albedo map that can be read (nothing to
    bake: the vertex colours say it all). A map that cannot be read is one warning."""
    from model.formats.texture_image import image_size
    from model.layer_textures import MAX_ARRAY_SIDE, MIN_ARRAY_SIDE, MapRequest, check_inside, prepare

    looks, any_texture = [], False
    for slot, layer in enumerate(terrain.layers):
        colour = np.asarray(layer.color, np.float64) / 255.0
        look = LayerLook(colour, None, None, float(layer.material.tiling))
        albedo = layer.material.albedo
        if albedo and folder is not None:
            path = resolve(folder, albedo)
            try:
                check_inside(folder, path)
                w, h, _ = image_size(path)
                side = min(MAX_ARRAY_SIDE, max(MIN_ARRAY_SIDE, 1 << (max(w, h).bit_length() - 1)))
                prepared = prepare(MapRequest(slot, "albedo", path), side)  # as the viewport uploads it
                mean = np.maximum(prepared.mean[:3], 1.0 / 255.0)
                look = LayerLook(colour, prepared.levels, colour / mean, look.tiling)
                any_texture = True
            except (FormatError, OSError, MemoryError) as e:
                warnings.append(f"{e if isinstance(e, FormatError) else FormatError(path, None, str(e))}"
                                f" — layer {layer.name!r} is baked in its colour")
        looks.append(look)
    return looks if any_texture else None


def texels_per_quad(rows: int, columns: int) -> int:
    """Texels along one exported quad for a grid of rows x columns exported samples: the most of
    TEXELS_PER_QUAD whose images stay within MAX_TEXELS."""
    quads = max(rows - 1, 0) * max(columns - 1, 0)
    return next((k for k in TEXELS_PER_QUAD if quads * k * k <= MAX_TEXELS), TEXELS_PER_QUAD[-1])


def tile_uvs(positions: np.ndarray) -> np.ndarray:
    """(n, 2) float32 texture coordinates of a tile's vertices (scene frame): u along x, v along z,
    0..1 over the tile (glTF's v = 0 at the image's top row, the tile's lowest z)."""
    x, z = positions[:, 0].astype(np.float64), positions[:, 2].astype(np.float64)
    x0, x1, z0, z1 = x.min(), x.max(), z.min(), z.max()
    uv = np.empty((len(positions), 2), np.float32)
    uv[:, 0] = (x - x0) / (x1 - x0) if x1 > x0 else 0.0
    uv[:, 1] = (z - z0) / (z1 - z0) if z1 > z0 else 0.0
    return uv


def _axis(first: int, last: int, texels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Texel centres along one axis as full-resolution sample positions: (lower sample relative
    to `first`, fraction towards the next, absolute position)."""
    pos = first + (np.arange(texels, dtype=np.float64) + 0.5) * ((last - first) / texels)
    lower = np.minimum(np.floor(pos).astype(np.int64), last - 1)
    return lower - first, pos - lower, pos


def _bilinear_window(window: np.ndarray, r: tuple, c: tuple) -> np.ndarray:
    """A window of samples at the texel centres (separable: rows, then columns)."""
    (ri, rf, _), (ci, cf, _) = r, c
    top, bottom = window[ri], window[ri + 1]
    rows = top + (bottom - top) * rf[:, None]
    left, right = rows[:, ci], rows[:, ci + 1]
    return left + (right - left) * cf[None, :]


def _sample_albedo(look: LayerLook, x: np.ndarray, z: np.ndarray, footprint: float) -> np.ndarray:
    """(len(z), len(x), 3) the layer's albedo at world x (columns) and z (rows), from above,
    wrapping, at the mip level whose texel is about the footprint."""
    levels = look.levels
    level = 0
    while level + 1 < len(levels) and levels[level].shape[0] * footprint > look.tiling:
        level += 1
    img = levels[level][..., :3].astype(np.float64) / 255.0
    s = img.shape[0]

    def taps(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = p / look.tiling * s - 0.5
        i = np.floor(t)
        return (i.astype(np.int64) % s), ((i.astype(np.int64) + 1) % s), t - i

    zi0, zi1, zf = taps(z)
    xi0, xi1, xf = taps(x)
    rows = img[zi0] + (img[zi1] - img[zi0]) * zf[:, None, None]
    left, right = rows[:, xi0], rows[:, xi1]
    return (left + (right - left) * xf[None, :, None]) * look.tint


def bake_tile(terrain: Terrain, looks: list[LayerLook], rows: tuple[int, int], columns: tuple[int, int],
              size: tuple[int, int]) -> np.ndarray:
    """(height, width, 3) uint8 base colour over full-resolution samples rows[0]..rows[1] and
    columns[0]..columns[1]; image row 0 at the lowest z."""
    height, width = size
    r_axis = _axis(rows[0], rows[1], height)
    c_axis = _axis(columns[0], columns[1], width)
    ox, oz = terrain.origin
    x = ox + c_axis[2] * terrain.spacing
    z = oz + r_axis[2] * terrain.spacing
    footprint = (columns[1] - columns[0]) * terrain.spacing / width
    colour = np.zeros((height, width, 3))
    total = np.zeros((height, width))
    window = (slice(rows[0], rows[1] + 1), slice(columns[0], columns[1] + 1))
    for layer, look in zip(terrain.layers, looks, strict=True):
        raw = layer.read(*window)
        if not raw.any():
            continue
        w = _bilinear_window(raw.astype(np.float64) / 255.0, r_axis, c_axis)
        total += w
        if look.levels is None:
            colour += w[..., None] * look.colour
        else:
            colour += w[..., None] * _sample_albedo(look, x, z, footprint)
    colour /= np.maximum(total, 1.0)[..., None]
    colour += np.clip(1.0 - total, 0.0, 1.0)[..., None] * BARE_COLOUR
    return np.clip(np.floor(colour * 255.0 + 0.5), 0, 255).astype(np.uint8)
