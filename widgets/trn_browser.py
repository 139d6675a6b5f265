"""TRN browser: the layer tree with active check boxes, a property form, family lists and a map
preview of the evaluated heights and families, with the selected boundary drawn on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPixmap, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressDialog,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from model.errors import FormatError
from model.trn import document as trn_document
from model.trn.bitmaps import load_bitmaps
from model.trn.document import Item, TrnDocument
from model.trn.evaluator import FLORA_SLOTS, Cancelled, Evaluation, Region, evaluate, explain
from model.trn.palette import LAYER_KINDS, family_palette, layer_color

ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_COLORS = {"layer": (90, 140, 220), "boundary": (230, 170, 60), "filter": (120, 190, 120),
               "affector": (200, 110, 200), "unknown": (150, 150, 150)}
PREVIEW_MODES = ["heights", "colour", "shader"] + [f"flora: {s}" for s in FLORA_SLOTS] + ["environment"]
RESOLUTIONS = [128, 256, 512]
PREVIEW_TILE = 128  # tiles give the progress dialog steps to report and a chance to cancel
HEIGHT_COLORMAP = "viridis"  # perceptually even: equal height steps look equal
NON_FINITE_RGB = (255, 0, 255)  # poles whose height is NaN or infinite: unmistakable
MAP_KINDS = LAYER_KINDS + ("environment",)  # families drawn on the map in their readable colours
NO_SELECTION_HINT = ("Select a layer, boundary, filter or affector in the tree to see and edit its "
                     "properties; the map outlines the selected boundary.")
NO_DOCUMENT_HINT = "Open a TRN terrain generator (Ctrl+O) to browse its layers and families."


def kind_icon(kind: str) -> QIcon:
    """A small swatch per item kind (layer, boundary, filter, affector, kept raw)."""
    pix = QPixmap(12, 12)
    pix.fill(QColor(*KIND_COLORS.get(kind, KIND_COLORS["unknown"])))
    return QIcon(pix)


def swatch(color: tuple[int, int, int]) -> QIcon:
    pix = QPixmap(12, 12)
    pix.fill(QColor(*color))
    return QIcon(pix)


def pair_swatch(own: tuple[int, int, int], shown: tuple[int, int, int]) -> QIcon:
    """Left half the family's own colour (from the file), right half the colour the map and an
    import use."""
    from PySide6.QtGui import QPainter

    pix = QPixmap(24, 12)
    pix.fill(QColor(*own))
    painter = QPainter(pix)
    painter.fillRect(12, 0, 12, 12, QColor(*shown))
    painter.end()
    return QIcon(pix)


def hex_color(color: tuple[int, int, int]) -> str:
    return "#{:02X}{:02X}{:02X}".format(*color)


def item_label(item: Item) -> str:
    if item.unsupported:
        return f"{item.tag} {item.version or ''} (kept raw: {item.unsupported})"
    return f"{item.name}  —  {item.title} ({item.tag} {item.version})"


def family_colors(doc: TrnDocument, kind: str) -> dict[int, tuple[int, int, int]]:
    """The colours a family map shows: the readable ones an import paints layers with (the
    families' own colours are often neon and alike; the family lists show them as swatches)."""
    palette = family_palette(doc, MAP_KINDS)
    return {f.id: layer_color(palette, kind, f.id) for f in doc.families[kind]}


def id_image(ids: np.ndarray, colors: dict[int, tuple[int, int, int]]) -> np.ndarray:
    """RGB image of family ids; none is dark grey, unknown ids light grey."""
    out = np.full(ids.shape + (3,), 40, np.uint8)
    out[ids >= 0] = 200
    for fid, color in colors.items():
        out[ids == fid] = color
    return out


FEATHER_NAMES = ["Linear (t)", "Ease in (t²)", "Ease out (√t)", "Ease in-out (3t²−2t³)"]
OPERATION_NAMES = ["Replace", "Add", "Subtract", "Multiply"]
ENUMS = {"featherFn": FEATHER_NAMES, "featherFnShader": FEATHER_NAMES, "operation": OPERATION_NAMES}
UNITS = {"minAngle": "degrees", "maxAngle": "degrees", "feather": "fraction 0–1",
         "featherShader": "fraction 0–1",
         "featherDistance": "metres", "radius": "metres", "width": "metres", "cx": "metres", "cz": "metres",
         "x0": "metres", "z0": "metres", "x1": "metres", "z1": "metres", "height": "metres",
         "waterHeight": "metres", "trenchDepth": "metres", "waterDepth": "metres", "waterWidth": "metres",
         "low": "lower limit (exclusive)", "high": "upper limit (exclusive)", "density": "0–1",
         "flatRatio": "fraction of each terrace that is flat"}
FLOAT_DECIMALS = 6


class PropertyForm(QWidget):
    """Editable fields of the selected item: IHDR name and active flag, then its payload."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.item: Item | None = None
        self.hint: QLabel | None = None
        self.show_hint(NO_DOCUMENT_HINT)

    def show_hint(self, text: str) -> None:
        """An empty pane says what to do, instead of staying blank."""
        self.clear()
        self.hint = QLabel(text, objectName="trn_properties_hint", wordWrap=True)
        self.hint.setStyleSheet("font-style: italic; padding: 6px")  # italic, not faint: it must read
        self.form.addRow(self.hint)

    def clear(self) -> None:
        self.hint = None
        while self.form.rowCount():
            self.form.removeRow(0)

    def show_item(self, item: Item | None) -> None:
        self.item = item
        self.clear()
        if item is None:
            self.show_hint(NO_SELECTION_HINT)
            return
        self.form.addRow("Tag", QLabel(f"{item.tag} {item.version or ''} @ offset {item.offset}"))
        if item.unsupported:
            self.form.addRow("Kept raw", QLabel(item.unsupported))
            return
        name = QLineEdit(item.name)
        name.setToolTip("The item's name in its IHDR header")
        name.editingFinished.connect(lambda: self._set_name(name.text()))
        self.form.addRow("Name", name)
        for key, kind in item.params.layout:
            self.form.addRow(key, self._editor(item.params, key, kind))

    def _set_name(self, text: str) -> None:
        if self.item is not None and text != self.item.name:
            try:
                self.item.name = text
            except ValueError as e:
                self._refuse(str(e))
                return
            self.edited.emit()

    def _refuse(self, reason: str) -> None:
        QMessageBox.warning(self, "Value not stored", reason)
        self.show_item(self.item)  # the fields show what the file holds again

    def _editor(self, record, key: str, kind) -> QWidget:
        value = record[key]
        unit = UNITS.get(key)
        if key in ENUMS and kind == "i32" and 0 <= value < len(ENUMS[key]):
            w = QComboBox()
            w.addItems(ENUMS[key])
            w.setCurrentIndex(int(value))
            w.activated.connect(lambda i: self._set(record, key, int(i)))
            unit = "stored as " + ", ".join(f"{i} {n}" for i, n in enumerate(ENUMS[key]))
        elif kind == "f32":
            w = QDoubleSpinBox()
            w.setRange(-1e9, 1e9)
            w.setDecimals(FLOAT_DECIMALS)
            w.setValue(float(value))
            shown = w.value()
            # only a value the user changed is written: leaving the field must not round the stored one
            w.editingFinished.connect(lambda: w.value() != shown and self._set(record, key, float(w.value())))
        elif kind in ("i32", "u32", "u8"):
            w = QSpinBox()
            w.setRange(-2**31 if kind == "i32" else 0, 2**31 - 1 if kind != "u8" else 255)
            w.setValue(int(min(value, 2**31 - 1)))
            shown_int = w.value()
            w.editingFinished.connect(
                lambda: w.value() != shown_int and self._set(record, key, int(w.value())))
        elif kind == "bool8":
            w = QCheckBox()
            w.setChecked(bool(value))
            w.toggled.connect(lambda on: self._set(record, key, bool(on)))
        elif kind == "cstr":
            w = QLineEdit(str(value))
            w.editingFinished.connect(lambda: self._set(record, key, w.text()))
        elif kind == "rgb":
            w = QLabel("#{:02x}{:02x}{:02x}".format(*value))
            w.setStyleSheet("background: #{:02x}{:02x}{:02x}; padding: 2px".format(*value))
        else:
            w = QLabel(f"{len(value)} entries")
        w.setToolTip(f"{key} ({kind if isinstance(kind, str) else 'list'})" + (f": {unit}" if unit else ""))
        return w

    def _set(self, record, key: str, value) -> None:
        if record[key] != value:
            try:
                record[key] = value
            except ValueError as e:
                self._refuse(str(e))
                return
            self.edited.emit()


class TrnBrowser(QWidget):
    """Browse and lightly edit a TRN file; the preview re-evaluates after each change."""

    document_changed = Signal()

    def __init__(self, main_window=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("TRN Browser")
        self.main_window = main_window
        self.doc: TrnDocument | None = None
        self.bitmaps: dict[int, np.ndarray] = {}
        self.missing_bitmaps: list[str] = []
        self.evaluation: Evaluation | None = None
        self.modified = False
        self._filling = False
        self._build()
        self._reeval = QTimer(self, singleShot=True, interval=150)
        self._reeval.timeout.connect(self.refresh_preview)

    # ---- layout ------------------------------------------------------------------------
    def _build(self) -> None:
        bar = QToolBar()
        self.open_action = QAction("Open…", self, shortcut=QKeySequence.StandardKey.Open,
                                   toolTip="Open a TRN terrain generator file", triggered=self.open_dialog)
        self.save_action = QAction("Save As…", self, shortcut=QKeySequence("Ctrl+Shift+S"),
                                   toolTip="Write the file with your edits (unknown chunks kept as read)",
                                   triggered=self.save_dialog)
        for action in (self.open_action, self.save_action):
            # scoped to the browser so the editor's own Open and Save As keep their keys elsewhere
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)
            bar.addAction(action)
        self.mode = QComboBox(toolTip="What the map preview shows")
        self.mode.addItems(PREVIEW_MODES)
        self.mode.currentIndexChanged.connect(self.show_evaluation)
        self.resolution = QComboBox(toolTip="Preview poles per side (the whole map is evaluated)")
        self.resolution.addItems([str(r) for r in RESOLUTIONS])
        self.resolution.setCurrentIndex(1)
        self.resolution.currentIndexChanged.connect(self.refresh_preview)
        bar.addWidget(QLabel(" Show "))
        bar.addWidget(self.mode)
        bar.addWidget(QLabel(" Resolution "))
        bar.addWidget(self.resolution)

        self.tree = QTreeView(headerHidden=True, toolTip="Layers, boundaries, filters and affectors; "
                                                         "the check box is the item's active flag")
        self.model = QStandardItemModel(self)
        self.tree.setModel(self.model)
        self.model.itemChanged.connect(self._item_changed)
        self.tree.selectionModel().currentChanged.connect(self._current_changed)

        self.props = PropertyForm()
        self.props.edited.connect(self._edited)
        scroll = QScrollArea(widgetResizable=True)
        scroll.setWidget(self.props)

        self.families = QTabWidget(toolTip="Families with their colours and ids")
        self.family_lists: dict[str, QListWidget] = {}
        for kind in ("shader", "flora", "radial", "environment", "fractal", "bitmap"):
            lst = QListWidget()
            self.family_lists[kind] = lst
            self.families.addTab(lst, kind.capitalize())

        self.view = pg.GraphicsLayoutWidget()
        self.plot = self.view.addPlot()
        self.plot.setAspectLocked(True)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setLabel("bottom", "x (m)")
        self.plot.setLabel("left", "z (m)")
        self.image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.image)
        self.height_colormap = pg.colormap.get(HEIGHT_COLORMAP)
        # a legend for the heights: the colour map with its range in metres (not linked to the image,
        # which also shows RGB family maps)
        self.color_bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=self.height_colormap, label="height (m)",
                                         interactive=False, colorMapMenu=False, width=16)
        self.view.addItem(self.color_bar, row=0, col=1)
        self.color_bar.setVisible(False)
        self.range_label = QLabel(objectName="trn_height_range")
        self.range_label.setToolTip("The evaluated heights of the previewed map")
        self.outline = pg.PlotDataItem(pen=pg.mkPen((255, 230, 0), width=2), connect="finite")
        self.plot.addItem(self.outline)
        self.hover = QLabel("Hover the map to see which layers reach a pole")
        self.hover.setWordWrap(True)
        self.status = QLabel()
        self.plot.scene().sigMouseMoved.connect(self._mouse_moved)

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.tree)
        left.addWidget(scroll)
        left.setSizes([420, 280])
        right_box = QWidget()
        rv = QVBoxLayout(right_box)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(self.view, 3)
        rv.addWidget(self.range_label)
        rv.addWidget(self.hover)
        rv.addWidget(self.families, 1)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right_box)
        split.setSizes([380, 620])
        lay = QVBoxLayout(self)
        lay.addWidget(bar)
        lay.addWidget(split, 1)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        lay.addLayout(row)

    # ---- documents -----------------------------------------------------------------------
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open TRN", "",
                                              "TRN terrain generators (*.trn);;All files (*)")
        if path:
            self.load(path)

    def load(self, path: str | Path) -> bool:
        try:
            doc = trn_document.read(path)
        except FormatError as e:
            QMessageBox.warning(self, "Cannot open TRN file", str(e))
            return False
        self.set_document(doc)
        return True

    def save_dialog(self) -> None:
        if self.doc is None:
            return
        start = str(self.doc.path or "")
        path, _ = QFileDialog.getSaveFileName(self, "Save TRN As", start, "TRN (*.trn)")
        if path:
            self.save(path)

    def save(self, path: str | Path) -> None:
        try:
            self.doc.save(path)
        except OSError as e:
            QMessageBox.warning(self, "Cannot save TRN file", f"{path}: {e.strerror or e}")
            return
        self.modified = False
        self.status.setText(f"Saved {path}")

    def set_document(self, doc: TrnDocument) -> None:
        self.doc = doc
        self.modified = False
        self.bitmaps, self.missing_bitmaps = load_bitmaps(doc) if doc.path else ({}, [])
        self._fill_tree()
        self._fill_families()
        self.props.show_item(None)
        self.outline.setData([], [])
        unsupported = f", {len(doc.unsupported)} kept raw" if doc.unsupported else ""
        self.status.setText(f"{doc.path or 'untitled'}: version {doc.version}, "
                            f"{sum(1 for _ in doc.items())} items{unsupported}")
        self.refresh_preview()
        self.document_changed.emit()

    def _fill_tree(self) -> None:
        self._filling = True  # check states set while filling are not edits
        try:
            self.model.clear()
            for layer in self.doc.layers:
                self.model.appendRow(self._row(layer))
        finally:
            self._filling = False
        self.tree.expandToDepth(0)

    def _row(self, item: Item) -> QStandardItem:
        row = QStandardItem(kind_icon("unknown" if item.unsupported else item.kind), item_label(item))
        row.setData(item, ITEM_ROLE)
        row.setEditable(False)
        row.setToolTip(f"{item.title}, {item.tag} {item.version or ''} at offset {item.offset}")
        if item.ihdr is not None:
            row.setCheckable(True)
            row.setCheckState(Qt.CheckState.Checked if item.active else Qt.CheckState.Unchecked)
        for child in item.children:
            row.appendRow(self._row(child))
        return row

    def _fill_families(self) -> None:
        colors = {kind: family_colors(self.doc, kind) for kind in MAP_KINDS}
        for kind, lst in self.family_lists.items():
            lst.clear()
            for fam in self.doc.families[kind]:
                extra = ""
                if fam.children:
                    extra = f"  ({len(fam.children)} children)"
                if kind == "bitmap":
                    extra = f"  {fam.record['bitmapFile']}"
                if kind in MAP_KINDS:
                    shown = colors[kind][fam.id]
                    entry = QListWidgetItem(pair_swatch(fam.color, shown), f"{fam.id}: {fam.name}{extra}")
                    entry.setToolTip(f"Own colour {hex_color(fam.color)} (left, from the file); the map and "
                                     f"an imported scene's paint layer use {hex_color(shown)} (right)")
                else:
                    entry = QListWidgetItem(swatch(fam.color), f"{fam.id}: {fam.name}{extra}")
                lst.addItem(entry)
            self.families.setTabText(list(self.family_lists).index(kind), f"{kind.capitalize()} "
                                     f"({len(self.doc.families[kind])})")

    # ---- tree and form -------------------------------------------------------------------
    def item_for(self, index: QModelIndex) -> Item | None:
        return index.data(ITEM_ROLE) if index.isValid() else None

    def select(self, item: Item) -> None:
        """Select `item` in the tree (and so show its form and outline)."""
        def find(parent: QStandardItem):
            for r in range(parent.rowCount()):
                child = parent.child(r)
                if child.data(ITEM_ROLE) is item:
                    return child
                got = find(child)
                if got is not None:
                    return got
            return None
        found = find(self.model.invisibleRootItem())
        if found is not None:
            self.tree.setCurrentIndex(found.index())

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = self.item_for(current)
        self.props.show_item(item)
        self._draw_outline(item)

    def _item_changed(self, row: QStandardItem) -> None:
        item = row.data(ITEM_ROLE)
        if self._filling or item is None or item.ihdr is None:
            return
        active = row.checkState() == Qt.CheckState.Checked
        if active != item.active:
            item.active = active
            self._edited()

    def _edited(self) -> None:
        self.modified = True
        index = self.tree.currentIndex()
        item = self.item_for(index)
        if item is not None:
            self.model.itemFromIndex(index).setText(item_label(item))
            self._draw_outline(item)
        self._reeval.start()

    def _draw_outline(self, item: Item | None) -> None:
        xs, zs = outline_of(item)
        self.outline.setData(xs, zs)

    # ---- preview -------------------------------------------------------------------------
    def preview_region(self) -> Region:
        """n × n poles spread over the whole map."""
        n = RESOLUTIONS[self.resolution.currentIndex()]
        spacing = max(self.doc.map_width / n, 1e-3)
        return Region(-(n // 2), -(n // 2), n, n, spacing)

    def refresh_preview(self) -> None:
        if self.doc is None:
            return
        dialog = QProgressDialog("Evaluating the map…", "Cancel", 0, 100, self)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(400)

        def progress(done: int, total: int) -> bool:
            dialog.setValue(int(100 * done / max(total, 1)))
            QApplication.processEvents()
            return not dialog.wasCanceled()

        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.evaluation = evaluate(self.doc, self.preview_region(), progress=progress,
                                       bitmaps=self.bitmaps, tile=PREVIEW_TILE)
        except Cancelled:
            self.status.setText("Preview cancelled; showing the previous evaluation")
            return
        finally:
            QApplication.restoreOverrideCursor()
            dialog.close()
            dialog.deleteLater()
        self.show_evaluation()

    def show_evaluation(self) -> None:
        ev = self.evaluation
        if ev is None:
            return
        mode = PREVIEW_MODES[self.mode.currentIndex()]
        self.color_bar.setVisible(mode == "heights")
        self.range_label.setVisible(mode == "heights")
        if mode == "heights":
            rgb = self._height_image(ev.heights)
        elif mode == "colour":
            rgb = (ev.color * 255).astype(np.uint8)
        elif mode == "shader":
            rgb = id_image(ev.shader, family_colors(self.doc, "shader"))
        elif mode == "environment":
            rgb = id_image(ev.environment, family_colors(self.doc, "environment"))
        else:
            slot = mode.split(": ")[1]
            kind = "flora" if slot in FLORA_SLOTS[:2] else "radial"
            rgb = id_image(ev.flora[slot], family_colors(self.doc, kind))
        self.image.setImage(rgb, autoLevels=False, levels=(0, 255))
        x0, z0, x1, z1 = ev.region.bounds
        s = ev.region.spacing
        self.image.setRect(x0 - s / 2, z0 - s / 2, x1 - x0 + s, z1 - z0 + s)
        if ev.warnings:
            self.status.setText("; ".join(ev.warnings))

    def _height_image(self, h: np.ndarray) -> np.ndarray:
        """Heights through the colour map, the colour bar and range label set to their min–max;
        poles that are not finite are magenta and counted."""
        finite = np.isfinite(h)
        lo, hi = (float(h[finite].min()), float(h[finite].max())) if finite.any() else (0.0, 0.0)
        t = np.clip((np.where(finite, h, lo) - lo) / (hi - lo), 0, 1) if hi > lo else np.zeros(h.shape)
        rgb = self.height_colormap.map(t.ravel(), mode="byte")[:, :3].reshape(h.shape + (3,))
        rgb[~finite] = NON_FINITE_RGB
        self.color_bar.setLevels((lo, hi if hi > lo else lo + 1.0))
        bad = int(h.size - finite.sum())
        text = f"Heights {lo:,.2f} m … {hi:,.2f} m"
        if hi <= lo:
            text = f"Heights all {lo:,.2f} m"
        if bad:
            text += f"; {bad:,} poles not finite (NaN or infinite), drawn magenta"
        self.range_label.setText(text)
        return np.ascontiguousarray(rgb, np.uint8)

    def _mouse_moved(self, pos) -> None:
        if self.evaluation is None or not self.plot.sceneBoundingRect().contains(pos):
            return
        p = self.plot.vb.mapSceneToView(pos)
        self.describe_pole(p.x(), p.y())

    def describe_pole(self, x: float, z: float) -> list[dict]:
        """Show (and return) the layers and items that reach the preview pole nearest (x, z)."""
        ev, trace = explain(self.doc, x, z, self.evaluation.region.spacing, self.bitmaps)
        layers = [t["name"] for t in trace if t["tag"] == "LAYR"]
        shader = self.doc.family("shader", int(ev.shader[0, 0]))
        self.hover.setText(f"({x:.0f}, {z:.0f}) height {float(ev.heights[0, 0]):.2f}, shader "
                           f"{shader.name if shader else '-'}; layers: {', '.join(layers) or 'none'}")
        return trace


def outline_of(item: Item | None) -> tuple[list[float], list[float]]:
    """The outline of a boundary in world x, z; for a layer, its active boundaries' outlines joined by NaN
    breaks; empty for anything else."""
    if item is not None and item.kind == "layer":
        xs: list[float] = []
        zs: list[float] = []
        for child in item.children:
            if child.kind == "boundary" and child.active:
                cx, cz = outline_of(child)
                if cx:
                    xs += cx + [float("nan")]
                    zs += cz + [float("nan")]
        return xs, zs
    if item is None or item.kind != "boundary" or item.params is None:
        return [], []
    p = item.params
    if item.tag == "BCIR":
        t = np.linspace(0, 2 * np.pi, 73)
        r = abs(p["radius"])
        return list(p["cx"] + r * np.cos(t)), list(p["cz"] + r * np.sin(t))
    if item.tag == "BREC":
        x0, z0, x1, z1 = p["x0"], p["z0"], p["x1"], p["z1"]
        return [x0, x1, x1, x0, x0], [z0, z0, z1, z1, z0]
    pts = list(p["points"])
    if item.tag == "BPOL" and pts:
        pts.append(pts[0])
    return [q[0] for q in pts], [q[1] for q in pts]
