"""Small things a new user trips over: a tooltip over a lasso being drawn, a form showing a type
that is gone, a status hint cut off, hint text too faint to read."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QHelpEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolTip

from tests.gui_helpers import pixels
from widgets.hint_label import contrast

SHOWN_SIZE, SHOWN_VIEW = (1200, 800), None


def ask_tooltip(widget, pos: QPoint) -> None:
    """What Qt sends when the pointer rests: a ToolTip help event."""
    QApplication.sendEvent(widget, QHelpEvent(QEvent.Type.ToolTip, pos, widget.mapToGlobal(pos)))


def test_no_navigation_tooltip_during_a_paused_lasso_drag(shown, qtbot) -> None:
    viewport, editor = shown.viewport, shown.foliage_editor
    QToolTip.hideText()
    editor.select_mode.setCurrentText("lasso")
    editor.toolset.activate("select")
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
    for dx, dy in ((30, 0), (30, 30), (0, 30)):
        QTest.mouseMove(viewport, centre + QPoint(dx, dy))
    ask_tooltip(viewport, centre + QPoint(0, 30))  # the drag pauses
    qtbot.wait(50)
    assert not QToolTip.isVisible()
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
    ask_tooltip(viewport, centre)  # a tool is active: its hint is in the status bar, not over the brush
    qtbot.wait(50)
    assert not QToolTip.isVisible()
    shown.tool_host.activate(None)
    ask_tooltip(viewport, centre)  # plain navigation: the tip helps
    qtbot.waitUntil(QToolTip.isVisible, timeout=2000)
    assert "orbit" in QToolTip.text()
    QToolTip.hideText()


def test_the_form_forgets_a_type_whose_addition_was_undone(shown, qtbot) -> None:
    editor = shown.foliage_editor
    panel = editor.palette_panel
    name = editor.new_type()
    assert panel.form.isVisibleTo(panel) and panel.form.name.text() == name
    shown.document.undo_stack.undo()
    assert name not in panel.names()
    assert not panel.form.isVisibleTo(panel) and panel.no_type.isVisibleTo(panel)
    shown.document.undo_stack.redo()
    panel.select([name])
    assert panel.form.isVisibleTo(panel) and panel.form.name.text() == name


@pytest.mark.parametrize("width", [820, 1600])
def test_the_reapply_hint_is_never_cut(shown, qtbot, width) -> None:
    editor = shown.foliage_editor
    editor.toolset.activate("reapply")
    viewport = shown.viewport
    p = QPointF(viewport.width() / 2, viewport.height() / 2)
    QApplication.sendEvent(viewport, QMouseEvent(QEvent.Type.MouseMove, p, p, Qt.MouseButton.NoButton,
                                                 Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier))
    assert editor.readout.cursor.text()  # the cursor read-out shares the status bar with the hint
    shown.resize(width, 800)
    hint = editor.readout.hint
    # a long hint never holds the window wider than asked: it gives way with '…'
    qtbot.waitUntil(lambda: hint.width() > 50 and shown.width() <= width, timeout=3000)
    qtbot.wait(50)
    full = editor.toolset.tools["reapply"].hint
    assert full.endswith("are removed")  # a whole sentence
    shown_text = hint.text()
    assert hint.fontMetrics().horizontalAdvance(shown_text) <= hint.width()  # drawn whole, not clipped
    assert shown_text == full or (shown_text.endswith("…") and hint.toolTip() == full)
    if width >= 1600:
        assert shown_text == full


def darkest_contrast(label) -> float:
    """Contrast between the label's background and its darkest (or lightest) drawn text pixel."""
    image = pixels(label.grab().toImage()).astype(int)
    flat = image.reshape(-1, 3)
    lum = flat.sum(axis=1)
    background = np.median(flat, axis=0)
    text = flat[np.argmax(np.abs(lum - background.sum()))]
    from PySide6.QtGui import QColor

    return contrast(QColor(*map(int, text)), QColor(*map(int, background)))


def test_tool_settings_hints_are_readable(shown) -> None:
    foliage_hint = shown.foliage_editor.hint
    assert foliage_hint.isEnabled() and "Left drag" in foliage_hint.text()
    assert darkest_contrast(foliage_hint) >= 4.5
    terrain_panel = shown.terrain_editor.tool_panel()  # the Terrain Tools window's settings
    terrain_panel.resize(300, 200)
    assert darkest_contrast(terrain_panel.hint) >= 4.5
    terrain_panel.deleteLater()

