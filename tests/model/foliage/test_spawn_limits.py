"""Spawner limits: neighbour questions answered in bounded blocks (memory linear in the candidates for
any density or exclusion radius), capped any/not lists, and re-runs that change nothing."""

import tracemalloc

import numpy as np
import pytest

from model.errors import FormatError
from model.foliage import FoliageType, Palette, foliage_of, neighbours
from model.foliage.neighbours import any_within, pairs_within
from model.foliage.spawn_conditions import MAX_ANY, MAX_NODES
from model.foliage.spawn_run import SPACING_ROUNDS, blue_noise, run_spawner
from model.foliage.spawner import spawner_from_toml, spawners_from_toml
from model.foliage.spawner_section import run_and_apply, spawners_of
from model.scene import Scene
from model.terrain import Terrain


def reference_blue_noise(xz, priority, spacing):
    """The rounds with every pair held at once (how they were first written): the bits to match."""
    n = len(xz)
    keep = np.zeros(n, bool)
    qi, pi = pairs_within(xz, xz, spacing)
    other = qi != pi
    qi, pi = qi[other], pi[other]
    rank = np.empty(n, np.int64)
    rank[np.lexsort((np.arange(n), priority))] = np.arange(n)
    undecided = np.ones(n, bool)
    for _ in range(SPACING_ROUNDS):
        live = undecided[qi] & undecided[pi]
        q, p = qi[live], pi[live]
        beaten = np.zeros(n, bool)
        beaten[q[rank[p] > rank[q]]] = True
        winners = undecided & ~beaten
        keep |= winners
        undecided &= ~winners
        lost = np.zeros(n, bool)
        lost[qi[winners[pi]]] = True
        undecided &= ~lost
    return keep


@pytest.mark.parametrize("block", [5, 97, 1 << 20])
def test_blocked_answers_match_all_pairs_at_once(monkeypatch, block):
    monkeypatch.setattr(neighbours, "PAIR_BLOCK", block)
    rng = np.random.default_rng(3)
    pts = rng.uniform(0, 40, (600, 2))
    pts[:20] = pts[20:40]  # duplicates: distance 0
    queries = rng.uniform(-5, 45, (400, 2))
    for radius in (0.5, 3.0, 60.0):
        qi, _ = pairs_within(queries, pts, radius)
        expect = np.zeros(len(queries), bool)
        expect[qi] = True
        assert np.array_equal(any_within(queries, pts, radius), expect)
    priority = rng.integers(0, 2**32, len(pts), dtype=np.uint64).astype(np.uint32)
    priority[:50] = 7  # ties are broken by position
    for spacing in (1.0, 2.5, 100.0):
        expect = reference_blue_noise(pts, priority, spacing)
        assert np.array_equal(blue_noise(pts, priority, spacing), expect)


def test_one_query_with_more_pairs_than_a_block_is_split(monkeypatch):
    monkeypatch.setattr(neighbours, "PAIR_BLOCK", 16)
    pts = np.stack([np.arange(100.0), np.zeros(100)], axis=-1)
    hit = any_within(np.array([[99.5, 0.0], [1098.5, 0.0], [1099.5, 0.0], [1200.0, 0.0]]), pts, 1000.0)
    assert hit.tolist() == [True, True, False, False]


def _peak(fn) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _flat_world(side: float) -> tuple[Terrain, Palette]:
    n = int(side / 4.0) + 1
    terrain = Terrain(np.zeros((n, n), np.float32), side / (n - 1), (0.0, 0.0))
    palette = Palette()
    for name, spacing in (("tree", 1.0), ("rock", 0.0)):
        palette.add(FoliageType(name, spacing=spacing))
    return terrain, palette


def _spawner(density: float, exclusion: float = 0.0):
    return spawner_from_toml({"name": "s", "seed": 3, "area": "all", "species": [
        {"type": "rock", "density": 0.05, "exclusion": exclusion},
        {"type": "tree", "density": density, "order": 1}]})


def _no_stored(types, box):
    return np.empty((0, 2))


