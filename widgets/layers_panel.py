"""The Layers panel: the terrain's paint layers with swatch and coverage, and buttons to edit them.

The panel edits nothing itself: it asks for names and colours and emits a request; the editor
turns requests into undoable commands. It follows the terrain's layer events.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QColorDialog,
    QDoubleSpinBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.errors import FormatError
from model.layer_material import MAP_KINDS, MAX_TILING, MIN_TILING, LayerMaterial, resolve
from model.terrain import Terrain
from widgets.rename_question import ask_new_name

COVERAGE_DELAY_MS = 250  # coverage sums the whole layer: recount once a stroke settles
THUMB = 16  # pixels a side of a texture's preview
MAP_LABELS = {"albedo": "Albedo", "normal": "Normal", "roughness": "Roughness", "height": "Height"}


def thumbnail(path, size: int = THUMB) -> QPixmap | None:
    """A small preview of a texture file, or None where it cannot be read."""
    from model.formats.texture_image import read_texture

    try:
        pixels = read_texture(path)
    except (FormatError, OSError, MemoryError):
        return None
    step = max(1, max(pixels.shape[:2]) // (size * 2))  # decimate first: a preview needs few texels
    small = pixels[::step, ::step]
    if small.dtype != np.uint8:
        small = (np.clip(small, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    rgb = np.ascontiguousarray(np.repeat(small[..., :1], 3, axis=2) if small.shape[2] < 3 else small[..., :3])
    h, w = rgb.shape[:2]
    image = QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
    return QPixmap.fromImage(image).scaled(size, size, Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation)


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
    texture_requested = Signal(str, str)  # layer name, map kind: choose a file for it
    material_requested = Signal(str, object)  # layer name, LayerMaterial (cleared map, tiling, projection)

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
        layout.setSpacing(4)  # the material row fits the right column of a 1280 x 800 window
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty)
        material = self._build_material_box()
        checks = QHBoxLayout()
        checks.addWidget(self.blend)
        checks.addWidget(self.triplanar)
        checks.addStretch(1)
        layout.addLayout(checks)
        layout.addLayout(row1)
        layout.addLayout(row2)
        layout.addWidget(material)
        layout.addWidget(self.status)
        self._coverage_timer = QTimer(self)
        self._coverage_timer.setSingleShot(True)
        self._coverage_timer.setInterval(COVERAGE_DELAY_MS)
        self._coverage_timer.timeout.connect(self.refresh)
        self.set_terrain(terrain)

    def _build_material_box(self) -> QWidget:
        """One row: the map previews (each a button: Set…, Clear) and the repeat size; the Triplanar
    box goes beside Weight-blended."""
        self.textures_folder = lambda: None  # where material paths start (the editor sets it)
        self._thumbs: dict[tuple, QPixmap | None] = {}
        box = QWidget(self)
        box.setObjectName("layers_material")
        box.setToolTip("Texture maps of the selected layer; its colour tints them and is drawn where "
                       "a texture cannot be read")
        maps = QHBoxLayout()
        maps.setSpacing(3)
        self.map_previews: dict[str, QToolButton] = {}
        self.map_set: dict[str, QAction] = {}
        self.map_clear: dict[str, QAction] = {}
        for kind in MAP_KINDS:
            button = QToolButton(box)
            button.setObjectName(f"layers_{kind}_map")
            button.setIconSize(QSize(THUMB, THUMB))
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            menu = QMenu(button)
            set_action = menu.addAction(f"Set {MAP_LABELS[kind]} Map…")
            set_action.setToolTip(f"Choose the {kind} map (PNG, JPEG or EXR in the scene's folder, or "
                                  "copied into it)")
            set_action.triggered.connect(lambda checked=False, k=kind: self._emit_texture(k))
            clear_action = menu.addAction(f"Clear {MAP_LABELS[kind]} Map")
            clear_action.triggered.connect(lambda checked=False, k=kind: self._clear_map(k))
            button.setMenu(menu)
            maps.addWidget(button)
            self.map_previews[kind] = button
            self.map_set[kind], self.map_clear[kind] = set_action, clear_action
        self.tiling = QDoubleSpinBox(box)
        self.tiling.setObjectName("layers_tiling")
        self.tiling.setRange(MIN_TILING, MAX_TILING)
        self.tiling.setDecimals(2)
        self.tiling.setSuffix(" m")
        self.tiling.setKeyboardTracking(False)  # one step per value typed, not per key
        self.tiling.setToolTip("Repeat: metres of ground one repeat of the layer's textures covers")
        self.tiling.setMaximumWidth(84)
        self.tiling.valueChanged.connect(self._on_tiling)
        maps.addWidget(self.tiling)
        maps.addStretch(1)
        self.triplanar = QCheckBox("Triplanar", self)  # beside Weight-blended: no row of its own
        self.triplanar.setObjectName("layers_triplanar")
        self.triplanar.setToolTip("Project the textures from the three axes everywhere (cliffs, overhangs);"
                                  "\notherwise only ground steeper than about 35° is projected sideways")
        self.triplanar.clicked.connect(self._on_triplanar)
        maps.setContentsMargins(0, 0, 0, 0)
        box.setLayout(maps)
        return box

    def _current_layer(self):
        name = self.current_name()
        return self.terrain.layer(name) if name is not None else None

    def _emit_texture(self, kind: str) -> None:
        name = self.current_name()
        if name is not None:
            self.texture_requested.emit(name, kind)

    def _request_material(self, material: LayerMaterial) -> None:
        layer = self._current_layer()
        if layer is not None and material != layer.material:
            self.material_requested.emit(layer.name, material)

    def _clear_map(self, kind: str) -> None:
        layer = self._current_layer()
        if layer is not None:
            self._request_material(layer.material.with_map(kind, None))

    def _on_tiling(self, value: float) -> None:
        layer = self._current_layer()
        if layer is not None and abs(value - layer.material.tiling) > 1e-9:
            self._request_material(replace(layer.material, tiling=float(value)))

    def _on_triplanar(self, checked: bool) -> None:
        layer = self._current_layer()
        if layer is not None:
            self._request_material(replace(layer.material, triplanar=bool(checked)))
            self._update_material()  # a refused request leaves the box as the layer is

    def _preview(self, path: str) -> QPixmap | None:
        folder = self.textures_folder()
        if folder is None:
            return None
        file = resolve(folder, path)
        try:
            stamp = file.stat().st_mtime_ns
        except OSError:
            return None
        key = (str(file), stamp)
        if key not in self._thumbs:
            self._thumbs[key] = thumbnail(file)
        return self._thumbs[key]

    def _update_material(self) -> None:
        layer = self._current_layer()
        material = layer.material if layer is not None else LayerMaterial()
        for kind in MAP_KINDS:
            path = material.map(kind)
            button = self.map_previews[kind]
            pixmap = self._preview(path) if path else None
            button.setIcon(QIcon(pixmap) if pixmap is not None else QIcon())
            button.setText(MAP_LABELS[kind][0] if pixmap is None else "")  # A N R H where no preview
            state = (path + ("" if pixmap is not None else " — cannot be read")) if path else "not set"
            button.setToolTip(f"{MAP_LABELS[kind]} map: {state}")
            button.setEnabled(layer is not None)
            self.map_clear[kind].setEnabled(layer is not None and path is not None)
        self.tiling.blockSignals(True)
        self.tiling.setValue(material.tiling)
        self.tiling.blockSignals(False)
        self.tiling.setEnabled(layer is not None)
        self.triplanar.setChecked(material.triplanar)
        self.triplanar.setEnabled(layer is not None)

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
        self._update_material()

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
        new = None if old is None else ask_new_name(self, "Rename Layer", old)
        if new is not None:
            self.rename_requested.emit(old, new)

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
