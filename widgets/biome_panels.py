"""Panels of the biome browser: resolved fields with origins, issues, zone order, profile and weights."""

from __future__ import annotations

import json
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
)

from model.biomes import BiomeAsset, BiomeSet, format_path
from model.biomes.validate import is_number

CONFLICT = QColor(255, 190, 190)
INHERITED = QColor(110, 110, 110)
ERROR_COLOR = QColor(200, 30, 30)
WARNING_COLOR = QColor(190, 120, 0)
VALUE_WIDTH = 80


def short_name(path: str | Path | None) -> str:
    """`folder/file.json`: enough to tell a base from an overlay."""
    if path is None:
        return ""
    p = Path(path)
    return f"{p.parent.name}/{p.name}"


def value_text(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= VALUE_WIDTH else text[:VALUE_WIDTH - 1] + "…"


class FieldsTree(QTreeWidget):
    """The resolved asset: one row per field with its value and the file that set it."""

    def __init__(self) -> None:
        super().__init__(objectName="biome_fields")
        self.setHeaderLabels(["Field", "Value", "From"])
        self.setToolTip("The resolved asset. Grey rows were inherited through Parent; "
                        "'From' names the file that set each field.")
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.items: dict[str, QTreeWidgetItem] = {}  # display path → row, for tests and selection

    def show_asset(self, asset: BiomeAsset | None) -> None:
        self.clear()
        self.items = {}
        if asset is None or asset.value is None:
            return
        self._fill(self.invisibleRootItem(), asset, asset.value, ())
        self.expandAll()

    def _fill(self, parent: QTreeWidgetItem, asset: BiomeAsset, node: object, path: tuple) -> None:
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in pairs:
            sub = path + (key,)
            origin = asset.origin(sub)
            label = f"[{key}]" if isinstance(key, int) else str(key)
            shown = "" if isinstance(value, dict | list) and value else value_text(value)
            if isinstance(value, list) and value:
                shown = f"{len(value)} item(s)"
            item = QTreeWidgetItem(parent, [label, shown, short_name(origin.path if origin else None)])
            item.setToolTip(1, value_text(value))
            item.setToolTip(2, str(origin.path) if origin else "")
            if origin is not None and origin.key != asset.key:
                for col in range(3):
                    item.setForeground(col, QBrush(INHERITED))
                item.setToolTip(0, f"inherited from {origin.key}")
            self.items[format_path(sub)] = item
            if isinstance(value, dict | list):
                self._fill(item, asset, value, sub)


class IssuesTree(QTreeWidget):
    """Errors and warnings of one asset, each with its file and JSON path."""

    def __init__(self) -> None:
        super().__init__(objectName="biome_issues")
        self.setHeaderLabels(["", "Where", "File", "Problem"])
        self.setRootIsDecorated(False)
        self.setToolTip("Every error and warning of the selected biome, naming file and JSON path")

    def show_asset(self, asset: BiomeAsset | None) -> None:
        self.clear()
        for issue in asset.issues if asset else []:
            item = QTreeWidgetItem(self, [issue.severity, issue.place, short_name(issue.file), issue.reason])
            item.setForeground(0, QBrush(ERROR_COLOR if issue.severity == "error" else WARNING_COLOR))
            item.setToolTip(2, issue.file or "")
            item.setToolTip(3, issue.message)
        for col in range(3):
            self.resizeColumnToContents(col)


class ZoneOrderTable(QTableWidget):
    """Every zone's memberships: converted ones by Order (conflicts in red), then unpinned ones."""

    COLUMNS = ["Zone", "Order", "Biome", "Type", "Membership", "Converted"]

    def __init__(self) -> None:
        super().__init__(0, len(self.COLUMNS), objectName="biome_zone_order")
        self.setHorizontalHeaderLabels(self.COLUMNS)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.verticalHeader().setVisible(False)
        self.setToolTip("Tile and Custom memberships share one order domain per zone; Order counts only "
                        "with ConvertedPin. Red rows share an Order with another converted membership.")

    def show_set(self, biomes: BiomeSet | None) -> None:
        rows = [r for zone_rows in (biomes.zones.values() if biomes else []) for r in zone_rows]
        self.setRowCount(len(rows))
        for i, r in enumerate(rows):
            cells = [r.zone, "" if r.order is None else str(r.order), r.asset, r.type,
                     f"Zones[{r.index}]", "yes" if r.converted else "no"]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if r.conflict:
                    item.setBackground(QBrush(CONFLICT))
                    item.setToolTip(f"converted Order {r.order} is used more than once in zone {r.zone!r}")
                elif not r.converted:
                    item.setForeground(QBrush(INHERITED))
                self.setItem(i, col, item)
        self.resizeColumnsToContents()

    def conflict_rows(self) -> list[int]:
        return [i for i in range(self.rowCount()) if self.item(i, 0).background().color() == CONFLICT]


def profile_curves(asset: BiomeAsset | None) -> list[tuple[str, list[float], list[float]]]:
    """(label, positions, values) for the height-threshold profile: one curve, or one per Noise key."""
    t = asset.get(("TerrainHeightThreshold",)) if asset else None
    if not isinstance(t, dict):
        return []
    if t.get("Type") == "Basic":
        curve = _curve("Basic", t)
        return [curve] if curve else []
    curves = []
    keys = t.get("Keys") if isinstance(t.get("Keys"), list) else []
    thresholds = t.get("Thresholds") if isinstance(t.get("Thresholds"), list) else []
    for i, entry in enumerate(thresholds):
        key = keys[i] if i < len(keys) else "?"
        curve = _curve(f"key {key}", entry) if isinstance(entry, dict) else None
        if curve:
            curves.append(curve)
    return curves


def _curve(label: str, t: dict) -> tuple[str, list[float], list[float]] | None:
    xs, ys = t.get("Positions"), t.get("Values")
    if not (isinstance(xs, list) and isinstance(ys, list)):
        return None
    n = min(len(xs), len(ys))  # a length mismatch is reported; plot the pairs that exist
    pairs = [(x, y) for x, y in zip(xs[:n], ys[:n], strict=True) if is_number(x) and is_number(y)]
    return (label, [float(x) for x, _ in pairs], [float(y) for _, y in pairs]) if pairs else None


class ProfilePlot(pg.PlotWidget):
    """Height thresholds: world Y (Positions) against the condition value (Values)."""

    def __init__(self) -> None:
        super().__init__(objectName="biome_profile")
        self.setBackground("w")
        self.setLabel("bottom", "world Y (Positions)")
        self.setLabel("left", "threshold (Values)")
        self.addLegend()
        self.showGrid(x=True, y=True, alpha=0.3)
        self.setToolTip("TerrainHeightThreshold: Basic as one curve, Noise as one curve per key")
        self.curves: list[tuple[str, list[float], list[float]]] = []

    def show_asset(self, asset: BiomeAsset | None) -> None:
        self.clear()
        self.curves = profile_curves(asset)
        for i, (label, xs, ys) in enumerate(self.curves):
            pen = pg.mkPen(pg.intColor(i, max(1, len(self.curves))), width=2)
            self.plot(xs, ys, pen=pen, symbol="o", symbolSize=6, name=label)


class WeightsChart(pg.PlotWidget):
    """Tile weights as bars in each biome's map colour; the selected biome is outlined."""

    def __init__(self) -> None:
        super().__init__(objectName="biome_weights")
        self.setBackground("w")
        self.setLabel("left", "Weight")
        self.setMouseEnabled(x=False, y=False)
        self.setToolTip("Relative selection weight of each Tile biome (default 1), in its map colour")
        self.bars: list[tuple[str, float, tuple[int, int, int]]] = []

    def show_set(self, biomes: BiomeSet | None, selected: str | None = None) -> None:
        self.clear()
        self.bars = []
        for asset in biomes.of_type("Tile") if biomes else []:
            if asset.value is None:
                continue
            w = asset.value.get("Weight", 1.0)
            self.bars.append((asset.key, float(w) if is_number(w) else 0.0, asset.color))
        if not self.bars:
            return
        xs = list(range(len(self.bars)))
        pens = [pg.mkPen("k", width=3) if key == selected else pg.mkPen(None) for key, _, _ in self.bars]
        item = pg.BarGraphItem(x=xs, height=[w for _, w, _ in self.bars], width=0.7,
                               brushes=[pg.mkBrush(*c) for _, _, c in self.bars], pens=pens)
        self.addItem(item)
        self.getAxis("bottom").setTicks([[(x, key) for x, (key, _, _) in zip(xs, self.bars, strict=True)]])


def bold(item: QTreeWidgetItem) -> None:
    font = QFont(item.font(0))
    font.setBold(True)
    item.setFont(0, font)

