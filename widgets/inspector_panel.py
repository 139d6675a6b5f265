"""The Inspector dock: what is selected, or with nothing selected a summary of the scene.

A foliage selection shows its count per type; a single instance its type, position, yaw,
pitch and roll in degrees and scale. The panel subscribes to the scene's model events (terrain
heights and layers, the foliage volume and palette) and coalesces them into one refresh.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QIcon, QPixmap
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from model.foliage.edits import selection_records
from model.foliage.volume import Selection
from model.scene import Scene

COALESCE_MS = 80  # a stroke changes the model many times; the panel redraws once after
NAME_SHARE = 0.5  # the least of the width the property names keep when values need the rest


def _m(value: float) -> str:
    return f"{value:,.2f} m"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class InspectorPanel(QWidget):
    """`set_scene(scene)` and `set_selection(selection)` say what to show; `rows()` is what it shows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inspector_panel")
        self.title = QLabel("Nothing selected", self)
        self.title.setObjectName("inspector_title")
        font = QFont(self.title.font())
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("inspector_tree")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Property", "Value"])
        # Names get what is left after the values, down to NAME_SHARE of the width: long layer or type
        # names (game data has them) are elided and never push the values out of a narrow dock.
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.setMinimumSectionSize(24)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setIndentation(12)  # the default 20 px per level is a fifth of a narrow dock
        self.tree.viewport().installEventFilter(self)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setToolTip("The selection's properties, or the scene's when nothing is selected")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.tree)
        self.scene: Scene | None = None
        self.selection: Selection = {}
        # Records of the selection while a gizmo drag moves it (None otherwise); the editor sets it.
        self.live_records: Callable[[], np.ndarray | None] | None = None
        self._subscriptions: list = []
        self._selection_source: Callable[[], Selection] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COALESCE_MS)
        self._timer.timeout.connect(self.refresh)
        subscriptions = self._subscriptions
        self.destroyed.connect(lambda *_: _unsubscribe(subscriptions))

    # ---- what to show -----------------------------------------------------------------
    def set_scene(self, scene: Scene | None) -> None:
        """Show `scene` (subscribing to its changes, dropping the previous scene's)."""
        _unsubscribe(self._subscriptions)
        self.scene = scene
        self.selection = {}
        if scene is not None:
            terrain = scene.terrain
            self._subscribe(terrain.heights_changed)
            self._subscribe(terrain.layers_changed)
            foliage = scene.sections.get("foliage")
            if foliage is not None:
                self._subscribe(foliage.volume.changed)
                self._subscribe(foliage.palette.changed)
        self.refresh()

    def set_selection(self, selection: Selection) -> None:
        self.selection = dict(selection)
        self.refresh()

    def follow_selection(self, source: Callable[[], Selection]) -> None:
        """Read the selection from `source` whenever `selection_changed` is called (connect a signal)."""
        self._selection_source = source
        self.selection_changed()

    def selection_changed(self) -> None:
        if self._selection_source is not None:
            self.set_selection(self._selection_source())

    def _subscribe(self, event) -> None:
        event.connect(self.schedule)
        self._subscriptions.append((event, self.schedule))

    def schedule(self, *_) -> None:
        """A model change: refresh within COALESCE_MS (not restarted by each change of a long burst,
        such as a gizmo drag, which would hold the old values until the burst ends)."""
        if not self._timer.isActive():
            self._timer.start()

    # ---- reading back -----------------------------------------------------------------
    def rows(self) -> list[tuple[str, str]]:
        """Every (property, value) shown, depth first."""
        out: list[tuple[str, str]] = []

        def walk(item: QTreeWidgetItem) -> None:
            out.append((item.text(0), item.text(1)))
            for i in range(item.childCount()):
                walk(item.child(i))

        for i in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(i))
        return out

    def value(self, name: str) -> str | None:
        """The value shown for the first property called `name`."""
        return next((v for k, v in self.rows() if k == name), None)

    # ---- filling ----------------------------------------------------------------------
    def refresh(self) -> None:
        self._timer.stop()
        self.tree.clear()
        if self.scene is None:
            self.title.setText("No scene")
        elif self.selection:
            self._show_selection()
        else:
            self._show_scene()
        self.tree.expandAll()
        self.fit_columns()

    def fit_columns(self) -> None:
        """Values first: the name column takes what the values leave, but at least NAME_SHARE."""
        width = self.tree.viewport().width()
        if width <= 0:
            return
        names = self.tree.sizeHintForColumn(0)
        values = self.tree.sizeHintForColumn(1)
        floor = min(names, int(width * NAME_SHARE))
        self.tree.header().resizeSection(0, max(floor, min(names, width - values)))

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return False

    def _item(self, name: str, value: str = "", parent: QTreeWidgetItem | None = None) -> QTreeWidgetItem:
        item = QTreeWidgetItem([name, value])
        item.setToolTip(0, name)  # in full when a narrow dock elides it
        item.setToolTip(1, value)
        if parent is None:
            self.tree.addTopLevelItem(item)
        else:
            parent.addChild(item)
        return item

    def _records(self) -> np.ndarray | None:
        live = self.live_records() if self.live_records is not None else None
        if live is not None:
            return live
        foliage = self.scene.sections.get("foliage")
        if foliage is None:
            return None
        try:
            return selection_records(foliage.volume, self.selection)
        except IndexError:  # addresses of a chunk that changed under the selection
            return None

    def _show_selection(self) -> None:
        per_type: dict[str, int] = {}
        for (_, name), idx in self.selection.items():
            per_type[name] = per_type.get(name, 0) + len(idx)
        total = sum(per_type.values())
        records = self._records()
        if total == 1:
            name = next(iter(per_type))
            self.title.setText(f"1 instance of {name}")
            self._item("Type", name)
            if records is not None and len(records):
                x, y, z, yaw, pitch, roll, scale = (float(v) for v in records[0])
                self._item("Position", f"{x:.2f}, {y:.2f}, {z:.2f} m")
                self._item("Yaw", f"{math.degrees(yaw):.1f}°")
                self._item("Pitch", f"{math.degrees(pitch):.1f}°")
                self._item("Roll", f"{math.degrees(roll):.1f}°")
                self._item("Scale", f"{scale:.3f}")
            (cell, _), = self.selection.keys()
            self._item("Cell", f"{cell[0]}, {cell[1]}")
            return
        self.title.setText(f"{_plural(total, 'instance')} selected")
        group = self._item("Types", str(len(per_type)))
        for name in sorted(per_type, key=lambda n: (-per_type[n], n)):
            self._item(name, f"{per_type[name]:,}", group)
        if records is not None and len(records) == total:
            lo, hi = records[:, :3].min(axis=0), records[:, :3].max(axis=0)
            centre = records[:, :3].mean(axis=0, dtype=np.float64)
            self._item("Centre", f"{centre[0]:.2f}, {centre[1]:.2f}, {centre[2]:.2f} m")
            self._item("Extent", f"{hi[0] - lo[0]:.1f} × {hi[2] - lo[2]:.1f} m")
            self._item("Scale", f"{float(records[:, 6].min()):.3f} – {float(records[:, 6].max()):.3f}")

    def _show_scene(self) -> None:
        scene = self.scene
        t = scene.terrain
        self.title.setText(f"Scene: {scene.name}" + (f" ({scene.path.name})" if scene.path else ""))
        terrain = self._item("Terrain", f"{t.columns} × {t.rows} samples")
        width, depth = (t.columns - 1) * t.spacing, (t.rows - 1) * t.spacing
        self._item("Size", f"{width:,.0f} × {depth:,.0f} m", terrain)
        self._item("Spacing", _m(t.spacing), terrain)
        self._item("Origin", f"{t.origin[0]:,.1f}, {t.origin[1]:,.1f} m", terrain)
        lo, hi = t.height_range()  # paged: from each tile's range, no whole-grid scan
        self._item("Heights", f"{lo:,.1f} – {hi:,.1f} m", terrain)
        layers = self._item("Layers", str(len(t.layers)))
        for layer in t.layers:
            item = self._item(layer.name, "#{:02x}{:02x}{:02x}".format(*layer.color), layers)
            swatch = QPixmap(12, 12)
            swatch.fill(QColor(*layer.color))
            item.setIcon(1, QIcon(swatch))  # the colour itself beside its code
        foliage = scene.sections.get("foliage")
        if foliage is None:
            return
        counts = foliage.volume.counts()
        instances = self._item("Instances", f"{sum(counts.values()):,}")
        for ftype in foliage.palette:
            shown = "derived" if ftype.derived else f"{counts.get(ftype.name, 0):,}"
            self._item(ftype.name, shown, instances)
        for name in sorted(set(counts) - {f.name for f in foliage.palette}):
            self._item(name, f"{counts[name]:,} (type missing)", instances)


def _unsubscribe(subscriptions: list) -> None:
    for event, callback in subscriptions:
        event.disconnect(callback)
    subscriptions.clear()
