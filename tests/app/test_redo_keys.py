"""Redo answers both Ctrl+Shift+Z and Ctrl+Y, pressed on the real window, and the shortcuts list says so."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QUndoCommand
from PySide6.QtWidgets import QApplication, QTableWidget


class Count(QUndoCommand):
    def __init__(self, log: list) -> None:
        super().__init__("Count")
        self.log = log

    def redo(self) -> None:
        self.log.append("redo")

    def undo(self) -> None:
        self.log.append("undo")


def test_ctrl_y_and_ctrl_shift_z_both_redo(main_window, qtbot) -> None:
    main_window.show()
    main_window.activateWindow()
    qtbot.waitActive(main_window)
    viewport = main_window.viewport
    viewport.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is viewport)  # shortcuts need the active window
    log: list = []
    stack = main_window.document.undo_stack
    stack.push(Count(log))
    ctrl = Qt.KeyboardModifier.ControlModifier
    for modifiers, key in ((ctrl, Qt.Key.Key_Y), (ctrl | Qt.KeyboardModifier.ShiftModifier, Qt.Key.Key_Z)):
        qtbot.keyClick(viewport, Qt.Key.Key_Z, ctrl)
        assert stack.index() == 0, "Ctrl+Z undoes"
        qtbot.keyClick(viewport, key, modifiers)
        assert stack.index() == 1, QKeySequence(modifiers.value | key.value).toString()
    assert log == ["redo", "undo", "redo", "undo", "redo"]


def test_the_shortcuts_list_shows_both_redo_keys(main_window) -> None:
    dialog = main_window.show_shortcuts()
    table = dialog.findChild(QTableWidget, "shortcuts_table")
    rows = {table.item(i, 0).text(): table.item(i, 1).text() for i in range(table.rowCount())}
    native = QKeySequence.SequenceFormat.NativeText
    keys = [k.strip() for k in rows["Redo"].split(",")]
    assert QKeySequence("Ctrl+Y").toString(native) in keys
    assert QKeySequence("Ctrl+Shift+Z").toString(native) in keys
    dialog.close()
