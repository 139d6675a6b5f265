"""The viewport's tool interface: picking, projection, overlays and the View menu toggles."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType, foliage_of
from tests.conftest import make_small_scene
from tests.gui_helpers import is_sky, render
from widgets.viewport import Viewport


def looking_down(viewport: Viewport, scene=None):
    scene = scene or make_small_scene()
    viewport.set_scene(scene)
    viewport.camera.yaw, viewport.camera.pitch = 0.3, np.radians(65.0)
    viewport.frame_all()
    return scene


def test_pick_terrain_finds_the_ground_point_under_its_pixel_within_a_centimetre(viewport, qtbot) -> None:
    scene = looking_down(viewport)
    t = scene.terrain
    for x, z in ((0.0, 0.0), (10.5, -7.25), (-20.0, 12.0), (3.3, 3.3)):
        point = np.array([x, float(t.height_at(x, z)), z])
        px, py = viewport.world_to_screen(point[None])[0]
        hit = viewport.pick_terrain(px, py)
        assert hit is not None
        assert np.linalg.norm(hit - point) < 0.01
        # the ray through that pixel is the one used
        o, d = viewport.ray_at(px, py)
        assert abs(np.linalg.norm(d) - 1.0) < 1e-9
        assert np.linalg.norm(np.cross(point - o, d)) < 0.01


def test_world_to_screen_marks_points_behind_the_eye(viewport, qtbot) -> None:
    looking_down(viewport)
    eye = viewport.camera.eye()
    behind = eye - viewport.camera.forward() * 10.0
    out = viewport.world_to_screen(np.array([behind, viewport.camera.target]))
    assert np.isnan(out[0]).all()
    assert out[1] == pytest.approx([160.0, 120.0], abs=1.0)


def test_pick_misses_the_sky(viewport, qtbot) -> None:
    looking_down(viewport)
    viewport.camera.pitch = np.radians(5.0)
    viewport.update()
    assert viewport.pick_terrain(160, 0) is None


def test_brush_cursor_is_drawn_at_the_picked_point(viewport, qtbot) -> None:
    looking_down(viewport)
    before = render(viewport, qtbot).astype(int)
    hit = viewport.pick_terrain(200, 140)
    viewport.overlays.brush_cursor.show(hit, 6.0, 0.5)
    after = render(viewport, qtbot).astype(int)
    changed = np.abs(after - before).sum(axis=-1) > 60
    ys, xs = np.nonzero(changed)
    assert len(xs) > 50
    # the ring surrounds the picked pixel: changed pixels lie on every side of it
    assert xs.min() < 200 < xs.max() and ys.min() < 140 < ys.max()
    rim = viewport.world_to_screen(np.array([hit + [6.0, 0, 0], hit - [6.0, 0, 0]]))
    assert abs(xs.min() - rim[:, 0].min()) < 12 and abs(xs.max() - rim[:, 0].max()) < 12
    viewport.overlays.brush_cursor.hide()
    again = render(viewport, qtbot).astype(int)
    assert np.abs(again - before).sum(axis=-1).max() < 30


def test_refusals_are_coloured_by_reason_and_highlight_dims_the_rest(viewport, qtbot) -> None:
    scene = looking_down(viewport)
    t = scene.terrain
    pos = np.array([[-12.0, 0, 0.0], [12.0, 0, 0.0]])
    pos[:, 1] = t.height_at(pos[:, 0], pos[:, 2])
    viewport.overlays.refusals.set(pos, [2, 5])  # slope (red), spacing (blue)
    img = render(viewport, qtbot).astype(int)
    (ax, ay), (bx, by) = viewport.world_to_screen(pos).round().astype(int)
    slope, spacing = img[ay, ax], img[by, bx]
    assert slope[0] > 200 and slope[1] < 100 and slope[2] < 80
    assert spacing[2] > 200 and spacing[0] < 80
    viewport.overlays.refusals.set(pos, [2, 5], highlight=5)
    img = render(viewport, qtbot).astype(int)
    assert img[ay, ax].sum() < slope.sum() - 60  # slope markers dimmed
    viewport.overlays.refusals.clear()
    assert len(viewport.overlays.refusals) == 0


def test_point_and_line_sets(viewport, qtbot) -> None:
    looking_down(viewport)
    base = render(viewport, qtbot).astype(int)
    p = viewport.camera.target
    viewport.overlays.points.set("selection", p[None], (0.0, 1.0, 1.0, 1.0), 12)
    img = render(viewport, qtbot).astype(int)
    x, y = viewport.world_to_screen(p[None]).round().astype(int)[0]
    assert img[y, x, 1] > 220 and img[y, x, 2] > 220 and img[y, x, 0] < 40
    viewport.overlays.points.remove("selection")
    seg = np.array([[p - [15, 0, 0], p + [15, 0, 0]]])
    viewport.overlays.lines.set("gizmo", seg, (1.0, 0.0, 1.0))
    img = render(viewport, qtbot).astype(int)
    magenta = (img[..., 0] > 200) & (img[..., 2] > 200) & (img[..., 1] < 60)
    assert magenta.sum() > 30
    viewport.overlays.lines.remove("gizmo")
    assert np.abs(render(viewport, qtbot).astype(int) - base).sum(axis=-1).max() < 30


def scene_with_one_tree():
    scene = make_small_scene()
    ftype = FoliageType("tree", mesh="builtin:conifer")
    foliage = foliage_of(scene)
    foliage.palette.add(ftype)
    y = float(scene.terrain.height_at(5.0, 4.0))
    foliage.volume.add("tree", np.array([[5.0, y, 4.0, 0.0, 0.0, 0.0, 1.0]], np.float32))
    return scene


def test_pick_instance_finds_the_tree_under_the_cursor(viewport, qtbot) -> None:
    scene = scene_with_one_tree()
    looking_down(viewport, scene)
    y = float(scene.terrain.height_at(5.0, 4.0))
    x, py = viewport.world_to_screen(np.array([[5.0, y + 5.0, 4.0]]))[0]
    hit = viewport.pick_instance(x, py)
    assert hit is not None and hit.type == "tree" and hit.index == 0
    far = viewport.world_to_screen(np.array([[-25.0, 0.0, -20.0]]))[0]
    assert viewport.pick_instance(*far) is None


def test_view_menu_toggles_the_overlays(main_window, qtbot) -> None:
    from app.main_window import menu_titles

    view_menu = next(a.menu() for a in main_window.menuBar().actions() if a.text() == "&View")
    assert "Focus Selection" in menu_titles(view_menu) and "Overlays" in menu_titles(view_menu)
    assert menu_titles(main_window.overlay_menu) == ["Cell Grid", "Chunk Bounds", "Collision Bodies",
                                                    "Refused Candidates", "Frame Stats", "Far Foliage Cover"]
    ov = main_window.viewport.overlays
    main_window.actions_by_key["cell_grid"].setChecked(True)
    assert ov.show_grid and len(ov.grid_segments()) > 0
    main_window.actions_by_key["chunk_bounds"].setChecked(True)
    main_window.actions_by_key["collision_bodies"].setChecked(True)
    assert ov.show_chunk_bounds and ov.show_collision
    main_window.actions_by_key["refused_candidates"].setChecked(False)
    assert not ov.show_refusals
    main_window.actions_by_key["frame_stats"].setChecked(True)
    assert main_window.viewport.stats_visible()
    ov.set_toggle("show_grid", False)  # switched by a tool: the menu follows
    assert not main_window.actions_by_key["cell_grid"].isChecked()


def test_grid_overlay_draws_lines_on_the_terrain(viewport, qtbot) -> None:
    looking_down(viewport)
    before = render(viewport, qtbot).astype(int)
    viewport.overlays.set_toggle("show_grid", True)
    after = render(viewport, qtbot).astype(int)
    assert (np.abs(after - before).sum(axis=-1) > 40).sum() > 100
    assert not is_sky(after).all()
