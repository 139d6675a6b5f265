"""Terrain tool settings: tool buttons, the shared brush panel, Raise/Noise amount and the noise seed."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.brush import Brush
from widgets.brush_panel import BrushPanel
from widgets.hint_label import hint_label


class TerrainToolPanel(QWidget):
    """Edits a Brush; `brush_edited` carries every change. Buttons show the given tool actions."""

    brush_edited = Signal(object)
    amount_edited = Signal(float)
    seed_edited = Signal(int)
    road_width_edited = Signal(float)  # once an edit of the Road width is finished
    road_kind_edited = Signal(str)  # "road" or "river"
    road_depth_edited = Signal(float)  # once an edit of the river's depth is finished

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
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            grid.addWidget(button, i // 2, i % 2)  # three a row would not fit a 240 px column

        # The brush is the one every tool shares: the same panel the foliage tools show.
        self.brush_panel = BrushPanel(self._brush, self)
        self.brush_panel.brush_edited.connect(self._edited)
        self.radius, self.strength = self.brush_panel.radius, self.brush_panel.strength
        self.falloff, self.curve = self.brush_panel.falloff, self.brush_panel.curve
        self.amount = QDoubleSpinBox(self)
        self.amount.setRange(0.05, 20.0)
        self.amount.setValue(1.0)
        self.amount.setSingleStep(0.25)
        self.amount.setSuffix(" ×")
        self.amount.setToolTip("Height change of Raise and Noise, as a multiple of the default")
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(1)
        self.seed.setToolTip("Noise seed: the same seed lays the same bumps")

        self.layer = QLabel(self)
        self.layer.setObjectName("terrain_paint_layer")
        self.layer.setToolTip("The layer Paint Layer and Erase Layer work on: pick it in the Layers panel")
        self.set_layer(None)

        self.road_width = QDoubleSpinBox(self)
        self.road_width.setObjectName("terrain_road_width")
        self.road_width.setRange(0.5, 200.0)
        self.road_width.setValue(8.0)
        self.road_width.setSingleStep(0.5)
        self.road_width.setSuffix(" m")
        self.road_width.setKeyboardTracking(False)  # one undo step per finished edit, not per digit
        self.road_width.setToolTip("Road tool: the width of the selected point (one undo step), and of "
                                   "the points added next")

        # kind and depth share a row: the Road tool's settings take no more height than the sculpt ones
        self.road_kind = QComboBox(self)
        self.road_kind.setObjectName("terrain_road_kind")
        self.road_kind.addItem("Road", "road")
        self.road_kind.addItem("River", "river")
        self.road_kind.setToolTip("Road tool: a road levels the ground along its path (its grade limited); a "
                                  "river carves a bed below the ground. Applies to the spline layer being "
                                  "edited (one undo step) and to the next one laid")
        self.road_depth = QDoubleSpinBox(self)
        self.road_depth.setObjectName("terrain_road_depth")
        self.road_depth.setRange(0.0, 1000.0)
        self.road_depth.setValue(2.0)
        self.road_depth.setSingleStep(0.5)
        self.road_depth.setSuffix(" m")
        self.road_depth.setDecimals(1)
        self.road_depth.setKeyboardTracking(False)
        # it gives way to its minimum: a spin box's wide default would push the column past 240 px
        self.road_depth.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.road_depth.setToolTip("River: metres of bed below the water line (one undo step)")
        self.road_shape = QWidget(self)
        shape = QHBoxLayout(self.road_shape)
        shape.setContentsMargins(0, 0, 0, 0)
        shape.addWidget(self.road_kind)
        shape.addWidget(self.road_depth, 1)
        self.show_road_shape("road", 2.0)

        form = QFormLayout()
        form.addRow("Paints layer", self.layer)
        form.addRow("Amount", self.amount)
        form.addRow("Noise seed", self.seed)
        form.addRow("Road width", self.road_width)
        form.addRow("Kind", self.road_shape)
        self.form = form
        self.set_tool("")
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(self.brush_panel)
        layout.addLayout(form)
        self.hint = hint_label("Left drag: apply · Ctrl: lower / erase · [ ]: radius · Shift+[ ]: strength",
                               self)
        layout.addWidget(self.hint)
        layout.addStretch(1)
        self.amount.valueChanged.connect(self.amount_edited.emit)
        self.seed.valueChanged.connect(self.seed_edited.emit)
        self.road_width.valueChanged.connect(self.road_width_edited.emit)
        self.road_kind.currentIndexChanged.connect(self._kind_edited)
        self.road_depth.valueChanged.connect(self.road_depth_edited.emit)

    def set_tool(self, key: str) -> None:
        """Show the settings of the active tool: the Road tool's width, or the sculpt amount and
        seed (a column of 240 px has room for one set, not both)."""
        road = key == "spline"
        self.form.setRowVisible(self.road_width, road)
        self.form.setRowVisible(self.road_shape, road)
        self.form.setRowVisible(self.amount, not road)
        self.form.setRowVisible(self.seed, not road)

    def show_road_width(self, width: float) -> None:
        """Show the selected road point's width without emitting `road_width_edited`."""
        self.road_width.blockSignals(True)
        self.road_width.setValue(width)
        self.road_width.blockSignals(False)

    def show_road_shape(self, kind: str, depth: float) -> None:
        """Show the edited spline's kind and depth without emitting an edit."""
        for widget in (self.road_kind, self.road_depth):
            widget.blockSignals(True)
        self.road_kind.setCurrentIndex(max(0, self.road_kind.findData(kind)))
        self.road_depth.setValue(depth)
        self.road_depth.setEnabled(kind == "river")  # a road has no bed
        for widget in (self.road_kind, self.road_depth):
            widget.blockSignals(False)

    def _kind_edited(self, _index: int) -> None:
        kind = self.road_kind.currentData()
        self.road_depth.setEnabled(kind == "river")
        self.road_kind_edited.emit(kind)

    def set_layer(self, name: str | None) -> None:
        """Show which layer the paint tools work on."""
        self.layer.setText(f"<b>{html.escape(name)}</b>" if name else "none: add one in the Layers panel")
        self.layer.setEnabled(bool(name))

    def brush(self) -> Brush:
        return self._brush

    def set_brush(self, brush: Brush) -> None:
        """Show `brush` without emitting `brush_edited`."""
        self._brush = brush
        self.brush_panel.set_brush(brush)

    def _edited(self, brush: Brush) -> None:
        if brush != self._brush:
            self._brush = brush
            self.brush_edited.emit(brush)
