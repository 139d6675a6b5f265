import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.foliage.foliage_type import Extent, FoliageType
from model.foliage.palette import Palette
from model.foliage.volume import FoliageAddress, FoliageVolume, addresses_of


def rec(x, z, y=0.0, scale=1.0):
    return np.array([[x, y, z, 0.0, 0.0, 0.0, scale]], np.float32)


def random_records(n, seed=0, span=100.0):
    rng = np.random.default_rng(seed)
    r = np.zeros((n, 7), np.float32)
    r[:, 0] = rng.uniform(-span, span, n)
    r[:, 2] = rng.uniform(-span, span, n)
    r[:, 1] = rng.uniform(0, 10, n)
    r[:, 3] = rng.uniform(0, 6.28, n)
    r[:, 6] = rng.uniform(0.5, 2, n)
    return r


def snapshot(volume):
    return {key: c.records.tobytes() for key, c in volume.chunks()}


def test_cell_of_floors_around_zero():
    v = FoliageVolume(cell_size=32.0)
    assert v.cell_of(-0.5, 0.5) == (-1, 0)
    assert v.cell_of(0.5, -0.5) == (0, -1)
    assert v.cell_of(-32.0, 31.999) == (-1, 0)
    assert v.cell_of(-32.001, 32.0) == (-2, 1)
    # the four cells around the origin stay four
    cells = {v.cell_of(x, z) for x in (-0.5, 0.5) for z in (-0.5, 0.5)}
    assert cells == {(-1, -1), (-1, 0), (0, -1), (0, 0)}
    cx, cz = v.cell_of(np.array([-0.5, 0.5, -64.0]), np.array([0.0, -1e-6, 63.9]))
    assert cx.tolist() == [-1, 0, -2] and cz.tolist() == [0, -1, 1]


def test_chunk_bounds_include_the_canopy_at_the_cell_edge():
    pal = Palette([FoliageType("oak", extent=Extent(4.0, 10.0))])
    v = FoliageVolume(pal, 32.0)
    v.add("oak", np.concatenate([rec(31.9, 5.0, y=2.0, scale=1.5), rec(10.0, 20.0)]))
    box = v.bounds((0, 0), "oak")
    assert box[1, 0] == pytest.approx(31.9 + 4.0 * 1.5, abs=1e-4)  # reaches past the cell edge
    assert box[0, 0] == pytest.approx(10.0 - 4.0, abs=1e-4)
    assert box[1, 1] == pytest.approx(max(2.0 + 10.0 * 1.5, 10.0), abs=1e-4)
    assert box[0, 1] == pytest.approx(0.0)
    before = box.copy()
    v.add("oak", rec(0.5, 0.5, y=-3.0))
    assert v.bounds((0, 0), "oak")[0, 1] == pytest.approx(-3.0)  # recomputed after a change
    assert not np.array_equal(before, v.bounds((0, 0), "oak"))


def test_add_groups_by_cell_and_returns_addresses():
    v = FoliageVolume(cell_size=10.0)
    r = np.concatenate([rec(1, 1), rec(15, 1), rec(2, 2), rec(-1, 1)])
    added = v.add("t", r)
    assert {k: i.tolist() for k, i in added.items()} == {
        ((0, 0), "t"): [0, 1], ((1, 0), "t"): [0], ((-1, 0), "t"): [0]}
    assert np.array_equal(v.records((0, 0), "t"), r[[0, 2]])
    assert v.counts() == {"t": 4} and len(v) == 4
    for key, idx in added.items():
        assert np.array_equal(v.at({key: idx}), v.records(*key))
    assert sorted(v.at(added)[:, 0].tolist()) == sorted(r[:, 0].tolist())


def test_remove_ascending_addresses_removes_the_right_instances():
    v = FoliageVolume(cell_size=1000.0)
    r = random_records(10)
    r[:, (0, 2)] += 200.0  # all in cell (0, 0)
    v.add("t", r)
    cell = (0, 0)
    ascending = [FoliageAddress(cell, "t", i) for i in (2, 3, 7)]
    removed = v.remove(ascending)
    keep = [i for i in range(10) if i not in (2, 3, 7)]
    assert np.array_equal(v.records(cell, "t"), r[keep])
    assert np.array_equal(removed.records(), r[[2, 3, 7]])
    assert removed.addresses() == ascending


def test_remove_rejects_bad_addresses_without_changing_anything():
    v = FoliageVolume()
    v.add("t", rec(1, 1))
    before = snapshot(v)
    with pytest.raises(IndexError):
        v.remove([FoliageAddress((0, 0), "t", 0), FoliageAddress((0, 0), "t", 5)])
    with pytest.raises(IndexError):
        v.remove([FoliageAddress((9, 9), "t", 0)])
    assert snapshot(v) == before


