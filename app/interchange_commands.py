"""Undo command for File ▸ Import ▸ Foliage: the whole import is one step.

`add_to_scene` runs before the push (so a failure is reported, not swallowed inside Qt's redo);
the command keeps only what it returned: undo reverts exactly those records and new types, and
redo puts the same records back at the same addresses (`merge.reapply`).
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from model.foliage.volume import Removed
from model.interchange.merge import MergeResult, reapply, revert
from model.scene import Scene


class ImportFoliageCommand(QUndoCommand):
    """Imported foliage already added to `scene` (`result` of `add_to_scene`), as an undo step."""

    def __init__(self, scene: Scene, result: MergeResult, text: str) -> None:
        super().__init__(text)
        self.scene = scene
        self.result = result
        self._removed: Removed | None = None
        self._applied = True  # the push's redo has nothing left to do

    def redo(self) -> None:
        if self._applied:
            return
        reapply(self.scene, self.result, self._removed)
        self._removed = None
        self._applied = True

    def undo(self) -> None:
        self._removed = revert(self.scene, self.result)
        self._applied = False
