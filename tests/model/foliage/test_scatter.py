import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.foliage.foliage_type import FoliageType, LayerFilter
from model.foliage.reference import consider_reference
from model.foliage.scatter import (
    PLACED,
    FoliageScatter,
    LayerRegion,
    PolygonRegion,
    Refusal,
    Stamp,
    up_of,
)
from model.foliage.store import encode_store
from model.foliage.volume import FoliageVolume
from model.terrain import Terrain
from tests.model.foliage.conftest import TREE, cone, paint_half, plane, ramp, scatter_for


def assert_same(a, b):
    assert np.array_equal(a.refusals, b.refusals)
    assert np.array_equal(a.xz, b.xz)
    assert a.records.tobytes() == b.records.tobytes()
    assert a.missing_layer == b.missing_layer


def volume_bytes(volume):
    return b"".join(c.records.tobytes() for _, c in volume.chunks())


STAMPS = [Stamp((50, 60), 20, 0.5, 1.0, seed=7, index=3), Stamp((64, 64), 35, 0.0, 0.7, seed=1, index=0),
          Stamp((12, 60), 25, 1.0, 1.0, seed=5, index=9),  # half off the terrain
          Stamp((30, 90), 10, 0.3, 1.0, seed=2**33 + 5, index=77)]


@pytest.mark.parametrize("stamp", STAMPS)
def test_vectorised_scatter_equals_the_reference_loop(half_painted_cone, stamp):
    sc = scatter_for(half_painted_cone, TREE)
    sc.volume.add("tree", sc.paint(["tree"], Stamp((40, 60), 15, 0.2, 1.0, seed=99), apply=False)
                  .records("tree"))
    vec = sc.consider("tree", stamp)
    ref = consider_reference(sc, "tree", stamp)
    assert_same(vec, ref)
    assert len(vec.refusals) > 50 and len(set(vec.refusals.tolist())) >= 3


def test_the_reference_comparison_covers_placements(half_painted_cone):
    sc = scatter_for(half_painted_cone, TREE)
    assert sum(len(sc.consider("tree", s).records) for s in STAMPS) > 20


@pytest.mark.parametrize("variant", [
    dict(spacing=0.0), dict(spacing=6.0), dict(slope=(20.0, 90.0)), dict(altitude=(10.0, 25.0)),
    dict(layer=LayerFilter("missing", 0.5)), dict(layer=None, density=200.0, spacing=1.0),
    dict(align=1.0, tilt=(10.0, 30.0), yaw=(-90.0, 90.0)),
])
def test_reference_agrees_for_every_rule(half_painted_cone, variant):
    ftype = dataclasses.replace(TREE, **variant)
    sc = scatter_for(half_painted_cone, ftype)
    for stamp in STAMPS[:3]:
        assert_same(sc.consider("tree", stamp), consider_reference(sc, "tree", stamp))


def test_polygon_and_layer_fills_agree_with_reference(half_painted_cone):
    sc = scatter_for(half_painted_cone, dataclasses.replace(TREE, layer=None, density=2.0))
    for region in (PolygonRegion(((10, 10), (100, 20), (60, 110)), seed=3),
                   LayerRegion("grass", 0.5, seed=4)):
        assert_same(sc.consider("tree", region), consider_reference(sc, "tree", region))


def test_refusals_come_in_spec_order():
    t = ramp(degrees=50.0)  # every candidate too steep for the tree, and the layer is missing
    sc = scatter_for(t, TREE)
    out = sc.consider("tree", Stamp((32, 32), 20, 0.0, 1.0, seed=1))
    inside_terrain = (out.xz >= 0).all(axis=1) & (out.xz <= 64).all(axis=1)
    assert set(out.refusals[inside_terrain].tolist()) == {Refusal.SLOPE}
    # below the slope limit, the altitude band refuses before the (missing) layer
    sc = scatter_for(ramp(degrees=10.0), dataclasses.replace(TREE, altitude=(100.0, 200.0)))
    out = sc.consider("tree", Stamp((32, 32), 20, 0.0, 1.0, seed=1))
    assert set(out.refusals.tolist()) == {Refusal.ALTITUDE}
    assert Refusal.NO_GROUND == 1 and Refusal.BRUSH == 6
    assert [r.name for r in Refusal] == ["NO_GROUND", "SLOPE", "ALTITUDE", "LAYER", "SPACING", "BRUSH",
                                         "HOLE"]  # a hole is refused right after no ground, numbered last


