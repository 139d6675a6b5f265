"""The Holes tool: a left drag cuts holes in the ground under the brush (Ctrl fills them again).

A hole's cells are not drawn, picked, given foliage or exported (`model.holes`). The stored foliage
standing in a new hole goes with it; the whole drag, mask and foliage together, is one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoCommand

from app.terrain_commands import CommandId
from app.terrain_tools import StrokeTool
from model.holes import HolePatch, apply_patch, instances_in_holes, paint_holes
from model.terrain import Terrain


class HoleStroke:
    """The stamps of one drag: each the mask window it changed and the foliage it removed."""

    def __init__(self, terrain: Terrain, volume=None) -> None:
        self.terrain, self.volume = terrain, volume
        self.steps: list[tuple[HolePatch, object]] = []  # (patch, the volume's Removed or None)

    def stamp(self, x: float, z: float, radius: float, erase: bool) -> bool:
        """Cut (or fill) the holes within `radius` of (x, z); False when nothing changed."""
        patch = paint_holes(self.terrain, x, z, radius, erase)
        if patch is None:
            return False
        removed = None
        if not erase and self.volume is not None:
            reach = radius + 2 * self.terrain.spacing  # the cells around the stamp's samples
            box = (x - reach, z - reach, x + reach, z + reach)
            doomed = instances_in_holes(self.volume, self.terrain, box)
            removed = self.volume.remove(doomed) if doomed else None
        self.steps.append((patch, removed))
        return True

    def finish(self) -> None:
        """Nothing to seal: every stamp keeps its own window."""

    @property
    def removed(self) -> int:
        return sum(len(r) for _p, r in self.steps if r is not None)

    def undo(self) -> None:
        for patch, removed in reversed(self.steps):
            if removed is not None:
                self.volume.restore(removed)
            apply_patch(self.terrain, patch, undo=True)

    def redo(self) -> None:
        for k, (patch, removed) in enumerate(self.steps):
            apply_patch(self.terrain, patch)
            if removed is not None:  # the same addresses: undo put the records back where they were
                again = self.volume.remove({key: idx for key, (idx, _rec) in removed.parts.items()})
                self.steps[k] = (patch, again)


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
        return HoleStroke(self.toolbox.terrain, self.toolbox.foliage_volume())

    def _stamp(self, x: float, z: float) -> None:
        self._last = (x, z)
        if self.stroke.stamp(x, z, self.toolbox.brush.radius, erase=self.ctrl):
            self.toolbox.undo_stack().push(HoleStrokeCommand(self.stroke, self.stroke_text()))

    def release(self, pos, modifiers) -> None:
        stroke = self.stroke
        super().release(pos, modifiers)
        if stroke is not None and stroke.removed:
            self.toolbox.report(f"{stroke.removed:,} stored instances standing in the new holes were removed "
                                "(Undo brings them back)")
