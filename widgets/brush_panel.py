"""The shared brush's settings: radius, strength, falloff and curve (terrain and foliage tools)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QWidget

from model.brush import MAX_RADIUS, MIN_RADIUS, Brush, FalloffCurve


class BrushPanel(QWidget):
    """Edits a Brush; `brush_edited` carries every change, `set_brush` shows one without emitting."""

    brush_edited = Signal(object)

    def __init__(self, brush: Brush | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("brush_panel")
        self._brush = brush or Brush()
        self.radius = QDoubleSpinBox(self)
        self.radius.setRange(MIN_RADIUS, MAX_RADIUS)
        self.radius.setDecimals(2)
        self.radius.setSuffix(" m")
        self.radius.setToolTip("Brush radius in metres — [ and ] resize it")
        self.strength = QDoubleSpinBox(self)
        self.strength.setRange(0.0, 1.0)
        self.strength.setSingleStep(0.05)
        self.strength.setToolTip("How much each stamp does (foliage: share of the type's density) — "
                                 "Shift+[ and Shift+] change it")
        self.falloff = QDoubleSpinBox(self)
        self.falloff.setRange(0.0, 1.0)
        self.falloff.setSingleStep(0.05)
        self.falloff.setToolTip("Share of the radius over which the brush fades out (0: hard edge)")
        self.curve = QComboBox(self)
        self.curve.addItems([c.value for c in FalloffCurve])
        self.curve.setToolTip("Shape of the fade from the brush's core to its rim")
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Radius", self.radius)
        form.addRow("Strength", self.strength)
        form.addRow("Falloff", self.falloff)
        form.addRow("Curve", self.curve)
        self.set_brush(self._brush)
        for box in (self.radius, self.strength, self.falloff):
            box.valueChanged.connect(self._edited)
        self.curve.currentIndexChanged.connect(self._edited)

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