def test_off_the_terrain_is_no_ground():
    sc = scatter_for(plane(), FoliageType("t", density=10))
    out = sc.consider("t", Stamp((64, 32), 16, 0.0, 1.0))
    off = out.xz[:, 0] > 64
    assert off.any() and (out.refusals[off] == Refusal.NO_GROUND).all()
    assert not (out.refusals[~off] == Refusal.NO_GROUND).any()


def test_brush_refuses_beyond_the_radius_and_thins_by_falloff():
    sc = scatter_for(plane(129), FoliageType("t", density=50))
    out = sc.consider("t", Stamp((64, 64), 30, 1.0, 1.0, seed=3))
    d = np.hypot(out.xz[:, 0] - 64, out.xz[:, 1] - 64)
    assert (out.refusals[d > 30] == Refusal.BRUSH).all()
    inner, rim = d < 8, (d > 24) & (d <= 30)
    placed = out.refusals == PLACED
    assert placed[inner].mean() > 0.8 and placed[rim].mean() < 0.2
    # density × strength × brush area / 100 m², the brush area being the disc π r²
    assert len(out.refusals) == pytest.approx(50 * np.pi * 30 * 30 / 100, abs=1)


@pytest.mark.parametrize("density,strength,radius", [(1.0, 1.0, 10.0), (2.5, 0.4, 17.0), (0.6, 1.0, 5.0),
                                                     (40.0, 0.25, 30.0), (3.0, 1.0, 0.5)])
def test_candidate_count_is_density_times_strength_times_brush_area(density, strength, radius):
    sc = scatter_for(plane(129), FoliageType("t", density=density))
    expected = density * strength * np.pi * radius * radius / 100.0
    counts = [len(sc.consider("t", Stamp((64, 64), radius, 0.5, strength, seed=s, index=i)).refusals)
              for s in range(20) for i in range(5)]
    # each stamp rounds the fraction down or up (by a hash), so density holds on average
    assert set(counts) <= {int(np.floor(expected)), int(np.ceil(expected))}
    assert np.mean(counts) == pytest.approx(expected, abs=0.25)


def test_stamp_candidates_lie_in_the_disc_uniformly():
    sc = scatter_for(plane(129), FoliageType("t", density=100.0))
    out = sc.consider("t", Stamp((64, 64), 20, 0.0, 1.0, seed=8))
    d = np.hypot(out.xz[:, 0] - 64, out.xz[:, 1] - 64)
    assert (d <= 20 + 1e-9).all()
    # uniform over the area: the inner half-radius disc holds a quarter of them
    assert (d < 10).mean() == pytest.approx(0.25, abs=0.04)
    # no falloff band on a plane: everything reached and placed
    assert (out.refusals == PLACED).all()


def test_fill_counts_follow_the_polygon_and_painted_areas():
    t = plane(129)
    paint_half(t)
    sc = scatter_for(t, FoliageType("t", density=10.0))
    tri = [(10, 10), (110, 10), (10, 110)]  # area 5000 m²: half its bounding box
    out = sc.consider("t", PolygonRegion(tuple(tri), seed=1))
    assert len(out.refusals) == pytest.approx(10.0 * 5000 / 100, abs=1)
    assert (out.refusals == PLACED).mean() > 0.99
    painted = int((t.layer("grass").weights >= 128).sum())
    out = sc.consider("t", LayerRegion("grass", 0.5, seed=2))
    assert len(out.refusals) == pytest.approx(10.0 * painted / 100, abs=1)
    assert (out.xz[:, 0] <= 64.5).all() and (out.refusals == PLACED).mean() > 0.95


