"""The base-colour cache's bookkeeping (no GL): texel density by distance, what an edit re-bakes."""

from __future__ import annotations

from rendering.terrain_base_cache import MAX_SIDE, MIN_SIDE, TerrainBaseCache, _Entry, wanted_side


def test_the_texel_density_follows_the_distance_within_its_bounds() -> None:
    sides = [wanted_side(128.0, d, 1000.0, 40.0) for d in (0.0, 40.0, 80.0, 160.0, 320.0, 5000.0)]
    assert sides[0] == sides[1] == MAX_SIDE  # never finer than at the near radius (and at most 1,024)
    assert sides[2] == sides[3] == 1024 and sides[4] == 512  # a power of two: a texel per pixel or finer
    assert sides[-1] == MIN_SIDE
    assert sides == sorted(sides, reverse=True)


def entry(side: int = 256) -> _Entry:
    return _Entry(tex=0, side=side, tile=(0.0, 0.0, 128.0, 128.0), current=True)


def test_texel_centres_lie_on_the_tile_edges() -> None:
    e = entry(257)
    x, z, sx, sz = e.rect()
    pitch = 128.0 / 256
    assert (x, z) == (-pitch / 2, -pitch / 2) and sx == sz == 128.0 + pitch


def test_an_edit_marks_the_texels_under_it_widened_by_the_margin_and_only_touched_tiles() -> None:
    cache = TerrainBaseCache()
    cache.entries[(0, 0, 0)] = entry()
    cache.entries[(0, 0, 1)] = _Entry(tex=0, side=256, tile=(128.0, 0.0, 256.0, 128.0), current=True)
    cache.mark(10.0, 20.0, 12.0, 22.0, lambda key: 2.0)
    a, c, b, d = cache.entries[(0, 0, 0)].dirty
    per_metre = 256 / (128.0 + 128.0 / 255)
    assert a <= (8.0 + 0.25) * per_metre <= a + 2 and b >= (14.0 + 0.25) * per_metre
    assert c <= (18.0 + 0.25) * per_metre and d >= (24.0 + 0.25) * per_metre
    assert b - a < 20 and d - c < 20  # a few metres: a few texels, not the tile
    assert cache.entries[(0, 0, 1)].dirty is None
    cache.mark(30.0, 20.0, 31.0, 21.0, lambda key: 2.0)  # a second stamp widens the first's rect
    a2, _, b2, _ = cache.entries[(0, 0, 0)].dirty
    assert a2 == a and b2 > b


def test_an_edit_over_most_of_a_tile_bakes_it_whole_and_a_change_of_layers_every_tile() -> None:
    cache = TerrainBaseCache()
    cache.entries[(0, 0, 0)] = entry()
    cache.entries[(0, 1, 0)] = _Entry(tex=0, side=64, tile=(0.0, 128.0, 128.0, 256.0), current=True)
    cache.mark(0.0, 0.0, 120.0, 120.0, lambda key: 2.0)
    e = cache.entries[(0, 0, 0)]
    assert not e.current and e.dirty is None  # a full bake, within the frame budget
    assert cache.entries[(0, 1, 0)].current
    cache.follow(("layers", 1))
    assert not cache.entries[(0, 1, 0)].current
    assert not cache.covers((0, 1, 0), 1000.0)
