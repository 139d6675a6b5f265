"""Small editors the foliage type form and its lists share: compact spin boxes and combo boxes,
and the mesh choice (a built-in mesh, or a file made relative to the scene's folder)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFileDialog, QTableWidget, QWidget

from model.foliage.foliage_type import BUILTIN_MESHES

BUILTIN_NAMES = [f"builtin:{m}" for m in BUILTIN_MESHES]
MESH_FILTER = "Meshes (*.obj *.gltf *.glb)"


def spin(low: float, high: float, step: float, decimals: int = 2, suffix: str = "",
         tip: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    box.setSuffix(suffix)
    box.setKeyboardTracking(False)  # typing "35" is one edit, not "3" then "35"
    box.setToolTip(tip)
    # the size hint fits the largest value of the range (a million, with decimals), which would
    # make the form wider than its dock; a few digits is what values really take
    box.setMinimumWidth(60)
    return box


def fit_rows(table: QTableWidget, most: int) -> None:
    """Make `table` as tall as its rows (up to `most`): in the form's scroll area a table would
    otherwise be squeezed to two rows and scroll on its own."""
    shown = min(table.rowCount(), most)
    height = table.horizontalHeader().height() if table.horizontalHeader().isVisible() else 0
    height += sum(table.rowHeight(i) for i in range(shown))
    height += table.verticalHeader().defaultSectionSize() * (1 - min(shown, 1))  # an empty table: one row
    table.setFixedHeight(height + 2 * table.frameWidth())


def compact(combo: QComboBox) -> QComboBox:
    """A combo box sized by a short name, not by its longest entry."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(8)
    return combo


def ask_mesh_file(parent: QWidget | None, folder) -> str | None:
    """The mesh file the user picks (absolute path), or None."""
    start = str(folder) if folder is not None else ""
    path, _ = QFileDialog.getOpenFileName(parent, "Choose Mesh", start, MESH_FILTER)
    return path or None


def relative_mesh_path(path: str | Path, folder) -> tuple[str | None, str | None]:
    """(`path` relative to the scene's `folder`, None), or (None, why it cannot be): a type's mesh
    path is relative to the scene and may not leave its folder."""
    if folder is None:
        return None, "save the scene first: a mesh file path is relative to the scene's folder"
    try:
        return Path(path).resolve().relative_to(Path(folder).resolve()).as_posix(), None
    except ValueError:
        return None, (f"{path} lies outside the scene's folder {folder}: a mesh file must be inside it "
                      "(Copy into the scene's folder takes a copy)")


class DeleteKey(QObject):
    """Event filter: Delete in the watched widget calls `remove` (the widget takes the key from
    window shortcuts such as Delete Selection while it has the focus)."""

    def __init__(self, widget: QWidget, remove) -> None:
        super().__init__(widget)
        self.remove = remove
        widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt's name
        kind = event.type()
        if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and event.key() == Qt.Key.Key_Delete:
            event.accept()
            if kind == QEvent.Type.KeyPress:
                self.remove()
            return True
        return False