def test_the_same_stamp_twice_gives_identical_results_on_a_fresh_volume(half_painted_cone):
    results = []
    for _ in range(2):
        sc = scatter_for(half_painted_cone, TREE)
        r = sc.paint(["tree"], STAMPS[0])
        results.append((r.outcomes["tree"].refusals.tobytes(), volume_bytes(sc.volume)))
    assert results[0] == results[1]
    assert len(results[0][1]) > 0


def test_one_stamp_cannot_stack_instances_within_spacing():
    sc = scatter_for(plane(65), FoliageType("t", density=500.0, spacing=3.0))
    out = sc.consider("t", Stamp((32, 32), 10, 0.0, 1.0, seed=4))
    pts = out.records[:, (0, 2)].astype(np.float64)
    d = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert len(pts) > 10 and d.min() >= 3.0 - 1e-5
    assert (out.refusals == Refusal.SPACING).sum() > 100
    # and the first accepted candidate of the stamp is the lowest-index one inside the brush
    assert out.accepted[0] == np.flatnonzero(out.refusals != Refusal.BRUSH)[0]


def test_spacing_counts_stored_instances_and_a_stroke_respects_its_earlier_stamps():
    sc = scatter_for(plane(65), FoliageType("t", density=40.0, spacing=4.0))
    first = sc.paint(["t"], Stamp((32, 32), 10, 0.0, 1.0, seed=1, index=0))
    second = sc.paint(["t"], Stamp((32, 32), 10, 0.0, 1.0, seed=1, index=1))
    assert first.placed > 0
    assert second.counts[Refusal.SPACING] > 0
    pts = sc.volume.all_records("t")[:, (0, 2)].astype(np.float64)
    d = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert d.min() >= 4.0 - 1e-5


def test_derived_instances_do_not_block_spacing():
    grass = FoliageType("g", storage="derived", density=50.0)
    tree = FoliageType("t", density=20.0, spacing=3.0)
    sc = scatter_for(plane(65), grass, tree)
    sc.paint(["g"], Stamp((32, 32), 10, 0.0, 1.0))
    assert sc.volume.count("g") > 100
    out = sc.consider("t", Stamp((32, 32), 10, 0.0, 1.0))
    fresh = scatter_for(plane(65), grass, tree).consider("t", Stamp((32, 32), 10, 0.0, 1.0))
    assert np.array_equal(out.refusals, fresh.refusals)


def angle_between(a, b):
    return np.degrees(np.arccos(np.clip(np.sum(a * b, axis=-1), -1, 1)))


@pytest.mark.parametrize("align, expected", [(0.0, 0.0), (0.1, 3.0), (0.5, 15.0), (1.0, 30.0)])
def test_alignment_is_a_fraction_of_the_way_to_the_normal(align, expected):
    t = ramp(degrees=30.0)
    sc = scatter_for(t, FoliageType("t", density=20, align=align))
    out = sc.consider("t", Stamp((32, 32), 15, 0.0, 1.0, seed=8))
    up = up_of(out.records)
    normal = t.normal_at(out.records[:, 0], out.records[:, 2])
    world_up = np.array([0.0, 1.0, 0.0])
    assert len(up) > 10
    np.testing.assert_allclose(angle_between(up, world_up), expected, atol=1e-3)
    np.testing.assert_allclose(angle_between(up, normal), 30.0 - expected, atol=1e-3)
    # the lean is towards the normal (downhill side of the ramp), not sideways
    if align > 0:
        assert (up[:, 0] * normal[:, 0] > 0).all() and np.abs(up[:, 2]).max() < 1e-5


def test_random_tilt_leans_within_its_band():
    sc = scatter_for(plane(), FoliageType("t", density=20, tilt=(5.0, 10.0)))
    out = sc.consider("t", Stamp((32, 32), 15, 0.0, 1.0, seed=8))
    lean = angle_between(up_of(out.records), np.array([0.0, 1.0, 0.0]))
    assert lean.min() >= 5.0 - 1e-3 and lean.max() <= 10.0 + 1e-3 and lean.std() > 0.5


