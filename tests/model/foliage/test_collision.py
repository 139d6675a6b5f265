import numpy as np

from model.foliage.collision import FoliageCollision
from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.volume import FoliageAddress, FoliageVolume


def rec(x, z, y=0.0):
    return np.array([[x, y, z, 0, 0, 0, 1]], np.float32)


def world():
    pal = Palette([FoliageType("tree", activation_radius=10.0), FoliageType("rock", activation_radius=3.0),
                   FoliageType("grass", storage="derived", activation_radius=50.0),
                   FoliageType("flower")])  # radius 0: never a body
    v = FoliageVolume(pal, 32.0)
    v.add("tree", np.concatenate([rec(1, 1), rec(5, 1), rec(30, 1), rec(200, 200)]))
    v.add("rock", np.concatenate([rec(2, 2), rec(8, 2)]))
    v.add("grass", np.concatenate([rec(1, 1), rec(2, 1)]))
    v.add("flower", rec(1, 2))
    return v


def A(t, i, cell=(0, 0)):
    return FoliageAddress(cell, t, i)


def test_update_gives_bodies_within_each_types_radius_only():
    c = FoliageCollision(world())
    added, removed = c.update([(0.0, 0.0)])
    assert added == sorted([A("tree", 0), A("tree", 1), A("rock", 0)]) and removed == []
    assert not any(a.type in ("grass", "flower") for a in c.active)  # derived types never asked


def test_update_returns_only_differences():
    c = FoliageCollision(world())
    c.update([(0.0, 0.0)])
    assert c.update([(0.0, 0.0)]) == ([], [])
    added, removed = c.update([(25.0, 0.0)])
    assert added == [A("tree", 2)] and removed == sorted([A("tree", 0), A("tree", 1), A("rock", 0)])
    added, removed = c.update([(25.0, 0.0), (200.0, 195.0)])
    assert added == [A("tree", 0, (6, 6))] and removed == []
    added, removed = c.update([])
    assert added == [] and removed == sorted([A("tree", 2), A("tree", 0, (6, 6))])


def test_three_d_points_measure_height_too():
    c = FoliageCollision(world())
    added, _ = c.update([(1.0, 50.0, 1.0)])
    assert added == []
    added, _ = c.update([(1.0, 5.0, 1.0)])
    assert A("tree", 0) in added


def test_after_an_erase_forget_gives_the_shifted_instance_its_body():
    v = world()
    c = FoliageCollision(v)
    c.update([(0.0, 0.0)])
    assert {A("tree", 0), A("tree", 1)} <= c.active
    # without forget: the instance that shifted into index 0 never gets a body
    v2 = world()
    c2 = FoliageCollision(v2)
    c2.update([(0.0, 0.0)])
    v2.remove([A("tree", 0)])
    added, removed = c2.update([(0.0, 0.0)])
    assert added == [] and A("tree", 1) in removed
    # with forget: it does
    v.remove([A("tree", 0)])
    c.forget([A("tree", 0)])
    added, removed = c.update([(0.0, 0.0)])
    assert A("tree", 0) in added and A("tree", 1) in removed


def test_an_append_keeps_every_body_and_the_next_update_reports_only_new_instances():
    v = world()
    c = FoliageCollision(v)
    c.update([(0.0, 0.0)])
    before = set(c.active)
    v.add("tree", np.concatenate([rec(2, 3), rec(40, 3), rec(6, 0)]))  # two within 10 m, one far
    assert c.forget_changed([((0, 0), "tree"), ((1, 0), "tree")]) == []
    assert c.active == before
    added, removed = c.update([(0.0, 0.0)])
    assert added == [A("tree", 3), A("tree", 4)] and removed == []


def test_an_erase_forgets_the_erased_and_shifted_bodies_only():
    v = world()
    v.add("tree", np.concatenate([rec(3, 3), rec(4, 4)]))  # tree chunk (0, 0): 0, 1, 2 far-ish, 3, 4
    c = FoliageCollision(v)
    c.update([(0.0, 0.0)])
    assert {A("tree", i) for i in (0, 1, 3, 4)} <= c.active and A("tree", 2) not in c.active
    removed = v.remove([A("tree", 1)])
    assert c.shifted_by(removed) == [A("tree", 1), A("tree", 3), A("tree", 4)]
    assert c.forget_changed([((0, 0), "tree")]) == [A("tree", 1), A("tree", 3), A("tree", 4)]
    assert A("tree", 0) in c.active and A("rock", 0) in c.active
    # the instances that shifted down (old 3, 4 → 2, 3) get their bodies at their new addresses
    added, removed_now = c.update([(0.0, 0.0)])
    assert added == [A("tree", 2), A("tree", 3)] and removed_now == []
    # undo (restore) shifts them back up: again only the bodies after the restored index go
    v2 = world()
    c2 = FoliageCollision(v2)
    c2.update([(0.0, 0.0)])
    r = v2.remove([A("tree", 0)])
    assert c2.forget_removed(r) == [A("tree", 0), A("tree", 1)]
    c2.update([(0.0, 0.0)])
    assert c2.active >= {A("tree", 0)}
    v2.restore(r)
    assert c2.forget_changed([((0, 0), "tree")]) == [A("tree", 0)]
    assert c2.update([(0.0, 0.0)]) == ([A("tree", 0), A("tree", 1)], [])


def test_a_moved_instance_loses_its_body_until_the_next_update():
    v = world()
    c = FoliageCollision(v)
    c.update([(0.0, 0.0)])
    v.replace({((0, 0), "tree"): np.array([1])}, rec(20, 1))
    assert c.forget_changed() == [A("tree", 1)]
    assert c.update([(0.0, 0.0)]) == ([], [])
