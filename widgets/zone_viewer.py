"""Zone layer viewer: one layer of a zone as an image, bit overlays, legend, histogram, hover read-out.

Only the tiles on screen are coloured, at most one per screen pixel (every n-th tile when zoomed
out), so opening, zooming and panning a 2048² zone cost what the view shows, not what the zone holds.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QEvent, QIODevice, QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.atomic import atomic_write
from model.errors import FormatError
from model.zones import Zone, read_zone
from model.zones.names import plant_names_from_rules
from model.zones.readout import tile_report
from widgets.error_dialog import file_message
from widgets.zone_layers import (
    CATALOGUE,
    OVERLAYS,
    ViewLayer,
    blend_overlays,
    colorize,
    counts_of,
    legend,
    overlay_color,
    value_range,
)
from widgets.zone_open import ask_zone


def _swatch(color: tuple[int, int, int]) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(*color))
    return QIcon(pixmap)


class ZoneViewer(QWidget):
    """Shows one zone; `set_zone`, `set_layer(key)`, `set_overlays(keys)`, `export_png(path)`."""

    tile_hovered = Signal(int, int)

    def __init__(self, zone: Zone | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("zone_viewer")
        self.zone: Zone | None = None
        self.layer: ViewLayer = CATALOGUE["altitude"]
        self.overlays: list[str] = []
        self.hovered: tuple[int, int] | None = None
        self._ranges: dict[str, tuple[int, int]] = {}
        self._counts: dict[str, np.ndarray] = {}
        self._shown: tuple = ()
        self._build()
        if zone is not None:
            self.set_zone(zone)

    # ---- construction ------------------------------------------------------------------
    def _build(self) -> None:
        self.open_button = QToolButton(text="Open…", toolTip="Open a zone folder")
        self.open_button.clicked.connect(self.open_dialog)
        self.layer_combo = QComboBox(toolTip="Layer to show (PgUp / PgDown)")
        self._fill_layer_combo(None)
        self.layer_combo.currentIndexChanged.connect(
            lambda i: self.set_layer(self.layer_combo.itemData(i)) if i >= 0 else None)
        self.overlay_button = QToolButton(text="Overlays", toolTip="Lay block flags, control bits or masks "
                                          "over the layer", popupMode=QToolButton.InstantPopup)
        menu = QMenu(self.overlay_button)
        self.overlay_actions: dict[str, QAction] = {}
        for key in OVERLAYS:
            action = menu.addAction(_swatch(overlay_color(key)), key.replace(".", ": "))
            action.setCheckable(True)
            action.toggled.connect(self._overlays_from_menu)
            self.overlay_actions[key] = action
        self.overlay_button.setMenu(menu)
        self.fit_button = QToolButton(text="Fit", toolTip="Show the whole zone (F)")
        self.fit_button.clicked.connect(self.fit)
        self.export_button = QToolButton(text="Export PNG…",
                                         toolTip="Save the current view (zoom, pan, overlays) as PNG")
        self.export_button.clicked.connect(self.export_dialog)
        self.rules_button = QToolButton(text="Plant names…",
                                        toolTip="Name plant types from a plant rules folder")
        self.rules_button.clicked.connect(self.rules_dialog)
        self.title = QLabel("No zone open")
        # Layer files the zone's reader left out (sized for another zone…): said, not hidden.
        self.warning = QLabel(wordWrap=True, textInteractionFlags=Qt.TextSelectableByMouse)
        self.warning.setStyleSheet("QLabel { color: #e0b040; }")
        self.warning.hide()

        bar = QHBoxLayout()
        for w in (self.open_button, self.layer_combo, self.overlay_button, self.fit_button,
                  self.rules_button, self.export_button):
            bar.addWidget(w)
        bar.addWidget(self.title, 1)

        self.view = pg.GraphicsView(background=(40, 40, 40))
        self.view.setToolTip("Wheel zooms, drag pans; hover a tile to read all its layers")
        self.view_box = pg.ViewBox(lockAspect=True, invertY=True, enableMenu=False)
        self.view.setCentralItem(self.view_box)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.view_box.addItem(self.image)
        self.view_box.sigRangeChanged.connect(self._schedule_render)
        self.view_box.sigResized.connect(self._schedule_render)
        # Hover comes from the viewport's own events: the scene's move signal is rate-limited and
        # can drop the last move, which would leave the read-out on a tile the cursor has left.
        self._viewport = self.view.viewport()
        self._viewport.setMouseTracking(True)
        self._viewport.installEventFilter(self)
        self._render_timer = QTimer(self, singleShot=True, interval=0)
        self._render_timer.timeout.connect(self.render)
        self._stats_timer = QTimer(self, singleShot=True, interval=0)
        self._stats_timer.timeout.connect(self._update_stats)

        self.legend = QListWidget(toolTip="Colours of the layer's values, with tile counts")
        self.histogram = pg.PlotWidget(background=(30, 30, 30))
        self.histogram.setToolTip("Tiles per value of the shown layer")
        self.histogram.setMouseEnabled(x=True, y=False)
        self.histogram.setLabel("left", "tiles")
        self.histogram_curve = pg.PlotDataItem(stepMode="center", fillLevel=0, brush=(90, 150, 220, 160))
        self.histogram.addItem(self.histogram_curve)
        self.readout = QLabel("Hover a tile", textInteractionFlags=Qt.TextSelectableByMouse)
        font = QFont("monospace")
        font.setStyleHint(QFont.Monospace)
        self.readout.setFont(font)
        self.readout.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.readout.setToolTip("Every layer's value at the hovered tile, with the derived slope and masks")

        # The read-out has up to 18 lines (every layer, slope and masks): keep room for all of them.
        self.readout.setMinimumHeight(self.readout.fontMetrics().lineSpacing() * 19)
        side = QSplitter(Qt.Vertical)
        side.addWidget(self.legend)
        side.addWidget(self.histogram)
        side.addWidget(self.readout)
        side.setSizes([180, 240, 360])
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.view)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.warning)
        layout.addWidget(split, 1)

        # Plain keys, handled here rather than as window shortcuts: the viewer lives in a dock of the
        # main window, whose shortcuts must not clash, and the view would otherwise scroll on PgUp/PgDn.
        self._keys = {Qt.Key.Key_F: self.fit, Qt.Key.Key_PageDown: lambda: self._step_layer(1),
                      Qt.Key.Key_PageUp: lambda: self._step_layer(-1)}
        self.view.installEventFilter(self)

    # ---- model ---------------------------------------------------------------------------
    def set_zone(self, zone: Zone) -> None:
        """Show `zone` whole, on its altitude (or the first layer it has)."""
        self.zone = zone
        self._ranges.clear()
        self._counts.clear()
        self.hovered = None
        # Only the layers this zone has are offered (many real zones lack plants or altitude).
        for key, action in self.overlay_actions.items():
            present = zone.has(OVERLAYS[key][0])
            action.setVisible(present)
            if not present and action.isChecked():
                action.blockSignals(True)
                action.setChecked(False)
                action.blockSignals(False)
        self.overlays = [k for k in self.overlays if zone.has(OVERLAYS[k][0])]
        self.title.setText(f"zone {zone.zone_id}: {zone.width} x {zone.height} tiles")
        self._show_warnings(zone.warnings)
        first = self.layer if self.layer.available(zone) else next(
            v for v in CATALOGUE.values() if v.available(zone))
        self.layer = first
        self._fill_layer_combo(zone)
        self.view_box.setLimits(xMin=-zone.width * 0.5, xMax=zone.width * 1.5,
                                yMin=-zone.height * 0.5, yMax=zone.height * 1.5, minXRange=4, minYRange=4)
        self.view_box.setRange(QRectF(0, 0, zone.width, zone.height), padding=0.02)
        self.readout.setText("Hover a tile")
        self._shown = ()
        self.render()
        self._fill_legend(None)
        self._stats_timer.start()

    def _fill_layer_combo(self, zone: Zone | None) -> None:
        """The combo lists the view layers `zone` can show (every layer when no zone is open)."""
        self.layer_combo.blockSignals(True)
        self.layer_combo.clear()
        for key, layer in CATALOGUE.items():
            if zone is None or layer.available(zone):
                self.layer_combo.addItem(layer.title, key)
        self.layer_combo.setCurrentIndex(max(0, self.layer_combo.findData(self.layer.key)))
        self.layer_combo.blockSignals(False)

    def _show_warnings(self, warnings: list[str]) -> None:
        if not warnings:
            self.warning.hide()
            self.warning.clear()
            return
        self.warning.setText("⚠ " + "\n⚠ ".join(warnings))
        self.warning.setToolTip("Layer files that do not fit this zone were left out; the rest is shown")
        self.warning.show()

    def clear(self) -> None:
        """Show nothing and let go of the zone's arrays."""
        self.zone = None
        self.hovered = None
        self._ranges.clear()
        self._counts.clear()
        self._shown = ()
        self.image.clear()
        self.legend.clear()
        self.histogram_curve.setData([], [])
        self.readout.setText("Hover a tile")
        self.title.setText("No zone open")
        self._show_warnings([])

    def set_plant_names(self, names: dict[int, str]) -> None:
        """Plant type names, e.g. from a rules folder."""
        if self.zone is not None:
            self.zone.plant_names = dict(names)
            self._shown = ()
            self._stats_timer.start()
            if self.hovered:
                self.show_tile(*self.hovered)

    def set_layer(self, key: str) -> None:
        layer = CATALOGUE[key]
        if self.zone is not None and not layer.available(self.zone):
            raise ValueError(f"zone {self.zone.zone_id} has no {layer.needs} layer")
        self.layer = layer
        index = self.layer_combo.findData(key)
        if self.layer_combo.currentIndex() != index:
            self.layer_combo.setCurrentIndex(index)
            return  # the combo's signal comes back here
        self._shown = ()
        self.render()
        self._fill_legend(self._counts.get(key))
        self._stats_timer.start()

    def set_overlays(self, keys: list[str]) -> None:
        for key, action in self.overlay_actions.items():
            action.blockSignals(True)
            action.setChecked(key in keys)
            action.blockSignals(False)
        self.overlays = [k for k in OVERLAYS if k in keys]
        self._shown = ()
        self.render()
        if self.zone is not None:
            self._fill_legend(self._counts.get(self.layer.key))

    def _overlays_from_menu(self) -> None:
        self.set_overlays([k for k, a in self.overlay_actions.items() if a.isChecked()])

    def _step_layer(self, step: int) -> None:
        n = self.layer_combo.count()
        if n:
            self.layer_combo.setCurrentIndex((self.layer_combo.currentIndex() + step) % n)

    # ---- drawing ---------------------------------------------------------------------------
    def _schedule_render(self, *_: object) -> None:
        if self.zone is not None:
            self._render_timer.start()

    def _window(self) -> tuple[int, int, int, int, int]:
        """(x0, y0, x1, y1, stride): the visible tiles, every `stride`-th one per screen pixel."""
        zone = self.zone
        rect = self.view_box.viewRect()
        px, py = self.view_box.viewPixelSize() if self.view_box.width() > 1 else (0.0, 0.0)
        if px <= 0 or py <= 0:  # not laid out yet: assume a 1024-pixel view
            px = py = max(zone.width, zone.height) / 1024
        stride = max(1, math.ceil(min(px, py) - 1e-6))  # at most one tile per screen pixel
        x0 = max(0, math.floor(rect.left()) // stride * stride)
        y0 = max(0, math.floor(rect.top()) // stride * stride)
        x1 = min(zone.width, math.ceil(rect.right()) + stride)
        y1 = min(zone.height, math.ceil(rect.bottom()) + stride)
        return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1), stride

    def _range(self) -> tuple[int, int] | None:
        if self.layer.kind != "continuous":
            return None
        if self.layer.key not in self._ranges:
            self._ranges[self.layer.key] = value_range(self.layer, self.zone)
        return self._ranges[self.layer.key]

    def render(self) -> None:
        """Colour the visible tiles of the current layer and overlays."""
        if self.zone is None:
            return
        x0, y0, x1, y1, s = self._window()
        key = (self.layer.key, x0, y0, x1, y1, s, tuple(self.overlays))
        if key == self._shown:
            return
        window = (slice(y0, y1, s), slice(x0, x1, s))
        values = self.layer.values(self.zone, window)
        image = colorize(self.layer, values, self._range())
        if self.overlays:
            image = blend_overlays(np.array(image), self.zone, window, self.overlays)
        self.image.setImage(image, autoLevels=False)
        rows, cols = values.shape
        self.image.setRect(QRectF(x0, y0, cols * s, rows * s))
        self._shown = key

    def _update_stats(self) -> None:
        """Histogram and legend counts over the whole zone (after the image is up)."""
        if self.zone is None:
            return
        layer = self.layer
        if layer.key not in self._counts:
            self._counts[layer.key] = counts_of(layer, self.zone)
        counts = self._counts[layer.key]
        self._fill_legend(counts)
        if layer.kind == "continuous" and counts.size > 256:
            # 16-bit layers: 256 bins over the values present.
            lo, hi = self._range()
            span = hi - lo + 1
            starts = np.unique(np.linspace(0, span, 257)[:-1].astype(np.intp))
            bins = np.add.reduceat(counts[lo:hi + 1], starts)
            edges = lo + np.append(starts, span).astype(np.float64)
            if layer.unit == "units":
                edges = edges / 32
            self.histogram_curve.setData(edges, bins.astype(np.float64))
            self.histogram.setLabel("bottom", f"{layer.title} ({layer.unit})" if layer.unit else layer.title)
        else:
            present = np.flatnonzero(counts)
            last = int(present[-1]) + 1 if present.size else 1
            self.histogram_curve.setData(np.arange(last + 1) - 0.5, counts[:last].astype(np.float64))
            self.histogram.setLabel("bottom", layer.title)

    def _fill_legend(self, counts: np.ndarray | None) -> None:
        self.legend.clear()
        for color, text in legend(self.layer, self.zone, self._range(), counts):
            self.legend.addItem(QListWidgetItem(_swatch(color), text))
        for key in self.overlays:
            self.legend.addItem(QListWidgetItem(_swatch(overlay_color(key)),
                                                f"overlay: {key.split('.', 1)[1]}"))

    def fit(self) -> None:
        if self.zone is not None:
            self.view_box.setRange(QRectF(0, 0, self.zone.width, self.zone.height), padding=0.02)

    # ---- hover ----------------------------------------------------------------------------
    def tile_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        if self.zone is None:
            return None
        p = self.view_box.mapSceneToView(scene_pos)
        x, y = math.floor(p.x()), math.floor(p.y())
        if 0 <= x < self.zone.width and 0 <= y < self.zone.height:
            return x, y
        return None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Compares with kept references only: during teardown the view may already be gone.
        if watched is self._viewport and event.type() == QEvent.Type.MouseMove:
            self._mouse_moved(self.view.mapToScene(event.position().toPoint()))
        elif watched is self.view and event.type() == QEvent.Type.KeyPress and self._key(event):
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event) -> None:
        if not self._key(event):
            super().keyPressEvent(event)

    def _key(self, event) -> bool:
        action = self._keys.get(event.key()) if event.modifiers() == Qt.KeyboardModifier.NoModifier else None
        if action is None:
            return False
        action()
        return True

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        tile = self.tile_at(scene_pos)
        if tile is not None and tile != self.hovered:
            self.show_tile(*tile)
            self.tile_hovered.emit(*tile)

    def show_tile(self, x: int, y: int) -> None:
        """Fill the read-out with every layer's value at tile (x, y)."""
        self.hovered = (x, y)
        rows = tile_report(self.zone, x, y)
        width = max(len(label) for label, _ in rows)
        self.readout.setText("\n".join(f"{label:<{width}}  {value}" for label, value in rows))

    def view_point_of_tile(self, x: int, y: int) -> QPointF:
        """Where the centre of tile (x, y) is, in the view widget's pixels (for tests and tours)."""
        scene = self.view_box.mapViewToScene(QPointF(x + 0.5, y + 0.5))
        return QPointF(self.view.mapFromScene(scene))

    # ---- files -----------------------------------------------------------------------------
    def load(self, folder: str | Path, zone_id: int, size: object = None) -> Zone:
        zone = read_zone(folder, zone_id, size=size)
        self.set_zone(zone)
        return zone

    def open_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open zone folder")
        if folder:
            self.open_folder(folder)

    def open_folder(self, folder: str | Path) -> Zone | None:
        """Ask which zone (and its size when it is not square), then show it; errors go to a dialog."""
        try:
            zone = ask_zone(self, folder)
        except (FormatError, ValueError) as e:
            QMessageBox.critical(self, "Cannot open zone", str(e))
            return None
        if zone is not None:
            self.set_zone(zone)
        return zone

    def rules_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Plant rules folder")
        if folder and self.zone is not None:
            try:
                names = plant_names_from_rules(folder)
            except FormatError as e:
                QMessageBox.critical(self, "Cannot name plant types", str(e))
                return
            self.set_plant_names(names)

    def export_png(self, path: str | Path) -> None:
        """Save the view as shown (zoom, pan, overlays) as a PNG, atomically."""
        buffer = QBuffer()
        buffer.open(QIODevice.WriteOnly)
        if not self.view.grab().save(buffer, "PNG"):
            raise OSError("could not encode the view as PNG")
        atomic_write(path, bytes(buffer.data()))

    def export_dialog(self) -> None:
        if self.zone is None:
            return
        name = f"zone{self.zone.zone_id:04d}_{self.layer.key.replace('.', '_')}.png"
        path, _ = QFileDialog.getSaveFileName(self, "Export view as PNG", name, "PNG images (*.png)")
        if path:
            try:
                self.export_png(path)
            except OSError as e:
                QMessageBox.critical(self, "Export failed", file_message(e, path))
