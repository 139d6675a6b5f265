"""Grass library tables: models, groups → rules, and the 256-entry material → group table."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from model.grasslib import GrassLibrary, describe_class
from model.grasslib.summary import model_fields, rule_fields

MISSING_BRUSH = QBrush(QColor(255, 205, 205))
RULE_COLUMNS = ("Rule", "Model", "Tiling log count", "Density", "Tilt factor", "Scaling", "Scale A",
                "Scale B", "Height scaling", "Height scale A", "Height scale B", "Unnamed float",
                "Unnamed 49 bytes (hex)", "Unnamed as floats (byte, u16, 10 × f32, 6 bytes)")


def _item(value, tooltip: str = "") -> QTableWidgetItem:
    text = "–" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))
    item = QTableWidgetItem(text)
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if tooltip:
        item.setToolTip(tooltip)
    return item


def _table(columns, tooltip: str) -> QTableWidget:
    t = QTableWidget(0, len(columns))
    t.setHorizontalHeaderLabels(list(columns))
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.verticalHeader().setVisible(False)
    t.setToolTip(tooltip)
    return t


def _hex_lines(raw: bytes, width: int = 16) -> str:
    return "\n".join(f"{i:04x}  {raw[i:i + width].hex(' ')}" for i in range(0, len(raw), width))


def fill_rules(table: QTableWidget, rules: np.ndarray, model_count: int,
               indices: list[int] | None = None) -> None:
    """One row per rule; a rule naming a model the library lacks is coloured and says so."""
    indices = list(range(len(rules))) if indices is None else indices
    table.setRowCount(len(indices))
    for row, k in enumerate(indices):
        f = rule_fields(rules[k], model_count)
        missing = f["missing_model"]
        model_tip = (f"model {f['model']} is not in the library ({model_count} models)" if missing
                     else f"index into the library's {model_count} models")
        floats = ", ".join("–" if v is None else f"{v:g}" for v in f["unnamed_floats"])
        cells = [_item(k), _item(f"{f['model']} (missing)" if missing else f["model"], model_tip),
                 _item(f["tiling_log_count"]), _item(f["density"]), _item(f["tilt_factor"]),
                 _item(f["scaling_enabled"]), _item(f["scale"][0]), _item(f["scale"][1]),
                 _item(f["height_scaling_enabled"]), _item(f["height_scale"][0]),
                 _item(f["height_scale"][1]),
                 _item(f["unnamed_float"], "meaning unknown: 5, 0 or 2.5 seen"),
                 _item(f["unnamed_hex"], "not yet understood; kept byte for byte"),
                 _item(floats, "the ten floats after a byte and a u16, as the bytes seem to be laid out")]
        for col, item in enumerate(cells):
            if missing:
                item.setBackground(MISSING_BRUSH)
            table.setItem(row, col, item)
    table.resizeColumnsToContents()


class ModelsView(QWidget):
    """Models: index, class, inferred LOD table and distances, raw bytes of model and bounding volume."""

    COLUMNS = ("Index", "Offset", "Class", "LOD table (inferred)", "Distances m (inferred)",
               "Bounding volume (12 floats)", "Raw bytes")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = _table(self.COLUMNS, "GrassModel objects with their BoundingVolume; select one "
                            "for its raw bytes")
        self.table.setObjectName("grasslib_models")
        self.detail = QPlainTextEdit(readOnly=True)
        self.detail.setObjectName("grasslib_model_detail")
        self.detail.setToolTip("The selected model's settings and raw bytes (132: model 72, bounds 60)")
        note = QLabel("LOD tables and distance triples are decoded by inference from names and values "
                      "(distances read as metres); the remaining settings are shown raw.")
        note.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(note)
        layout.addWidget(split)
        self.library: GrassLibrary | None = None
        self.table.currentCellChanged.connect(lambda row, *_: self._show(row))

    def set_library(self, lib: GrassLibrary | None) -> None:
        self.library = lib
        n = lib.model_count if lib else 0
        self.table.setRowCount(n)
        for i in range(n):
            f = model_fields(lib, i)
            raw = f["raw_hex"]
            cells = [_item(i), _item(f["offset"]), _item(f["class"], f"bounds: {f['bounds_class']}"),
                     _item(" ".join(f"{v:02x}" for v in f["lod_table_inferred"]), "inferred"),
                     _item(" / ".join("–" if v is None else f"{v:g}" for v in f["distances_m_inferred"]),
                           "inferred: metres"),
                     _item(", ".join("–" if v is None else f"{v:.3g}" for v in f["bounds_floats"])),
                     _item(raw[:47] + " …", raw)]
            for col, item in enumerate(cells):
                self.table.setItem(i, col, item)
        self.table.resizeColumnsToContents()
        self.detail.clear()

    def _show(self, row: int) -> None:
        if self.library is None or not 0 <= row < self.library.model_count:
            self.detail.clear()
            return
        f = model_fields(self.library, row)
        raw = self.library.models[row].tobytes()
        self.detail.setPlainText(
            f"model {row} at offset {f['offset']}: {f['class']}, identity {f['identity']}\n"
            f"bounding volume: {f['bounds_class']}\n"
            f"LOD table (inferred): {f['lod_table_inferred']}\n"
            f"distances, m (inferred): {f['distances_m_inferred']}\n"
            f"settings (43 bytes, not decoded): {f['settings_hex']}\n\nraw bytes:\n{_hex_lines(raw)}")


class GroupsView(QWidget):
    """Groups on the left; the selected group's rules on the right."""

    GROUP_COLUMNS = ("Group", "Offset", "Class", "Unnamed byte", "Rules", "Missing models")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.groups = _table(self.GROUP_COLUMNS, "Groups of rules (framing is a working hypothesis)")
        self.groups.setObjectName("grasslib_groups")
        self.rules = _table(RULE_COLUMNS, "The selected group's rules; red rows name a model the library "
                            "does not have")
        self.rules.setObjectName("grasslib_rules")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.groups)
        split.addWidget(self.rules)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)
        self.library: GrassLibrary | None = None
        self.groups.currentCellChanged.connect(lambda row, *_: self.show_group(row))

    def set_library(self, lib: GrassLibrary | None) -> None:
        self.library = lib
        groups = lib.groups if lib else []
        self.groups.setRowCount(len(groups))
        for i, g in enumerate(groups):
            missing = int(np.count_nonzero(g.rules["model"] >= lib.model_count))
            cells = [_item(i), _item(g.offset), _item(describe_class(g.class_id)), _item(g.flag),
                     _item(len(g.rules)), _item(missing or "", "rules naming models beyond the library"
                                                if missing else "")]
            for col, item in enumerate(cells):
                if missing:
                    item.setBackground(MISSING_BRUSH)
                self.groups.setItem(i, col, item)
        self.groups.resizeColumnsToContents()
        self.rules.setRowCount(0)

    def show_group(self, index: int) -> None:
        """Show group `index`'s rules (and select it in the list)."""
        if self.library is None or not 0 <= index < len(self.library.groups):
            self.rules.setRowCount(0)
            return
        if self.groups.currentRow() != index:
            self.groups.setCurrentCell(index, 0)
        fill_rules(self.rules, self.library.groups[index].rules, self.library.model_count)


