"""Foliage edits reach the screen: real OpenGL (Xvfb + llvmpipe), pixels read back."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, foliage_of
from tests.gui_helpers import render

SHOWN_SIZE = (900, 700)


def grey(rgb: np.ndarray) -> np.ndarray:
    """Rock-coloured pixels: the small scene's terrain is red and blue, the sky pale blue."""
    c = rgb.astype(int)
    return (c.max(axis=-1) - c.min(axis=-1) < 22) & (c.max(axis=-1) < 170)


def grey_near(rgb: np.ndarray, points: np.ndarray, half: int = 6) -> float:
    h, w = rgb.shape[:2]
    shares = []
    for x, y in points:
        xi, yi = int(round(x)), int(round(y))
        patch = rgb[max(0, yi - half):min(h, yi + half + 1), max(0, xi - half):min(w, xi + half + 1)]
        shares.append(grey(patch).mean() if patch.size else 0.0)
    return float(np.mean(shares))


def test_a_gizmo_move_shows_the_instances_where_they_went(shown, qtbot) -> None:
    window = shown
    editor = window.foliage_editor
    viewport = window.viewport
    scene = window.document.scene
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("boulder", mesh="builtin:rock", scale=(3.0, 3.0),
                                     cull=(1000.0, 1200.0)))
    xz = np.array([[-24.0, -14.0], [-20.0, -10.0], [-26.0, -8.0]])
    rec = np.zeros((3, 7), np.float32)
    rec[:, 0], rec[:, 2], rec[:, 6] = xz[:, 0], xz[:, 1], 3.0
    rec[:, 1] = scene.terrain.height_at(xz[:, 0], xz[:, 1])
    foliage.volume.add("boulder", rec)
    old = viewport.world_to_screen(rec[:, :3])
    frame = render(viewport, qtbot)
    renderer = viewport.foliage_renderer
    assert renderer is not None and any(k[1] == "boulder" for k in renderer.visible)
    assert grey_near(frame, old) > 0.5  # the boulders are drawn
    editor.toolset.activate("select")
    editor.toolset.set_selection(foliage.volume.query_radius(-23.0, -11.0, 8.0))
    assert editor.toolset.selection_count() == 3
    uploads = sum(renderer.uploads.values())
    assert editor.gizmo.apply(offset=(44.0, 0.0))
    moved = foliage.volume.all_records("boulder")
    new = viewport.world_to_screen(moved[:, :3])
    frame = render(viewport, qtbot)
    assert sum(renderer.uploads.values()) > uploads  # the changed chunks were sent again
    assert editor.gizmo_renderer.vertex_count > 0  # the handles are drawn around the selection
    editor.toolset.set_selection({})  # selected instances are drawn amber: deselect to see their grey
    frame = render(viewport, qtbot)
    assert grey_near(frame, new) > 0.5 and grey_near(frame, old) < 0.1
    window.document.undo_stack.undo()
    assert editor.toolset.selection_count() == 3  # undo selects what it moved back
    editor.toolset.set_selection({})
    frame = render(viewport, qtbot)
    assert grey_near(frame, old) > 0.5 and grey_near(frame, new) < 0.1