def test_remove_then_restore_is_byte_identical_and_versions_move():
    v = FoliageVolume(cell_size=20.0)
    v.add("a", random_records(500, 1))
    v.add("b", random_records(300, 2))
    before = snapshot(v)
    versions = {k: c.version for k, c in v.chunks()}
    sel = v.query_radius(0, 0, 60)
    removed = v.remove(sel)
    assert len(removed) == sum(len(i) for i in sel.values()) > 0
    assert all(v.chunk(*k) is None or v.chunk(*k).version > versions[k] for k in sel)
    v.restore(removed)
    assert snapshot(v) == before
    assert all(v.chunk(*k).version > versions[k] for k in sel)


def test_emptied_chunk_disappears_and_comes_back():
    v = FoliageVolume()
    v.add("t", rec(1, 1))
    seen = []
    v.changed.connect(seen.append)
    removed = v.remove([FoliageAddress((0, 0), "t", 0)])
    assert v.keys() == [] and seen == [[((0, 0), "t")]]
    v.restore(removed)
    assert np.array_equal(v.records((0, 0), "t"), rec(1, 1))


def test_queries_agree_with_brute_force():
    v = FoliageVolume(cell_size=16.0)
    r = random_records(2000, 3)
    v.add("a", r[:1000])
    v.add("b", r[1000:])
    allr = {"a": r[:1000], "b": r[1000:]}

    def found(sel):
        return sorted(tuple(x) for x in v.at(sel)[:, (0, 2)].tolist())

    def brute(mask_fn, types=("a", "b")):
        pts = np.concatenate([allr[t] for t in types])
        mask = mask_fn(pts[:, 0].astype(float), pts[:, 2].astype(float))
        return sorted(tuple(x) for x in pts[mask][:, (0, 2)].tolist())

    assert found(v.query_radius(10, -5, 30)) == brute(lambda x, z: (x - 10) ** 2 + (z + 5) ** 2 <= 900)
    assert found(v.query_radius(10, -5, 30, ["b"])) == brute(
        lambda x, z: (x - 10) ** 2 + (z + 5) ** 2 <= 900, ("b",))
    assert found(v.query_box((-20, 0), (35, 40))) == brute(
        lambda x, z: (x >= -20) & (x <= 35) & (z >= 0) & (z <= 40))
    tri = [(-50, -50), (50, -50), (0, 50)]
    # inside the triangle: below both slanted edges
    got = found(v.query_polygon(tri))
    assert got == brute(lambda x, z: (z >= -50) & (z <= 2 * x + 50) & (z <= -2 * x + 50))
    assert len(got) > 100
    assert len(addresses_of(v.query_radius(0, 0, 1000))) == 2000


def test_replace_in_place_returns_old_records():
    v = FoliageVolume()
    v.add("t", np.concatenate([rec(1, 1), rec(2, 2)]))
    new = rec(2, 2, y=5.0)
    old = v.replace({((0, 0), "t"): np.array([1])}, new)
    assert np.array_equal(old, rec(2, 2)) and v.records((0, 0), "t")[1, 1] == 5.0
    with pytest.raises(ValueError):
        v.replace({((0, 0), "t"): np.array([0])}, rec(40, 1))  # would leave its cell


def test_recell_keeps_every_instance():
    v = FoliageVolume(cell_size=32.0)
    r = random_records(1000, 4)
    v.add("t", r)
    w = v.recelled(64.0)
    assert len(w.keys()) < len(v.keys())
    a = np.sort(v.all_records("t").view("V28").ravel())
    b = np.sort(w.all_records("t").view("V28").ravel())
    assert np.array_equal(a, b)


ops = st.lists(st.tuples(st.sampled_from(["add", "remove", "undo"]), st.integers(0, 2**31 - 1)),
               min_size=1, max_size=25)


