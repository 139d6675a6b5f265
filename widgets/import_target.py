"""Big imports in the editor: the scene file they are written to first, and their progress.

A terrain of more than `LARGE_IMPORT_CELLS` samples is not built in memory: the importer asks
where to save the scene, writes it there tile by tile (with a progress dialog whose Cancel
removes what was written) and the editor opens the written scene paged.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from model.formats.scene_file import NAME_FILTER
from widgets.progress import ModalProgress

LARGE_IMPORT_CELLS = 2049 * 2049  # beyond 4 M samples (16 MiB of heights) an import is written first


def is_large(rows: int, columns: int) -> bool:
    return rows * columns > LARGE_IMPORT_CELLS


def ask_scene_path(parent: QWidget | None, title: str, suggested: str | Path) -> Path | None:
    """Where to write a big import (it opens from there); None if the user cancels."""
    path, _ = QFileDialog.getSaveFileName(parent, title, str(suggested), NAME_FILTER)
    if not path:
        return None
    return Path(path if path.endswith(".boscage") else path + ".boscage")


class TileProgress(ModalProgress):
    """A modal progress dialog with Cancel, as the tile writers' `progress(done, total, what)`."""

    def __init__(self, parent: QWidget | None, label: str) -> None:
        super().__init__(parent, label)
        self.label = label

    def __call__(self, done: int, total: int, what: str) -> bool:
        self.dialog.setLabelText(f"{self.label}: {what}, {done:,} of {total:,} tiles")
        self.step(done / total if total else 1.0)
        return not self.cancelled()
