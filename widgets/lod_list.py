"""The levels of detail of a foliage type: from which distance each coarser level draws, and
its mesh. A built-in mesh's generated levels are shown (greyed) until one is edited, which
makes the list the type's own; **Generated** gives them back. The list only asks:
`edited(lods, key, text, merge)` carries each change (lods None: the generated levels)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from model.foliage.foliage_type import MAX_LODS, FoliageType, Lod
from model.foliage.lods import GENERATED_AT, level_starts
from widgets.form_fields import (
    BUILTIN_NAMES,
    DeleteKey,
    ask_mesh_file,
    compact,
    fit_rows,
    relative_mesh_path,
    spin,
)
from widgets.variant_list import button

GENERATED = "(generated)"


def generated_levels(ftype: FoliageType) -> tuple[Lod, ...]:
    """The levels a type without `lods` gets, as an explicit list (the same distances)."""
    return tuple(Lod(d) for d, _ in level_starts(replace(ftype, lods=None)))


def increase_problem(lods: tuple[Lod, ...]) -> str | None:
    """Why the switch distances do not increase level by level, or None."""
    for i in range(1, len(lods)):
        if lods[i].distance <= lods[i - 1].distance:
            return (f"level {i + 1} starts at {lods[i].distance:g} m: switch distances must increase "
                    f"(level {i} starts at {lods[i - 1].distance:g} m)")
    return None


class LodList(QWidget):
    """A table of (from, mesh) per coarser level, with Add / Remove / Generated and an editor for
    the selected level."""

    edited = Signal(object, str, str, bool)  # lods (None: generated), key, undo text, merge
    refused = Signal(str)
    outside = Signal(str, object)  # a chosen file outside the scene's folder, and what to do with its copy

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = None
        self.choose_file: Callable[[], str | None] = lambda: ask_mesh_file(self, self.folder)
        self.ftype: FoliageType | None = None
        self._loading = False
        self._pending_row = -1  # the row to select once an added level is shown
        self.table = QTableWidget(0, 2, self)
        self.table.setObjectName("lod_table")
        self.table.setHorizontalHeaderLabels(["From", "Mesh"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumWidth(120)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long path keeps its file name
        self._delete_key = DeleteKey(self.table, lambda: self.remove_current())
        self.table.setToolTip("Coarser levels after the mesh itself: each instance takes its level from "
                              "its own distance, neighbours hand over with a dither")
        self.add = button("Add", f"Add a coarser level beyond the last (at most {MAX_LODS})", "lod_add")
        self.remove = button("Remove", "Remove the selected level (Delete; none left: the mesh at "
                             "every distance)", "lod_remove")
        self.reset = button("Generated", "Back to the generated levels of a built-in mesh (from "
                            f"{', '.join(f'{s:.0%}' for s in GENERATED_AT)} of the cull start)",
                            "lod_generated")
        self.distance = spin(0.0, 1e6, 5.0, 1, " m", "Distance from which the selected level is drawn "
                             "(each level farther than the one before)")
        self.mesh = compact(QComboBox())
        self.mesh.setEditable(True)
        self.mesh.addItems([GENERATED, *BUILTIN_NAMES])
        self.mesh.setToolTip("The selected level's mesh: (generated) simplifies a built-in mesh (a file "
                             "mesh draws itself), or name a built-in or an OBJ/glTF file")
        self.browse = button("…", "Choose a mesh file for the selected level", "lod_browse")
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: palette(mid)")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.table, 0, 0, 1, 4)
        grid.addWidget(self.note, 1, 0, 1, 4)
        grid.addWidget(self.add, 2, 0)
        grid.addWidget(self.remove, 2, 1)
        grid.addWidget(self.reset, 2, 2, 1, 2)
        grid.addWidget(QLabel("From"), 3, 0)
        grid.addWidget(self.distance, 3, 1, 1, 3)
        grid.addWidget(self.mesh, 4, 0, 1, 3)
        grid.addWidget(self.browse, 4, 3)
        self.table.currentCellChanged.connect(lambda *_: self._show_row())
        self.add.clicked.connect(self.add_level)
        self.remove.clicked.connect(self.remove_current)
        self.reset.clicked.connect(self.use_generated)
        self.distance.valueChanged.connect(lambda *_: self._distance_changed())
        self.mesh.activated.connect(lambda *_: self._mesh_chosen())
        self.mesh.lineEdit().editingFinished.connect(self._mesh_chosen)
        self.browse.clicked.connect(self._browse)

    # ---- showing ------------------------------------------------------------------------------
    @property
    def generated(self) -> bool:
        return self.ftype is not None and self.ftype.lods is None

    def levels(self) -> tuple[Lod, ...]:
        """The levels shown: the type's own, or the generated ones."""
        if self.ftype is None:
            return ()
        return self.ftype.lods if self.ftype.lods is not None else generated_levels(self.ftype)

    def set_type(self, ftype: FoliageType, folder=None) -> None:
        self._loading = True
        try:
            row = self._pending_row if self._pending_row >= 0 else self.table.currentRow()
            self._pending_row = -1
            self.ftype, self.folder = ftype, folder
            levels = self.levels()
            builtin = all(m.startswith("builtin:") for m in ftype.meshes)
            self.table.setRowCount(len(levels))
            grey = QBrush(QColor(128, 128, 128))
            italic = QFont()
            italic.setItalic(True)
            for i, lv in enumerate(levels):
                mesh = self._mesh_text(lv, ftype, builtin)
                for col, text in enumerate((f"{lv.distance:g} m", mesh.removeprefix("builtin:"))):
                    item = QTableWidgetItem(text)
                    if self.generated:
                        item.setForeground(grey)
                        item.setFont(italic)
                    self.table.setItem(i, col, item)
            if levels:
                self.table.setCurrentCell(min(max(row, 0), len(levels) - 1), 0)
            fit_rows(self.table, MAX_LODS)
            self.note.setText(self._note(ftype, levels))
            self.note.setVisible(bool(self.note.text()))
            self.add.setEnabled(len(levels) < MAX_LODS)
            self.reset.setEnabled(ftype.lods is not None)
            self._show_row()
        finally:
            self._loading = False

    @staticmethod
    def _mesh_text(lv: Lod, ftype: FoliageType, builtin: bool) -> str:
        if len(ftype.meshes) > 1:
            return "each variant's"  # a named level mesh applies to a type with one mesh
        if lv.mesh is not None:
            return lv.mesh
        return "generated" if builtin else "same mesh"

    @staticmethod
    def _note(ftype: FoliageType, levels: tuple[Lod, ...]) -> str:
        if not levels:
            return "No coarser level: the mesh is drawn at every distance."
        notes = []
        if ftype.lods is None:
            notes.append("Generated levels; edit one to set your own.")
        late = [i + 1 for i, lv in enumerate(levels) if lv.distance >= ftype.cull[0]]
        if late:
            notes.append(f"Level {', '.join(map(str, late))} starts past the cull start "
                         f"({ftype.cull[0]:g} m): never drawn.")
        if len(ftype.meshes) > 1 and any(lv.mesh for lv in levels):
            notes.append("With variants each variant uses its own levels; level meshes apply to a "
                         "type with one mesh.")
        return " ".join(notes)

    def current(self) -> int:
        row = self.table.currentRow()
        return row if 0 <= row < len(self.levels()) else -1

    def _show_row(self) -> None:
        loading, self._loading = self._loading, True
        try:
            i = self.current()
            levels = self.levels()
            one_mesh = self.ftype is not None and len(self.ftype.meshes) == 1
            for w in (self.distance, self.remove):
                w.setEnabled(i >= 0)
            for w in (self.mesh, self.browse):
                w.setEnabled(i >= 0 and one_mesh)
            if i >= 0:
                self.distance.setValue(levels[i].distance)
                self.mesh.setCurrentText(levels[i].mesh or GENERATED)
        finally:
            self._loading = loading

    # ---- editing ------------------------------------------------------------------------------
    def _emit(self, lods, key: str, text: str, merge: bool) -> None:
        if self._loading or self.ftype is None:
            return
        lods = None if lods is None else tuple(lods)
        if lods is not None:
            why = increase_problem(lods)
            if why is not None:
                self._pending_row = -1
                self.refused.emit(why)
                return
        self.edited.emit(lods, key, text, merge)
        self._pending_row = -1  # taken by the shown answer, or the edit was refused

    def _replace(self, i: int, lod: Lod, key: str, text: str, merge: bool) -> None:
        levels = self.levels()
        if lod != levels[i] or self.generated:
            self._emit(levels[:i] + (lod,) + levels[i + 1:], key, text, merge)

    def add_level(self) -> None:
        levels = self.levels()
        if len(levels) >= MAX_LODS:
            self.refused.emit(f"lods: at most {MAX_LODS} coarser levels")
            return
        d = max(levels[-1].distance * 1.5, levels[-1].distance + 10.0) if levels else \
            float(self.ftype.cull[0]) * GENERATED_AT[0]
        self._pending_row = len(levels)
        self._emit((*levels, Lod(round(d, 1))), "lods", "Add a level of detail to '{type}'", False)

    def remove_current(self) -> None:
        i = self.current()
        if i >= 0:
            levels = self.levels()
            self._emit(levels[:i] + levels[i + 1:], "lods", f"Remove level {i + 1} of '{{type}}'", False)

    def use_generated(self) -> None:
        if self.ftype is not None and self.ftype.lods is not None:
            self._emit(None, "lods", "Generated levels of detail for '{type}'", False)

    def _distance_changed(self) -> None:
        i = self.current()
        if i >= 0 and not self._loading:
            lv = self.levels()[i]
            if self.distance.value() != lv.distance:
                self._replace(i, Lod(self.distance.value(), lv.mesh), f"level {i + 1} distance", "", True)

    def _mesh_chosen(self, mesh: str | None = None) -> None:
        i = self.current()
        if i < 0 or self._loading:
            return
        text = (mesh if mesh is not None else self.mesh.currentText()).strip()
        chosen = None if text in ("", GENERATED) else text
        lv = self.levels()[i]
        if chosen != lv.mesh:
            self._replace(i, Lod(lv.distance, chosen), f"level {i + 1} mesh",
                          f"Set level {i + 1} of '{{type}}' to {chosen or 'the generated mesh'}", False)

    def _browse(self) -> None:
        if self.current() < 0:
            return
        path = self.choose_file()
        if not path:
            return
        mesh, why = relative_mesh_path(path, self.folder)
        if why is not None:
            self.refused.emit(f"lods: {why}")
            if self.folder is not None:
                self.outside.emit(path, self._mesh_chosen)
            return
        self._mesh_chosen(mesh)
