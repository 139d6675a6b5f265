"""A new flat scene shows a ground grid with metre labels until it is sculpted; the demo shows none."""

from __future__ import annotations

import numpy as np

from app.document import new_scene
from app.gui_entry import load_demo
from tests.gui_helpers import render, show_editor


def grid_pixels(viewport, qtbot) -> int:
    """Pixels the ground grid changes: the view drawn with it, less the view drawn without it, once
    the terrain's textures and base colour have arrived (else the two frames differ by those)."""
    overlays = viewport.overlays
    for _ in range(600):  # each frame asks for what is still missing
        render(viewport, qtbot)
        if not viewport.textures_pending():
            break
    with_grid = render(viewport, qtbot).astype(int)
    overlays.set_toggle("show_ground_grid", False)
    without = render(viewport, qtbot).astype(int)
    overlays.set_toggle("show_ground_grid", True)
    return int((np.abs(with_grid - without).sum(axis=-1) > 30).sum())


def opened(main_window, qtbot, scene):
    """`scene` open in the shown editor, seen at a slant that shows the grid's lines and labels."""
    main_window.open_scene(scene)
    return show_editor(main_window, qtbot, view=(0.4, 50.0)).viewport


def test_a_flat_scene_has_a_labelled_ground_grid_until_sculpted(main_window, qtbot) -> None:
    viewport = opened(main_window, qtbot, new_scene())
    image = render(viewport, qtbot)
    major, minor, labels = viewport.overlays.ground_grid(viewport.camera.eye())
    assert len(major) and len(minor) and len(labels)
    # a major line is drawn lighter than the grass beside it
    mid = (major[:, 0] + major[:, 1]) / 2.0
    screen = viewport.world_to_screen(mid).round().astype(int)
    lighter = 0
    for x, y in screen:
        if 3 <= x < image.shape[1] - 3 and 3 <= y < image.shape[0] - 3:
            patch = image[y - 1:y + 2, x - 1:x + 2].sum(axis=-1)
            lighter += patch.max() > image[y - 3:y + 4, x - 3:x + 4].sum(axis=-1).min() + 60
    assert lighter >= len(screen) // 2
    assert grid_pixels(viewport, qtbot) > 2000  # lines and metre labels across the plane
    # the first sculpt stroke takes the grid away; undoing it (flat again) brings it back
    editor = main_window.terrain_editor
    editor.toolbox.activate("raise")
    editor.toolbox.drag([(0.0, 0.0), (10.0, 5.0)])
    assert float(np.ptp(main_window.document.scene.terrain.heights)) > 0
    assert grid_pixels(viewport, qtbot) == 0
    main_window.document.undo_stack.undo()
    assert grid_pixels(viewport, qtbot) > 2000


def test_the_demo_shows_no_ground_grid(main_window, qtbot) -> None:
    viewport = opened(main_window, qtbot, load_demo())
    assert not viewport.overlays.ground_grid_visible
    assert grid_pixels(viewport, qtbot) == 0


def test_the_metre_labels_read_left_to_right_from_any_side(main_window, qtbot) -> None:
    """From each yaw, looking at the centre and at other parts of the ground, every label seen has
    its baseline running right on the screen and its top above it (not mirrored, not upside down),
    and the frame drawn holds those strokes."""
    import math

    viewport = opened(main_window, qtbot, new_scene())
    overlays, camera = viewport.overlays, viewport.camera
    w, h = viewport.width(), viewport.height()
    total, all_lit = 0, []
    for tx, tz, distance in ((0.0, 0.0, 700.0), (150.0, 120.0, 420.0), (-170.0, -60.0, 420.0)):
        for yaw in (0, 90, 180, 270):
            camera.target = np.array([tx, 0.0, tz])
            camera.yaw, camera.pitch, camera.distance = math.radians(yaw), math.radians(35.0), distance
            eye = camera.eye()
            labels = overlays.ground_labels(eye, camera.target)
            seen = 0
            for text, start in labels.items:
                corners = np.array([start, start + labels.right * labels.height,
                                    start + labels.up * labels.height])
                p = viewport.world_to_screen(corners)
                if not np.isfinite(p).all() or not ((0 <= p[:, 0]) & (p[:, 0] < w)
                                                    & (0 <= p[:, 1]) & (p[:, 1] < h)).all():
                    continue
                seen += 1
                right, up = p[1] - p[0], p[2] - p[0]
                where = f"'{text}' from yaw {yaw}° looking at ({tx:g}, {tz:g})"
                assert right[0] > 0, f"{where} reads right to left"
                assert up[1] < 0, f"{where} stands upside down"
                assert right[0] * up[1] - right[1] * up[0] < 0, f"{where} is mirrored"
            assert seen >= 1, (yaw, tx, tz)
            total += seen
            # the frame drawn holds these labels: their strokes' middles are lit
            image = render(viewport, qtbot).astype(int)
            _, _, strokes = overlays.ground_grid(eye, camera.target)
            mid = viewport.world_to_screen((strokes[:, 0] + strokes[:, 1]) / 2.0)
            inside = np.isfinite(mid).all(axis=1) & (mid[:, 0] >= 2) & (mid[:, 0] < w - 2) \
                & (mid[:, 1] >= 2) & (mid[:, 1] < h - 2)
            lit = [image[int(y) - 1:int(y) + 2, int(x) - 1:int(x) + 2].sum(axis=-1).max() > 600
                   for x, y in mid[inside]]
            assert len(lit) >= 5 and np.mean(lit) > 0.6, (yaw, tx, tz, np.mean(lit) if lit else None)
            all_lit += lit
    assert total >= 40 and np.mean(all_lit) > 0.85
