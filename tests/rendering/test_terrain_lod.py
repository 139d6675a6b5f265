"""The terrain quadtree: errors bound what a coarse tile loses, edits update only what they reach."""

from __future__ import annotations

import numpy as np

from model.terrain import Terrain
from rendering.terrain_lod import LodPyramid, level_samples


def rough(n: int = 257, seed: int = 3) -> Terrain:
    rng = np.random.default_rng(seed)
    z, x = np.mgrid[0:n, 0:n].astype(np.float64)
    h = 30 * np.sin(x / 19) * np.cos(z / 23) + rng.normal(0, 2.0, (n, n))
    return Terrain(h.astype(np.float32), 1.0, (0.0, 0.0))


def coarse_surface(h: np.ndarray, stride: int) -> np.ndarray:
    """Heights of the level's triangulated surface at every full-resolution sample (cells cut along
    the diagonal from (r, c+1) to (r+1, c), as grid_indices cuts them)."""
    n = h.shape[0]
    r = level_samples(n, stride)
    g = h[np.ix_(r, r)].astype(np.float64)
    full = np.arange(n)
    k = np.clip(np.searchsorted(r, full, side="right") - 1, 0, len(r) - 2)
    t = (full - r[k]) / (r[k + 1] - r[k])
    v, u = t[:, None], t[None, :]
    ki, kj = k[:, None], k[None, :]
    a, b, d, e = g[ki, kj], g[ki, kj + 1], g[ki + 1, kj], g[ki + 1, kj + 1]
    lower = a + u * (b - a) + v * (d - a)
    upper = e + (1 - u) * (d - e) + (1 - v) * (b - e)
    return np.where(u + v <= 1, lower, upper)


def test_each_nodes_error_bounds_how_far_its_surface_strays_and_bounds_hold_its_heights() -> None:
    t = rough()
    p = LodPyramid(t, tile=32)
    assert p.levels == 4 and p.shape[0] == (8, 8) and p.shape[3] == (1, 1)
    h = t.heights.astype(np.float64)
    for lv in range(1, p.levels):
        off = np.abs(coarse_surface(h, 1 << lv) - h)
        span = 32 << lv
        for i in range(p.shape[lv][0]):
            for j in range(p.shape[lv][1]):
                block = off[i * span:(i + 1) * span + 1, j * span:(j + 1) * span + 1]
                assert block.max() <= p.err[lv][i, j] + 1e-4
                hb = h[i * span:(i + 1) * span + 1, j * span:(j + 1) * span + 1]
                assert p.lo[lv][i, j] <= hb.min() + 1e-4 and p.hi[lv][i, j] >= hb.max() - 1e-4
    assert p.err[p.levels - 1].max() > 1.0  # a rough terrain: the coarse surface does stray


def test_an_edit_updates_the_nodes_it_reaches_as_a_fresh_build_would() -> None:
    t = rough()
    p = LodPyramid(t, tile=32)
    before = [e.copy() for e in p.err]
    t.heights[100:110, 40:52] += 25.0
    p.update(100, 110, 40, 52)
    fresh = LodPyramid(t, tile=32)
    for lv in range(p.levels):
        np.testing.assert_allclose(p.err[lv], fresh.err[lv], atol=1e-4)
        np.testing.assert_array_equal(p.lo[lv], fresh.lo[lv])
        np.testing.assert_array_equal(p.hi[lv], fresh.hi[lv])
    changed = np.argwhere(p.err[1] != before[1])
    assert len(changed) and (changed[:, 0] >= 1).all() and (changed[:, 0] <= 1).all()


def test_odd_sizes_keep_their_last_sample() -> None:
    np.testing.assert_array_equal(level_samples(10, 4), [0, 4, 8, 9])
    t = Terrain(np.zeros((100, 70), np.float32), 2.0, (0.0, 0.0))
    p = LodPyramid(t, tile=16)
    assert p.shape[0] == (7, 5) and p.shape[-1] == (1, 1)
    a, b, c, d = p.tile_range((0, 6, 4))
    assert p.samples[0][0][b - 1] == 99 and p.samples[0][1][d - 1] == 69


def test_the_one_pass_build_equals_a_level_by_level_one(monkeypatch) -> None:
    """Blocks for the fine levels and the coarse grid for the others give the very nodes that
    reading the terrain level by level gives (BLOCK_SAMPLES = tile: every level read apart)."""
    from rendering import terrain_lod

    t = rough(300, seed=8)
    monkeypatch.setattr(terrain_lod, "BLOCK_SAMPLES", 64)  # 4 x 4 level-0 nodes a block
    fine = LodPyramid(t, tile=16)
    assert fine.block_levels == 2 and fine.coarse_stride == 4 and fine.levels == 6
    monkeypatch.setattr(terrain_lod, "BLOCK_SAMPLES", 16)
    apart = LodPyramid(t, tile=16)
    assert apart.block_levels == 0 and apart.coarse_stride == 1
    for a, b in zip([fine.lo, fine.hi, fine.err], [apart.lo, apart.hi, apart.err], strict=True):
        for lv in range(fine.levels):
            assert a[lv].tobytes() == b[lv].tobytes()
    # an edit keeps the coarse grid in step: the coarse levels see it
    t.heights[200:230, 17:40] -= 40.0
    fine.update(200, 230, 17, 40)
    apart.update(200, 230, 17, 40)
    every = np.minimum(np.arange(0, 304, 4), 299)  # every 4th sample and the last
    np.testing.assert_array_equal(fine.coarse, t.heights[np.ix_(every, every)])
    for lv in range(fine.levels):
        assert fine.err[lv].tobytes() == apart.err[lv].tobytes()
        assert fine.lo[lv].tobytes() == apart.lo[lv].tobytes()
