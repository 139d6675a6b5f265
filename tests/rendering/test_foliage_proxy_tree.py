"""The proxy quadtree on the CPU (no GL): group proxies, their paths, their memory budget."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, FoliageVolume
from model.foliage.variants import draw24, instance_hashes
from rendering.foliage_proxies import PROXY_CAP, PROXY_CHANNEL, proxies_of_many, proxy_of
from rendering.foliage_proxy_tree import ProxyTree, cells_of, chunk_bounds, morton

CELL = 32.0


def _volume(n: int = 20_000, side: float = 512.0, seed: int = 4) -> FoliageVolume:
    volume = FoliageVolume()
    volume.palette.add(FoliageType("fir", mesh="builtin:conifer"))
    rng = np.random.default_rng(seed)
    rec = np.zeros((n, 7), np.float32)
    rec[:, 0] = rng.uniform(-side / 2, side / 2, n)
    rec[:, 2] = rng.uniform(-side / 2, side / 2, n)
    rec[:, 3] = rng.uniform(0, 6.28, n)
    rec[:, 6] = rng.uniform(0.8, 1.2, n)
    volume.add("fir", rec)
    return volume


def _tree(volume: FoliageVolume, budget_mb: float = 64.0) -> ProxyTree:
    tree = ProxyTree("fir", 20.0, CELL, budget_mb)
    tree.apply(volume, volume.keys())
    return tree


def test_morton_codes_round_trip_and_a_nodes_chunks_are_one_run() -> None:
    rng = np.random.default_rng(1)
    cells = rng.integers(-3000, 3000, (500, 2))
    assert np.array_equal(cells_of(morton(cells[:, 0], cells[:, 1])), cells)
    tree = _tree(_volume())
    for table in tree.levels[1:]:
        for i in range(len(table)):  # every chunk of a node, and no other, lies in its run
            a, b = table.chunk_first[i], table.chunk_end[i]
            assert table.count[i] == tree.count[a:b].sum()
            assert np.all(tree.lo[a:b] >= table.lo[i]) and np.all(tree.hi[a:b] <= table.hi[i])
    assert len(tree.levels[-1]) == 1 and tree.levels[-1].count[0] == tree.count.sum()


def test_many_chunks_proxies_in_one_pass_are_each_chunks_own() -> None:
    volume = _volume(5000, 128.0)
    keys = sorted(volume.keys())
    recs = [volume.chunk(*k).records for k in keys]
    group = np.repeat(np.arange(len(recs)), [len(r) for r in recs])
    many = proxies_of_many(np.concatenate(recs), group, len(recs), "fir", 20.0, CELL ** 2)
    for i, r in enumerate(recs):
        assert np.array_equal(many[many[:, 10] == i, :10], proxy_of(r, "fir", 20.0, CELL ** 2))


def test_a_group_proxy_is_its_own_lowest_hashed_instances_standing_for_its_chunks() -> None:
    volume = _volume()
    tree = _tree(volume)
    for level in range(1, len(tree.levels)):
        table = tree.levels[level]
        rows = np.arange(len(table))
        for r, reps in zip(rows, tree.reps(volume, level, rows), strict=True):
            chunks = [tree.key(int(i)) for i in range(table.chunk_first[r], table.chunk_end[r])]
            rec = np.concatenate([volume.chunk(*k).records for k in chunks])
            u = draw24(instance_hashes(rec, "fir"), PROXY_CHANNEL)
            lowest = rec[np.argsort(u, kind="stable")[:PROXY_CAP]]
            assert np.array_equal(np.sort(reps[:, :7], axis=0), np.sort(lowest, axis=0))  # the same instances
            assert np.array_equal(draw24(instance_hashes(reps[:, :7], "fir"), PROXY_CHANNEL),
                                  np.sort(u)[:len(reps)])  # in hash order
            stands = sum(float(proxy_of(volume.chunk(*k).records, "fir", 20.0, CELL ** 2)[0, 9])
                         for k in chunks)
            assert np.isclose(reps[0, 9], max(len(reps), stands), rtol=1e-5)


def test_an_edit_remakes_only_the_proxies_on_its_path_and_the_same_ones() -> None:
    volume = _volume()
    tree = _tree(volume)
    every = {lv: tree.reps(volume, lv, np.arange(len(t))) for lv, t in enumerate(tree.levels)}
    built = tree.builds
    assert built == sum(len(t) for t in tree.levels)
    key = tree.key(17)
    x, z = key[0][0] * CELL + 3.0, key[0][1] * CELL + 5.0
    volume.add("fir", np.array([[x, 0, z, 0, 0, 0, 1.0]], np.float32))
    tree.apply(volume, [key])
    assert len(tree.cache) == built - len(tree.levels)  # one node a level dropped
    again = {lv: tree.reps(volume, lv, np.arange(len(t))) for lv, t in enumerate(tree.levels)}
    assert tree.builds - built == len(tree.levels)  # and only those made again
    fresh = _tree(volume)
    for mine, theirs in zip(tree.levels, fresh.levels, strict=True):  # refreshed in place as if afresh
        assert np.array_equal(mine.codes, theirs.codes) and np.array_equal(mine.count, theirs.count)
        assert np.allclose(mine.lo, theirs.lo) and np.allclose(mine.hi, theirs.hi)
    for lv, t in enumerate(fresh.levels):
        made = fresh.reps(volume, lv, np.arange(len(t)))
        assert all(np.array_equal(a, b) for a, b in zip(made, again[lv], strict=True))  # as if made afresh
    changed = sum(not np.array_equal(a, b) for lv in every for a, b in zip(every[lv], again[lv], strict=True))
    assert changed <= len(tree.levels)


def test_the_budget_keeps_the_cache_bounded_and_what_is_remade_is_identical() -> None:
    volume = _volume(40_000, 1024.0)
    roomy = _tree(volume)
    top = len(roomy.levels) - 3
    want = roomy.reps(volume, top, np.arange(len(roomy.levels[top])))
    assert roomy.cache_bytes > 0.5e6 and roomy.evicted == 0
    tight = _tree(volume, budget_mb=0.1)
    got = tight.reps(volume, top, np.arange(len(tight.levels[top])))
    assert tight.cache_bytes <= 0.1e6 and tight.evicted > 0
    assert all(np.array_equal(a, b) for a, b in zip(want, got, strict=True))
    assert min(lv for lv, _ in tight.cache) > 0  # the finest levels go first: the coarse nodes stay
    key = tight.key(300)
    x, z = key[0][0] * CELL + 3.0, key[0][1] * CELL + 5.0
    volume.add("fir", np.array([[x, 0, z, 0, 0, 0, 1.0]], np.float32))
    tight.apply(volume, [key])
    built = tight.builds
    tight.reps(volume, top, np.arange(len(tight.levels[top])))
    assert tight.builds - built < 4 * 4 * len(tight.levels)  # its path and a few fine siblings, no more
    volume.remove({key: np.array([len(volume.chunk(*key)) - 1])})
    tight.apply(volume, [key])
    got = tight.reps(volume, top, np.arange(len(tight.levels[top])))
    assert all(np.array_equal(a, b) for a, b in zip(want, got, strict=True))  # and back as it was
    again = tight.reps(volume, 0, np.arange(40))  # evicted chunk proxies come back the same
    assert all(np.array_equal(a, b) for a, b in zip(roomy.reps(volume, 0, np.arange(40)), again, strict=True))


def test_chunk_bounds_in_one_pass_are_the_volumes_own() -> None:
    volume = _volume(3000, 256.0)
    keys = volume.keys()
    assert np.allclose(chunk_bounds(volume, "fir", keys), np.stack([volume.bounds(*k) for k in keys]))
