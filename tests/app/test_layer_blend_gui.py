"""Painting a layer in the editor takes weight from the others; the Layers panel's "Weight-blended"
box paints a layer on its own instead (issue 15, point 9)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from app.terrain_editor import install
from model.brush import Brush
from tests.gui_helpers import render

SAND = (214, 198, 150)


def _paint_drag(window, qtbot) -> tuple[QPoint, tuple[float, float]]:
    viewport = window.viewport
    terrain = window.document.scene.terrain
    sx, sy = viewport.world_to_screen([[-16.0, float(terrain.height_at(-16.0, 0.0)), 0.0]])[0]
    centre = QPoint(round(sx), round(sy))  # over the red (west) half
    assert float(terrain.layer_weight_at("red", -16.0, 0.0)) == 1.0
    pixels = [centre + QPoint(4 * i, 0) for i in range(5)]
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixels[0])
    for p in pixels[1:]:
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixels[-1])
    return pixels[2], window.terrain_editor.toolbox.world_at(pixels[2].x(), pixels[2].y())


def test_painting_sand_over_red_takes_the_weight_from_red_read_out_and_drawn(main_window, qtbot) -> None:
    window = main_window
    window.show()
    qtbot.waitExposed(window)
    editor = install(window)
    terrain = window.document.scene.terrain
    assert editor.add_layer("sand", SAND)
    editor.toolbox.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.2))
    editor.toolbox.activate("paint_layer")
    before = {layer.name: layer.weights.copy() for layer in terrain.layers}
    bare = render(window.viewport, qtbot).astype(int)
    pixel, (x, z) = _paint_drag(window, qtbot)

    red = float(terrain.layer_weight_at("red", x, z))
    sand = float(terrain.layer_weight_at("sand", x, z))
    assert sand > 0.95 and red < 0.05 and x < -10.0
    total = sum(layer.weights.astype(int) for layer in terrain.layers)
    assert total.max() <= 255  # red and blue were complementary: nowhere past 100 % now
    # the status read-out under the cursor says sand, not "red 100% · sand 100%"
    QTest.mouseMove(window.viewport, pixel)
    text = window.foliage_editor.readout.cursor.text()
    assert "sand 100%" in text and "red" not in text, text
    # drawn sand-coloured, not the olive of red and sand averaged
    painted = render(window.viewport, qtbot).astype(int)
    y = pixel.y() * painted.shape[0] // window.viewport.height()
    xs = pixel.x() * painted.shape[1] // window.viewport.width()
    spot = painted[y - 2:y + 3, xs - 2:xs + 3, :3].reshape(-1, 3).mean(axis=0)
    was = bare[y - 2:y + 3, xs - 2:xs + 3, :3].reshape(-1, 3).mean(axis=0)
    assert spot[2] > was[2] + 40 and spot[1] > was[1] + 40  # red ground turned pale sand
    # one exact undo step for all three layers
    stack = window.document.undo_stack
    assert stack.text(stack.count() - 1) == "Paint layer 'sand'"
    stack.undo()
    assert all(layer.weights.tobytes() == before[layer.name].tobytes() for layer in terrain.layers)


def test_an_unblended_layer_paints_over_the_others_and_the_option_is_undoable(main_window, qtbot) -> None:
    window = main_window
    window.show()
    qtbot.waitExposed(window)
    editor = install(window)
    terrain = window.document.scene.terrain
    assert editor.add_layer("sand", SAND)
    box = editor.panel.blend
    assert box.isChecked() and box.isEnabled() and "100 %" in box.toolTip()
    box.click()  # the artist turns weight blending off for sand
    assert not terrain.layer("sand").weight_blend and not box.isChecked()
    assert "not blended" in editor.panel.list.currentItem().text()
    stack = window.document.undo_stack
    assert stack.text(stack.count() - 1) == "Stop weight-blending layer 'sand'"
    red_before = terrain.layer("red").weights.copy()
    editor.toolbox.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.2))
    editor.toolbox.activate("paint_layer")
    _, (x, z) = _paint_drag(window, qtbot)
    assert float(terrain.layer_weight_at("sand", x, z)) > 0.95
    assert terrain.layer("red").weights.tobytes() == red_before.tobytes()  # left alone
    stack.undo()
    stack.undo()
    assert terrain.layer("sand").weight_blend and editor.panel.blend.isChecked()
    assert not np.any(terrain.layer("sand").weights)
