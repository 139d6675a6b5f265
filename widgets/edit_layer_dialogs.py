"""Terrain ▸ Erode… and Terrain ▸ Terrace…: the settings of a procedural edit layer.

Each dialog offers what the command line offers (`boscage terrain erode|terrace`) and returns plain
values; the editor runs the work with progress and Cancel and pushes one undo step.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

Box = tuple[float, float, float, float]


def _spin(lo: float, hi: float, value: float, decimals: int = 2, suffix: str = "",
          tip: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(lo, hi)
    box.setDecimals(decimals)
    box.setValue(value)
    if suffix:
        box.setSuffix(suffix)
    box.setToolTip(tip)
    return box


def _int_spin(lo: int, hi: int, value: int, tip: str = "") -> QSpinBox:
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setValue(value)
    box.setToolTip(tip)
    return box


class RegionBox(QGroupBox):
    """Where the operation applies: the whole terrain, a box (metres; the brush's square by default),
    or everywhere weighted by a paint layer."""

    def __init__(self, bounds: Box, brush_box: Box | None, masks: list[str],
                 parent: QWidget | None = None) -> None:
        super().__init__("Region", parent)
        self.bounds, self.brush_box = bounds, brush_box
        self.whole = QRadioButton("Whole terrain", self)
        self.box = QRadioButton("Box", self)
        self.box.setToolTip("A box in metres: by default the square the brush covers where it was last")
        self.mask = QRadioButton("Mask layer", self)
        self.mask.setToolTip("Everywhere, scaled by a paint layer's weights (0: unchanged, full weight: all)")
        self.mask.setEnabled(bool(masks))
        self.group = QButtonGroup(self)
        for k, button in enumerate((self.whole, self.box, self.mask)):
            self.group.addButton(button, k)
        self.whole.setChecked(True)
        x0, z0, x1, z1 = bounds
        lo, hi = min(x0, z0) - 1e6, max(x1, z1) + 1e6
        start = brush_box or bounds
        self.corners = [_spin(lo, hi, v, 2, " m") for v in start]
        edges = ("west edge (x)", "north edge (z)", "east edge (x)", "south edge (z)")
        for spin, tip in zip(self.corners, edges, strict=True):
            spin.setToolTip(f"The box's {tip}, metres")
        self.use_brush = QPushButton("From Brush", self)
        self.use_brush.setToolTip("The square the brush covers where it was last on the ground")
        self.use_brush.setEnabled(brush_box is not None)
        self.use_brush.clicked.connect(lambda: self.set_box(self.brush_box))
        self.mask_name = QComboBox(self)
        self.mask_name.addItems(masks)
        grid = QGridLayout()
        grid.addWidget(QLabel("X0, Z0"), 0, 0)
        grid.addWidget(self.corners[0], 0, 1)
        grid.addWidget(self.corners[1], 0, 2)
        grid.addWidget(QLabel("X1, Z1"), 1, 0)
        grid.addWidget(self.corners[2], 1, 1)
        grid.addWidget(self.corners[3], 1, 2)
        grid.addWidget(self.use_brush, 2, 1, 1, 2)
        self.box_fields = QWidget(self)
        self.box_fields.setLayout(grid)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        for button in (self.whole, self.box, self.mask):
            row.addWidget(button)
        layout.addLayout(row)
        layout.addWidget(self.box_fields)
        layout.addWidget(self.mask_name)
        self.group.idToggled.connect(lambda *_: self._update())
        self._update()

    def _update(self) -> None:
        self.box_fields.setEnabled(self.box.isChecked())
        self.mask_name.setEnabled(self.mask.isChecked())

    def set_box(self, box: Box | None) -> None:
        if box is None:
            return
        for spin, value in zip(self.corners, box, strict=True):
            spin.setValue(value)
        self.box.setChecked(True)

    def load(self, params: dict) -> None:
        """The region a layer's parameters name (`region` box, `mask` layer), else the whole terrain."""
        region, mask = params.get("region"), params.get("mask")
        if isinstance(region, (list, tuple)) and len(region) == 4:
            self.set_box(tuple(float(v) for v in region))
        elif isinstance(mask, str) and self.mask_name.findText(mask) >= 0:
            self.mask_name.setCurrentText(mask)
            self.mask.setChecked(True)
        else:
            self.whole.setChecked(True)

    def values(self) -> dict:
        """{'region': (x0, z0, x1, z1) or None, 'mask': a paint layer's name or None}."""
        region = tuple(s.value() for s in self.corners) if self.box.isChecked() else None
        if region is not None:  # corners given either way round
            region = (min(region[0], region[2]), min(region[1], region[3]),
                      max(region[0], region[2]), max(region[1], region[3]))
        mask = self.mask_name.currentText() if self.mask.isChecked() and self.mask_name.count() else None
        return {"region": region, "mask": mask}


def _buttons(dialog: QDialog, ok_text: str) -> QDialogButtonBox:
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
                               dialog)
    buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ok_text)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


