"""Terrain ▸ Auto-Paint Layer…: which layer, and the slope, height and curvature bands it goes on.

The dialog only edits an `AutoPaintRule`; `rule_changed` (debounced) lets the editor preview it on
the terrain itself, and `set_summary` shows what the preview painted.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from model.auto_paint import MAX_FEATHER, AutoPaintRule

PREVIEW_DELAY_MS = 250  # an edit of a value waits this long for the next before the preview runs


class _Band(QGroupBox):
    """A checkable band: from / to spin boxes."""

    def __init__(self, title: str, low: float, high: float, start: tuple[float, float], suffix: str,
                 decimals: int, tip: str, parent: QWidget) -> None:
        super().__init__(title, parent)
        self.setCheckable(True)
        self.setChecked(False)
        self.setToolTip(tip)
        row = QHBoxLayout(self)
        self.low, self.high = QDoubleSpinBox(self), QDoubleSpinBox(self)
        for box, value, label in ((self.low, start[0], "from"), (self.high, start[1], "to")):
            box.setRange(low, high)
            box.setDecimals(decimals)
            box.setSingleStep(10 ** -decimals * 10 if decimals else 1.0)
            box.setValue(value)
            box.setSuffix(suffix)
            box.setAccelerated(True)
            row.addWidget(QLabel(label, self))
            row.addWidget(box, 1)
        self.low.valueChanged.connect(lambda v: self.high.setValue(max(v, self.high.value())))
        self.high.valueChanged.connect(lambda v: self.low.setValue(min(v, self.low.value())))

    def band(self) -> tuple[float, float] | None:
        return (self.low.value(), self.high.value()) if self.isChecked() else None

    def set_band(self, band: tuple[float, float] | None) -> None:
        self.setChecked(band is not None)
        if band is not None:
            self.high.setValue(band[1])
            self.low.setValue(band[0])


class AutoPaintDialog(QDialog):
    """The rule's settings; `rule()` gives it (None until a band is on)."""

    rule_changed = Signal(object)  # the AutoPaintRule, or None (no band): after PREVIEW_DELAY_MS
    preview_toggled = Signal(bool)

    def __init__(self, layers: list[str], current: str | None, heights: tuple[float, float],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Auto-Paint Layer")
        self.setMinimumWidth(420)
        outer = QVBoxLayout(self)
        form = QFormLayout()
        self.layer = QComboBox(self)
        self.layer.addItems(layers)
        if current in layers:
            self.layer.setCurrentText(current)
        self.layer.setToolTip("The paint layer given weight where the ground falls in every band that is on")
        form.addRow("&Layer", self.layer)
        outer.addLayout(form)
        lo, hi = heights
        span = max(hi - lo, 1.0)
        self.slope = _Band("&Slope", 0.0, 90.0, (35.0, 90.0), "°", 1,
                           "Ground steepness in degrees: 0 flat, 90 vertical (cliffs from about 35°)", self)
        self.height = _Band("&Height", -1e5, 1e5, (round(lo + 0.6 * span, 1), round(hi + 1.0, 1)), " m", 1,
                            f"Ground height in metres (this terrain: {lo:.1f} to {hi:.1f} m)", self)
        self.curvature = _Band("&Curvature", -100.0, 100.0, (-1.0, -0.01), " /m", 3,
                               "How the ground bends, 1/m: positive on ridges and peaks, negative in "
                               "valleys, gullies and hollows, 0 on even slopes", self)
        self.slope.setChecked(True)
        for band in (self.slope, self.height, self.curvature):
            outer.addWidget(band)
        options = QFormLayout()
        self.feather = QDoubleSpinBox(self)
        self.feather.setRange(0.0, MAX_FEATHER)
        self.feather.setSingleStep(0.05)
        self.feather.setValue(0.1)
        self.feather.setToolTip("Each band's soft edge, as a share of its width (inside the band): 0 is a "
                                "hard edge, 0.5 rises to full weight only in the band's middle")
        options.addRow("&Feather", self.feather)
        self.replace = QCheckBox("&Replace the layer's weights (otherwise only raise them)", self)
        self.replace.setToolTip("Off: what is painted by hand stays, the rule only adds weight. On: the "
                                "layer becomes the rule's weights everywhere")
        options.addRow(self.replace)
        self.preview = QCheckBox("&Preview in the viewport", self)
        self.preview.setChecked(True)
        self.preview.setToolTip("Paint the terrain while the dialog is open; Cancel takes it back")
        options.addRow(self.preview)
        outer.addLayout(options)
        self.summary = QLabel(self)
        self.summary.setObjectName("auto_paint_summary")
        self.summary.setWordWrap(True)
        outer.addWidget(self.summary)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("&Paint")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        outer.addWidget(self.buttons)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PREVIEW_DELAY_MS)
        self._timer.timeout.connect(self._emit_rule)
        for band in (self.slope, self.height, self.curvature):
            band.toggled.connect(self._changed)
            band.low.valueChanged.connect(self._changed)
            band.high.valueChanged.connect(self._changed)
        self.layer.currentTextChanged.connect(self._changed)
        self.feather.valueChanged.connect(self._changed)
        self.replace.toggled.connect(self._changed)
        self.preview.toggled.connect(self.preview_toggled)
        self._changed()

    def rule(self) -> AutoPaintRule | None:
        if not self.layer.currentText():
            return None
        bands = (self.slope.band(), self.height.band(), self.curvature.band())
        if all(b is None for b in bands):
            return None
        return AutoPaintRule(self.layer.currentText(), *bands, self.feather.value(), self.replace.isChecked())

    def set_rule(self, rule: AutoPaintRule) -> None:
        self.layer.setCurrentText(rule.layer)
        self.slope.set_band(rule.slope)
        self.height.set_band(rule.height)
        self.curvature.set_band(rule.curvature)
        self.feather.setValue(rule.feather)
        self.replace.setChecked(rule.replace)

    def _changed(self, *_) -> None:
        ok = self.rule() is not None
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
        if not ok:
            self.summary.setText("Turn on at least one band." if self.layer.count() else "The terrain has no "
                                 "layers: add one in the Layers panel first.")
        self._timer.start()

    def _emit_rule(self) -> None:
        self.rule_changed.emit(self.rule())

    def flush(self) -> None:
        """Emit a pending change now (tests, and Paint pressed before the preview caught up)."""
        if self._timer.isActive():
            self._timer.stop()
            self._emit_rule()

    def set_summary(self, text: str) -> None:
        self.summary.setText(text)
