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
