"""Autosave and crash recovery: while a document is modified, a recovery copy every few minutes.

Each editor window keeps its copy in a folder of its own under `<data folder>/recovery/`, held
by a lock file for as long as the window lives. A clean save, an undo back to the saved state
or a clean close removes the copy. A folder whose lock nobody holds is what a session that did
not close cleanly left behind: the next start offers to restore it. The copy is written with
`save_scene` (atomic), never over the user's file, and the scene keeps pointing at its own path.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import tomli_w
from PySide6.QtCore import QLockFile, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from app.settings import data_folder
from model.atomic import atomic_write, atomic_write_text
from model.errors import FormatError, read_toml_file
from model.foliage.mesh_files import carried_files
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene

RECOVERY_DIR = "recovery"
SCENE_FILE = "recovery.boscage"
INFO_FILE = "recovery.toml"
LOCK_FILE = "session.lock"
INFO_FORMAT = "boscage-recovery"
BUSY_RETRY_MS = 3000  # a save due during a mouse drag waits until the drag is over


def recovery_root() -> Path:
    return data_folder() / RECOVERY_DIR


def new_lock(folder: Path) -> QLockFile:
    lock = QLockFile(str(folder / LOCK_FILE))
    lock.setStaleLockTime(0)  # a live session's lock never goes stale; a dead process's always does
    return lock


@dataclass
class Recovery:
    """A recovery copy left by a session that did not close cleanly (its lock is held by us now)."""

    folder: Path
    original: Path | None
    name: str
    saved: str
    lock: QLockFile | None = field(default=None, repr=False)
    textures: Path | None = None  # the folder the layers' textures were read from (not copied)

    @property
    def manifest(self) -> Path:
        return self.folder / SCENE_FILE

    def describe(self) -> str:
        where = str(self.original) if self.original is not None else "never saved"
        return f"'{self.name}' ({where}), last autosaved {self.saved}"

    def load(self) -> Scene:
        """The recovered scene, pointing at its original file (FormatError if the copy is damaged).

        Its mesh files resolve beside the original again; one the original's folder lost is put
        back from the copy (never over a file there), so the scene opens with every file it names."""
        scene = load_scene(self.manifest)
        scene.path = self.original
        scene.name = self.name
        if self.textures is not None:
            scene.asset_folder = self.textures
        elif self.original is not None:
            scene.asset_folder = self.original.parent
        foliage = scene.sections.get("foliage")
        if foliage is not None:
            home = self.original.parent if self.original is not None else None
            if home is not None:
                for path, data in carried_files(foliage.palette, self.folder, home).items():
                    if data is not None:
                        try:
                            atomic_write(path, data)
                        except OSError:  # a read-only folder: that type draws its placeholder
                            pass
            foliage.volume.mesh_folder = home
        return scene

    def discard(self) -> None:
        """Delete the copy and its folder."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.release()

    def release(self) -> None:
        """Leave the copy on disk for a later start."""
        if self.lock is not None:
            self.lock.unlock()
            self.lock = None


def write_recovery(folder: Path, scene: Scene) -> Path:
    """Save `scene` into `folder` as a recovery copy; the scene's own path is left untouched."""
    folder.mkdir(parents=True, exist_ok=True)
    own_path = scene.path
    # the mesh files come along and the scene stays put; the layers' textures stay where they are
    # (the copy names their folder): no copy of every texture map at every autosave
    save_scene(scene, folder / SCENE_FILE, copy=True, copy_textures=False)
    info = {"format": INFO_FORMAT, "version": 1, "name": scene.name,
            "saved": datetime.now().astimezone().isoformat(timespec="seconds"),
            "pid": os.getpid()}
    if own_path is not None:
        info["original"] = str(Path(own_path).resolve())
    if scene.textures_folder() is not None:
        info["textures"] = str(Path(scene.textures_folder()).resolve())
    atomic_write_text(folder / INFO_FILE, tomli_w.dumps(info))
    return folder / SCENE_FILE


def read_info(folder: Path) -> dict:
    """The copy's description; an unreadable one gives an empty table (the scene may still be good)."""
    try:
        doc = read_toml_file(folder / INFO_FILE)
    except FormatError:  # missing, unreadable, not UTF-8, bad or absurdly nested TOML
        return {}
    return doc if doc.get("format") == INFO_FORMAT else {}


