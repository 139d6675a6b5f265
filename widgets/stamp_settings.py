"""The Stamp tool's settings (shown in Terrain Tools while it is active): the stamp (built-in or
from the stamp library folder, with thumbnails), rotation, height, blend mode and spacing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QToolButton,
    QWidget,
)

THUMB = 32
MODE_TIPS = {"add": "Add the stamp to the ground",
             "max": "Keep the higher of the ground and the stamp",
             "min": "Keep the lower of the ground and the stamp",
             "replace": "Replace the ground by the stamp"}
OTHER = "__other__"


def stamp_icon(image: np.ndarray, size: int = THUMB) -> QIcon:
    """A grey preview of a 0..1 stamp image."""
    step = max(1, max(image.shape) // size)
    grey = np.ascontiguousarray((np.clip(image[::step, ::step], 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8))
    h, w = grey.shape
    qimage = QImage(grey.data, w, h, w, QImage.Format.Format_Grayscale8).copy()
    return QIcon(QPixmap.fromImage(qimage).scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                                                  Qt.TransformationMode.SmoothTransformation))


class StampSettings(QGroupBox):
    source_chosen = Signal(str)  # a built-in's name or a file's path
    folder_chosen = Signal(str)
    rotation_edited = Signal(float)
    height_edited = Signal(float)
    mode_edited = Signal(str)
    spacing_edited = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Stamp", parent)
        self.setObjectName("stamp_settings")
        self.pick_file = lambda: QFileDialog.getOpenFileName(
            self, "Stamp Heightmap", "", "Heightmaps (*.png *.npy *.exr *.tif *.tiff *.r32)")[0]
        self.pick_folder = lambda: QFileDialog.getExistingDirectory(self, "Stamp Library Folder")
        self.shape = QComboBox(self)
        self.shape.setObjectName("stamp_shape")
        self.shape.setIconSize(QSize(THUMB, THUMB))
        self.shape.setToolTip("The heightmap stamped: a built-in one, one from the stamp library folder, "
                              "or any heightmap file; its range maps to 0..Height")
        self.shape.activated.connect(self._on_shape)
        self.folder = QToolButton(self)
        self.folder.setObjectName("stamp_folder")
        self.folder.setText("Folder…")
        self.folder.setToolTip("Choose the stamp library folder: its heightmaps are listed here")
        self.folder.clicked.connect(self._on_folder)
        self.rotation = self._spin(-360.0, 360.0, 1, "°",
                                   "Turn the stamp counter-clockwise (seen from above)")
        self.rotation.setWrapping(True)
        self.height = self._spin(-1000.0, 1000.0, 2, " m", "Metres of relief: the stamp's range maps to "
                                 "0..height (negative: a dent)")
        self.mode = QComboBox(self)
        self.mode.setObjectName("stamp_mode")
        for mode, tip in MODE_TIPS.items():
            self.mode.addItem(mode)
            self.mode.setItemData(self.mode.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.mode.setToolTip("How the stamp meets the ground")
        self.spacing = self._spin(0.1, 4.0, 2, "", "Brush radii between the stamps of a drag")
        self.rotation.valueChanged.connect(self.rotation_edited)
        self.height.valueChanged.connect(self.height_edited)
        self.mode.currentTextChanged.connect(self.mode_edited)
        self.spacing.valueChanged.connect(self.spacing_edited)
        shape_row = QHBoxLayout()
        shape_row.addWidget(self.shape, 1)
        shape_row.addWidget(self.folder)
        form = QFormLayout(self)
        form.addRow("Shape", shape_row)
        form.addRow("Rotation", self.rotation)
        form.addRow("Height", self.height)
        form.addRow("Mode", self.mode)
        form.addRow("Spacing", self.spacing)

    def _spin(self, lo: float, hi: float, decimals: int, suffix: str, tip: str) -> QDoubleSpinBox:
        box = QDoubleSpinBox(self)
        box.setRange(lo, hi)
        box.setDecimals(decimals)
        box.setSuffix(suffix)
        box.setToolTip(tip)
        box.setKeyboardTracking(False)
        return box

    def set_values(self, rotation: float, height: float, mode: str, spacing: float) -> None:
        for box, value in ((self.rotation, rotation), (self.height, height), (self.spacing, spacing)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)
        self.mode.blockSignals(True)
        self.mode.setCurrentText(mode)
        self.mode.blockSignals(False)

    def set_stamps(self, builtins: dict[str, np.ndarray], files: list[Path], current: str,
                   thumbnail=None) -> None:
        """List the built-ins and the library's files (`thumbnail(path)`: a 0..1 image or None)."""
        self.shape.blockSignals(True)
        self.shape.clear()
        for name, image in builtins.items():
            self.shape.addItem(stamp_icon(image), name, name)
        for path in files:
            image = thumbnail(path) if thumbnail is not None else None
            icon = stamp_icon(image) if image is not None else QIcon()
            self.shape.addItem(icon, path.stem, str(path))
            self.shape.setItemData(self.shape.count() - 1, str(path), Qt.ItemDataRole.ToolTipRole)
        if current not in builtins and current not in (str(p) for p in files):
            self.shape.addItem(Path(current).name, current)
        self.shape.addItem("Other File…", OTHER)
        index = self.shape.findData(current)
        self.shape.setCurrentIndex(max(index, 0))
        self.shape.blockSignals(False)

    def show_for_tool(self, key: str) -> None:
        self.setVisible(key == "stamp")

    def _on_shape(self, index: int) -> None:
        data = self.shape.itemData(index)
        if data == OTHER:
            path = self.pick_file()
            if path:
                self.source_chosen.emit(path)
            return
        self.source_chosen.emit(str(data))

    def _on_folder(self) -> None:
        folder = self.pick_folder()
        if folder:
            self.folder_chosen.emit(folder)
