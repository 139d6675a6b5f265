"""Terrain strokes reach the screen: real OpenGL (Xvfb + llvmpipe), pixels read back."""

from __future__ import annotations

import numpy as np
import pytest

from app.document import SceneDocument
from app.terrain_tools import TerrainToolbox
from model.brush import Brush
from tests.conftest import make_small_scene
from tests.gui_helpers import is_sky, render
from widgets.viewport import Viewport


@pytest.fixture
def setup(qtbot):
    viewport = Viewport()
    qtbot.addWidget(viewport)
    viewport.resize(320, 240)
    document = SceneDocument(make_small_scene())
    viewport.set_scene(document.scene)
    viewport.camera.yaw, viewport.camera.pitch = 0.0, np.radians(80.0)
    viewport.show()
    qtbot.waitExposed(viewport)
    viewport.frame_all()
    toolbox = TerrainToolbox(viewport, document)
    yield viewport, document, toolbox
    viewport.removeEventFilter(toolbox)


def test_painting_a_layer_recolours_only_the_painted_ground_and_undo_restores(setup, qtbot) -> None:
    viewport, document, toolbox = setup
    before = render(viewport, qtbot).astype(int)
    h, w, _ = before.shape
    # East half is blue; paint the red layer onto a spot there, picked through the viewport.
    spot = toolbox.world_at(w * 0.72, h * 0.5)
    assert spot is not None and spot[0] > 0
    toolbox.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.2))
    toolbox.set_current_layer("red")
    toolbox.activate("paint_layer")
    toolbox.drag([spot, (spot[0] + 1.0, spot[1])])
    after = render(viewport, qtbot).astype(int)
    redder = (after[..., 0] - after[..., 2]) - (before[..., 0] - before[..., 2])
    ys, xs = np.nonzero(redder > 40)
    assert len(xs) > 20  # the spot turned red on screen…
    assert abs(xs.mean() - w * 0.72) < w * 0.1 and abs(ys.mean() - h * 0.5) < h * 0.15
    west = ~is_sky(before) & (np.arange(w)[None, :] < w * 0.4)
    assert np.array_equal(after[west], before[west])  # …and the west half did not change
    document.undo_stack.undo()
    assert np.array_equal(render(viewport, qtbot).astype(int), before)


def test_raising_the_ground_changes_the_picture_near_the_stroke(setup, qtbot) -> None:
    viewport, document, toolbox = setup
    before = render(viewport, qtbot).astype(int)
    h, w, _ = before.shape
    spot = toolbox.world_at(w * 0.3, h * 0.5)
    toolbox.set_brush(Brush(radius=8.0, strength=1.0, falloff=0.5))
    toolbox.activate("raise")
    toolbox.amount = 10.0
    toolbox.drag([spot])
    after = render(viewport, qtbot).astype(int)
    changed = np.abs(after - before).sum(axis=-1) > 12
    ys, xs = np.nonzero(changed)
    assert len(xs) > 20 and abs(xs.mean() - w * 0.3) < w * 0.15
    assert not changed[:, int(w * 0.75):].any()
