"""File ▸ New: the size, spacing and base height of the flat terrain a new scene starts from."""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

MIN_SAMPLES, MAX_SAMPLES = 2, 8193  # 8193² heights and one layer: about 340 MB, still editable
MIN_SPACING, MAX_SPACING = 0.01, 1000.0
HEIGHT_LIMIT = 100_000.0


@dataclass(frozen=True)
class NewSceneOptions:
    """What File ▸ New builds: `samples` × `samples` heights `spacing` metres apart at `base_height`."""

    samples: int = 257
    spacing: float = 2.0
    base_height: float = 0.0

    def clamped(self) -> NewSceneOptions:
        """The same options brought inside the dialog's ranges (remembered values may be stale);
        a value that is no number at all falls back to its default."""
        default = NewSceneOptions()

        def within(value, low, high, fallback):
            return min(max(value, low), high) if math.isfinite(value) else fallback

        return NewSceneOptions(int(within(float(self.samples), MIN_SAMPLES, MAX_SAMPLES, default.samples)),
                               within(float(self.spacing), MIN_SPACING, MAX_SPACING, default.spacing),
                               within(float(self.base_height), -HEIGHT_LIMIT, HEIGHT_LIMIT,
                                      default.base_height))

    def extent_text(self) -> str:
        side = (self.samples - 1) * self.spacing
        return f"{side:g} × {side:g} m ({self.samples} × {self.samples} samples)"


class NewSceneDialog(QDialog):
    """`options()` → NewSceneOptions; Restore Defaults puts back 257 samples, 2 m, 0 m."""

    def __init__(self, options: NewSceneOptions = NewSceneOptions(), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New Scene")
        self.setMinimumWidth(340)
        form = QFormLayout(self)
        form.addRow(QLabel("A flat, grass-covered terrain to paint and sculpt.", self))
        self.samples = QSpinBox(self)
        self.samples.setRange(MIN_SAMPLES, MAX_SAMPLES)
        self.samples.setSuffix(" samples")
        self.samples.setToolTip("Height samples along each side (2ⁿ + 1 suits most engines: 257, 513, 1025…)")
        self.spacing = QDoubleSpinBox(self)
        self.spacing.setRange(MIN_SPACING, MAX_SPACING)
        self.spacing.setDecimals(2)
        self.spacing.setSuffix(" m")
        self.spacing.setToolTip("Metres between neighbouring samples")
        self.base_height = QDoubleSpinBox(self)
        self.base_height.setRange(-HEIGHT_LIMIT, HEIGHT_LIMIT)
        self.base_height.setDecimals(2)
        self.base_height.setSuffix(" m")
        self.base_height.setToolTip("Height of the whole flat terrain")
        self.extent = QLabel(self)
        self.extent.setToolTip("The terrain's size on the ground")
        form.addRow("&Size:", self.samples)
        form.addRow("S&pacing:", self.spacing)
        form.addRow("&Base height:", self.base_height)
        form.addRow("Covers:", self.extent)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel
                                        | QDialogButtonBox.StandardButton.RestoreDefaults, self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        restore = self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        restore.setToolTip("257 samples, 2 m apart, at 0 m")
        restore.clicked.connect(lambda: self.set_options(NewSceneOptions()))
        form.addRow(self.buttons)
        self.samples.valueChanged.connect(self._show_extent)
        self.spacing.valueChanged.connect(self._show_extent)
        self.set_options(options)

    def set_options(self, options: NewSceneOptions) -> None:
        options = options.clamped()
        self.samples.setValue(options.samples)
        self.spacing.setValue(options.spacing)
        self.base_height.setValue(options.base_height)
        self._show_extent()

    def options(self) -> NewSceneOptions:
        return NewSceneOptions(self.samples.value(), self.spacing.value(), self.base_height.value())

    def _show_extent(self, *_) -> None:
        self.extent.setText(self.options().extent_text())


def ask_new_scene(parent: QWidget | None, options: NewSceneOptions) -> NewSceneOptions | None:
    """The modal dialog: the chosen options, or None when cancelled."""
    dialog = NewSceneDialog(options, parent)
    try:
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.options()
    finally:
        dialog.deleteLater()
