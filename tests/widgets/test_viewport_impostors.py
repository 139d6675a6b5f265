"""Impostors: far instances drawn as baked cards, so Frame All shows every stored instance."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from model.foliage import FoliageType, foliage_of
from rendering.foliage_renderer import FoliageRenderer
from tests.gui_helpers import render
from tests.widgets.test_viewport_foliage import flat_scene, records
from tests.widgets.test_viewport_overview import _samples

COLOUR_TOLERANCE = 12.0  # mean colour difference (0..255 per channel) of an instance's pixels


def _forest(with_trees: bool, **kw):
    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("tree", mesh="builtin:broadleaf", cull=(40.0, 60.0), **kw))
    if with_trees:
        rng = np.random.default_rng(4)
        xz = np.stack([rng.uniform(-124, -8, 900), rng.uniform(-124, 124, 900)], axis=1)  # west half
        foliage.volume.add("tree", records(xz, 1.0))
    return scene


def test_frame_all_draws_every_instance_as_cards_where_the_forest_is_and_nothing_elsewhere(
        viewport, qtbot) -> None:
    viewport.resize(480, 360)
    viewport.set_scene(_forest(True))
    viewport.show_foliage_cover(False)  # the cards alone, without the ground tint
    QTest.keyClick(viewport, Qt.Key.Key_F)
    forest = render(viewport, qtbot).astype(int)
    levels = viewport.stats.levels
    assert set(levels) <= {"impostor", "proxy"} and sum(levels.values()) == 900  # every instance, a card
    assert viewport.stats.chunks_culled == 0
    cam = viewport.camera
    pose = (cam.target.copy(), cam.yaw, cam.pitch, cam.distance)
    viewport.set_scene(_forest(False), frame=False)
    cam.target, cam.yaw, cam.pitch, cam.distance = pose
    viewport.orbit_by_degrees(0.0, 0.0)
    bare = render(viewport, qtbot).astype(int)
    diff = np.abs(forest - bare).sum(axis=-1)
    west, east = _samples(viewport, -110, -25), _samples(viewport, 25, 110)
    patch = [diff[max(0, y - 4):y + 5, max(0, x - 4):x + 5].max() for x, y in west]
    assert np.mean(np.array(patch) > 30) > 0.9  # trees stand all over the west half
    assert (diff[east[:, 1], east[:, 0]] == 0).all()  # and none in the east


def test_a_type_without_impostors_still_ends_at_its_cull_distance(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    viewport.set_scene(_forest(True, impostor=False))
    QTest.keyClick(viewport, Qt.Key.Key_F)
    render(viewport, qtbot)
    assert viewport.stats.levels == {} and viewport.stats.chunks_drawn == 0
    viewport.set_scene(_forest(True, impostor_cull=20.0))  # cards end too
    QTest.keyClick(viewport, Qt.Key.Key_F)
    render(viewport, qtbot)
    assert viewport.stats.levels == {}


def _instance_colour(viewport, qtbot, ftype: FoliageType, distance: float, pitch: float = 12.0,
                     scene=None) -> tuple[np.ndarray, int, dict]:
    scene = flat_scene() if scene is None else scene
    foliage = foliage_of(scene)
    viewport.set_scene(scene, frame=False)
    viewport.show_foliage_cover(False)
    cam = viewport.camera
    cam.target = np.array([0.0, 4.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(pitch), distance
    bare = render(viewport, qtbot).astype(int)
    foliage.palette.add(ftype)
    xz = np.array([[x, 0.0] for x in np.linspace(-30, 30, 5)])
    rec = records(xz, 1.0)
    rec[:, 3] = np.linspace(0.0, 5.0, 5)  # several yaws: several views of the ring
    foliage.volume.add(ftype.name, rec)
    drawn = render(viewport, qtbot).astype(int)
    mask = np.abs(drawn - bare).sum(axis=-1) > 24
    return drawn[mask].mean(axis=0), int(mask.sum()), dict(viewport.stats.levels)


def test_cards_match_the_mesh_at_the_switch_distance(viewport, qtbot) -> None:
    viewport.resize(640, 360)
    switch = 180.0
    for mesh in ("builtin:broadleaf", "builtin:conifer"):
        as_mesh = FoliageType("m", mesh=mesh, cull=(switch + 100, switch + 150))  # its last level
        as_card = FoliageType("c", mesh=mesh, cull=(1.0, 2.0))
        mesh_colour, mesh_pixels, lv_mesh = _instance_colour(viewport, qtbot, as_mesh, switch)
        card_colour, card_pixels, lv_card = _instance_colour(viewport, qtbot, as_card, switch)
        assert lv_mesh == {"LOD 2": 5} and lv_card == {"impostor": 5}
        assert mesh_pixels > 200
        assert 0.7 < card_pixels / mesh_pixels < 1.4, mesh  # about the same outline
        diff = np.abs(mesh_colour - card_colour)
        assert diff.mean() < COLOUR_TOLERANCE, (mesh, mesh_colour, card_colour)


def test_the_frame_statistics_overlay_counts_instances_per_level(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    viewport.set_scene(_forest(True))
    viewport.show_stats(True)
    cam = viewport.camera
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([-60.0, 0.0, 0.0]), 0.0, np.radians(25.0), 12.0
    viewport.orbit_by_degrees(0.0, 0.0)
    render(viewport, qtbot)
    levels = viewport.stats.levels
    assert levels.get("LOD 0", 0) > 0 and levels.get("impostor", 0) > 0
    assert sum(levels.values()) <= viewport.stats.instances
    render(viewport, qtbot)  # the label shows the frame before
    text = viewport.findChild(type(viewport._stats_label), "frame_stats").text()
    assert f"impostor {levels['impostor']:,}" in text and f"LOD 0 {levels['LOD 0']:,}" in text


def test_far_cards_drawn_as_points_look_like_the_quads(viewport, qtbot, monkeypatch) -> None:
    viewport.resize(640, 360)
    card = FoliageType("c", mesh="builtin:broadleaf", cull=(1.0, 2.0))
    monkeypatch.setattr(FoliageRenderer, "point_pixels", 1e-3)  # every card a quad
    quad_colour, quad_pixels, _ = _instance_colour(viewport, qtbot, card, 260.0)
    monkeypatch.setattr(FoliageRenderer, "point_pixels", 1e4)  # every card a point sprite
    point_colour, point_pixels, levels = _instance_colour(viewport, qtbot, card, 260.0)
    assert levels == {"impostor": 5} and quad_pixels > 100
    assert 0.8 < point_pixels / quad_pixels < 1.25
    assert np.abs(point_colour - quad_colour).mean() < 6.0

