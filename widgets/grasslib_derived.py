"""Derived grass panel: a group's rules as derived foliage types, by Boscage's own stated mapping."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from model.atomic import atomic_write_text
from model.grasslib import MAPPING_NOTE, DerivedGrass, GrassLibrary, derive_group, vxfoliage_text
from model.grasslib.derived import FULL_WEIGHT, foliage_types
from model.grasslib.derived import __doc__ as MAPPING_DOC

COLUMNS = ("Name", "Rule", "Density /100 m²", "Tilt °", "Scale")


def file_name(type_name: str) -> str:
    """A safe file name for a derived type."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", type_name).strip("_") + ".vxfoliage"


class DerivedGrassPanel(QWidget):
    """Pick a group and a weight; see and export the derived grass types."""

    typesDerived = Signal(list)  # list of derived FoliageType objects for the viewport's grass

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library: GrassLibrary | None = None
        self.derived: DerivedGrass | None = None
        self.note = QLabel(f"<b>{MAPPING_NOTE}</b>", objectName="derived_mapping_note", wordWrap=True)
        self.note.setToolTip(MAPPING_DOC.strip())
        self.group = QSpinBox(objectName="derived_group")
        self.group.setToolTip("The group whose rules become derived grass types")
        self.weight = QSpinBox(objectName="derived_weight")
        self.weight.setRange(0, FULL_WEIGHT)
        self.weight.setValue(FULL_WEIGHT)
        self.weight.setToolTip("Block-4 weight (0..127): scales density; 0 disables the group")
        form = QFormLayout()
        form.addRow("Group", self.group)
        form.addRow("Weight", self.weight)
        self.table = QTableWidget(0, len(COLUMNS), objectName="derived_types")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setToolTip("One derived (never stored) grass type per rule naming an existing model")
        self.notes = QLabel(objectName="derived_notes", wordWrap=True)
        self.preview = QPlainTextEdit(readOnly=True, objectName="derived_preview")
        self.preview.setToolTip("The selected type as a .vxfoliage file")
        self.export_button = QPushButton("Export .vxfoliage…")
        self.export_button.setToolTip("Write one .vxfoliage file per derived type into a folder")
        self.export_button.clicked.connect(self._ask_export)
        self.use_button = QPushButton("Use in viewport grass")
        self.use_button.setToolTip("Hand these derived types to the editor's GPU grass")
        self.use_button.clicked.connect(self._use)
        buttons = QHBoxLayout()
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.use_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addLayout(form)
        layout.addWidget(self.table)
        layout.addWidget(self.notes)
        layout.addWidget(self.preview)
        layout.addLayout(buttons)
        self.group.valueChanged.connect(self.refresh)
        self.weight.valueChanged.connect(self.refresh)
        self.table.currentCellChanged.connect(lambda row, *_: self._preview(row))
        self.set_library(None)

    def set_library(self, lib: GrassLibrary | None) -> None:
        self.library = lib
        self.group.blockSignals(True)
        self.group.setRange(0, max(len(lib.groups) - 1, 0) if lib else 0)
        self.group.blockSignals(False)
        self.refresh()

    def show_group(self, group: int, weight: int = FULL_WEIGHT) -> None:
        for spin, v in ((self.group, group), (self.weight, weight)):
            spin.blockSignals(True)
            spin.setValue(v)
            spin.blockSignals(False)
        self.refresh()

    def refresh(self) -> None:
        lib = self.library
        self.derived = None
        if lib is None or not lib.groups:
            self.table.setRowCount(0)
            self.notes.setText("Open a library with groups to derive grass.")
            self.preview.clear()
            self._enable(False)
            return
        self.derived = d = derive_group(lib, self.group.value(), self.weight.value())
        self.table.setRowCount(len(d.types))
        for row, (doc, k) in enumerate(zip(d.types, d.rule_indices, strict=True)):
            cells = (doc["name"], str(k), f"{doc['density']:g}", f"{doc['tilt'][0]:g} – {doc['tilt'][1]:g}",
                     f"{doc['scale'][0]:g} – {doc['scale'][1]:g}")
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, col, item)
        self.table.resizeColumnsToContents()
        empty = "" if d.types else "This group gives no derived grass. "
        self.notes.setText(empty + "\n".join(d.notes))
        self._enable(bool(d.types))
        if d.types:
            self.table.setCurrentCell(0, 0)
            self._preview(0)
        else:
            self.preview.clear()

    def _enable(self, on: bool) -> None:
        self.export_button.setEnabled(on)
        self.use_button.setEnabled(on)

    def _preview(self, row: int) -> None:
        if self.derived and 0 <= row < len(self.derived.types):
            self.preview.setPlainText(vxfoliage_text(self.derived.types[row]))

    def _use(self) -> None:
        if self.derived and self.derived.types:
            self.typesDerived.emit(foliage_types(self.derived))

    def _ask_export(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export derived grass types to")
        if folder:
            written = self.export_to(folder)
            self.notes.setText(f"Wrote {len(written)} file(s) to {folder}")

    def export_to(self, folder: str | Path) -> list[Path]:
        """Write each derived type as a .vxfoliage file (atomically); returns the paths."""
        if not self.derived:
            return []
        folder = Path(folder)
        paths = []
        for doc in self.derived.types:
            path = folder / file_name(doc["name"])
            atomic_write_text(path, vxfoliage_text(doc))
            paths.append(path)
        return paths