def test_peak_memory_grows_linearly_with_density():
    terrain, palette = _flat_world(256.0)
    runs = {}
    for density in (20.0, 80.0):  # 4× the candidates: 16× the pairs within the spacing
        sp = _spawner(density)
        result = run_spawner(sp, terrain, palette, _no_stored)
        runs[density] = (result.species[1].candidates,
                         _peak(lambda sp=sp: run_spawner(sp, terrain, palette, _no_stored)))
    (n1, m1), (n4, m4) = runs[20.0], runs[80.0]
    assert 3.8 < n4 / n1 < 4.2
    assert m4 / m1 <= 4.5, (m1, m4)


def test_a_huge_exclusion_costs_no_more_memory_than_a_small_one(monkeypatch):
    monkeypatch.setattr(neighbours, "PAIR_BLOCK", 1 << 14)  # the block's own few MB out of the way
    terrain, palette = _flat_world(256.0)
    small = _peak(lambda: run_spawner(_spawner(40.0, 2.0), terrain, palette, _no_stored))
    big = _peak(lambda: run_spawner(_spawner(40.0, 1000.0), terrain, palette, _no_stored))
    result = run_spawner(_spawner(40.0, 1000.0), terrain, palette, _no_stored)
    assert result.species[0].placed > 0 and result.species[1].placed == 0  # every tree excluded
    assert big <= 1.5 * small, (small, big)


def _species_with(condition):
    return [{"name": "a", "species": [{"type": "tree", "conditions": [condition]}]}]


def test_any_lists_are_capped_naming_the_place():
    items = [{"slope": [0, 10]}] * (MAX_ANY + 1)
    with pytest.raises(FormatError) as e:
        spawners_from_toml(_species_with({"any": items}), "s.toml")
    assert e.value.place == "spawners[0].species[0].conditions[0].any" and "at most" not in str(e.value)
    assert f"1 to {MAX_ANY}" in str(e.value)
    spawners_from_toml(_species_with({"any": items[:MAX_ANY]}), "s.toml")  # the cap itself is fine


def test_nested_conditions_count_towards_one_cap_per_species():
    leaf = {"slope": [0, 10]}
    wide = {"any": [{"any": [leaf] * 30}] * 30}  # 931 conditions in 2 levels
    with pytest.raises(FormatError, match=f"more than {MAX_NODES} conditions"):
        spawners_from_toml(_species_with(wide), "s.toml")
    ok = {"any": [{"any": [leaf] * 10}] * 10}  # 111
    spawners_from_toml(_species_with(ok), "s.toml")


def test_any_asks_each_item_only_about_the_candidates_still_failing():
    terrain, palette = _flat_world(64.0)
    sp = spawner_from_toml({"name": "s", "area": "all", "species": [
        {"type": "rock", "density": 20.0, "conditions": [
            {"any": [{"noise": {"scale": 10.0, "threshold": 0.5}},
                     {"noise": {"scale": 3.0, "threshold": 0.6}}, {"altitude": [5, 10]}]}]}]})
    result = run_spawner(sp, terrain, palette, _no_stored)
    xz = result.species[0].xz
    a = sp.species[0].conditions[0].items
    expect = a[0].values(xz) >= 0.5
    expect |= a[1].values(xz) >= 0.6
    assert np.array_equal(result.species[0].refusals == 0, expect)
    assert 0 < expect.sum() < len(xz)


def test_a_rerun_that_changes_nothing_changes_nothing():
    terrain, palette = _flat_world(256.0)
    scene = Scene(terrain)
    foliage_of(scene, palette)
    sp = _spawner(20.0)
    spawners_of(scene).spawners.append(sp)
    _, first = run_and_apply(scene, sp)
    assert first.changes_scene and sum(len(v) for v in first.added.values()) > 10_000
    volume = foliage_of(scene).volume
    before = {key: volume.records(*key).tobytes() for key, _ in volume.chunks()}
    _, again = run_and_apply(scene, sp)
    assert not again.changed and not again.changes_scene
    assert {key: volume.records(*key).tobytes() for key, _ in volume.chunks()} == before


@pytest.mark.parametrize("tile", [1e-300, 0.01, float("nan"), 0.0])
def test_a_tile_size_making_too_many_tiles_is_refused_before_any_list(tile):
    from model.foliage.spawn_batch import spawn_in_tiles
    from model.foliage.spawn_run import SpawnError

    terrain, palette = _flat_world(256.0)
    scene = Scene(terrain)
    foliage_of(scene, palette)
    with pytest.raises(SpawnError, match="tile"):
        spawn_in_tiles(scene, _spawner(1.0), tile=tile)
