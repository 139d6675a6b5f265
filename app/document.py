"""The open scene document: a scene, its undo stack, and the modified marker derived from it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QUndoStack

from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene


class SceneDocument(QObject):
    """One scene being edited. `modified` is never tracked by hand: it is the stack's clean state."""

    scene_replaced = Signal(object)  # the new Scene
    modified_changed = Signal(bool)
    saved = Signal(object)  # the Path written

    def __init__(self, scene: Scene, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)

    @Slot(bool)
    def _on_clean_changed(self, clean: bool) -> None:
        self.modified_changed.emit(not clean)

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    @property
    def path(self) -> Path | None:
        return self.scene.path

    def display_name(self) -> str:
        return self.scene.path.name if self.scene.path is not None else self.scene.name

    def replace_scene(self, scene: Scene) -> None:
        """Make `scene` the document's scene with an empty, clean history."""
        was_modified = self.modified
        self.undo_stack.clear()
        self.undo_stack.setClean()
        self.scene = scene
        self.scene_replaced.emit(scene)
        if was_modified:
            self.modified_changed.emit(False)

    def mark_modified(self) -> None:
        """Leave the clean state for good (a restored recovery copy differs from its file)."""
        self.undo_stack.resetClean()

    def load(self, path: str | Path, progress=None) -> Scene:
        """Read `path` and, only if that succeeds, replace the scene. FormatError otherwise
        (LoadCancelled when `progress(done, total)` returns False)."""
        scene = self.read(path, progress)
        self.replace_scene(scene)
        return scene

    @staticmethod
    def read(path: str | Path, progress=None) -> Scene:
        """A scene file read, nothing replaced (a helper thread may run it)."""
        return load_scene(path, progress) if progress is not None else load_scene(path)

    def save(self, path: str | Path | None = None, replace_textures: bool = False) -> Path:
        """Write the scene (to `path`, or where it came from) and mark the history clean; into
        another folder, the layers' textures come along (`save_scene`)."""
        target = Path(path) if path is not None else self.scene.path
        if target is None:
            raise ValueError("the scene has no file yet: give a path")
        save_scene(self.scene, target, replace_textures=replace_textures)
        self.undo_stack.setClean()
        self.saved.emit(target)
        return target


def new_scene(samples: int = 257, spacing: float = 2.0, base_height: float = 0.0) -> Scene:
    """A flat, grass-covered terrain at `base_height`, centred on the origin: what File ▸ New starts from."""
    import numpy as np

    from model.terrain import Terrain

    terrain = Terrain(np.full((samples, samples), base_height, np.float32), spacing,
                      (-(samples - 1) * spacing / 2, -(samples - 1) * spacing / 2))
    terrain.add_layer("grass", (104, 146, 62), np.full((samples, samples), 255, np.uint8))
    return Scene(terrain=terrain, name="Untitled")
