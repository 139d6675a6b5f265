"""A road through a spawned forest: laying it clears its bed (the spawner's instances leave as the
spawner's), moving it away grows the forest back on the old bed, hand-placed foliage beside it stays,
and undo and redo give back the same bytes."""

from __future__ import annotations

import numpy as np

from model.demo import build_demo_scene
from model.foliage import builtin_palette, foliage_of
from model.foliage.spawner import Spawner, Species
from model.foliage.spawner_section import run_and_apply, spawners_of
from model.spline_edits import apply_spline, move_point, redo_spline, undo_spline
from model.splines import CLEARANCE, Spline, centreline

WIDTH = 8.0
LAID = [(-200.0, -100.0), (0.0, -90.0), (200.0, -100.0)]
AWAY = [(x, z + 70.0) for x, z in LAID]
BESIDE = (0.0, -70.0)  # hand-placed: 20 m off the first bed, 50 m off the second


def road(points) -> Spline:
    pts = np.array([(x, np.nan, z) for x, z in points], np.float64)
    return Spline(pts, WIDTH, 6.0, "road", paint="road", max_grade=10.0)


def forest(spline: Spline | None = None, hand: bool = True):
    scene = build_demo_scene()
    if spline is not None:
        apply_spline(scene, "road", spline)
    foliage = foliage_of(scene, builtin_palette())
    spawner = Spawner("woods", seed=7, species=(Species("broadleaf", density=40.0),))
    spawners_of(scene).spawners.append(spawner)
    run_and_apply(scene, spawner)
    if hand:
        x, z = BESIDE
        y = float(scene.terrain.height_at(np.array([x]), np.array([z]))[0])
        foliage.volume.add("rock", np.array([[x, y, z, 0.0, 1.0, 0.0, 0.0]], np.float32))
    return scene


def exact(scene) -> dict:
    vol = foliage_of(scene).volume
    return {key: vol.records(*key).tobytes() for key, _ in vol.chunks()}


def rows(scene, type_name: str) -> bytes:
    rec = foliage_of(scene).volume.all_records(type_name)
    return np.sort(np.ascontiguousarray(rec).view(np.dtype((np.void, 28))).ravel()).tobytes()


def nearest(scene, spline: Spline, type_name: str) -> np.ndarray:
    x, z, *_ = centreline(spline, 0.25)
    rec = foliage_of(scene).volume.all_records(type_name)
    return np.sqrt((rec[:, 0, None] - x[None]) ** 2 + (rec[:, 2, None] - z[None]) ** 2).min(axis=1)


def test_moving_a_road_regrows_the_forest_on_its_old_bed_and_undo_is_exact() -> None:
    scene = forest()
    section = spawners_of(scene)
    owned = section.owned_count("woods")
    start = exact(scene)
    laid = road(LAID)
    assert nearest(scene, laid, "broadleaf").min() < WIDTH / 2  # the forest stands where the road goes

    lay = apply_spline(scene, "road", laid)
    assert nearest(scene, laid, "broadleaf").min() > WIDTH / 2 + CLEARANCE - 0.01
    assert section.owned_count("woods") < owned  # they left as the spawner's own
    assert not any(len(k) for k in section.removed.get("woods", {}).values())  # not as deleted by hand
    assert lay.follow is not None and lay.follow.followed is not None
    # as if the road had been there first
    assert rows(scene, "broadleaf") == rows(forest(laid, hand=False), "broadleaf")
    after_lay = exact(scene)

    away = road(AWAY)
    move = apply_spline(scene, "road", away)
    assert nearest(scene, away, "broadleaf").min() > WIDTH / 2 + CLEARANCE - 0.01
    assert nearest(scene, laid, "broadleaf").min() < WIDTH / 2  # the old bed grew back
    assert rows(scene, "broadleaf") == rows(forest(away, hand=False), "broadleaf")
    hand = foliage_of(scene).volume.all_records("rock")
    assert len(hand) == 1 and tuple(hand[0, (0, 2)]) == BESIDE  # hand-placed beside the road: kept
    after_move = exact(scene)

    undo_spline(scene, move)
    assert exact(scene) == after_lay
    undo_spline(scene, lay)
    assert exact(scene) == start
    redo_spline(scene, lay)
    assert exact(scene) == after_lay
    redo_spline(scene, move)
    assert exact(scene) == after_move


def test_a_road_moved_onto_hand_placed_foliage_clears_it_and_moving_a_point_regrows_the_old_stretch() -> None:
    scene = forest()
    vol = foliage_of(scene).volume
    lay = apply_spline(scene, "road", road(LAID))
    assert len(vol.all_records("rock")) == 1
    x, z = BESIDE
    change = move_point(scene, "road", 1, x, z)  # the middle point onto the hand-placed rock
    assert len(vol.all_records("rock")) == 0 and change.removed is not None and len(change.removed) == 1
    bent = road([LAID[0], BESIDE, LAID[2]])
    assert nearest(scene, bent, "broadleaf").min() > WIDTH / 2 + CLEARANCE - 0.01
    # where the middle of the road was, the forest is back: as if the bent road were there first
    on_old_bed = nearest(scene, road(LAID), "broadleaf") < WIDTH / 2
    assert np.count_nonzero(on_old_bed) > 5
    # as a run with the bent road laid first, next to the rock too: the rock went before the spawner
    # re-ran, so nothing was spaced from it
    assert rows(scene, "broadleaf") == rows(forest(bent, hand=False), "broadleaf")
    undo_spline(scene, change)
    assert len(vol.all_records("rock")) == 1
    undo_spline(scene, lay)
