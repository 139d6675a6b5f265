"""A window-modal progress dialog with Cancel, shaped as the callbacks long model work takes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget


class ModalProgress:
    """`step(fraction)` moves the bar, `cancelled()` says whether Cancel was pressed; close on exit."""

    def __init__(self, parent: QWidget | None, label: str, steps: int = 1000,
                 minimum_duration_ms: int = 300) -> None:
        self.steps = max(1, int(steps))
        self.dialog = QProgressDialog(label, "Cancel", 0, self.steps, parent)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(minimum_duration_ms)

    def step(self, fraction: float) -> None:
        self.dialog.setValue(round(min(max(fraction, 0.0), 1.0) * self.steps))
        QApplication.processEvents()

    def cancelled(self) -> bool:
        QApplication.processEvents()
        return self.dialog.wasCanceled()

    def __enter__(self) -> ModalProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.dialog.close()
