"""Settings for a heightmap import or export: the 16-bit mapping (offset, scale), spacing, RAW size."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from model.formats.heightmap import DEFAULT_SCALE

FORMAT_TITLES = {"png16": "16-bit greyscale PNG", "r16": "RAW R16 (16-bit little-endian, no header)",
                 "npy": "float32 NumPy .npy", "exr": "32-bit float OpenEXR", "tif": "32-bit float TIFF",
                 "r32": "RAW R32 (32-bit float little-endian, no header)"}
RAW_FORMATS = {"r16": 2, "r32": 4}  # bytes per sample of the headerless formats


class HeightmapOptionsDialog(QDialog):
    """`values()` → dict(offset, scale, spacing, size); None for "from the file / automatic"."""

    def __init__(self, title: str, fmt: str, importing: bool, parent: QWidget | None = None,
                 spacing: float = 1.0, size: tuple[int, int] | None = None,
                 ask_spacing: bool = True, path: str | Path | None = None, note: str = "",
                 size_fixed: bool | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setMinimumWidth(380)
        self.fmt = fmt
        form = QFormLayout(self)
        sixteen = fmt in ("png16", "r16")
        header = f"<b>{html.escape(Path(path).name)}</b><br>" if path else ""
        self.header = QLabel(f"{header}{FORMAT_TITLES.get(fmt, fmt)}" + (f"<br>{note}" if note else ""), self)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        if path:
            self.header.setToolTip(str(path))
        form.addRow(self.header)
        # RAW files carry no mapping: only a PNG (written by Boscage) can bring its own.
        self.auto = QCheckBox("Use the height mapping stored in the file" if importing
                              else "Span the terrain's heights", self)
        self.auto.setChecked(fmt == "png16" or not importing)
        self.auto.setToolTip("A PNG written by Boscage carries its offset and scale; "
                             "other PNGs read as 0 m + 100 m" if importing
                             else "Offset = lowest height, scale = height range: the most precision")
        self.offset = QDoubleSpinBox(self)
        self.offset.setRange(-1e6, 1e6)
        self.offset.setDecimals(3)
        self.offset.setSuffix(" m")
        self.offset.setToolTip("Height of 16-bit value 0")
        self.scale = QDoubleSpinBox(self)
        self.scale.setRange(1e-3, 1e6)
        self.scale.setDecimals(3)
        self.scale.setValue(DEFAULT_SCALE)
        self.scale.setSuffix(" m")
        self.scale.setToolTip("Metres spanned by the full 16-bit range (value 65535)")
        self.spacing = QDoubleSpinBox(self)
        self.spacing.setRange(1e-3, 1e4)
        self.spacing.setDecimals(3)
        self.spacing.setValue(spacing)
        self.spacing.setSuffix(" m")
        self.spacing.setToolTip("Metres between samples")
        self.columns, self.rows = QSpinBox(self), QSpinBox(self)
        for box, value in ((self.columns, size[0] if size else 1025), (self.rows, size[1] if size else 1025)):
            box.setRange(2, 16384)
            box.setValue(value)
            box.setSuffix(" samples")
        self.columns.setToolTip(f"Samples per row (X); the file must hold columns × rows × "
                                f"{RAW_FORMATS.get(fmt, 2)} bytes")
        self.rows.setToolTip("Rows of samples (Z)")
        shown: set = set()
        if sixteen:
            if fmt == "png16" or not importing:
                form.addRow(self.auto)
                shown.add(self.auto)
            form.addRow("Height at 0", self.offset)
            form.addRow("Height range", self.scale)
            shown |= {self.offset, self.scale}
            self.auto.toggled.connect(self._sync)
        else:
            form.addRow(QLabel("Float heights are stored exactly; no mapping needed.", self))
        if importing and ask_spacing:
            form.addRow("Spacing", self.spacing)
            shown.add(self.spacing)
        if importing and fmt in RAW_FORMATS:
            form.addRow("Columns", self.columns)
            form.addRow("Rows", self.rows)
            shown |= {self.columns, self.rows}
            if size is not None if size_fixed is None else size_fixed:  # into a terrain: the terrain's size
                self.columns.setEnabled(False)
                self.rows.setEnabled(False)
        for widget in (self.auto, self.offset, self.scale, self.spacing, self.columns, self.rows):
            if widget not in shown:  # not asked for this format: kept for values(), never drawn
                widget.hide()
        ok_cancel = QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        buttons = QDialogButtonBox(ok_cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._importing = importing
        self._ask_spacing = ask_spacing
        self._sync()

    def _sync(self) -> None:
        manual = not (self.auto.isChecked() and not self.auto.isHidden())
        self.offset.setEnabled(manual)
        self.scale.setEnabled(manual)

    def values(self) -> dict:
        manual = self.fmt in ("png16", "r16") and not (self.auto.isChecked() and not self.auto.isHidden())
        return {
            "offset": self.offset.value() if manual else None,
            "scale": self.scale.value() if manual else None,
            "spacing": self.spacing.value() if self._importing and self._ask_spacing else None,
            "size": (self.columns.value(), self.rows.value()) if self.fmt in RAW_FORMATS else None,
        }
