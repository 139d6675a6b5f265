"""Derived grass: where the GPU scatters a derived type, computed on the CPU from the same hash.

Never stored. The terrain grid is cut into square tiles of `TILE_CELLS` cells; tile (tx, tz) has
`per_tile` candidates, candidate i drawing from `candidate_hash(seed, type_key, tile_stamp, i)`
(`model.foliage.hashing`). A candidate sits at a random point of its tile and is kept where the
type's terrain layer, read at the nearest height sample, is at least `min_weight`, thinned in
proportion to that weight (density follows the paint). Everything up to the keep decision is
integer arithmetic, so GPU and CPU agree exactly on which candidates grow; positions agree to
float32 rounding. The GLSL twin is `rendering/shaders/grass_common.glsl`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model import portable_math as pmath
from model.foliage import hashing
from model.foliage.foliage_type import FoliageType
from model.foliage.hashing import Channel
from model.holes import cells_are_holes
from model.terrain import Terrain

TILE_CELLS = 4  # terrain cells per tile side (a power of two keeps the tile offsets exact)
MAX_PER_TILE = 2048
FULL = 1 << 24  # hash draws are 24-bit integers


@dataclass(frozen=True)
class GrassCandidates:
    """Every candidate of some tiles: which grow, where, and how they are turned and scaled."""

    tile: np.ndarray  # (n, 2) int tile coordinates
    index: np.ndarray  # (n,) candidate index within its tile
    grows: np.ndarray  # (n,) bool
    position: np.ndarray  # (n, 3) float64 x, y, z (meaningful where it grows)
    yaw: np.ndarray  # (n,) radians
    scale: np.ndarray  # (n,)


def per_tile(ftype: FoliageType, terrain: Terrain) -> int:
    """Candidates per tile: density (per 100 m²) × tile area, rounded, capped."""
    side = TILE_CELLS * terrain.spacing
    n = ftype.density * side * side / 100.0
    return int(min(MAX_PER_TILE, max(0, round(n)))) if math.isfinite(n) else MAX_PER_TILE


def tile_counts(terrain: Terrain) -> tuple[int, int]:
    """Tiles along X and Z covering the terrain's cells."""
    return (-(-(terrain.columns - 1) // TILE_CELLS), -(-(terrain.rows - 1) // TILE_CELLS))


def tiles_near(terrain: Terrain, x: float, z: float,
               radius: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """First tile and tile counts (x, z) of the square of tiles within `radius` of (x, z), clipped."""
    size = TILE_CELLS * terrain.spacing
    nx, nz = tile_counts(terrain)
    x0, z0 = terrain.origin
    a = max(0, math.floor((x - radius - x0) / size))
    b = min(nx - 1, math.floor((x + radius - x0) / size))
    c = max(0, math.floor((z - radius - z0) / size))
    d = min(nz - 1, math.floor((z + radius - z0) / size))
    if a > b or c > d:
        return (0, 0), (0, 0)
    return (a, c), (b - a + 1, d - c + 1)


def min_weight_u8(ftype: FoliageType) -> int:
    """The layer threshold on the 0..255 scale the weights are stored in."""
    return int(math.ceil(ftype.layer.min_weight * 255.0 - 1e-9)) if ftype.layer is not None else 0


def type_base(seed: int, type_name: str) -> int:
    """`pcg(pcg(seed) ^ type_key)`: the hash state every tile of a type starts from."""
    h = hashing.pcg(np.uint32(seed & 0xFFFFFFFF)) ^ np.uint32(hashing.type_key(type_name))
    return int(hashing.pcg(h))


def tile_stamps(tx, tz) -> np.ndarray:
    """The stamp number of each tile: `pcg(tx ^ pcg(tz))` on uint32."""
    tx = np.asarray(tx, np.int64).astype(np.uint32)
    tz = np.asarray(tz, np.int64).astype(np.uint32)
    return hashing.pcg(tx ^ hashing.pcg(tz))


def grass_candidates(terrain: Terrain, ftype: FoliageType, tile0: tuple[int, int], tiles: tuple[int, int],
                     seed: int = 0) -> GrassCandidates:
    """Candidates of the tile block `tile0` … `tile0 + tiles`, in the GPU's order (tile-major, x fastest)."""
    n = per_tile(ftype, terrain)
    count = tiles[0] * tiles[1] * n
    t = np.arange(count, dtype=np.int64) // max(n, 1)
    i = np.arange(count, dtype=np.int64) % max(n, 1)
    tx = tile0[0] + t % max(tiles[0], 1)
    tz = tile0[1] + t // max(tiles[0], 1)
    base = np.uint32(type_base(seed, ftype.name))
    with np.errstate(over="ignore"):
        h = hashing.pcg(hashing.pcg(base ^ tile_stamps(tx, tz)) ^ i.astype(np.uint32))
    kx = (hashing.pcg(h ^ np.uint32(Channel.X)) >> np.uint32(8)).astype(np.int64)
    kz = (hashing.pcg(h ^ np.uint32(Channel.Z)) >> np.uint32(8)).astype(np.int64)
    thin = (hashing.pcg(h ^ np.uint32(Channel.THIN)) >> np.uint32(8)).astype(np.int64)
    T = TILE_CELLS
    col = tx * T + ((T * kx + FULL // 2) >> 24)  # nearest height sample, in integers
    row = tz * T + ((T * kz + FULL // 2) >> 24)
    u = tx * T + T * kx / FULL  # grid coordinates of the candidate
    v = tz * T + T * kz / FULL
    inside = (u <= terrain.columns - 1) & (v <= terrain.rows - 1)
    inside &= (col < terrain.columns) & (row < terrain.rows)
    weight = np.zeros(count, np.int64)
    layer = terrain.layer(ftype.layer.name) if ftype.layer is not None else None
    if ftype.layer is None:
        weight[:] = 255
    elif layer is not None:
        weight[inside] = layer.gather(row[inside], col[inside])  # tile by tile where paged
    grows = inside & (weight >= min_weight_u8(ftype)) & (thin * 255 < weight * FULL)
    if terrain.holes is not None:  # nothing grows in a hole's cells (the cell in integers, as the GPU)
        ci = np.minimum(tx * T + ((T * kx) >> 24), terrain.columns - 2)
        cj = np.minimum(tz * T + ((T * kz) >> 24), terrain.rows - 2)
        grows[inside] &= ~cells_are_holes(terrain, ci[inside], cj[inside])
    x = terrain.origin[0] + terrain.spacing * u
    z = terrain.origin[1] + terrain.spacing * v
    y = np.full(count, np.nan)
    y[inside] = terrain.height_at(x[inside], z[inside])
    yaw = pmath.radians(ftype.yaw[0] + (ftype.yaw[1] - ftype.yaw[0]) * hashing.draw(h, Channel.YAW))
    scale = ftype.scale[0] + (ftype.scale[1] - ftype.scale[0]) * hashing.draw(h, Channel.SCALE)
    return GrassCandidates(np.stack([tx, tz], axis=1), i, grows, np.stack([x, y, z], axis=1), yaw, scale)


def grass_near(terrain: Terrain, ftype: FoliageType, x: float, z: float, radius: float,
               seed: int = 0) -> GrassCandidates:
    """The candidates the viewport scatters for an eye above (x, z) with fade end `radius`."""
    tile0, tiles = tiles_near(terrain, x, z, radius)
    return grass_candidates(terrain, ftype, tile0, tiles, seed)