def test_records_draw_within_the_type_ranges(half_painted_cone):
    ftype = dataclasses.replace(TREE, yaw=(10.0, 20.0), sink=(0.5, 1.0))
    sc = scatter_for(half_painted_cone, ftype)
    out = sc.consider("tree", STAMPS[1])
    r = out.records.astype(np.float64)
    assert ((r[:, 6] >= 0.8 - 1e-6) & (r[:, 6] <= 1.2 + 1e-6)).all()
    assert ((r[:, 3] >= np.radians(10) - 1e-6) & (r[:, 3] <= np.radians(20) + 1e-6)).all()
    ground = half_painted_cone.height_at(r[:, 0], r[:, 2])
    assert ((ground - r[:, 1] >= 0.5 - 1e-4) & (ground - r[:, 1] <= 1.0 + 1e-4)).all()


def test_layer_filter_follows_the_name():
    t = plane(65)
    w = np.zeros(t.heights.shape, np.uint8)
    w[:, 32:] = 255
    t.add_layer("sand", (200, 200, 100), np.full(t.heights.shape, 255, np.uint8))
    t.add_layer("grass", (0, 200, 0), w)
    sc = scatter_for(t, FoliageType("t", density=20, layer=LayerFilter("grass", 0.5)))
    stamp = Stamp((32, 32), 30, 0.0, 1.0, seed=2)
    before = sc.consider("t", stamp)
    east = (before.xz[:, 0] > 33) & (np.hypot(*(before.xz - 32).T) <= 30)
    assert (before.refusals[east & (before.refusals != Refusal.NO_GROUND)] == PLACED).all()
    assert (before.refusals[before.xz[:, 0] < 31] == Refusal.LAYER).all()
    # removing an earlier layer shifts indices; a name filter does not move
    t.layers.pop(0)
    assert np.array_equal(sc.consider("t", stamp).refusals, before.refusals)
    # renaming the layer away: the type refuses everything on the ground, and says the layer is missing
    t.layers[0].name = "meadow"
    gone = sc.consider("t", stamp)
    on_ground = gone.refusals != Refusal.NO_GROUND
    assert (gone.refusals[on_ground] == Refusal.LAYER).all() and gone.missing_layer == "grass"
    result = sc.paint(["t"], stamp, apply=False)
    assert result.missing_layers == {"t": "grass"}
    assert "no terrain layer named 'grass' for t" in result.summary()


def test_stroke_result_counts_and_summary(half_painted_cone):
    sc = scatter_for(half_painted_cone, TREE)
    r = sc.paint(["tree"], STAMPS[0], apply=False)
    counts = r.counts
    assert sum(counts.values()) + r.placed == r.candidates
    assert set(counts) == set(Refusal)
    assert r.refused()["SPACING"] == counts[Refusal.SPACING]
    assert r.summary().startswith(f"{r.candidates} candidates: ") and f"{r.placed} placed" in r.summary()
    assert r.added == {} and len(sc.volume) == 0


def test_undo_redo_of_a_stroke_gives_identical_bytes(half_painted_cone):
    sc = scatter_for(half_painted_cone, TREE, dataclasses.replace(TREE, name="bush", spacing=1.0))
    sc.paint(["tree"], Stamp((30, 30), 20, 0.5, 1.0, seed=11))
    base = volume_bytes(sc.volume)
    stroke = [Stamp((40 + 5 * i, 50), 15, 0.5, 1.0, seed=12, index=i) for i in range(4)]
    added = []
    for s in stroke:
        added.append(sc.paint(["tree", "bush"], s).added)
    after = volume_bytes(sc.volume)
    saved = encode_store(sc.volume)
    assert after != base
    for a in reversed(added):
        sc.volume.remove(a)
    assert volume_bytes(sc.volume) == base
    for s in stroke:
        sc.paint(["tree", "bush"], s)
    assert volume_bytes(sc.volume) == after
    assert encode_store(sc.volume) == saved  # the file on disk would be byte-identical too