def orphaned_recoveries(root: Path | None = None) -> list[Recovery]:
    """Recovery copies no running session holds, newest first; each comes back locked by us."""
    root = recovery_root() if root is None else root
    if not root.is_dir():
        return []
    found: list[tuple[float, Recovery]] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        lock = new_lock(folder)
        if not lock.tryLock(0):
            continue  # another running editor's document
        manifest = folder / SCENE_FILE
        if not manifest.is_file():  # ended before its first copy was complete: nothing to offer
            shutil.rmtree(folder, ignore_errors=True)
            lock.unlock()
            continue
        info = read_info(folder)
        original = info.get("original")
        name = info.get("name") if isinstance(info.get("name"), str) else folder.name
        saved = info.get("saved") if isinstance(info.get("saved"), str) else "at an unknown time"
        textures = info.get("textures")
        found.append((manifest.stat().st_mtime, Recovery(
            folder, Path(original) if isinstance(original, str) else None, name, saved, lock,
            Path(textures) if isinstance(textures, str) else None)))
    found.sort(key=lambda item: -item[0])
    return [r for _, r in found]


def ask_restore(parent: QWidget | None, recovery: Recovery) -> bool:
    """True: restore the copy; False: discard it."""
    box = QMessageBox(QMessageBox.Icon.Question, "Recover unsaved work",
                      f"The editor did not close cleanly last time. A recovery copy of {recovery.describe()} "
                      "was kept.\n\nRestore it? Discard deletes the copy.",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Discard, parent)
    box.button(QMessageBox.StandardButton.Yes).setText("Restore")
    box.setDefaultButton(QMessageBox.StandardButton.Yes)
    return box.exec() == QMessageBox.StandardButton.Yes


class AutoSaver(QObject):
    """Keeps a recovery copy of one document while it is modified."""

    saved = Signal(object)  # the recovery manifest written
    failed = Signal(str)

    def __init__(self, document, interval_s: float, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.folder = recovery_root() / f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}"
        self.lock: QLockFile | None = None
        self.last_duration = 0.0
        self.is_busy: Callable[[], bool] = lambda: QApplication.mouseButtons() != Qt.MouseButton.NoButton
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self._due)
        self._dirty = False  # changed since the last copy
        self.set_interval(interval_s)
        document.undo_stack.indexChanged.connect(self._on_change)
        document.modified_changed.connect(self._on_modified)
        document.scene_replaced.connect(lambda _scene: self._on_modified(document.modified))
        document.saved.connect(lambda _path: self.remove_copy())

    @property
    def interval_s(self) -> float:
        return self._interval_s

    def set_interval(self, seconds: float) -> None:
        """Seconds between copies; 0 turns autosave off."""
        self._interval_s = max(0.0, float(seconds))
        self.timer.setInterval(round(self._interval_s * 1000))
        self.timer.stop()
        if self._interval_s and self.document.modified:
            self.timer.start()

    @property
    def manifest(self) -> Path:
        return self.folder / SCENE_FILE

    def has_copy(self) -> bool:
        return self.manifest.is_file()

    def _on_change(self, *_) -> None:
        # Only flags: the stack also announces its index while it is being destroyed.
        self._dirty = True
        if self._interval_s and not self.timer.isActive():
            self.timer.start()

    def _on_modified(self, modified: bool) -> None:
        if modified:
            self._dirty = True
            if self._interval_s and not self.timer.isActive():
                self.timer.start()
        else:  # saved, or undone back to the saved state: the file on disk is the document
            self.timer.stop()
            self.remove_copy()

    def _due(self) -> None:
        if not self.document.modified:
            return
        if self.is_busy():
            self.timer.start(min(BUSY_RETRY_MS, self.timer.interval()))
            return
        self.save_now()
        self.timer.start(round(self._interval_s * 1000))

    def save_now(self) -> bool:
        """Write the recovery copy now (when there is something new to keep); False if it failed."""
        if not self._dirty and self.has_copy():
            return True
        if self.lock is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            lock = new_lock(self.folder)
            if not lock.tryLock(0):
                self.failed.emit(f"{self.folder}: could not lock the recovery folder")
                return False
            self.lock = lock
        start = time.perf_counter()
        try:
            path = write_recovery(self.folder, self.document.scene)
        except (OSError, FormatError, ValueError) as e:
            self.failed.emit(f"Autosave failed: {self.folder}: {getattr(e, 'strerror', None) or e}")
            return False
        self.last_duration = time.perf_counter() - start
        self._dirty = False
        self.saved.emit(path)
        return True

    def remove_copy(self) -> None:
        """Delete the recovery copy (the folder stays locked while the window lives)."""
        self._dirty = True  # whatever is modified from here on needs a new copy
        if self.folder.is_dir():
            for item in self.folder.iterdir():
                if item.name != LOCK_FILE:
                    try:
                        if item.is_dir() and not item.is_symlink():
                            shutil.rmtree(item)  # the mesh files the copy carried
                        else:
                            item.unlink()
                    except OSError:
                        pass

    def close(self) -> None:
        """A clean close: the copy, its folder and the lock go."""
        self.timer.stop()
        if self.lock is not None:
            self.lock.unlock()
            self.lock = None
        shutil.rmtree(self.folder, ignore_errors=True)