class ErodeDialog(QDialog):
    """Thermal (talus) or hydraulic (droplet) erosion into an edit layer."""

    def __init__(self, bounds: Box, brush_box: Box | None, masks: list[str], parent: QWidget | None = None,
                 layer_names: list[str] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Erode Terrain")
        self.setObjectName("erode_dialog")
        self.method = QComboBox(self)
        self.method.addItems(["Thermal", "Hydraulic"])
        self.method.setToolTip("Thermal: material slides until no slope is steeper than the talus angle.\n"
                               "Hydraulic: seeded rain droplets carve channels and deposit sediment.")
        self.layer = QLineEdit("erode-thermal", self)
        self.layer.setToolTip("The edit layer to add; an erosion layer of that name is recomputed over "
                              "the heights beneath it")
        self._named = False
        self.layer.textEdited.connect(lambda _: setattr(self, "_named", True))
        if layer_names:
            self.layer.setToolTip(self.layer.toolTip() + f" (erosion layers now: {', '.join(layer_names)})")
        thermal = QWidget(self)
        tf = QFormLayout(thermal)
        self.thermal_iterations = _int_spin(1, 10_000, 50, "Relaxation steps (more: slopes settle further)")
        self.talus = _spin(1.0, 89.0, 35.0, 1, "°", "The steepest stable slope")
        tf.addRow("Iterations", self.thermal_iterations)
        tf.addRow("Talus angle", self.talus)
        hydraulic = QWidget(self)
        hf = QFormLayout(hydraulic)
        self.hydraulic_iterations = _int_spin(1, 1000, 1, "Rounds of rain")
        self.seed = _int_spin(-2**31, 2**31 - 1, 0, "The droplets' seed: the same seed gives the same bytes")
        self.rain = _spin(0.01, 64.0, 1.0, 2, "", "Droplets per sample per round")
        hf.addRow("Iterations", self.hydraulic_iterations)
        hf.addRow("Seed", self.seed)
        hf.addRow("Rain", self.rain)
        self.outputs: dict[str, QCheckBox] = {}
        row = QHBoxLayout()
        for name, tip in (("flow", "where the water ran"), ("deposition", "where sediment settled"),
                          ("wear", "where the ground was worn away")):
            box = QCheckBox(name.capitalize(), hydraulic)
            box.setToolTip(f"Also paint {tip} into the paint layer 'erosion_{name}' (to drive foliage "
                           "and textures)")
            self.outputs[name] = box
            row.addWidget(box)
        hf.addRow("Outputs", row)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(thermal)
        self.pages.addWidget(hydraulic)
        self.method.currentIndexChanged.connect(self._on_method)
        self.region = RegionBox(bounds, brush_box, masks, self)
        form = QFormLayout()
        form.addRow("Method", self.method)
        form.addRow("Edit layer", self.layer)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.pages)
        layout.addWidget(self.region)
        layout.addWidget(_buttons(self, "Erode"))

    def load(self, name: str, params: dict) -> None:
        """Start from an erosion layer's settings (to recompute it, or try a variation)."""
        hydraulic = params.get("method") == "hydraulic"
        self.method.setCurrentIndex(1 if hydraulic else 0)
        self.layer.setText(name)
        self._named = True
        if hydraulic:
            self.hydraulic_iterations.setValue(int(params.get("iterations", 1)))
            self.seed.setValue(int(params.get("seed", 0)))
            self.rain.setValue(float(params.get("rain", 1.0)))
        else:
            self.thermal_iterations.setValue(int(params.get("iterations", 50)))
            self.talus.setValue(float(params.get("talus", 35.0)))
        self.region.load(params)

    def _on_method(self, index: int) -> None:
        self.pages.setCurrentIndex(index)
        if not self._named:
            self.layer.setText("erode-thermal" if index == 0 else "erode-hydraulic")

    def values(self) -> dict:
        thermal = self.method.currentIndex() == 0
        out = {"method": "thermal" if thermal else "hydraulic", "layer": self.layer.text().strip()}
        if thermal:
            out |= {"iterations": self.thermal_iterations.value(), "talus": self.talus.value()}
        else:
            out |= {"iterations": self.hydraulic_iterations.value(), "seed": self.seed.value(),
                    "rain": self.rain.value(),
                    "outputs": [name for name, box in self.outputs.items() if box.isChecked()]}
        return out | self.region.values()


class TerraceDialog(QDialog):
    """Cut the terrain into terraces in an edit layer."""

    def __init__(self, bounds: Box, brush_box: Box | None, masks: list[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Terrace Terrain")
        self.setObjectName("terrace_dialog")
        self.layer = QLineEdit("terrace", self)
        self.layer.setToolTip("The edit layer to add; a terrace layer of that name is recomputed")
        self.step = _spin(0.01, 10_000.0, 5.0, 2, " m", "Metres between terraces")
        self.sharpness = _spin(0.0, 1.0, 0.7, 2, "",
                               "0: unchanged, 1: hard steps (the flat share of each step)")
        self.sharpness.setSingleStep(0.05)
        self.region = RegionBox(bounds, brush_box, masks, self)
        form = QFormLayout()
        form.addRow("Edit layer", self.layer)
        form.addRow("Step", self.step)
        form.addRow("Sharpness", self.sharpness)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.region)
        layout.addWidget(_buttons(self, "Terrace"))

    def load(self, name: str, params: dict) -> None:
        """Start from a terrace layer's settings."""
        self.layer.setText(name)
        self.step.setValue(float(params.get("step", 5.0)))
        self.sharpness.setValue(float(params.get("sharpness", 0.7)))
        self.region.load(params)

    def values(self) -> dict:
        return {"layer": self.layer.text().strip(), "step": self.step.value(),
                "sharpness": self.sharpness.value()} | self.region.values()
