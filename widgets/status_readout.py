"""Status bar read-out: the active tool's hint, the cursor's world position and height, and the
terrain layer weights under it."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget


class StatusReadout(QWidget):
    """Two labels for the status bar: tool hint and cursor read-out."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("status_readout")
        self.hint = QLabel("", self)
        self.hint.setObjectName("status_hint")
        self.cursor = QLabel("", self)
        self.cursor.setObjectName("status_cursor")
        self.cursor.setToolTip("World position and height under the cursor, and the layer weights there")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hint)
        layout.addWidget(self.cursor)

    def set_hint(self, text: str) -> None:
        self.hint.setText(text)

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
