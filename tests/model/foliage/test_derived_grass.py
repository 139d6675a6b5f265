"""Derived grass on the CPU: a plain per-candidate loop agrees with the vectorised reference."""

from __future__ import annotations

import math

import numpy as np

from model.foliage.derived_grass import (
    TILE_CELLS,
    grass_candidates,
    grass_near,
    min_weight_u8,
    per_tile,
    tile_counts,
    tiles_near,
)
from model.foliage.foliage_type import FoliageType, LayerFilter
from model.foliage.hashing import pcg_scalar, type_key
from model.terrain import Terrain


def terrain_with_stripes(n: int = 41, spacing: float = 1.5) -> Terrain:
    z, x = np.mgrid[0:n, 0:n].astype(np.float64)
    h = 3 * np.sin(x / 5) + 2 * np.cos(z / 7)
    t = Terrain(h.astype(np.float32), spacing, (-10.0, 4.0))
    weights = np.clip((x - 5) * 12, 0, 255).astype(np.uint8)  # a ramp from bare to full, west to east
    weights[:, 30:] = 0  # and a bare strip in the east
    t.add_layer("meadow", (0, 200, 0), weights)
    return t


GRASS = FoliageType("grass", mesh="builtin:grass", storage="derived", density=300.0, scale=(0.5, 1.5),
                    layer=LayerFilter("meadow", 0.2), cull=(20.0, 30.0))


def loop_reference(t: Terrain, ftype: FoliageType, tile0, tiles, seed: int = 0) -> list[tuple]:
    """One candidate at a time, in plain Python integers: (tile x, tile z, index, x, z) of those that grow."""
    base = pcg_scalar(pcg_scalar(seed) ^ type_key(ftype.name))
    n = per_tile(ftype, t)
    threshold = math.ceil(ftype.layer.min_weight * 255 - 1e-9)
    layer = t.layer(ftype.layer.name)
    out = []
    for tz in range(tile0[1], tile0[1] + tiles[1]):
        for tx in range(tile0[0], tile0[0] + tiles[0]):
            stamp = pcg_scalar((tx & 0xFFFFFFFF) ^ pcg_scalar(tz & 0xFFFFFFFF))
            for i in range(n):
                h = pcg_scalar(pcg_scalar(base ^ stamp) ^ i)
                kx, kz, thin = pcg_scalar(h ^ 0) >> 8, pcg_scalar(h ^ 1) >> 8, pcg_scalar(h ^ 7) >> 8
                u = tx * TILE_CELLS + TILE_CELLS * kx / 2**24
                v = tz * TILE_CELLS + TILE_CELLS * kz / 2**24
                col = tx * TILE_CELLS + round_half_up(TILE_CELLS * kx / 2**24)
                row = tz * TILE_CELLS + round_half_up(TILE_CELLS * kz / 2**24)
                if u > t.columns - 1 or v > t.rows - 1 or col >= t.columns or row >= t.rows:
                    continue
                w = int(layer.weights[row, col])
                if w < threshold or thin / 2**24 >= w / 255:
                    continue
                out.append((tx, tz, i, t.origin[0] + t.spacing * u, t.origin[1] + t.spacing * v))
    return out


def round_half_up(a: float) -> int:
    return math.floor(a + 0.5)


def test_vectorised_candidates_agree_with_the_plain_loop() -> None:
    t = terrain_with_stripes()
    tile0, tiles = (1, 2), (5, 4)
    c = grass_candidates(t, GRASS, tile0, tiles)
    got = [(int(a), int(b), int(i), float(p[0]), float(p[2]))
           for (a, b), i, p in zip(c.tile[c.grows], c.index[c.grows], c.position[c.grows], strict=True)]
    ref = loop_reference(t, GRASS, tile0, tiles)
    assert len(ref) > 100
    assert [r[:3] for r in got] == [r[:3] for r in ref]
    assert np.allclose(np.array(got)[:, 3:], np.array(ref)[:, 3:], atol=1e-9)
    # heights are the terrain's own
    p = c.position[c.grows]
    assert np.allclose(p[:, 1], t.height_at(p[:, 0], p[:, 2]))


def test_grass_grows_only_where_its_layer_is_painted_and_denser_where_heavier() -> None:
    t = terrain_with_stripes()
    nx, nz = tile_counts(t)
    c = grass_candidates(t, GRASS, (0, 0), (nx, nz))
    p = c.position[c.grows]
    w = t.layer_weight_at("meadow", p[:, 0], p[:, 2])
    assert len(p) > 500
    assert (w > 0.1).all()  # never on bare ground
    cols = (p[:, 0] - t.origin[0]) / t.spacing
    light = ((cols > 10) & (cols < 14)).sum()  # weight ~ 0.3 .. 0.4
    heavy = ((cols > 25) & (cols < 29)).sum()  # full weight
    assert heavy > 1.8 * light


def test_same_inputs_same_grass_and_a_missing_layer_grows_nothing() -> None:
    t = terrain_with_stripes()
    a = grass_near(t, GRASS, 5.0, 30.0, 20.0)
    b = grass_near(t, GRASS, 5.0, 30.0, 20.0)
    assert np.array_equal(a.grows, b.grows) and np.array_equal(a.position[a.grows], b.position[b.grows])
    other = FoliageType("grass", storage="derived", density=300.0, layer=LayerFilter("nothing", 0.2))
    assert not grass_near(t, other, 5.0, 30.0, 20.0).grows.any()
    no_layer = FoliageType("grass", storage="derived", density=300.0)
    assert grass_near(t, no_layer, 5.0, 30.0, 20.0).grows.mean() > 0.95


def test_tiles_near_clip_to_the_terrain() -> None:
    t = terrain_with_stripes()
    nx, nz = tile_counts(t)
    assert (nx, nz) == (10, 10)
    tile0, tiles = tiles_near(t, -1000.0, -1000.0, 30.0)
    assert tiles == (0, 0)
    tile0, tiles = tiles_near(t, 20.0, 34.0, 1e6)
    assert tile0 == (0, 0) and tiles == (nx, nz)
    assert min_weight_u8(GRASS) == 51 and per_tile(GRASS, t) == 108