def test_multi_type_stamp_spaces_later_types_from_earlier_ones():
    a = FoliageType("a", density=30, spacing=2.0)
    b = FoliageType("b", density=30, spacing=2.0)
    sc = scatter_for(plane(65), a, b)
    r = sc.paint(["a", "b"], Stamp((32, 32), 10, 0.0, 1.0))
    pts = np.concatenate([r.records("a"), r.records("b")])[:, (0, 2)].astype(np.float64)
    d = np.hypot(*(pts[:, None, :] - pts[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(d, np.inf)
    assert r.placed > 5 and d.min() >= 2.0 - 1e-5


def test_erase_is_deterministic_thinned_and_undoable():
    def run():
        sc = scatter_for(plane(129), FoliageType("t", density=30), FoliageType("u", density=30))
        sc.paint(["t", "u"], Stamp((64, 64), 40, 0.0, 1.0))
        before = volume_bytes(sc.volume)
        removed = sc.erase(["t"], Stamp((64, 64), 30, 0.5, 0.5, seed=3))
        return sc, before, removed

    sc, before, removed = run()
    _, _, again = run()
    assert removed.addresses() == again.addresses()
    assert len(removed) > 0 and all(a.type == "t" for a in removed.addresses())
    d = np.hypot(removed.records()[:, 0] - 64, removed.records()[:, 2] - 64)
    assert d.max() <= 30
    left = sc.volume.query_radius(64, 64, 5, ["t"])
    near_centre_total = sum(len(i) for i in left.values())
    assert near_centre_total > 0  # strength 0.5 thins, it does not clear
    sc.volume.restore(removed)
    assert volume_bytes(sc.volume) == before
    full = sc.erase(None, Stamp((64, 64), 30, 0.0, 1.0))
    assert not sc.volume.query_radius(64, 64, 30) and len(full) > 0


def test_single_places_exactly_one_or_says_why():
    t = ramp(degrees=50.0)
    paint_half(t)
    sc = scatter_for(t, dataclasses.replace(TREE, altitude=(0.0, 100.0)))
    one = sc.single("tree", 10.0, 10.0, seed=5)
    assert one.placed == 0 and one.outcomes["tree"].refusals.tolist() == [Refusal.SLOPE]
    sc = scatter_for(plane(), dataclasses.replace(TREE, layer=None))
    one = sc.single("tree", 10.25, 20.5, seed=5)
    assert one.placed == 1 and len(sc.volume) == 1
    rec = sc.volume.all_records("tree")[0]
    assert (rec[0], rec[2]) == (np.float32(10.25), np.float32(20.5))
    again = sc.single("tree", 11.0, 20.5, seed=5, index=1)
    assert again.outcomes["tree"].refusals.tolist() == [Refusal.SPACING]
    off = sc.single("tree", -5.0, 3.0)
    assert off.outcomes["tree"].refusals.tolist() == [Refusal.NO_GROUND]


def test_fill_polygon_and_whole_layer():
    t = plane(129)
    paint_half(t)
    sc = scatter_for(t, FoliageType("t", density=5.0))
    r = sc.fill_polygon(["t"], [(10, 10), (60, 10), (60, 60), (10, 60)], seed=2)
    pts = sc.volume.all_records("t")
    assert r.placed == len(pts) > 50
    assert ((pts[:, 0] >= 10) & (pts[:, 0] <= 60) & (pts[:, 2] >= 10) & (pts[:, 2] <= 60)).all()
    assert r.placed == pytest.approx(5.0 * 50 * 50 / 100, rel=0.15)
    sc.volume.clear()
    r = sc.fill_layer(["t"], "grass", seed=3)
    pts = sc.volume.all_records("t")
    assert r.placed > 100 and (pts[:, 0] < 64).all()


def test_reapply_rerolls_and_drops_refused_and_undoes():
    t = plane(65)
    paint_half(t)
    sc = scatter_for(t, FoliageType("t", density=20, scale=(1.0, 1.0)))
    sc.paint(["t"], Stamp((32, 32), 30, 0.0, 1.0))
    before = volume_bytes(sc.volume)
    count = len(sc.volume)
    sc.volume.palette.replace(FoliageType("t", density=20, scale=(2.0, 3.0), layer=LayerFilter("grass")))
    res = sc.reapply(["t"], Stamp((32, 32), 10, 0.0, 1.0, seed=4))
    recs = res.new  # (the replaced addresses predate the removal, so read the new records)
    assert len(recs) > 0 and (recs[:, 6] >= 2.0).all() and (recs[:, 0] < 32).all()
    assert len(res.removed) > 0 and (res.removed.records()[:, 0] >= 31).all()
    assert len(sc.volume) == count - len(res.removed)
    sc.undo_reapply(res)
    assert volume_bytes(sc.volume) == before


def test_terrain_sampling_the_scatter_relies_on():
    t = cone()
    s = t.slope_at(np.array([30.0, 100.0]), np.array([64.0, 90.0]))
    np.testing.assert_allclose(s, np.degrees(np.arctan(0.8)), atol=0.5)
    assert np.isnan(t.height_at(-1.0, 5.0)) and np.isnan(t.slope_at(200.0, 5.0))
    paint_half(t)
    w = t.layer_weight_at("grass", np.array([10.0, 63.5, 100.0]), np.array([5.0, 5.0, 5.0]))
    assert w.tolist() == [1.0, 0.5, 0.0]  # bilinear across the painted edge
    assert t.layer_weight_at("nope", 1.0, 1.0) is None


def test_clamped_and_empty_counts():
    sc = FoliageScatter(plane(), FoliageVolume())
    with pytest.raises(KeyError):
        sc.consider("missing", Stamp((1, 1), 1))
    sc = scatter_for(plane(), FoliageType("t", density=0.0))
    out = sc.consider("t", Stamp((32, 32), 10))
    assert len(out.refusals) == 0 and out.records.shape == (0, 7)


def test_terrain_origin_and_spacing_are_honoured():
    t = Terrain(np.zeros((33, 33), np.float32), 2.0, (-32.0, -32.0))
    sc = scatter_for(t, FoliageType("t", density=5.0))
    out = sc.consider("t", Stamp((0, 0), 40, 0.0, 1.0))
    inside = (np.abs(out.xz) <= 32).all(axis=1)
    assert (out.refusals[~inside] == Refusal.NO_GROUND).all()
    assert (out.refusals[inside] != Refusal.NO_GROUND).all()


def test_stamp_from_the_shared_brush_uses_its_curve():
    from model.brush import Brush

    brush = Brush(radius=20.0, strength=0.8, falloff=0.6, curve="tip")
    stamp = Stamp.from_brush(brush, (32, 32), seed=3, index=2)
    assert (stamp.radius, stamp.falloff, stamp.strength, stamp.index) == (20.0, 0.6, 0.8, 2)
    d = np.array([0.0, 10.0, 15.0, 19.0, 25.0])
    np.testing.assert_array_equal(stamp.weight(32 + d, np.full(5, 32.0)),
                                  np.where(d <= 20, brush.weight(d), 0.0))
    sc = scatter_for(plane(), FoliageType("t", density=30.0))
    assert_same(sc.consider("t", stamp), consider_reference(sc, "t", stamp))


@settings(max_examples=25, deadline=None)
@given(x=st.floats(-20, 150), z=st.floats(-20, 150), radius=st.floats(1, 30), falloff=st.floats(0, 1),
       strength=st.floats(0, 1), seed=st.integers(0, 2**32 - 1), index=st.integers(0, 1000),
       spacing=st.sampled_from([0.0, 1.5, 4.0]), align=st.floats(0, 1))
def test_any_stamp_agrees_with_the_reference(x, z, radius, falloff, strength, seed, index, spacing, align):
    terrain = cone()
    paint_half(terrain)
    ftype = dataclasses.replace(TREE, density=8.0, spacing=spacing, align=align)
    sc = scatter_for(terrain, ftype)
    stamp = Stamp((x, z), radius, falloff, strength, seed, index)
    assert_same(sc.consider("tree", stamp), consider_reference(sc, "tree", stamp))
