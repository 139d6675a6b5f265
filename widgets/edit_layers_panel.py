"""The Terrain Layers panel: the terrain's non-destructive edit layers over its base heights.

Top of the list is the top of the stack; the base is the last row. The selected row is where the
sculpt brushes paint. The panel edits nothing itself: it emits requests that the editor turns into
undoable commands, and it follows the stack's `changed` event.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.edit_layers import EditLayer, EditStack
from model.terrain import Terrain
from widgets.rename_question import ask_new_name

NAME_ROLE = Qt.ItemDataRole.UserRole  # the layer's name; None on the base row
BASE_LABEL = "Base heights"
# kind → (letter, colour, what it is): the row's icon and tooltip
KIND_LOOK = {
    "base": ("B", (120, 120, 120), "the sculpted and imported heights beneath every edit layer"),
    "sculpt": ("S", (214, 130, 40), "sculpt strokes painted into this layer"),
    "stamp": ("P", (150, 90, 200), "heightmap stamps"),
    "erosion": ("E", (150, 100, 60), "thermal or hydraulic erosion"),
    "terrace": ("T", (70, 150, 80), "terraces"),
    "spline": ("L", (60, 120, 210), "spline-shaped ground"),
}


def kind_icon(kind: str, size: int = 16) -> QIcon:
    """A rounded square of the kind's colour with its letter."""
    letter, colour, _ = KIND_LOOK.get(kind, ("?", (128, 128, 128), ""))
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(*colour))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawRoundedRect(0, 0, size, size, 3, 3)
    font = QFont()
    font.setPixelSize(int(size * 0.7))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor(255, 255, 255))
    painter.drawText(pixmap.rect(), Qt.AlignmentFlag.AlignCenter, letter)
    painter.end()
    return QIcon(pixmap)


