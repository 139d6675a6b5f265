"""The far-foliage cover grid: footprint shares and colours per texel, recomputed only where an edit
touched, always equal to a full recompute."""

from __future__ import annotations

import math

import numpy as np

from model.foliage import FoliageType, foliage_of
from model.foliage.foliage_type import Extent
from rendering.foliage_density import CANOPY, FoliageDensity
from tests.widgets.test_viewport_foliage import flat_scene, records


def _scene():
    scene = flat_scene()  # 256 m, origin (-128, -128)
    palette = foliage_of(scene).palette
    palette.add(FoliageType("tree", mesh="builtin:conifer", extent=Extent(2.0, 8.0)))
    palette.add(FoliageType("stone", mesh="builtin:rock", extent=Extent(1.0, 1.0)))
    return scene


def test_one_instance_covers_its_footprint_share_of_its_texel_in_its_colour() -> None:
    scene = _scene()
    volume = foliage_of(scene).volume
    volume.add("tree", records(np.array([[-124.0, -124.0]]), 1.5))  # texel (0, 0), 8 m
    volume.add("stone", records(np.array([[-100.0, -124.0]]), 2.0))  # texel (0, 3)
    d = FoliageDensity(scene)
    assert d.take_dirty() is None and d.texel == 8.0
    assert math.isclose(d.cover[0, 0, 3], math.pi * (2.0 * 1.5) ** 2 / 64.0, rel_tol=1e-6)
    assert math.isclose(d.cover[0, 3, 3], math.pi * (1.0 * 2.0) ** 2 / 64.0, rel_tol=1e-6)
    tree, stone = d.cover[0, 0, :3], d.cover[0, 3, :3]
    assert tree[1] > tree[0] and tree[1] > tree[2]  # a conifer reads green…
    assert np.ptp(stone) < 0.1  # …a stone grey
    assert d.cover[..., 3].sum() == d.cover[0, 0, 3] + d.cover[0, 3, 3]


def test_an_edit_recomputes_only_its_cells_and_matches_a_full_recompute() -> None:
    scene = _scene()
    volume = foliage_of(scene).volume
    rng = np.random.default_rng(2)
    volume.add("tree", records(rng.uniform(-120, 120, (400, 2))))
    d = FoliageDensity(scene)
    d.take_dirty()
    before = d.texels_updated
    added = volume.add("tree", records(np.array([[40.0, 40.0], [44.0, 47.0]])))  # cell (1, 1)
    rects = d.take_dirty()
    assert rects and all(r1 - r0 <= 5 and c1 - c0 <= 5 for r0, r1, c0, c1 in rects)
    assert d.texels_updated - before <= 25
    volume.remove(added)
    d.take_dirty()
    fresh = FoliageDensity(scene)
    fresh.take_dirty()
    assert np.array_equal(d.cover, fresh.cover)


def test_a_palette_edit_recolours_the_cover() -> None:
    from dataclasses import replace

    scene = _scene()
    foliage = foliage_of(scene)
    foliage.volume.add("tree", records(np.array([[-124.0, -124.0]]), 1.5))
    d = FoliageDensity(scene)
    d.take_dirty()
    green = d.cover[0, 0, :3].copy()
    foliage.palette.replace(replace(foliage.palette["tree"], mesh="builtin:rock"))
    assert d.take_dirty() == [d._texel_rect(*foliage.volume.cell_box(c))  # the type's cells only
                              for c, t in foliage.volume.keys() if t == "tree"]
    assert np.ptp(d.cover[0, 0, :3]) < 0.1 and not np.allclose(d.cover[0, 0, :3], green)
    fresh = FoliageDensity(scene)
    fresh.take_dirty()
    assert np.array_equal(d.cover, fresh.cover)  # what a full recompute gives


def test_the_cover_of_a_16_km_world_needs_no_working_grid_of_its_texels() -> None:
    import tracemalloc

    from model.scene import Scene
    from model.terrain import Terrain

    # 16,384 m across: 2,048² texels of 8 m (64 MB of float32 cover); the instances are what the
    # computation may cost, not the texels (a float64 working grid of them was 128 MB)
    scene = Scene(terrain=Terrain(np.zeros((257, 257), np.float32), 64.0, (-8192.0, -8192.0)), name="big")
    palette = foliage_of(scene).palette
    palette.add(FoliageType("tree", mesh="builtin:conifer", extent=Extent(2.0, 8.0)))
    palette.add(FoliageType("stone", mesh="builtin:rock", extent=Extent(1.0, 1.0)))
    volume = foliage_of(scene).volume
    rng = np.random.default_rng(4)
    volume.add("tree", records(rng.uniform(-8000, 8000, (60_000, 2)), 1.2))
    volume.add("stone", records(rng.uniform(-8000, 8000, (20_000, 2))))
    d = FoliageDensity(scene)
    assert d.cover.shape == (2048, 2048, 4)
    before = d.texels_updated
    tracemalloc.start()
    try:
        assert d.take_dirty() is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 << 20, peak  # was over 250 MB
    assert d.texels_updated - before == 2048 * 2048  # one pass over the grid, no texel twice
    covered = d.cover[..., 3] > 0
    assert 70_000 < np.count_nonzero(covered) <= 80_000
    expected = math.pi * 2.4 ** 2 / 64.0  # one tree alone in its texel
    assert np.isclose(d.cover[..., 3], expected, rtol=1e-6).sum() > 40_000
    assert np.all(d.cover[~covered][:, :3] == np.asarray(CANOPY, np.float32))
