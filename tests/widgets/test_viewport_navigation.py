"""Fly, focus selection, collision and chunk overlays, frame stats, and the far plane of a big world."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QApplication

from model.foliage import FoliageType, foliage_of
from rendering.camera import OrbitCamera
from tests.conftest import make_small_scene
from tests.gui_helpers import render


def mouse(widget, kind, pos, button, buttons) -> None:
    p = QPointF(*pos)
    QApplication.sendEvent(widget, QMouseEvent(kind, p, widget.mapToGlobal(p), button, buttons,
                                               Qt.KeyboardModifier.NoModifier))


def key(widget, kind, k) -> None:
    QApplication.sendEvent(widget, QKeyEvent(kind, k, Qt.KeyboardModifier.NoModifier))


def test_right_button_and_wasd_fly_and_the_drag_then_looks_around(viewport, qtbot) -> None:
    viewport.set_scene(make_small_scene())
    cam = viewport.camera
    start_target, forward = cam.target.copy(), cam.forward()
    right = Qt.MouseButton.RightButton
    mouse(viewport, QEvent.Type.MouseButtonPress, (100, 100), right, right)
    key(viewport, QEvent.Type.KeyPress, Qt.Key.Key_W)
    qtbot.wait(250)
    moved = cam.target - start_target
    assert np.dot(moved, forward) > 1.0  # flew forward
    assert np.linalg.norm(np.cross(moved, forward)) < 1e-6 * max(1.0, np.linalg.norm(moved))
    eye = cam.eye()
    mouse(viewport, QEvent.Type.MouseMove, (140, 100), Qt.MouseButton.NoButton, right)
    assert np.linalg.norm(cam.eye() - eye) < 0.5  # looking turns about the eye (it still flies a bit)
    key(viewport, QEvent.Type.KeyRelease, Qt.Key.Key_W)
    mouse(viewport, QEvent.Type.MouseButtonRelease, (140, 100), right, Qt.MouseButton.NoButton)
    still = cam.target.copy()
    qtbot.wait(100)
    assert np.array_equal(cam.target, still)  # nothing moves once the keys are up


def test_wasd_without_the_right_button_is_left_to_tools(viewport, qtbot) -> None:
    viewport.set_scene(make_small_scene())
    target = viewport.camera.target.copy()
    qtbot.keyPress(viewport, Qt.Key.Key_W)
    qtbot.wait(100)
    qtbot.keyRelease(viewport, Qt.Key.Key_W)
    assert np.array_equal(viewport.camera.target, target)


def test_shift_f_focuses_the_selection(viewport, qtbot) -> None:
    viewport.set_scene(make_small_scene())
    sel = np.array([[20.0, 3.0, 10.0], [24.0, 3.5, 12.0]])
    viewport.overlays.points.set("selection", sel)
    qtbot.keyClick(viewport, Qt.Key.Key_F, Qt.KeyboardModifier.ShiftModifier)
    cam = viewport.camera
    assert np.linalg.norm(cam.target - sel.mean(axis=0)) < 2.0
    assert cam.distance < 30.0
    screen = viewport.world_to_screen(sel)
    assert np.all((screen >= 0) & (screen <= [[320, 240]]))


def scene_with_trees():
    scene = make_small_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("tree", mesh="builtin:bush", activation_radius=12.0))
    xz = np.array([[0.0, 0.0], [5.0, 3.0], [-30.0, -20.0], [33.0, 25.0]])
    rec = np.zeros((len(xz), 7), np.float32)
    rec[:, 0], rec[:, 2], rec[:, 6] = xz[:, 0], xz[:, 1], 1.0
    rec[:, 1] = scene.terrain.height_at(xz[:, 0], xz[:, 1])
    foliage.volume.add("tree", rec)
    return scene


def test_collision_bodies_around_the_probe_and_chunk_bounds(viewport, qtbot) -> None:
    scene = scene_with_trees()
    viewport.set_scene(scene)
    viewport.camera.yaw, viewport.camera.pitch = 0.0, np.radians(60.0)
    viewport.frame_all()
    ov = viewport.overlays
    ground = float(scene.terrain.height_at(1.0, 1.0))
    ov.set_probe([1.0, ground, 1.0])
    seg = ov.collision_segments(ov.probe)
    # two instances are within 12 m of the probe: two wire cylinders around them, none elsewhere
    mid = seg.mean(axis=1)
    near_first = np.hypot(mid[:, 0] - 0.0, mid[:, 2] - 0.0) < 3.0
    near_second = np.hypot(mid[:, 0] - 5.0, mid[:, 2] - 3.0) < 3.0
    assert near_first.sum() == near_second.sum() > 0 and (near_first | near_second).all()
    before = render(viewport, qtbot).astype(int)
    ov.set_toggle("show_collision", True)
    with_bodies = render(viewport, qtbot).astype(int)
    magenta = (with_bodies[..., 0] > 200) & (with_bodies[..., 2] > 150) & (with_bodies[..., 1] < 120)
    assert magenta.sum() > 20 and not ((before[..., 0] > 200) & (before[..., 2] > 150)
                                       & (before[..., 1] < 120)).sum()
    ov.set_toggle("show_collision", False)
    ov.set_toggle("show_chunk_bounds", True)
    boxes = render(viewport, qtbot).astype(int)
    green = (boxes[..., 1] > 200) & (boxes[..., 0] < 140) & (boxes[..., 2] < 160)
    assert green.sum() > 50


def test_frame_stats_show_in_the_corner(viewport, qtbot) -> None:
    viewport.set_scene(scene_with_trees())
    viewport.show_stats(True)
    render(viewport, qtbot)
    label = viewport.findChild(type(viewport._stats_label), "frame_stats")
    assert label.isVisible() and label.x() < 20 and label.y() < 20
    text = label.text()
    assert "ms" in text and f"{viewport.stats.instances:,} instances" in text
    assert f"{viewport.stats.chunks_drawn:,} drawn / {viewport.stats.chunks_culled:,} culled" in text
    viewport.show_stats(False)
    assert not label.isVisible()


def test_a_16_km_world_stays_inside_the_far_plane_from_near_the_ground() -> None:
    cam = OrbitCamera(distance=10.0)
    cam.scene_extent = float(np.hypot(16384.0, 16384.0))
    near, far = cam.near_far()
    assert near <= 0.1 and far > cam.scene_extent
    cam.distance = 20000.0
    near, far = cam.near_far()
    assert far > cam.distance + cam.scene_extent and near < 100.0


def test_the_wheel_zooms_towards_the_ground_under_the_cursor(viewport, qtbot) -> None:
    viewport.set_scene(make_small_scene())
    point = viewport.pick_terrain(220, 150)
    assert point is not None
    distance = viewport.camera.distance
    viewport.zoom_at(220, 150, 3)
    assert viewport.camera.distance < distance * 0.7
    assert viewport.world_to_screen(point[None])[0] == pytest.approx([220, 150], abs=0.5)
    viewport.zoom_at(220, 150, -3)
    assert viewport.camera.distance == pytest.approx(distance)