class EditLayersPanel(QWidget):
    """Edit layers (top first) and the base; eye checkboxes, opacity, and the buttons to edit them."""

    selected_changed = Signal(str)  # the sculpt target: a layer's name, "" for the base
    add_requested = Signal()
    rename_requested = Signal(str, str)  # old, new
    move_requested = Signal(str, int)  # name, new index in the stack (0: just above the base)
    visibility_requested = Signal(str, bool)
    opacity_requested = Signal(str, float, int)  # name, 0..1, drag id (one id: one undo step)
    delete_requested = Signal(str)
    collapse_requested = Signal(str)

    def __init__(self, terrain: Terrain | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("edit_layers_panel")
        self.terrain: Terrain | None = None
        self.stack: EditStack | None = None
        self.get_text = QInputDialog.getText  # the rename question (tests replace it)
        self._filling = False
        self._shown: tuple = ()
        self._drag_id = 0
        self._slider_drag = -1

        self.list = QListWidget(self)
        self.list.setObjectName("edit_layers_list")
        self.list.setIconSize(QSize(16, 16))
        self.list.setToolTip("Edit layers over the base heights, top of the stack first. The selected row "
                             "is where sculpt brushes paint.\nThe box shows or hides a layer; drag a row "
                             "to reorder; double-click or F2 renames.")
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.list.currentRowChanged.connect(self._on_row_changed)
        self.list.itemChanged.connect(self._on_item_changed)
        self.list.itemDoubleClicked.connect(lambda item: self.ask_rename())
        self.list.model().rowsMoved.connect(self._on_rows_moved)
        self.list.installEventFilter(self)

        self.opacity_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.opacity_slider.setObjectName("edit_layers_opacity_slider")
        self.opacity_slider.setRange(0, 100)
        self.opacity_slider.setToolTip("How much of the selected layer's deltas is added (a drag is one "
                                       "undo step)")
        self.opacity_spin = QSpinBox(self)
        self.opacity_spin.setObjectName("edit_layers_opacity")
        self.opacity_spin.setRange(0, 100)
        self.opacity_spin.setSuffix(" %")
        self.opacity_spin.setKeyboardTracking(False)  # one step per value typed, not per key
        self.opacity_spin.setToolTip("Opacity of the selected layer")
        self.opacity_slider.sliderPressed.connect(self._on_slider_pressed)
        self.opacity_slider.sliderReleased.connect(self._on_slider_released)
        self.opacity_slider.valueChanged.connect(self._on_slider_value)
        self.opacity_spin.valueChanged.connect(self._on_spin_value)
        opacity_row = QHBoxLayout()
        label = QLabel("Opacity", self)
        opacity_row.addWidget(label)
        opacity_row.addWidget(self.opacity_slider, 1)
        opacity_row.addWidget(self.opacity_spin)

        self.buttons: dict[str, QToolButton] = {}
        row1, row2 = QHBoxLayout(), QHBoxLayout()
        for key, text, tip, slot, row in (
            ("add", "Add", "Add an empty sculpt layer on top and sculpt into it", self.add_requested.emit,
             row1),
            ("rename", "Rename", "Rename the selected layer — F2", self.ask_rename, row1),
            ("delete", "Delete", "Delete the selected layer (undoable) — Del", self.request_delete, row1),
            ("up", "Up", "Move the selected layer up the stack", lambda: self.request_move(1), row2),
            ("down", "Down", "Move the selected layer down the stack", lambda: self.request_move(-1), row2),
            ("collapse", "Collapse", "Collapse into base: add the selected layer's deltas (times its "
             "opacity, if shown) to the base heights and remove the layer (undoable)",
             self.request_collapse, row2),
        ):
            button = QToolButton(self)
            button.setObjectName(f"edit_layers_{key}")
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(lambda checked=False, s=slot: s())
            row.addWidget(button)
            self.buttons[key] = button
        row1.addStretch(1)
        row2.addStretch(1)
        self.status = QLabel(self)
        self.status.setObjectName("edit_layers_status")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.list, 1)
        layout.addLayout(opacity_row)
        layout.addLayout(row1)
        layout.addLayout(row2)
        layout.addWidget(self.status)
        self.set_terrain(terrain)

    # ---- model ------------------------------------------------------------------------
    def set_terrain(self, terrain: Terrain | None) -> None:
        """Follow `terrain` and its edit stack (unsubscribing from the previous ones)."""
        self.terrain = terrain
        self.follow()

    def follow(self) -> None:
        """Subscribe to the terrain's edit stack (made on the first edit layer) and show it."""
        stack = self.terrain.edits if self.terrain is not None else None
        if stack is not self.stack:
            if self.stack is not None:
                self.stack.changed.disconnect(self.refresh)
            self.stack = stack
            if stack is not None:
                stack.changed.connect(self.refresh)
        self.refresh()

    def show_scene(self, scene) -> None:
        """Follow a newly opened scene's terrain."""
        self.set_terrain(scene.terrain)

    def history_moved(self, _index: int = 0) -> None:
        """An undo, redo or new step: the stack may be new, and an undo may restore a selection.
        The rows are rebuilt only when what they show differs (a stroke's stamps each move it)."""
        stack = self.terrain.edits if self.terrain is not None else None
        if stack is not self.stack or self._shown != self._signature():
            self.follow()

    def closeEvent(self, event) -> None:
        self.set_terrain(None)
        super().closeEvent(event)

    def layers(self) -> list[EditLayer]:
        return list(self.stack.layers) if self.stack is not None else []

    def row_names(self) -> list[str | None]:
        """The rows' layer names, top first, None for the base (the last row)."""
        return [la.name for la in reversed(self.layers())] + [None]

    def current_name(self) -> str | None:
        """The selected layer's name; None for the base (or no selection)."""
        item = self.list.currentItem()
        return item.data(NAME_ROLE) if item is not None else None

    def current_layer(self) -> EditLayer | None:
        name = self.current_name()
        return self.stack.get(name) if self.stack is not None and name is not None else None

    def select(self, name: str | None) -> None:
        names = self.row_names()
        if name in names:
            self.list.setCurrentRow(names.index(name))

    def refresh(self) -> None:
        """Rebuild the rows from the stack, keeping the selection: the stack's sculpt target."""
        keep = self.stack.selected if self.stack is not None else None
        self._filling = True
        self.list.clear()
        for layer in reversed(self.layers()):
            item = QListWidgetItem(kind_icon(layer.kind), self._label(layer))
            item.setData(NAME_ROLE, layer.name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                          | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsDragEnabled)
            item.setCheckState(Qt.CheckState.Checked if layer.visible else Qt.CheckState.Unchecked)
            item.setToolTip(self._tooltip(layer))
            self.list.addItem(item)
        base = QListWidgetItem(kind_icon("base"), BASE_LABEL)
        base.setData(NAME_ROLE, None)
        base.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)  # stays at the bottom
        base.setToolTip(f"Base: {KIND_LOOK['base'][2]}. Selected, sculpt brushes change it directly.")
        self.list.addItem(base)
        names = self.row_names()
        self.list.setCurrentRow(names.index(keep) if keep in names else len(names) - 1)
        self._filling = False
        self._shown = self._signature()
        self._update_controls()

    def _signature(self) -> tuple:
        """What the rows show: each layer's name, kind, visibility, opacity and tiles; the selection."""
        if self.stack is None:
            return ()
        return (self.stack.selected, tuple((la.name, la.kind, la.visible, la.opacity, len(la.held_tiles()))
                                           for la in self.stack.layers))

    @staticmethod
    def _label(layer: EditLayer) -> str:
        extra = [layer.kind]
        if layer.opacity != 1.0:
            extra.append(f"{layer.opacity * 100:.0f} %")
        if not layer.visible:
            extra.append("hidden")
        return f"{layer.name}   ({', '.join(extra)})"

    @staticmethod
    def _tooltip(layer: EditLayer) -> str:
        text = f"{layer.name}: {KIND_LOOK.get(layer.kind, ('', '', layer.kind))[2]}"
        text += f"; {len(layer.held_tiles())} tile(s) of deltas; opacity {layer.opacity * 100:.0f} %"
        if layer.params:
            shown = ", ".join(f"{k} {v}" for k, v in layer.params.items() if not isinstance(v, (list, dict)))
            if shown:
                text += f"\n{shown}"
        return text

    def _update_controls(self) -> None:
        layer = self.current_layer()
        row, count = self.list.currentRow(), self.list.count()
        for key in ("rename", "delete", "collapse"):
            self.buttons[key].setEnabled(layer is not None)
        self.buttons["up"].setEnabled(layer is not None and row > 0)
        self.buttons["down"].setEnabled(layer is not None and row < count - 2)
        self.buttons["add"].setEnabled(self.terrain is not None)
        for widget in (self.opacity_slider, self.opacity_spin):
            widget.blockSignals(True)
            widget.setValue(round((layer.opacity if layer is not None else 1.0) * 100))
            widget.setEnabled(layer is not None)
            widget.blockSignals(False)

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    # ---- rows -------------------------------------------------------------------------
    def _on_row_changed(self, row: int) -> None:
        if self._filling:
            return
        self._update_controls()
        self.selected_changed.emit(self.current_name() or "")

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        name = item.data(NAME_ROLE)
        if self._filling or name is None or self.stack is None:
            return
        layer = self.stack.get(name)
        visible = item.checkState() == Qt.CheckState.Checked
        if layer is not None and layer.visible != visible:
            self.visibility_requested.emit(name, visible)

    def _on_rows_moved(self, *_args) -> None:
        """A row dragged to another place: ask for that move once the drop is over."""
        if self._filling:
            return
        order = [self.list.item(k).data(NAME_ROLE) for k in range(self.list.count())]
        moved = self.current_name()
        QTimer.singleShot(0, lambda: self._request_order(order, moved))

    def _request_order(self, order: list[str | None], moved: str | None) -> None:
        layers = [n for n in order if n is not None]
        if moved is None or moved not in layers or self.stack is None:
            self.refresh()
            return
        to = len(layers) - 1 - layers.index(moved)  # rows are top first, the stack bottom first
        if self.stack.get(moved) is not None and to != self.stack.index(moved):
            self.move_requested.emit(moved, to)
        self.refresh()  # the rows as the stack is (a refused move puts the row back)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.list and event.type() == QEvent.Type.KeyPress and not event.modifiers():
            if event.key() == Qt.Key.Key_F2:
                self.ask_rename()
                return True
            if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
                self.request_delete()
                return True
        return super().eventFilter(watched, event)

    # ---- opacity: a slider drag is one request id, so one undo step ---------------------
    def _next_drag(self) -> int:
        self._drag_id += 1
        return self._drag_id

    def _on_slider_pressed(self) -> None:
        self._slider_drag = self._next_drag()

    def _on_slider_released(self) -> None:
        self._slider_drag = -1

    def _on_slider_value(self, value: int) -> None:
        drag = self._slider_drag if self._slider_drag >= 0 else self._next_drag()
        self._request_opacity(value, drag)

    def _on_spin_value(self, value: int) -> None:
        self._request_opacity(value, self._next_drag())

    def _request_opacity(self, percent: int, drag: int) -> None:
        layer = self.current_layer()
        for widget in (self.opacity_slider, self.opacity_spin):
            widget.blockSignals(True)
            widget.setValue(percent)
            widget.blockSignals(False)
        if layer is not None and round(layer.opacity * 100) != percent:
            self.opacity_requested.emit(layer.name, percent / 100.0, drag)

    # ---- requests ---------------------------------------------------------------------
    def ask_rename(self) -> None:
        old = self.current_name()
        new = None if old is None else ask_new_name(self, "Rename Edit Layer", old, self.get_text)
        if new is not None:
            self.rename_requested.emit(old, new)

    def request_delete(self) -> None:
        name = self.current_name()
        if name is not None:
            self.delete_requested.emit(name)

    def request_collapse(self) -> None:
        name = self.current_name()
        if name is not None:
            self.collapse_requested.emit(name)

    def request_move(self, delta: int) -> None:
        """Move the selected layer `delta` places up (positive) or down the stack."""
        name = self.current_name()
        if name is None or self.stack is None:
            return
        to = self.stack.index(name) + delta
        if 0 <= to < len(self.stack.layers):
            self.move_requested.emit(name, to)
