"""Picker preview: one node's group, weight and rules; and group/weight maps from three rasters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QImageReader, QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from model.errors import FormatError
from model.grasslib import GrassLibrary, PickRaster, PickResult, pick, pick_raster
from widgets.grasslib_tables import RULE_COLUMNS, fill_rules

MAX_RASTER_SIDE = 4096  # 16 M nodes: the vectorised pick stays within a few hundred MB
MAP_SIDE = 256
RASTERS = ("material", "block4", "block5")
RASTER_TITLES = {"material": "Material", "block4": "Block 4", "block5": "Block 5"}
NONE_RGB, DISABLED_RGB, MISSING_RGB = (0, 0, 0), (70, 70, 70), (150, 0, 60)


def byte_spin(value: int, tooltip: str, name: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(0, 255)
    spin.setDisplayIntegerBase(16)
    spin.setPrefix("0x")
    spin.setValue(value)
    spin.setToolTip(tooltip)
    spin.setObjectName(name)
    return spin


def read_gray_image(path: str | Path) -> np.ndarray:
    """An 8-bit raster from an image: grey images as they are, colour images by their red channel."""
    reader = QImageReader(str(path))
    size = reader.size()
    if size.isValid() and max(size.width(), size.height()) > MAX_RASTER_SIDE:
        raise FormatError(path, None, f"image is {size.width()} x {size.height()}; at most "
                          f"{MAX_RASTER_SIDE} on a side")
    image = reader.read()
    if image.isNull():
        raise FormatError(path, None, f"not a readable image: {reader.errorString()}")
    gray = image.isGrayscale()
    image = image.convertToFormat(QImage.Format.Format_Grayscale8 if gray else QImage.Format.Format_RGB888)
    w, h, bpl = image.width(), image.height(), image.bytesPerLine()
    rows = np.frombuffer(image.constBits(), np.uint8, bpl * h).reshape(h, bpl)
    return rows[:, :w].copy() if gray else rows[:, :w * 3].reshape(h, w, 3)[..., 0].copy()


def group_colors() -> np.ndarray:
    """A distinct, stable colour per group byte (golden-ratio hues), 256 x RGB."""
    return np.array([_hsv((i * 0.618034) % 1.0, 0.65, 0.95) for i in range(256)], np.uint8)


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]
    return int(r * 255), int(g * 255), int(b * 255)


def group_map_rgb(result: PickRaster, group_count: int) -> np.ndarray:
    """Active nodes in their group's colour; no group black; weight 0 grey; absent group dark red."""
    rgb = group_colors()[result.group]
    rgb[result.group == 0xFF] = NONE_RGB
    rgb[(result.group != 0xFF) & (result.weight == 0)] = DISABLED_RGB
    rgb[(result.group != 0xFF) & (result.group >= group_count)] = MISSING_RGB
    return np.ascontiguousarray(rgb)


def to_pixmap(rgb: np.ndarray) -> QPixmap:
    h, w = rgb.shape[:2]
    if rgb.ndim == 2:
        img = QImage(rgb.data, w, h, w, QImage.Format.Format_Grayscale8)
    else:
        img = QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888)
    return QPixmap.fromImage(img.copy())


