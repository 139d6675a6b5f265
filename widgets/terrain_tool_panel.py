"""Terrain tool settings: tool buttons, the shared brush (radius, strength, falloff, curve), tool options."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.brush import MAX_RADIUS, MIN_RADIUS, Brush, FalloffCurve


class TerrainToolPanel(QWidget):
    """Edits a Brush; `brush_edited` carries every change. Buttons show the given tool actions."""

    brush_edited = Signal(object)
    amount_edited = Signal(float)
    seed_edited = Signal(int)

    def __init__(self, actions: list[QAction] | None = None, brush: Brush | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("terrain_tool_panel")
        self._brush = brush or Brush()
        grid = QGridLayout()
        for i, action in enumerate(actions or []):
            button = QToolButton(self)
            button.setDefaultAction(action)
            button.setToolButtonStyle(button.toolButtonStyle().ToolButtonTextOnly)
            grid.addWidget(button, i // 3, i % 3)

        self.radius = QDoubleSpinBox(self)
        self.radius.setRange(MIN_RADIUS, MAX_RADIUS)
        self.radius.setDecimals(2)
        self.radius.setSuffix(" m")
        self.radius.setToolTip("Brush radius in metres — [ and ] resize it")
        self.strength = QDoubleSpinBox(self)
        self.strength.setRange(0.0, 1.0)
        self.strength.setSingleStep(0.05)
        self.strength.setToolTip("How much each stamp does — Shift+[ and Shift+] change it")
        self.falloff = QDoubleSpinBox(self)
        self.falloff.setRange(0.0, 1.0)
        self.falloff.setSingleStep(0.05)
        self.falloff.setToolTip("Share of the radius over which the brush fades out (0: hard edge)")
        self.curve = QComboBox(self)
        self.curve.addItems([c.value for c in FalloffCurve])
        self.curve.setToolTip("Shape of the fade from the brush's core to its rim")
        self.amount = QDoubleSpinBox(self)
        self.amount.setRange(0.05, 20.0)
        self.amount.setValue(1.0)
        self.amount.setSingleStep(0.25)
        self.amount.setToolTip("Height change of Raise and Noise, as a multiple of the default")
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(1)
        self.seed.setToolTip("Noise seed: the same seed lays the same bumps")

        form = QFormLayout()
        form.addRow("Radius", self.radius)
        form.addRow("Strength", self.strength)
        form.addRow("Falloff", self.falloff)
        form.addRow("Curve", self.curve)
        form.addRow("Amount", self.amount)
        form.addRow("Noise seed", self.seed)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addLayout(form)
        hint = QLabel("Left drag: apply · Ctrl: lower / erase · [ ]: radius · Shift+[ ]: strength", self)
        hint.setWordWrap(True)
        hint.setEnabled(False)
        layout.addWidget(hint)
        layout.addStretch(1)
        self.set_brush(self._brush)
        for box in (self.radius, self.strength, self.falloff):
            box.valueChanged.connect(self._edited)
        self.curve.currentIndexChanged.connect(self._edited)
        self.amount.valueChanged.connect(self.amount_edited.emit)
        self.seed.valueChanged.connect(self.seed_edited.emit)

    def brush(self) -> Brush:
        return self._brush

    def set_brush(self, brush: Brush) -> None:
        """Show `brush` without emitting `brush_edited`."""
        self._brush = brush
        widgets = (self.radius, self.strength, self.falloff, self.curve)
        for w in widgets:
            w.blockSignals(True)
        self.radius.setValue(brush.radius)
        self.strength.setValue(brush.strength)
        self.falloff.setValue(brush.falloff)
        self.curve.setCurrentText(brush.curve.value)
        for w in widgets:
            w.blockSignals(False)

    def _edited(self, *_args) -> None:
        try:
            brush = replace(self._brush, radius=self.radius.value(), strength=self.strength.value(),
                            falloff=self.falloff.value(), curve=FalloffCurve(self.curve.currentText()))
        except ValueError:
            return
        if brush != self._brush:
            self._brush = brush
            self.brush_edited.emit(brush)
