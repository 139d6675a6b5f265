"""Grass library browser: models, groups and rules, the material table, picker preview, derived grass."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model.errors import FormatError
from model.grasslib import GrassLibrary, read_library
from model.grasslib.derived import merge_into_palette
from model.grasslib.library import TAIL_SIZE
from model.grasslib.reader import hypothesis as framing
from widgets.grasslib_derived import DerivedGrassPanel
from widgets.grasslib_picker import PickerPanel
from widgets.grasslib_tables import GroupsView, MaterialTableView, ModelsView

NAME_FILTER = "Grass pattern libraries (*.grasslib *.lib *.bin *.dat);;All files (*)"


class GrassLibraryBrowser(QWidget):
    """Open a grass pattern library and inspect it; nothing here edits the file."""

    libraryChanged = Signal(object)  # GrassLibrary or None

    def __init__(self, main_window: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("grasslib_browser")
        self.main_window = main_window
        self.library: GrassLibrary | None = None
        self.path: Path | None = None
        self.last_error: str | None = None

        self.open_button = QPushButton("Open library…")
        self.open_button.setToolTip("Open a grass pattern library (Ctrl+O while this window has focus)")
        self.open_button.clicked.connect(self.open_dialog)
        shortcut = QShortcut(QKeySequence.StandardKey.Open, self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.open_dialog)
        self.summary = QLabel("No library open.", objectName="grasslib_summary", wordWrap=True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        top.addWidget(self.open_button)
        top.addWidget(self.summary, 1)
        hypothesis = QLabel(f"Read by Boscage's {framing(TAIL_SIZE)}; every byte it cannot name is kept "
                            "and shown raw.", wordWrap=True)
        hypothesis.setStyleSheet("color: palette(mid);")

        self.models = ModelsView()
        self.groups = GroupsView()
        self.table = MaterialTableView()
        self.picker = PickerPanel()
        self.derived = DerivedGrassPanel()
        self.tabs = QTabWidget(objectName="grasslib_tabs")
        for widget, title, tip in (
            (self.models, "Models", "GrassModel objects, bounding volumes, inferred LOD tables"),
            (self.groups, "Groups && rules", "Groups and their GrassPatternElement rules"),
            (self.table, "Material table", "The 256-entry material → group table"),
            (self.picker, "Picker", "Which group, weight and rules a terrain node reaches"),
            (self.derived, "Derived grass", "Rules as derived grass types (Boscage's own mapping)"),
        ):
            self.tabs.setTabToolTip(self.tabs.addTab(widget, title), tip)
        self.picker.deriveRequested.connect(self._derive_from_pick)
        self.derived.typesDerived.connect(self._send_to_viewport)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(hypothesis)
        layout.addWidget(self.tabs)

    # ---- opening ------------------------------------------------------------------------
    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open grass pattern library", "", NAME_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, tail_size: int | None = TAIL_SIZE) -> bool:
        """Read and show a library; a bad file is reported and the open one stays as it was.

        `tail_size=None` takes whatever follows the last group as the tail (see the error dialog's
        "Read with any tail size" button).
        """
        path = Path(path)
        try:
            lib = read_library(path, tail_size)
        except FormatError as e:
            self.show_error(str(e), retry=(lambda: self.open_path(path, None)) if tail_size else None)
            return False
        self.path = path
        self.set_library(lib)
        return True

    def set_library(self, lib: GrassLibrary | None) -> None:
        self.library = lib
        self.last_error = None
        for view in (self.models, self.groups, self.table, self.picker, self.derived):
            view.set_library(lib)
        self.summary.setText(self._summary_text())
        self.libraryChanged.emit(lib)

    def _summary_text(self) -> str:
        lib = self.library
        if lib is None:
            return "No library open."
        sizes = ", ".join(f"{n}×{k}" for k, n in lib.group_size_histogram().items())
        missing = len(lib.missing_model_rules())
        text = (f"{self.path.name if self.path else '(in memory)'}: {lib.size()} bytes — "
                f"{lib.model_count} models, {len(lib.groups)} groups ({sizes or 'none'} rules), "
                f"{lib.rule_count} rules, tail {len(lib.tail_raw) + 256} bytes")
        if missing:
            text += f" — {missing} rule(s) name models beyond the {lib.model_count}"
        if lib.notes:
            text += "\n" + "\n".join(lib.notes)
        return text

    def show_error(self, message: str, retry: Callable[[], object] | None = None) -> None:
        """Say what is wrong, naming file and offset; the dialog does not block.

        With `retry`, the dialog offers to read the file again taking any tail after the groups.
        """
        self.last_error = message
        box = QMessageBox(QMessageBox.Icon.Critical, "Cannot read grass pattern library", message,
                          QMessageBox.StandardButton.Ok, self)
        box.setObjectName("grasslib_error")
        if retry is not None:
            again = box.addButton("Read with any tail size", QMessageBox.ButtonRole.AcceptRole)
            again.setToolTip(f"Take whatever follows the last group as the tail (the examined library's "
                             f"is {TAIL_SIZE} bytes); the table is still its last 256 bytes")
            again.clicked.connect(retry)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    # ---- cross-panel --------------------------------------------------------------------
    def _derive_from_pick(self, group: int, weight: int) -> None:
        self.derived.show_group(group, weight)
        self.tabs.setCurrentWidget(self.derived)

    def _send_to_viewport(self, types: list) -> None:
        """Hand derived FoliageTypes to the editor: its own hook if it has one, else the scene's palette."""
        take = getattr(self.main_window, "add_derived_foliage_types", None)
        if callable(take):
            take(types)
            return
        scene = getattr(getattr(self.main_window, "document", None), "scene", None)
        if scene is None:
            self.derived.notes.setText("No editor scene to add the derived grass to; export it instead.")
            return
        from model.foliage.section import foliage_of

        added, replaced = merge_into_palette(foliage_of(scene).palette, types)
        self.derived.notes.setText(f"Added {len(added)} and updated {len(replaced)} derived grass type(s) "
                                   "in the scene's palette.")
