"""The variants of a foliage type: meshes with weights, shown with each one's share of the
instances. The list only asks: `edited(variants, key, text, merge)` carries each change."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QWidget,
)

from model.foliage.foliage_type import MAX_VARIANTS, Variant
from widgets.form_fields import (
    BUILTIN_NAMES,
    DeleteKey,
    ask_mesh_file,
    compact,
    fit_rows,
    relative_mesh_path,
    spin,
)

FILE_ITEM = "Mesh File…"


def shares(weights) -> list[float]:
    """Each weight's share of the instances, in percent."""
    total = float(sum(weights))
    return [100.0 * w / total if total > 0 else 0.0 for w in weights]


def share_text(percent: float) -> str:
    return f"{percent:.1f} %" if percent < 10 else f"{percent:.0f} %"


def button(text: str, tip: str, name: str) -> QToolButton:
    b = QToolButton()
    b.setText(text)
    b.setToolTip(tip)
    b.setObjectName(name)
    return b


class VariantList(QWidget):
    """A table of (mesh, weight, share) with Add ▾ / Remove / ↑ / ↓ and an editor for the
    selected row. Empty: every instance draws the type's own mesh."""

    edited = Signal(object, str, str, bool)  # variants, key, undo text, whether steps may merge
    refused = Signal(str)
    outside = Signal(str, object)  # a chosen file outside the scene's folder, and what to do with its copy

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = None  # where mesh file paths resolve (the scene's folder)
        self.choose_file: Callable[[], str | None] = lambda: ask_mesh_file(self, self.folder)
        self._variants: tuple[Variant, ...] = ()
        self._mesh = "builtin:conifer"
        self._loading = False
        self._pending_row = -1  # the row to select once an added variant is shown
        self.table = QTableWidget(0, 3, self)
        self.table.setObjectName("variant_table")
        self.table.setHorizontalHeaderLabels(["Mesh", "Weight", "Share"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumWidth(120)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long path keeps its file name
        self._delete_key = DeleteKey(self.table, lambda: self.remove_current())
        self.table.setToolTip("Each instance draws one of these meshes, chosen from the hash of its "
                              "position with probability weight ÷ total (never stored: the look "
                              "survives save, undo and export)")
        self.add = button("Add", "Add a variant mesh: a built-in one or an OBJ/glTF file", "variant_add")
        self.add.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add)
        for name in (*BUILTIN_NAMES, FILE_ITEM):
            action = QAction(name, menu)
            action.triggered.connect(lambda checked=False, n=name: self.add_mesh(n))
            menu.addAction(action)
        self.add.setMenu(menu)
        self.remove = button("Remove", "Remove the selected variant (Delete; one left: the type has "
                             "one mesh)", "variant_remove")
        self.up = button("↑", "Move the selected variant up", "variant_up")
        self.down = button("↓", "Move the selected variant down", "variant_down")
        self.mesh = compact(QComboBox())
        self.mesh.setEditable(True)
        self.mesh.addItems(BUILTIN_NAMES)
        self.mesh.setToolTip("The selected variant's mesh: built-in, or an OBJ/glTF path relative to the "
                             "scene's folder")
        self.browse = button("…", "Choose a mesh file for the selected variant", "variant_browse")
        self.weight = spin(0.0, 1e6, 0.5, 2, "", "The selected variant's weight (> 0): its share is "
                           "weight ÷ the sum of the weights")
        self.note = QLabel("One mesh (Mesh above). Add meshes to mix them.")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: palette(mid)")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.table, 0, 0, 1, 4)
        grid.addWidget(self.note, 1, 0, 1, 4)
        grid.addWidget(self.add, 2, 0)
        grid.addWidget(self.remove, 2, 1)
        grid.addWidget(self.up, 2, 2)
        grid.addWidget(self.down, 2, 3)
        grid.addWidget(self.mesh, 3, 0, 1, 3)
        grid.addWidget(self.browse, 3, 3)
        self.weight_label = QLabel("Weight")
        grid.addWidget(self.weight_label, 4, 0)
        grid.addWidget(self.weight, 4, 1, 1, 3)
        self.table.currentCellChanged.connect(lambda *_: self._show_row())
        self.remove.clicked.connect(self.remove_current)
        self.up.clicked.connect(lambda: self.move_current(-1))
        self.down.clicked.connect(lambda: self.move_current(1))
        self.mesh.activated.connect(lambda *_: self._mesh_chosen())
        self.mesh.lineEdit().editingFinished.connect(self._mesh_chosen)
        self.browse.clicked.connect(self._browse)
        self.weight.valueChanged.connect(lambda *_: self._weight_changed())

    # ---- showing ------------------------------------------------------------------------------
    def set_variants(self, variants: tuple[Variant, ...], mesh: str, folder=None) -> None:
        """Show `variants` (of a type whose own mesh is `mesh`), keeping the selected row."""
        self._loading = True
        try:
            row = self._pending_row if self._pending_row >= 0 else self.table.currentRow()
            self._pending_row = -1
            self._variants, self._mesh, self.folder = tuple(variants), mesh, folder
            self.table.setRowCount(len(self._variants))
            for i, (v, share) in enumerate(zip(self._variants, shares(self.weights()), strict=True)):
                for col, text in enumerate((v.mesh.removeprefix("builtin:"), f"{v.weight:g}",
                                            share_text(share))):
                    item = QTableWidgetItem(text)
                    item.setToolTip(f"{v.mesh}: weight {v.weight:g}, {share_text(share)} of the instances")
                    if col:
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    self.table.setItem(i, col, item)
            if self._variants:
                self.table.setCurrentCell(min(max(row, 0), len(self._variants) - 1), 0)
            fit_rows(self.table, MAX_VARIANTS)
            self.table.setVisible(bool(self._variants))
            self.note.setVisible(not self._variants)
            for w in (self.remove, self.up, self.down, self.mesh, self.browse, self.weight,
                      self.weight_label):
                w.setVisible(bool(self._variants))  # nothing to edit until there are two meshes
            self.add.setEnabled(len(self._variants) < MAX_VARIANTS)
            self._show_row()
        finally:
            self._loading = False

    def variants(self) -> tuple[Variant, ...]:
        return self._variants

    def weights(self) -> list[float]:
        return [v.weight for v in self._variants]

    def share_texts(self) -> list[str]:
        return [self.table.item(i, 2).text() for i in range(self.table.rowCount())]

    def current(self) -> int:
        row = self.table.currentRow()
        return row if 0 <= row < len(self._variants) else -1

    def _show_row(self) -> None:
        loading, self._loading = self._loading, True
        try:
            i = self.current()
            for w in (self.mesh, self.browse, self.weight, self.remove):
                w.setEnabled(i >= 0)
            self.up.setEnabled(i > 0)
            self.down.setEnabled(0 <= i < len(self._variants) - 1)
            if i >= 0:
                self.mesh.setCurrentText(self._variants[i].mesh)
                self.weight.setValue(self._variants[i].weight)
        finally:
            self._loading = loading

    # ---- editing ------------------------------------------------------------------------------
    def _emit(self, variants, key: str, text: str, merge: bool) -> None:
        if not self._loading:
            self.edited.emit(tuple(variants), key, text, merge)
            self._pending_row = -1  # taken by the shown answer, or the edit was refused

    def add_mesh(self, mesh: str) -> None:
        """Add a variant drawing `mesh` (FILE_ITEM: ask for a file); the first added keeps the
        type's own mesh as the first variant."""
        if mesh == FILE_ITEM:
            mesh = self._ask_relative(self.add_mesh)
            if mesh is None:
                return
        base = self._variants or (Variant(self._mesh, 1.0),)
        if len(base) >= MAX_VARIANTS:
            self.refused.emit(f"variants: at most {MAX_VARIANTS} meshes per type")
            return
        self._pending_row = len(base)
        self._emit((*base, Variant(mesh, 1.0)), "variants", f"Add variant {mesh} to '{{type}}'", False)

    def remove_current(self) -> None:
        i = self.current()
        if i >= 0:
            rest = self._variants[:i] + self._variants[i + 1:]
            self._emit(rest, "variants", f"Remove variant {self._variants[i].mesh} from '{{type}}'", False)

    def move_current(self, step: int) -> None:
        i, j = self.current(), self.current() + step
        if i < 0 or not 0 <= j < len(self._variants):
            return
        v = list(self._variants)
        v[i], v[j] = v[j], v[i]
        self.table.setCurrentCell(j, 0)  # the selection follows the moved row
        self._emit(v, "variants", f"Move variant {v[j].mesh} {'up' if step < 0 else 'down'} in '{{type}}'",
                   False)

    def _replace(self, i: int, variant: Variant, key: str, text: str, merge: bool) -> None:
        if variant != self._variants[i]:
            self._emit(self._variants[:i] + (variant,) + self._variants[i + 1:], key, text, merge)

    def _mesh_chosen(self) -> None:
        i = self.current()
        mesh = self.mesh.currentText().strip()
        if i < 0 or self._loading or mesh == self._variants[i].mesh:
            return
        self._replace(i, Variant(mesh, self._variants[i].weight), f"variant {i + 1} mesh",
                      f"Set variant {i + 1} of '{{type}}' to {mesh}", False)

    def _browse(self) -> None:
        i = self.current()
        mesh = self._ask_relative(lambda m: self._set_mesh(i, m)) if i >= 0 else None
        if mesh is not None:
            self._set_mesh(i, mesh)

    def _set_mesh(self, i: int, mesh: str) -> None:
        if 0 <= i < len(self._variants):
            self.mesh.setCurrentText(mesh)
            self._replace(i, Variant(mesh, self._variants[i].weight), f"variant {i + 1} mesh",
                          f"Set variant {i + 1} of '{{type}}' to {mesh}", False)

    def _weight_changed(self) -> None:
        i = self.current()
        if i >= 0 and not self._loading:
            # a weight spin drag is one step: successive values merge
            self._replace(i, Variant(self._variants[i].mesh, self.weight.value()),
                          f"variant {i + 1} weight", "", True)

    def _ask_relative(self, retry: Callable[[str], None]) -> str | None:
        """The chosen file relative to the scene's folder; None when none was chosen or it lies
        outside (refused, with `retry` to run on a copy taken into the folder)."""
        path = self.choose_file()
        if not path:
            return None
        mesh, why = relative_mesh_path(path, self.folder)
        if why is not None:
            self.refused.emit(f"variants: {why}")
            if self.folder is not None:
                self.outside.emit(path, retry)
        return mesh