class PickerPanel(QWidget):
    """Material byte, block-4 and block-5 values → group, weight and rules; rasters → maps."""

    deriveRequested = Signal(int, int)  # group, weight

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library: GrassLibrary | None = None
        self.result: PickResult | None = None
        self.raster_result: PickRaster | None = None
        self.rasters: dict[str, np.ndarray | None] = dict.fromkeys(RASTERS)
        self.material = byte_spin(0, "Material byte: the table maps it to a group", "pick_material")
        self.block4 = byte_spin(0x60, "Block-4 value: weight = value >> 1, value 1 counts as 1, "
                                "weight 0 disables", "pick_block4")
        self.block5 = byte_spin(0xFE, "Block-5 value: overrides the group; 0xFE keeps the material's "
                                "group, 0xFF is no group", "pick_block5")
        form = QFormLayout()
        form.addRow("Material", self.material)
        form.addRow("Block 4", self.block4)
        form.addRow("Block 5", self.block5)
        self.explanation = QLabel(objectName="pick_explanation", wordWrap=True)
        self.explanation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rules = QTableWidget(0, len(RULE_COLUMNS))
        self.rules.setHorizontalHeaderLabels(list(RULE_COLUMNS))
        self.rules.setObjectName("pick_rules")
        self.rules.setToolTip("Rules the picked group reaches; red rows name a missing model")
        self.derive_button = QPushButton("Derived grass for this pick")
        self.derive_button.setToolTip("Show the derived grass types for this group and weight")
        self.derive_button.clicked.connect(self._derive)
        node = QGroupBox("One terrain node")
        nl = QVBoxLayout(node)
        nl.addLayout(form)
        nl.addWidget(self.explanation)
        nl.addWidget(self.rules)
        nl.addWidget(self.derive_button)
        self.rules.verticalHeader().setVisible(False)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(node)
        split.addWidget(self._raster_box())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        for spin in (self.material, self.block4, self.block5):
            spin.valueChanged.connect(self.update_pick)

    def _raster_box(self) -> QGroupBox:
        box = QGroupBox("Rasters (8-bit images; a raster not loaded uses the value above everywhere)")
        grid = QGridLayout(box)
        self.raster_labels: dict[str, QLabel] = {}
        for col, kind in enumerate(RASTERS):
            button = QPushButton(f"Load {RASTER_TITLES[kind]}…")
            button.setToolTip(f"An 8-bit grey image of {RASTER_TITLES[kind].lower()} values "
                              "(colour images: red channel)")
            button.clicked.connect(lambda _=False, k=kind: self._ask_raster(k))
            clear = QPushButton("Clear")
            clear.setToolTip(f"Use the constant {RASTER_TITLES[kind].lower()} value instead")
            clear.clicked.connect(lambda _=False, k=kind: self.set_raster(k, None))
            label = QLabel("constant")
            self.raster_labels[kind] = label
            row = QHBoxLayout()
            row.addWidget(button)
            row.addWidget(clear)
            grid.addLayout(row, 0, col)
            grid.addWidget(label, 1, col)
        self.group_map = QLabel(objectName="pick_group_map", alignment=Qt.AlignmentFlag.AlignCenter)
        self.group_map.setToolTip("Group per node: a colour per group; black no group, grey weight 0, "
                                  "dark red a group the library lacks")
        self.weight_map = QLabel(objectName="pick_weight_map", alignment=Qt.AlignmentFlag.AlignCenter)
        self.weight_map.setToolTip("Weight per node (white = 127)")
        self.raster_summary = QLabel(objectName="pick_raster_summary", wordWrap=True)
        for label in (self.group_map, self.weight_map):
            label.setMinimumSize(MAP_SIDE, MAP_SIDE)
        self.raster_summary.setAlignment(Qt.AlignmentFlag.AlignTop)
        grid.addWidget(QLabel("Group map"), 2, 0)
        grid.addWidget(QLabel("Weight map"), 2, 1)
        grid.addWidget(self.group_map, 3, 0)
        grid.addWidget(self.weight_map, 3, 1)
        grid.addWidget(self.raster_summary, 4, 0, 1, 3)
        grid.setRowStretch(5, 1)
        return box

    # ---- library and single node --------------------------------------------------------
    def set_library(self, lib: GrassLibrary | None) -> None:
        self.library = lib
        self.update_pick()
        self.update_rasters()

    def set_values(self, material: int, block4: int, block5: int) -> None:
        for spin, v in ((self.material, material), (self.block4, block4), (self.block5, block5)):
            spin.blockSignals(True)
            spin.setValue(v)
            spin.blockSignals(False)
        self.update_pick()

    def update_pick(self) -> None:
        lib = self.library
        if lib is None:
            self.result = None
            self.explanation.setText("Open a library to pick.")
            self.rules.setRowCount(0)
            self.derive_button.setEnabled(False)
            return
        self.result = r = pick(lib, self.material.value(), self.block4.value(), self.block5.value())
        self.explanation.setText(r.explanation)
        if r.active:
            fill_rules(self.rules, lib.groups[r.group].rules, lib.model_count, r.rules)
        else:
            self.rules.setRowCount(0)
        self.derive_button.setEnabled(r.active and bool(r.rules))
        if not any(self.rasters[k] is not None for k in RASTERS):
            return
        self.update_rasters()

    def _derive(self) -> None:
        if self.result is not None and self.result.active:
            self.deriveRequested.emit(self.result.group, self.result.weight)

    # ---- rasters ------------------------------------------------------------------------
    def _ask_raster(self, kind: str) -> None:
        path, _ = QFileDialog.getOpenFileName(self, f"Open {RASTER_TITLES[kind]} raster", "",
                                              "Images (*.png *.pgm *.bmp *.tif *.tiff);;All files (*)")
        if path:
            self.load_raster(kind, path)

    def load_raster(self, kind: str, path: str | Path) -> bool:
        """Load one raster from an image; a bad image is reported, the previous raster kept."""
        try:
            self.set_raster(kind, read_gray_image(path))
        except FormatError as e:
            self.raster_summary.setText(f"Could not load {RASTER_TITLES[kind].lower()} raster: {e}")
            return False
        self.raster_labels[kind].setText(f"{Path(path).name}: {self.rasters[kind].shape[1]} x "
                                         f"{self.rasters[kind].shape[0]}")
        return True

    def set_raster(self, kind: str, values: np.ndarray | None) -> None:
        self.rasters[kind] = None if values is None else np.asarray(values, np.uint8)
        if values is None:
            self.raster_labels[kind].setText("constant")
        else:
            self.raster_labels[kind].setText(f"{values.shape[1]} x {values.shape[0]}")
        self.update_rasters()

    def update_rasters(self) -> None:
        loaded = {k: v for k, v in self.rasters.items() if v is not None}
        self.raster_result = None
        if self.library is None or not loaded:
            self.group_map.clear()
            self.weight_map.clear()
            self.raster_summary.setText(
                "Load a material, block-4 or block-5 image (8-bit, one value per terrain node) to see the "
                "group and weight maps; the values at the left stand in for any raster not loaded."
                if self.library else "Open a library first.")
            return
        shapes = {v.shape for v in loaded.values()}
        if len(shapes) > 1:
            self.raster_summary.setText("The rasters differ in size: " + ", ".join(
                f"{RASTER_TITLES[k]} {v.shape[1]} x {v.shape[0]}" for k, v in loaded.items()))
            self.group_map.clear()
            self.weight_map.clear()
            return
        shape = shapes.pop()
        constants = {"material": self.material.value(), "block4": self.block4.value(),
                     "block5": self.block5.value()}
        arrays = [self.rasters[k] if self.rasters[k] is not None else np.full(shape, constants[k], np.uint8)
                  for k in RASTERS]
        self.raster_result = res = pick_raster(self.library, *arrays)
        self.group_map.setPixmap(self._fit(to_pixmap(group_map_rgb(res, len(self.library.groups)))))
        weights = np.ascontiguousarray((res.weight * 2).astype(np.uint8))
        self.weight_map.setPixmap(self._fit(to_pixmap(weights)))
        summary = res.summary()
        nodes = res.group.size
        top = sorted(summary.items(), key=lambda kv: -kv[1])[:12]
        self.raster_summary.setText(
            f"{nodes} nodes: {int(res.active.sum())} reach a group, "
            f"{int((res.group == 0xFF).sum())} no group, "
            f"{int(((res.group != 0xFF) & (res.weight == 0)).sum())} disabled by weight 0\n"
            + "\n".join(f"group {g}: {n} nodes" for g, n in top)
            + ("\n…" if len(summary) > len(top) else ""))

    @staticmethod
    def _fit(pixmap: QPixmap) -> QPixmap:
        side = MAP_SIDE
        mode = Qt.TransformationMode.FastTransformation  # keep node edges crisp
        return pixmap.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio, mode)
