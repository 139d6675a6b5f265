"""Levels of detail in the viewport: chosen per instance by distance, handed over by dither."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, foliage_of
from model.foliage.foliage_type import Lod
from tests.gui_helpers import render
from tests.widgets.test_viewport_foliage import flat_scene, records


def _look(viewport, scene, distance: float) -> None:
    viewport.set_scene(scene, frame=False)
    viewport.show_foliage_cover(False)
    cam = viewport.camera
    cam.target = np.array([0.0, 0.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.3, np.radians(35.0), distance


def _coverage(viewport, qtbot, ftype: FoliageType, distance: float) -> tuple[int, dict]:
    scene = flat_scene()
    foliage = foliage_of(scene)
    _look(viewport, scene, distance)
    bare = render(viewport, qtbot).astype(int)
    foliage.palette.add(ftype)
    xz = np.array([[x, z] for x in (-6.0, 0.0, 6.0) for z in (-6.0, 0.0, 6.0)])
    foliage.volume.add(ftype.name, records(xz, 0.8))
    drawn = render(viewport, qtbot).astype(int)
    return int((np.abs(drawn - bare).sum(axis=-1) > 30).sum()), dict(viewport.stats.levels)


def test_levels_hand_over_without_holes_or_doubling(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    cull = (900.0, 1000.0)
    band_mid = 120.0  # the first generated level starts here (0.3 × 400 m)
    only_full, lv_full = _coverage(viewport, qtbot, FoliageType("a", lods=(), cull=cull), band_mid)
    coarse = FoliageType("b", lods=(Lod(1.0),), cull=cull)
    only_coarse, lv_coarse = _coverage(viewport, qtbot, coarse, band_mid)
    handing, lv_hand = _coverage(viewport, qtbot, FoliageType("c", cull=(400.0, 500.0)), band_mid)
    assert lv_full == {"LOD 0": 9} and lv_coarse == {"LOD 1": 9}
    assert sum(lv_hand.values()) == 9 and set(lv_hand) <= {"LOD 0", "LOD 1"}
    assert only_full > 300 and only_coarse > 300
    # in the dissolve band every pixel comes from one level or the other: no hole, no double
    assert 0.9 * min(only_full, only_coarse) <= handing <= 1.1 * max(only_full, only_coarse)


def test_each_level_is_drawn_from_its_distance(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    t = FoliageType("tree", cull=(400.0, 500.0))  # generated levels from 120 m and 240 m
    for distance, level in ((60.0, "LOD 0"), (180.0, "LOD 1"), (320.0, "LOD 2")):
        covered, levels = _coverage(viewport, qtbot, t, distance)
        assert levels == {level: 9}, distance
        assert covered > 20
