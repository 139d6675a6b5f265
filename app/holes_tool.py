"""The Holes tool: a left drag cuts holes in the ground under the brush (Ctrl fills them again).

A hole's cells are not drawn, picked, given foliage or exported (`model.holes`). When the drag ends the
spawners re-run over the touched ground and the stored foliage standing in a new hole goes; the whole
drag, mask and foliage together, is one undo step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoCommand

from app.terrain_commands import CommandId
from app.terrain_tools import StrokeTool
from model.holes import HolePatch, apply_patch, instances_in_holes, paint_holes
from model.terrain import Terrain


class HoleStroke:
    """The stamps of one drag (each the mask window it changed) and, once the drag ends, what it did
    to the foliage: the spawners re-run over the touched ground (they grow nothing in a hole and
    grow again where one is filled), then the stored instances left standing in a hole go."""

    def __init__(self, terrain: Terrain, volume=None, follow=None) -> None:
        self.terrain, self.volume, self.follow = terrain, volume, follow
        self.patches: list[HolePatch] = []
        self.followed = None  # the spawners' changes (undo, redo), or None
        self.removed = None  # the volume's Removed, or None
        self._finished = False

    def stamp(self, x: float, z: float, radius: float, erase: bool) -> bool:
        """Cut (or fill) the holes within `radius` of (x, z); False when nothing changed."""
        patch = paint_holes(self.terrain, x, z, radius, erase)
        if patch is not None:
            self.patches.append(patch)
        return patch is not None

    def window(self) -> tuple[slice, slice] | None:
        if not self.patches:
            return None
        rows = slice(min(p.rows.start for p in self.patches), max(p.rows.stop for p in self.patches))
        cols = slice(min(p.cols.start for p in self.patches), max(p.cols.stop for p in self.patches))
        return rows, cols

    def finish(self) -> None:
        """The drag ended: the foliage follows the holes (spawners first, so their own instances in
        a new hole leave as theirs, not as ones deleted by hand)."""
        window = self.window()
        if self._finished or window is None:
            return
        self._finished = True
        if self.follow is not None:
            self.followed = self.follow(None, *window)
        if self.volume is not None and self.terrain.holes is not None:
            t, (rows, cols) = self.terrain, window
            x0, z0 = t.origin[0] + (cols.start - 1) * t.spacing, t.origin[1] + (rows.start - 1) * t.spacing
            x1, z1 = t.origin[0] + cols.stop * t.spacing, t.origin[1] + rows.stop * t.spacing
            doomed = instances_in_holes(self.volume, t, (x0, z0, x1, z1))
            self.removed = self.volume.remove(doomed) if doomed else None

    @property
    def removed_count(self) -> int:
        return 0 if self.removed is None else len(self.removed)

    def undo(self) -> None:
        self.finish()
        if self.removed is not None:
            self.volume.restore(self.removed)
        if self.followed is not None:
            self.followed.undo()
        for patch in reversed(self.patches):
            apply_patch(self.terrain, patch, undo=True)

    def redo(self) -> None:
        for patch in self.patches:
            apply_patch(self.terrain, patch)
        if self.followed is not None:
            self.followed.redo()
        if self.removed is not None:  # the same addresses: undo put the records back where they were
            self.removed = self.volume.remove({key: idx for key, (idx, _rec) in self.removed.parts.items()})


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
        return HoleStroke(self.toolbox.terrain, self.toolbox.foliage_volume(), self.toolbox.stroke_follower())

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
