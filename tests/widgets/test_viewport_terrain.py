"""Terrain chunks: an edit re-uploads only the chunks it touched; chunks out of view are skipped."""

from __future__ import annotations

import numpy as np

from model.scene import Scene
from model.terrain import Terrain
from tests.gui_helpers import render


def wavy(size: int = 257) -> Scene:
    z, x = np.mgrid[0:size, 0:size].astype(np.float64)
    t = Terrain((6 * np.sin(x / 11) * np.cos(z / 17)).astype(np.float32), 1.0, (-128.0, -128.0))
    t.add_layer("a", (90, 140, 60), np.full((size, size), 255, np.uint8))
    t.add_layer("b", (200, 60, 40), np.zeros((size, size), np.uint8))
    return Scene(terrain=t, name="Wavy")


def test_an_edit_reuploads_only_the_touched_chunks_and_draws_like_a_fresh_build(viewport, qtbot) -> None:
    scene = wavy()
    viewport.set_scene(scene)
    render(viewport, qtbot)
    tr = viewport.terrain_renderer
    assert len(tr.uploads) == 16 and set(tr.uploads.values()) == {1}  # 4 x 4 chunks of 64 cells
    t = scene.terrain
    t.heights[100:110, 30:40] += 15.0  # inside chunk (1, 0) only
    t.heights_changed.emit(slice(100, 110), slice(30, 40))
    t.layers[1].weights[10:20, 70:80] = 255  # inside chunk (0, 1) only
    t.layer_weights_changed.emit(1, slice(10, 20), slice(70, 80))
    edited = render(viewport, qtbot).astype(int)
    again = {k: n for k, n in tr.uploads.items() if n > 1}
    assert again == {(1, 0): 2, (0, 1): 2}
    viewport.set_scene(scene, frame=False)  # a renderer built from scratch on the edited terrain
    fresh = render(viewport, qtbot).astype(int)
    assert np.abs(fresh - edited).max() <= 1


def test_terrain_chunks_out_of_view_are_not_drawn(viewport, qtbot) -> None:
    scene = wavy()
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.target = np.array([-100.0, 0.0, -100.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(80.0), 30.0
    render(viewport, qtbot)
    visible = viewport.terrain_renderer.visible
    assert 1 <= len(visible) <= 4 and (0, 0) in visible


def test_after_the_context_is_recreated_edits_are_still_followed(viewport, qtbot) -> None:
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from tests.gui_helpers import is_sky

    scene = wavy()
    viewport.set_scene(scene)
    render(viewport, qtbot)
    holder = QWidget()
    qtbot.addWidget(holder)
    QVBoxLayout(holder).addWidget(viewport)  # a new top-level window: the GL context is made anew
    holder.resize(320, 240)
    holder.show()
    qtbot.waitExposed(holder)
    before = render(viewport, qtbot).astype(int)
    assert not is_sky(before).all()
    assert min(viewport.terrain_renderer.uploads.values()) == 2  # rebuilt in the new context
    t = scene.terrain
    t.layers[1].weights[:] = 255  # paint everything red
    t.layer_weights_changed.emit(1, slice(0, t.rows), slice(0, t.columns))
    after = render(viewport, qtbot).astype(int)
    ground = ~is_sky(after)
    assert (after[..., 0] - before[..., 0])[ground].mean() > 20
    viewport.setParent(None)  # hand it back to the fixture, which closes it


def test_a_brush_stamp_resends_only_the_rows_it_touched_and_draws_like_a_fresh_build(viewport, qtbot) -> None:
    """A sculpt frame's upload follows the brush: a 5 m stamp re-meshes its rows of the chunk, not
    the whole 65 x 65 chunk (issue 15, point 13)."""
    from model.brush import Brush
    from model.sculpt import TerrainStroke, raise_lower
    from rendering.terrain_mesh import VERTEX_FLOATS

    scene = wavy()
    viewport.set_scene(scene)
    render(viewport, qtbot)
    tr = viewport.terrain_renderer
    before = tr.upload_bytes
    stroke = TerrainStroke(scene.terrain)
    brush = Brush(radius=5.0, strength=1.0)
    stroke.apply(raise_lower(scene.terrain, brush, -96.0, -96.0, 6.0))  # inside chunk (0, 0)
    edited = render(viewport, qtbot).astype(int)
    sent = tr.upload_bytes - before
    row_bytes = 65 * VERTEX_FLOATS * 4
    assert {k for k, n in tr.uploads.items() if n > 1} == {(0, 0)}
    assert 0 < sent <= (11 + 2) * row_bytes  # 11 brush rows and the two whose normals change
    assert sent < 65 * row_bytes / 4
    viewport.set_scene(scene, frame=False)
    fresh = render(viewport, qtbot).astype(int)
    assert np.abs(fresh - edited).max() <= 1
