"""The mouse wheel scrolls forms; it edits a spin box or a combo box only once that has the focus.

One application-wide event filter covers every form, dock and dialog: each spin box and combo
box takes the focus by click or Tab only (Qt.StrongFocus, not the wheel), and a wheel turned over
one without the focus goes on to the scroll area around it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox

GUARDED = (QAbstractSpinBox, QComboBox)


class WheelGuard(QObject):
    """Event filter on the application: unfocused value editors ignore the wheel."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(watched, GUARDED):
            if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        elif kind == QEvent.Type.Wheel and isinstance(watched, GUARDED) and not watched.hasFocus():
            event.ignore()  # not accepted: Qt hands it to the parent (the scroll area)
            return True
        return False


def install_wheel_guard(app: QApplication | None = None) -> WheelGuard:
    """Install the guard once on `app` (the running application); returns it."""
    app = app or QApplication.instance()
    guard = app.findChild(WheelGuard)
    if guard is None:
        guard = WheelGuard(app)
        app.installEventFilter(guard)
    return guard
