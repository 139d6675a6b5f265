"""Panel keys that win over the window's: a browser's own Ctrl+O while the focus is inside it.

Qt calls two shortcuts on one key ambiguous and runs neither ("Ambiguous shortcut overload"), so
while the focus is in a panel with keys of its own (QShortcut or QAction scoped to the panel and its
children), the window's actions on those keys step aside, and get them back when the focus leaves.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QWidget

SCOPED = Qt.ShortcutContext.WidgetWithChildrenShortcut


def scoped_keys(widget: QWidget | None, top: QWidget) -> set[str]:
    """The keys bound to `widget` or a parent of it below `top`, for that part of the window only."""
    keys: set[str] = set()
    while widget is not None and widget is not top:
        for shortcut in widget.findChildren(QShortcut, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if shortcut.context() == SCOPED and shortcut.isEnabled():
                keys.update(k.toString() for k in shortcut.keys())
        for action in widget.actions():
            if action.shortcutContext() == SCOPED and action.isEnabled():
                keys.update(k.toString() for k in action.shortcuts())
        widget = widget.parentWidget()
    keys.discard("")
    return keys


class ScopedKeys(QObject):
    """Installed on a main window: follows the focus and lends the window's keys to panels."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.lent: dict[QAction, list[QKeySequence]] = {}  # action: the keys it had
        QApplication.instance().focusChanged.connect(self._on_focus)

    def _on_focus(self, _old: QWidget | None, new: QWidget | None) -> None:
        inside = new is not None and self.window.isAncestorOf(new)
        keys = scoped_keys(new, self.window) if inside else set()
        for action, own in list(self.lent.items()):
            if not keys & {k.toString() for k in own}:
                action.setShortcuts(own)
                del self.lent[action]
        if not keys:
            return
        for action in self.window.findChildren(QAction):
            if action in self.lent or action.shortcutContext() == SCOPED:
                continue
            own = action.shortcuts()
            if keys & {k.toString() for k in own}:
                self.lent[action] = own
                action.setShortcuts([k for k in own if k.toString() not in keys])