@settings(max_examples=60, deadline=None)
@given(ops)
def test_add_remove_restore_sequences_round_trip(sequence):
    """Any sequence of edits, undone in reverse, gives back the original bytes at every step."""
    v = FoliageVolume(cell_size=8.0)
    v.add("t", random_records(40, 99, span=20.0))
    history = []  # (snapshot before, undo)
    for op, seed in sequence:
        rng = np.random.default_rng(seed)
        before = snapshot(v)
        if op == "add":
            added = v.add(rng.choice(["t", "u"]), random_records(int(rng.integers(1, 10)), seed, 20.0))
            history.append((before, lambda a=added: v.remove(a)))
        elif op == "remove" and len(v):
            addrs = addresses_of({k: np.arange(len(c)) for k, c in v.chunks()})
            pick = rng.choice(len(addrs), size=int(rng.integers(1, len(addrs) + 1)), replace=False)
            chosen = [addrs[i] for i in pick]
            expected = {tuple(a) for a in addrs} - {tuple(a) for a in chosen}
            removed = v.remove(chosen)
            assert len(removed) == len(chosen)
            kept = {FoliageAddress(*a) for a in expected}
            assert len(v) == len(kept)
            history.append((before, lambda r=removed: v.restore(r)))
        elif op == "undo" and history:
            snap, undo = history.pop()
            undo()
            assert snapshot(v) == snap
    while history:
        snap, undo = history.pop()
        undo()
        assert snapshot(v) == snap


def test_frustum_culls_cells_by_their_grown_bounds_then_instances():
    pal = Palette([FoliageType("oak", extent=Extent(4.0, 10.0))])
    v = FoliageVolume(pal, 32.0)
    v.add("oak", np.concatenate([rec(33.0, 5.0), rec(60.0, 5.0), rec(100.0, 5.0), rec(10.0, 5.0)]))
    keep_west = [(-1.0, 0.0, 0.0, 31.0)]  # x <= 31
    # cell (1, 0)'s first tree stands at x = 33, but its canopy reaches x = 29: the cell is drawn
    assert v.chunks_in_frustum(keep_west) == [((0, 0), "oak"), ((1, 0), "oak")]
    assert {k: i.tolist() for k, i in v.query_frustum(keep_west).items()} == {((0, 0), "oak"): [0]}
    # a box from positions alone would have culled it
    assert v.records((1, 0), "oak")[:, 0].min() > 31.0
    above = [(0.0, -1.0, 0.0, -20.0)]  # y <= -20: below every tree
    assert v.chunks_in_frustum(above) == []
    assert v.chunks_in_frustum(np.zeros((0, 4))) == sorted(v.keys(), key=lambda k: (k[1], k[0]))


def test_cell_counts_add_every_type_of_a_cell():
    v = FoliageVolume()
    v.add("a", random_records(300, seed=1))
    v.add("b", random_records(120, seed=2))
    expected: dict = {}
    for (cell, _), chunk in v.chunks():
        expected[cell] = expected.get(cell, 0) + len(chunk)
    assert v.cell_counts() == expected and sum(expected.values()) == 420


def test_chunk_list_and_key_cells_read_every_chunk_as_one_by_one_calls_do():
    v = FoliageVolume(cell_size=10.0)
    v.add("a", random_records(300, seed=1))
    v.add("b", random_records(50, seed=2))
    keys = v.keys() + [((999, 999), "a")]  # one that is not there
    found = v.chunk_list(keys)
    assert found[:-1] == [v.chunk(*k) for k in keys[:-1]] and found[-1] is None
    assert v.key_cells(keys).tolist() == [list(cell) for cell, _ in keys]
    assert v.key_cells([]).shape == (0, 2)
    assert set(v.key_set()) == set(v.keys())


def test_counts_follow_every_kind_of_edit():
    def summed(v):  # the plain loop: instances per type straight from the chunks
        out = {}
        for (_, t), c in v.chunks():
            out[t] = out.get(t, 0) + len(c)
        return out

    v = FoliageVolume(cell_size=10.0)
    assert v.counts() == {}
    v.add("a", random_records(200, seed=1))
    v.add("b", random_records(30, seed=2))
    assert v.counts() == summed(v) == {"a": 200, "b": 30}
    v.counts()["a"] = 0  # a caller's copy: the volume's own stays
    removed = v.remove(v.query_radius(0.0, 0.0, 40.0))
    assert v.counts() == summed(v) and v.count("a") < 200
    v.restore(removed)
    assert v.counts() == {"a": 200, "b": 30}
    other = FoliageVolume(cell_size=10.0)
    other.add("c", random_records(5, seed=3))
    assert other.counts() == {"c": 5}
    v.absorb(other)
    assert v.counts() == {"a": 200, "b": 30, "c": 5} and other.counts() == {}
    bounds, cells = np.array([0, 2, 3]), [(500, 500), (501, 500)]
    runs = np.concatenate([rec(5005.0, 5005.0), rec(5006.0, 5005.0), rec(5015.0, 5005.0)])
    v.add_runs([("d", runs, bounds, cells)])
    assert v.counts() == summed(v) and v.count("d") == 3
    v.clear()
    assert v.counts() == {}
