"""The wheel scrolls a form: a number or a choice changes by wheel only once its box has the focus."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox

from model.foliage import FoliageType, foliage_of
from tests.gui_helpers import settle


def wheel(widget, notches: int = -1) -> bool:
    """One wheel turn over `widget` (down by default); True when the widget took it."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
    return event.isAccepted()


def test_the_wheel_over_an_unfocused_form_changes_nothing(shown, qtbot) -> None:
    editor = shown.foliage_editor
    foliage_of(shown.document.scene).palette.add(FoliageType("oak", spacing=7.0))
    editor.palette_panel.select(["oak"])
    settle()
    form = editor.palette_panel.form
    shown.activateWindow()
    qtbot.waitUntil(shown.isActiveWindow, timeout=5000)
    shown.viewport.setFocus()
    settle()
    steps = shown.document.undo_stack.count()
    assert not form.spacing.hasFocus() and form.spacing.value() == 7.0
    assert wheel(form.spacing) is False  # left for the scroll area around the form
    assert not wheel(form.storage) and not wheel(form.scale.low)
    assert form.spacing.value() == 7.0 and form.storage.currentText() == "stored"
    assert shown.document.undo_stack.count() == steps
    # every spin box and combo box of the window's forms takes the focus by click or Tab, not wheel
    boxes = shown.findChildren(QAbstractSpinBox) + shown.findChildren(QComboBox)
    assert len(boxes) > 20 and all(b.focusPolicy() == Qt.FocusPolicy.StrongFocus for b in boxes)
    # clicked into, it takes the wheel: one step of its own
    form.spacing.setFocus()
    qtbot.waitUntil(form.spacing.hasFocus, timeout=2000)
    assert wheel(form.spacing) is True
    assert form.spacing.value() == 6.5
    assert editor.palette_panel.form.ftype.spacing == 6.5 and shown.document.undo_stack.count() == steps + 1
