"""The Holes tool: a left drag cuts holes in the ground under the brush (Ctrl fills them again).

A hole's cells are not drawn, picked, given foliage or exported (`model.holes`). When the drag ends the
spawners re-run over the touched ground and the stored foliage standing in a new hole goes
(`model.holes_stroke`, shared with `boscage terrain holes`); the whole drag, mask and foliage together,
is one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoCommand

from app.terrain_commands import CommandId
from app.terrain_tools import StrokeTool
from model.holes_stroke import HoleStroke, scene_hole_stroke


class HoleStrokeCommand(QUndoCommand):
    """One stamp of a hole stroke (already laid); stamps of the same drag merge into the first."""

    def __init__(self, stroke: HoleStroke, text: str) -> None:
        super().__init__(text)
        self.stroke = stroke
        self._laid = True

    def id(self) -> int:
        return int(CommandId.HOLE_STROKE)

    def redo(self) -> None:
        if self._laid:  # the push: the stamp is in place already
            self._laid = False
        else:
            self.stroke.redo()

    def undo(self) -> None:
        self.stroke.undo()

    def mergeWith(self, other: QUndoCommand) -> bool:
        return isinstance(other, HoleStrokeCommand) and other.stroke is self.stroke


class HolesTool(StrokeTool):
    tool_key, title, shortcut = "holes", "Holes", "H"
    tooltip = "Cut holes in the ground under the brush for caves and tunnels (Ctrl fills them) — H"
    points_into_holes = True  # a press over a hole fills it; a drag goes on across the hole it cuts

    def target(self) -> str | None:
        return None  # the hole mask, not the heights of an edit layer

    def removes(self, modifiers) -> bool:
        return bool(modifiers & Qt.KeyboardModifier.ControlModifier)

    def stroke_text(self) -> str:
        return "Fill holes" if self.ctrl else "Cut holes"

    def new_stroke(self, target: str | None) -> HoleStroke:
        return scene_hole_stroke(self.toolbox.document.scene)

    def _stamp(self, x: float, z: float) -> None:
        self._last = (x, z)
        if self.stroke.stamp(x, z, self.toolbox.brush.radius, erase=self.ctrl):
            self.toolbox.undo_stack().push(HoleStrokeCommand(self.stroke, self.stroke_text()))

    def release(self, pos, modifiers) -> None:
        stroke = self.stroke
        super().release(pos, modifiers)
        if stroke is not None and stroke.removed_count:
            self.toolbox.report(f"{stroke.removed_count:,} stored instances standing in the new holes were "
                                "removed (Undo brings them back)")
