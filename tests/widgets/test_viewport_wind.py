"""The wind preview sways stored foliage in the real viewport; still by default."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, foliage_of
from tests.gui_helpers import is_sky, render
from tests.widgets.test_viewport_foliage import flat_scene, records


def _tree_from_the_side(viewport, qtbot) -> np.ndarray:
    scene = flat_scene()
    foliage_of(scene).palette.add(FoliageType("tree", mesh="builtin:conifer", cull=(500.0, 600.0)))
    foliage_of(scene).volume.add("tree", records(np.array([[0.0, 0.0]]), 1.0))
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.target = np.array([0.0, 7.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(2.0), 30.0
    return render(viewport, qtbot).astype(int)


def test_the_wind_bends_the_crown_and_leaves_the_foot(viewport, qtbot) -> None:
    viewport.resize(320, 320)
    still = _tree_from_the_side(viewport, qtbot)
    assert viewport.wind == 0.0
    assert np.array_equal(render(viewport, qtbot).astype(int), still)  # still: frames repeat
    viewport.set_wind(3.0, animate=False)
    windy = render(viewport, qtbot).astype(int)
    assert np.array_equal(render(viewport, qtbot).astype(int), windy)  # held at one moment
    changed = np.abs(windy - still).sum(axis=-1) > 30
    top = viewport.world_to_screen(np.array([[0.0, 14.0, 0.0]]))[0]
    foot = viewport.world_to_screen(np.array([[0.0, 0.0, 0.0]]))[0]
    h = int(abs(foot[1] - top[1]))
    crown = changed[int(top[1]):int(top[1]) + h // 3].sum()
    base = changed[int(foot[1]) - h // 8:int(foot[1])].sum()
    assert crown > 40 and base < crown / 8
    viewport.set_wind(0.0)
    assert np.array_equal(render(viewport, qtbot).astype(int), still)


def test_an_animated_wind_moves_from_frame_to_frame(viewport, qtbot) -> None:
    viewport.resize(320, 320)
    still = _tree_from_the_side(viewport, qtbot)
    viewport.set_wind(3.0)
    first = viewport.wind_time
    qtbot.waitUntil(lambda: viewport.wind_time > first + 0.2, timeout=5000)
    frame = render(viewport, qtbot).astype(int)
    assert (np.abs(frame - still).sum(axis=-1) > 30).sum() > 20
    assert not is_sky(frame).all()
    viewport.set_wind(0.0)


def test_rocks_stand_still_in_the_wind(viewport, qtbot) -> None:
    viewport.resize(320, 320)
    scene = flat_scene()
    foliage_of(scene).palette.add(FoliageType("stone", mesh="builtin:rock", cull=(500.0, 600.0)))
    foliage_of(scene).volume.add("stone", records(np.array([[0.0, 0.0]]), 4.0))
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.target = np.array([0.0, 2.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(10.0), 16.0
    still = render(viewport, qtbot).astype(int)
    viewport.set_wind(3.5, animate=False)
    assert np.array_equal(render(viewport, qtbot).astype(int), still)
    viewport.set_wind(0.0)
