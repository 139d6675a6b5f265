"""The Layers panel: the terrain's paint layers with swatch and coverage, and buttons to edit them.

The panel edits nothing itself: it asks for names and colours and emits a request; the editor
turns requests into undoable commands. It follows the terrain's layer events.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.terrain import Terrain

COVERAGE_DELAY_MS = 250  # coverage sums the whole layer: recount once a stroke settles


def swatch(color: tuple[int, int, int], size: int = 14) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(*color))
    return QIcon(pixmap)


class LayersPanel(QWidget):
    """List of layers (top = first) with Add, Rename, Colour, Up, Down, Delete, Import and Export."""

    current_changed = Signal(str)  # name of the selected layer, "" for none
    add_requested = Signal(str, tuple)  # name, (r, g, b)
    rename_requested = Signal(str, str)  # old, new
    recolour_requested = Signal(str, tuple)
    move_requested = Signal(str, int)  # name, new index
    delete_requested = Signal(str)
    import_requested = Signal(str)  # layer name: load its weights from a PNG
    export_requested = Signal(str)  # layer name: save its weights as a PNG
    blend_requested = Signal(str, bool)  # layer name, weight-blended

    def __init__(self, terrain: Terrain | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("layers_panel")
        self.terrain: Terrain | None = None
        self.list = QListWidget(self)
        self.list.setObjectName("layers_list")
        self.list.setIconSize(QSize(14, 14))
        self.list.setToolTip("The terrain's paint layers; the selected one is what Paint Layer paints. "
                             "Double-click to rename.")
        self.list.currentRowChanged.connect(self._on_row_changed)
        self.list.itemDoubleClicked.connect(lambda item: self.ask_rename())
        self.list.installEventFilter(self)  # F2 renames, as in a file manager
        self.empty = QLabel("No paint layers yet. <b>Add</b> one, then paint it onto the terrain with "
                            "Terrain ▸ Paint Layer (L).", self)
        self.empty.setObjectName("layers_empty")
        self.empty.setWordWrap(True)
        self.empty.setEnabled(False)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.buttons: dict[str, QToolButton] = {}
        row1, row2 = QHBoxLayout(), QHBoxLayout()
        for row in (row1, row2):
            row.setSpacing(3)  # four buttons a row within the 240 px column
        for key, text, tip, slot, row in (
            ("add", "Add", "Add a new empty layer", self.ask_add, row1),
            ("rename", "Rename", "Rename the selected layer (foliage types can follow it) — F2",
             self.ask_rename, row1),
            ("colour", "Colour", "Change the selected layer's display colour", self.ask_colour, row1),
            ("delete", "Delete", "Delete the selected layer (undoable)", self.ask_delete, row1),
            ("up", "Up", "Move the selected layer up", lambda: self.request_move(-1), row2),
            ("down", "Down", "Move the selected layer down", lambda: self.request_move(1), row2),
            ("import", "Import…", "Load the selected layer's weights from an 8-bit PNG",
             lambda: self._emit_for_current(self.import_requested), row2),
            ("export", "Export…", "Save the selected layer's weights as an 8-bit PNG",
             lambda: self._emit_for_current(self.export_requested), row2),
        ):
            button = QToolButton(self)
            button.setObjectName(f"layers_{key}")
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(lambda checked=False, s=slot: s())
            row.addWidget(button)
            self.buttons[key] = button
        row1.addStretch(1)
        row2.addStretch(1)
        self.blend = QCheckBox("Weight-blended", self)
        self.blend.setObjectName("layers_weight_blend")
        self.blend.setToolTip("On: painting this layer takes weight from the other weight-blended layers, "
                              "so their weights add up to at most 100 %.\nOff: it is painted on its own, "
                              "over the others (a non-weight-blended layer, as in Unreal).")
        self.blend.clicked.connect(self._on_blend_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.blend)
        layout.addLayout(row1)
        layout.addLayout(row2)
        layout.addWidget(self.status)
        self._coverage_timer = QTimer(self)
        self._coverage_timer.setSingleShot(True)
        self._coverage_timer.setInterval(COVERAGE_DELAY_MS)
        self._coverage_timer.timeout.connect(self.refresh)
        self.set_terrain(terrain)

    def eventFilter(self, watched, event) -> bool:
        if (watched is self.list and event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_F2
                and not event.modifiers()):
            self.ask_rename()
            return True
        return super().eventFilter(watched, event)

    # ---- model ------------------------------------------------------------------------
    def set_terrain(self, terrain: Terrain | None) -> None:
        """Follow `terrain` (unsubscribing from the previous one)."""
        if self.terrain is not None:
            self.terrain.layers_changed.disconnect(self.refresh)
            self.terrain.layer_weights_changed.disconnect(self._on_weights_changed)
        self.terrain = terrain
        if terrain is not None:
            terrain.layers_changed.connect(self.refresh)
            terrain.layer_weights_changed.connect(self._on_weights_changed)
        self.refresh()

    def closeEvent(self, event) -> None:
        self.set_terrain(None)
        super().closeEvent(event)

    def _on_weights_changed(self, *_args) -> None:
        self._coverage_timer.start()

    def layer_names(self) -> list[str]:
        return [layer.name for layer in self.terrain.layers] if self.terrain is not None else []

    def current_name(self) -> str | None:
        names = self.layer_names()
        row = self.list.currentRow()
        return names[row] if 0 <= row < len(names) else None

    def select(self, name: str) -> None:
        names = self.layer_names()
        if name in names:
            self.list.setCurrentRow(names.index(name))

    def refresh(self) -> None:
        """Rebuild the list from the terrain, keeping the selection by name."""
        keep = self.current_name()
        self.list.blockSignals(True)
        self.list.clear()
        if self.terrain is not None:
            cells = max(1, self.terrain.rows * self.terrain.columns)
            for layer in self.terrain.layers:
                coverage = float(layer.weight_sum()) / (255.0 * cells)  # per tile where paged
                mark = "" if layer.weight_blend else "   (not blended)"
                item = QListWidgetItem(swatch(layer.color), f"{layer.name}   {coverage * 100:.1f} %{mark}")
                item.setToolTip(f"{layer.name}: colour #{bytes(layer.color).hex()}, "
                                f"painted over {coverage * 100:.1f} % of the terrain"
                                + ("" if layer.weight_blend else "; painted without taking weight from "
                                   "the other layers"))
                self.list.addItem(item)
        names = self.layer_names()
        self.empty.setVisible(self.terrain is not None and not names)
        row = names.index(keep) if keep in names else (0 if names else -1)
        self.list.setCurrentRow(row)
        self.list.blockSignals(False)
        self._update_buttons()
        self.current_changed.emit(self.current_name() or "")

    def _on_row_changed(self, row: int) -> None:
        self._update_buttons()
        self.current_changed.emit(self.current_name() or "")

    def _update_buttons(self) -> None:
        row, count = self.list.currentRow(), self.list.count()
        selected = 0 <= row < count
        for key in ("rename", "colour", "delete", "import", "export"):
            self.buttons[key].setEnabled(selected)
        self.buttons["up"].setEnabled(selected and row > 0)
        self.buttons["down"].setEnabled(selected and row < count - 1)
        self.buttons["add"].setEnabled(self.terrain is not None)
        name = self.current_name()
        layer = self.terrain.layer(name) if name is not None else None
        self.blend.setEnabled(layer is not None)
        self.blend.setChecked(layer is None or layer.weight_blend)

    def _on_blend_clicked(self, checked: bool) -> None:
        name = self.current_name()
        if name is not None:
            self.blend_requested.emit(name, bool(checked))
            self._update_buttons()  # a refused request leaves the box as the layer is

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    # ---- requests ---------------------------------------------------------------------
    def _emit_for_current(self, signal) -> None:
        name = self.current_name()
        if name is not None:
            signal.emit(name)

    def ask_add(self) -> None:
        base, n = "layer", 2
        taken = set(self.layer_names())
        name = base
        while name in taken:
            name, n = f"{base} {n}", n + 1
        name, ok = QInputDialog.getText(self, "Add Layer", "Name of the new layer:", text=name)
        if ok and name.strip():
            hue = (len(taken) * 67) % 360
            color = QColor.fromHsv(hue, 140, 200)
            self.add_requested.emit(name.strip(), (color.red(), color.green(), color.blue()))

    def ask_rename(self) -> None:
        old = self.current_name()
        if old is None:
            return
        new, ok = QInputDialog.getText(self, "Rename Layer", f"New name for '{old}':", text=old)
        if ok and new.strip() and new.strip() != old:
            self.rename_requested.emit(old, new.strip())

    def ask_colour(self) -> None:
        name = self.current_name()
        if name is None:
            return
        layer = self.terrain.layer(name)
        color = QColorDialog.getColor(QColor(*layer.color), self, f"Colour of '{name}'")
        if color.isValid():
            self.recolour_requested.emit(name, (color.red(), color.green(), color.blue()))

    def ask_delete(self) -> None:
        self._emit_for_current(self.delete_requested)

    def request_move(self, delta: int) -> None:
        name = self.current_name()
        if name is None:
            return
        to = self.list.currentRow() + delta
        if 0 <= to < self.list.count():
            self.move_requested.emit(name, to)