class MaterialTableView(QWidget):
    """The 256-entry material → group table as a 16 × 16 grid (row = high nibble)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.grid = QTableWidget(16, 16)
        self.grid.setObjectName("grasslib_table")
        self.grid.setToolTip("Material byte → group; – is 0xFF (no group). Row: high hex digit, column: low")
        labels = [f"{i:X}" for i in range(16)]
        self.grid.setHorizontalHeaderLabels(labels)
        self.grid.setVerticalHeaderLabels([f"{x}_" for x in labels])
        self.grid.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.grid)

    def set_library(self, lib: GrassLibrary | None) -> None:
        table = lib.table if lib else np.full(256, 0xFF, np.uint8)
        for m in range(256):
            g = int(table[m])
            tip = f"material 0x{m:02X} ({m}) → " + ("no group (0xFF)" if g == 0xFF else f"group {g}")
            if lib and g != 0xFF and g >= len(lib.groups):
                tip += f" — not in the library ({len(lib.groups)} groups)"
            item = _item("–" if g == 0xFF else g, tip)
            if g != 0xFF:
                item.setBackground(QBrush(QColor(200, 235, 200)))
            self.grid.setItem(m // 16, m % 16, item)
        n_none = int(np.count_nonzero(table == 0xFF))
        self.summary.setText(f"{256 - n_none} of 256 materials map to a group; {n_none} to none (0xFF)")

    def cell_text(self, material: int) -> str:
        return self.grid.item(material // 16, material % 16).text()
