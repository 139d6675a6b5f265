"""Road and river splines as edit layers: a road across the demo's hills is flat across its
width, keeps its grade, paints its layer, clears stored foliage and keeps spawners off it; it
switches off byte-exactly; moving one point changes only the ground near it; undo is exact."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from model.demo import add_demo_foliage, build_demo_scene
from model.edit_layers import EditLayerError, stack_of
from model.foliage.section import foliage_of
from model.foliage.spawn_run import run_spawner
from model.foliage.spawner import Spawner, Species
from model.formats.scene_file import load_scene, save_scene
from model.spline_edits import apply_spline, move_point, redo_spline, undo_spline
from model.splines import Spline, SplineError, centreline, limit_grade

MAX_GRADE = 8.0
WIDTH = 8.0
POINTS = [(-400, -300), (-250, -120), (-100, -50), (60, 10), (100, 50), (300, 250), (420, 300)]


def road(points=POINTS, **kw) -> Spline:
    pts = np.array([(x, np.nan, z) for x, z in points], np.float64)
    return Spline(pts, WIDTH, 6.0, kw.pop("type", "road"), paint=kw.pop("paint", "road"),
                  max_grade=MAX_GRADE, **kw)


@pytest.fixture(scope="module")
def demo_bytes() -> bytes:
    return build_demo_scene().terrain.heights.tobytes()


def heights(scene) -> np.ndarray:
    t = scene.terrain
    return t.read_heights(slice(0, t.rows), slice(0, t.columns)).copy()


def across(spline: Spline, offsets: np.ndarray):
    """Points along the centreline (every metre) and across it at `offsets` metres."""
    x, z, *_ = centreline(spline, 1.0)
    tx, tz = np.gradient(x), np.gradient(z)
    n = np.sqrt(tx * tx + tz * tz)
    tx, tz = tx / n, tz / n
    return x, z, x[:, None] - tz[:, None] * offsets, z[:, None] + tx[:, None] * offsets


def test_a_road_across_the_hills_is_flat_keeps_its_grade_and_paints_its_layer() -> None:
    scene = build_demo_scene()
    t = scene.terrain
    before = heights(scene)
    spline = road()
    apply_spline(scene, "road", spline)
    x, z, cx, cz = across(spline, np.linspace(-3.0, 3.0, 25))
    section = t.height_at(cx, cz)
    assert np.nanmax(section.max(axis=1) - section.min(axis=1)) <= 0.25
    centre = t.height_at(x, z)
    run = np.concatenate([[0.0], np.cumsum(np.sqrt(np.diff(x) ** 2 + np.diff(z) ** 2))])
    for span in (2, 4, 10):
        grade = np.abs(centre[span:] - centre[:-span]) / (run[span:] - run[:-span])
        assert grade.max() * 100 <= MAX_GRADE
    # the hills are really there: the ground beneath climbed faster than the road may
    ground = np.array([
        before[int(round((zz + 512) / 2)), int(round((xx + 512) / 2))] for xx, zz in zip(x, z, strict=True)])
    assert (np.abs(np.diff(ground[::10])) / 10).max() * 100 > 2 * MAX_GRADE
    assert t.layer_weight_at("road", cx, cz).min() == pytest.approx(1.0)
    assert t.layer("road").weight_blend is False


def test_limit_grade_keeps_every_step_within_the_limit() -> None:
    rng = np.random.default_rng(4)
    h = np.cumsum(rng.uniform(-3, 3, 400))
    ds = rng.uniform(0.5, 1.5, 400)
    out = limit_grade(h, ds, 0.1)
    assert np.all(np.abs(np.diff(out)) <= ds[1:] * 0.1 + 1e-12)


def test_stored_foliage_is_cleared_and_a_spawner_does_not_grow_on_the_road() -> None:
    scene = build_demo_scene()
    add_demo_foliage(scene)
    volume = foliage_of(scene).volume
    spline = road()
    count = len(volume)
    change = apply_spline(scene, "road", spline)
    assert change.removed is not None and len(change.removed) > 0
    assert len(volume) == count - len(change.removed)
    x, z, *_ = centreline(spline, 0.25)
    for name in volume.type_names():
        rec = volume.all_records(name)
        d = np.sqrt((rec[:, 0, None] - x[None]) ** 2 + (rec[:, 2, None] - z[None]) ** 2).min(axis=1)
        assert d.min() > WIDTH / 2 + 1.0 - 0.01  # the centreline sampled every 25 cm
    spawner = Spawner("woods", seed=7, species=(Species("rock", density=40.0),))
    stored = lambda types, box: np.empty((0, 2))  # noqa: E731
    result = run_spawner(spawner, scene.terrain, foliage_of(scene).palette, stored)
    outcome = result.species[0]
    label = outcome.labels.index("on spline 'road'")
    assert np.count_nonzero(outcome.refusals == label) > 50
    placed = outcome.records
    assert len(placed) > 1000
    d = np.sqrt((placed[:, 0, None] - x[None]) ** 2 + (placed[:, 2, None] - z[None]) ** 2).min(axis=1)
    assert d.min() > WIDTH / 2 - 0.01
    undo_spline(scene, change)
    assert len(volume) == count


def test_switching_the_layer_off_gives_the_heights_byte_for_byte(demo_bytes: bytes) -> None:
    scene = build_demo_scene()
    apply_spline(scene, "road", road())
    on = heights(scene).tobytes()
    assert on != demo_bytes
    scene.terrain.edits.set_visible("road", False)
    assert heights(scene).tobytes() == demo_bytes
    scene.terrain.edits.set_visible("road", True)
    assert heights(scene).tobytes() == on


def test_moving_one_point_changes_only_the_ground_near_it_and_matches_a_full_recompute() -> None:
    # ten points across the south of the demo: the moved point's curve reaches two points either
    # side, the smoothing and the grade limit the stretches beyond them
    points = [(-450 + 100 * k, -450 + 20 * (k % 2)) for k in range(10)]
    scene = build_demo_scene()
    t = scene.terrain
    apply_spline(scene, "road", road(points))
    before = heights(scene)
    paint_before = t.layer("road").read(slice(0, t.rows), slice(0, t.columns))
    seen = []
    t.heights_changed.connect(lambda rows, cols: seen.append((rows, cols)))
    x, z = points[5]
    change = move_point(scene, "road", 5, x + 15.0, z - 10.0)
    after = heights(scene)
    rows, cols = np.nonzero(after != before)
    assert len(rows) > 100
    (x0, z0, x1, z1) = change.box
    assert x0 > points[1][0] - 20 and x1 < points[8][0] + 20  # 20 m: the width, falloff and margins
    xs, zs = t.origin[0] + cols * t.spacing, t.origin[1] + rows * t.spacing
    assert xs.min() >= x0 and xs.max() <= x1 and zs.min() >= z0 and zs.max() <= z1
    assert sum((r.stop - r.start) * (c.stop - c.start) for r, c in seen) < t.rows * t.columns / 8
    paint_after = t.layer("road").read(slice(0, t.rows), slice(0, t.columns))
    pr, pc = np.nonzero(paint_after != paint_before)
    assert len(pr) and pc.min() * 2 - 512 >= x0 - 1 and pc.max() * 2 - 512 <= x1 + 1
    # the same bytes as the whole road computed afresh with the point where it is now
    fresh = build_demo_scene()
    moved = list(points)
    moved[5] = (x + 15.0, z - 10.0)
    apply_spline(fresh, "road", road(moved))
    assert heights(fresh).tobytes() == after.tobytes()
    fresh_paint = fresh.terrain.layer("road").read(slice(0, t.rows), slice(0, t.columns))
    assert np.array_equal(fresh_paint, paint_after)
    undo_spline(scene, change)
    assert heights(scene).tobytes() == before.tobytes()
    assert np.array_equal(t.layer("road").read(slice(0, t.rows), slice(0, t.columns)), paint_before)
    redo_spline(scene, change)
    assert heights(scene).tobytes() == after.tobytes()


def test_undo_of_a_new_road_takes_away_its_layer_and_paint_layer(demo_bytes: bytes) -> None:
    scene = build_demo_scene()
    names = [la.name for la in scene.terrain.layers]
    change = apply_spline(scene, "road", road())
    undo_spline(scene, change)
    assert heights(scene).tobytes() == demo_bytes
    assert scene.terrain.edits.names() == [] and [la.name for la in scene.terrain.layers] == names
    redo_spline(scene, change)
    assert scene.terrain.edits.names() == ["road"] and scene.terrain.layer("road") is not None


def test_a_river_carves_its_bed_downhill() -> None:
    scene = build_demo_scene()
    t = scene.terrain
    before = heights(scene)
    spline = road(type="river", depth=3.0, paint="water")
    apply_spline(scene, "river", spline)
    after = heights(scene)
    assert np.all(after <= before)  # a river only cuts
    x, z, *_ = centreline(spline, 1.0)
    bed = t.height_at(x, z)
    assert np.all(np.diff(bed[::8]) <= 0.05)  # never climbing along its course (grid aside)
    ground = np.array([before[int(round((zz + 512) / 2)), int(round((xx + 512) / 2))]
                       for xx, zz in zip(x[::8], z[::8], strict=True)])
    assert np.all(bed[::8] <= ground - 3.0 + 0.5)
    assert t.layer_weight_at("water", x, z).min() == pytest.approx(1.0)


def test_the_spline_is_saved_with_the_scene_and_reshaped_after_reopening(tmp_path: Path) -> None:
    scene = build_demo_scene()
    apply_spline(scene, "road", road())
    path = tmp_path / "r.boscage"
    save_scene(scene, path)
    back = load_scene(path)
    assert back.terrain.heights.tobytes() == scene.terrain.heights.tobytes()
    layer = back.terrain.edits.layer("road")
    assert layer.kind == "spline" and Spline.from_params(layer.params).params() == road().params()
    move_point(back, "road", 2, -90.0, -60.0)
    move_point(scene, "road", 2, -90.0, -60.0)
    assert back.terrain.heights.tobytes() == scene.terrain.heights.tobytes()


@pytest.mark.parametrize("points, message", [
    ([(0, 0)], "at least 2 points"),
    ([(0, 0), (0, 0)], "same place"),
    ([(0, 0), (math.inf, 1)], "finite"),
])
def test_bad_splines_are_refused_with_a_reason(points, message) -> None:
    with pytest.raises(SplineError, match=message):
        road(points).check()


def test_a_spline_cannot_reshape_another_kind_of_layer() -> None:
    scene = build_demo_scene()
    stack_of(scene.terrain, create=True).add_layer("road", "terrace")
    with pytest.raises(EditLayerError, match="terrace layer"):
        apply_spline(scene, "road", road())
