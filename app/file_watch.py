"""Watch the open scene's manifest: reload a clean document when another program changes it, ask
before throwing away unsaved work, and ignore the change the editor's own save caused.

The manifest names its side files by checksum, so its bytes fingerprint the whole scene: a
change is real when the manifest's digest differs from the one last read or written here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from model.errors import FormatError

SETTLE_MS = 300  # another program writes side files first, the manifest last: wait for it to settle
RETRY_MS = 1000
MAX_RETRIES = 5


def manifest_digest(path: Path | None) -> str | None:
    """SHA-256 of the manifest's bytes; None when there is no file to read."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def reload_box(parent: QWidget | None, path: Path) -> QMessageBox:
    """The question when the scene changed on disk under unsaved edits: buttons that say what they
    do, keeping the editor's version the default (the one that loses nothing)."""
    box = QMessageBox(QMessageBox.Icon.Question, "Scene changed on disk",
                      f"{path.name} was changed by another program, and the editor has unsaved "
                      "changes.\n\nReload it from disk and lose those changes, or keep your version "
                      "(saving it will overwrite the file)?", QMessageBox.StandardButton.NoButton, parent)
    box.setObjectName("reload_box")
    box.reload_button = box.addButton("Reload from Disk", QMessageBox.ButtonRole.DestructiveRole)
    box.keep_button = box.addButton("Keep My Version", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(box.keep_button)
    box.setEscapeButton(box.keep_button)
    return box


def ask_reload(parent: QWidget | None, path: Path) -> bool:
    """True: reload from disk, dropping the unsaved changes; False: keep the version in the editor."""
    box = reload_box(parent, path)
    box.exec()
    return box.clickedButton() is box.reload_button


class FileWatcher(QObject):
    """Follows `document.path`; `message(str)` says what happened, for the status bar."""

    reloaded = Signal(object)  # the Path read again
    message = Signal(str)

    def __init__(self, document, parent_widget: QWidget | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.parent_widget = parent_widget
        self.ask_reload: Callable[[QWidget | None, Path], bool] = ask_reload  # hook: tests replace it
        self.path: Path | None = None
        self.known: str | None = None  # digest of the manifest as last read or written here
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_event)
        self.watcher.directoryChanged.connect(self._on_event)
        self.settle = QTimer(self)
        self.settle.setSingleShot(True)
        self.settle.setInterval(SETTLE_MS)
        self.settle.timeout.connect(self.check)
        self.retry = QTimer(self)
        self.retry.setSingleShot(True)
        self.retry.setInterval(RETRY_MS)
        self.retry.timeout.connect(self.reload)
        self._retries = 0
        document.scene_replaced.connect(lambda scene: self.watch(scene.path))
        document.saved.connect(self.watch)  # our own write becomes the known version
        self.watch(document.path)

    def watch(self, path: Path | str | None) -> None:
        """Follow `path` (None: nothing), taking its current contents as the known version."""
        old = self.watcher.files() + self.watcher.directories()
        if old:
            self.watcher.removePaths(old)
        self.settle.stop()
        self.retry.stop()
        self._retries = 0
        self.path = Path(path) if path is not None else None
        self.known = manifest_digest(self.path)
        if self.path is not None:
            self._add_paths()

    def _add_paths(self) -> None:
        # The directory too: an atomic save replaces the file, and the old one's watch goes with it.
        wanted = [str(p) for p in (self.path, self.path.parent) if p.exists()]
        present = set(self.watcher.files() + self.watcher.directories())
        missing = [p for p in wanted if p not in present]
        if missing:
            self.watcher.addPaths(missing)

    def _on_event(self, *_) -> None:
        if self.path is not None:
            self.settle.start()

    def check(self) -> None:
        """Compare the file with the known version and act on a real change."""
        if self.path is None:
            return
        self._add_paths()
        digest = manifest_digest(self.path)
        if digest is None or digest == self.known:
            return  # removed (maybe mid-replace: the directory event brings us back), or our own save
        if self.document.modified:
            self.known = digest  # ask once per change, not on every event it causes
            if not self.ask_reload(self.parent_widget, self.path):
                self.message.emit(f"{self.path.name} changed on disk; kept the version being edited")
                return
        self.reload()

    def reload(self) -> bool:
        """Read the file again into the document (a failed read is retried a few times)."""
        path = self.path
        if path is None:
            return False
        try:
            self.document.load(path)
        except FormatError as e:
            if self._retries < MAX_RETRIES:  # another program may still be writing it
                self._retries += 1
                self.retry.start()
            else:
                self.message.emit(f"{path.name} changed on disk but cannot be read: {e}")
            return False
        self.message.emit(f"Reloaded {path.name}: it was changed on disk")
        self.reloaded.emit(path)
        return True
