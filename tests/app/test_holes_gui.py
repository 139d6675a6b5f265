"""Holes are not drawn: the real OpenGL viewport shows the sky through a hole painted in the
ground, and the ground again once the hole is erased."""

from __future__ import annotations

import numpy as np

from model.holes import apply_patch, paint_holes
from tests.gui_helpers import is_sky, render


def test_a_hole_shows_the_sky_through_the_ground_and_its_undo_the_ground(shown, qtbot) -> None:
    viewport = shown.viewport
    terrain = shown.document.scene.terrain
    x0, z0, x1, z1 = terrain.bounds()
    cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
    radius = (x1 - x0) / 8
    at = viewport.world_to_screen([[cx, float(terrain.height_at(cx, cz)), cz]])[0]
    sx, sy = int(round(at[0])), int(round(at[1]))
    ground = render(viewport, qtbot)
    assert not is_sky(ground[sy - 2:sy + 3, sx - 2:sx + 3]).any()
    patch = paint_holes(terrain, cx, cz, radius)
    holed = render(viewport, qtbot)
    assert is_sky(holed[sy - 2:sy + 3, sx - 2:sx + 3]).all()
    # the ground beyond the hole is drawn as before
    far = cx + radius * 2.5
    edge = viewport.world_to_screen([[far, float(terrain.height_at(far, cz)), cz]])[0]
    ex, ey = int(round(edge[0])), int(round(edge[1]))
    assert not is_sky(holed[ey - 1:ey + 2, ex - 1:ex + 2]).any()
    assert np.abs(holed[ey, ex].astype(int) - ground[ey, ex].astype(int)).max() <= 3
    apply_patch(terrain, patch, undo=True)
    back = render(viewport, qtbot)
    assert not is_sky(back[sy - 2:sy + 3, sx - 2:sx + 3]).any()
