"""Status bar read-out: the active tool's hint, the cursor's world position and height, and the
terrain layer weights under it."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """One line that, short of room, ends in '…' (the whole text in its tooltip) instead of being cut."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.set_text(text)

    def set_text(self, text: str) -> None:
        self.full_text = text
        self.updateGeometry()
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(self.fontMetrics().horizontalAdvance(self.full_text) + 4, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self.sizeHint().width(), self.fontMetrics().horizontalAdvance("M" * 12)),
                     super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit()

    def _fit(self) -> None:
        if not self.isVisible():  # not laid out yet: nothing is drawn, the text stays whole
            super().setText(self.full_text)
            return
        room = max(self.width() - 4, 0)
        shown = self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, room)
        super().setText(shown)
        self.setToolTip(self.full_text if shown != self.full_text else "")


class StatusReadout(QWidget):
    """Two labels for the status bar: tool hint and cursor read-out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("status_readout")
        self.hint = ElidedLabel("", self)
        self.hint.setObjectName("status_hint")
        self.cursor = QLabel("", self)
        self.cursor.setObjectName("status_cursor")
        self.cursor.setToolTip("World position and height under the cursor, and the layer weights there")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hint)
        layout.addWidget(self.cursor)

    def set_hint(self, text: str) -> None:
        self.hint.set_text(text)

    def set_cursor(self, point, terrain) -> None:
        """Show (x, y, z) with the weights of every layer there; None: the cursor is off the terrain."""
        if point is None:
            self.cursor.setText("off the terrain")
            return
        x, y, z = (float(v) for v in point)
        parts = [f"x {x:.1f}  z {z:.1f}  height {y:.2f} m"]
        weights = []
        for layer in terrain.layers:
            w = terrain.layer_weight_at(layer.name, np.array([x]), np.array([z]))
            if w is not None and w[0] > 0.005:
                weights.append(f"{layer.name} {w[0] * 100:.0f}%")
        if weights:
            parts.append(" · ".join(weights))
        self.cursor.setText("  |  ".join(parts))
