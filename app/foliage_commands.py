"""Undo commands for foliage edits: one class per kind of edit, ids in one enum.

A stroke is one step: the press pushes a stroke command, each later stamp pushes another that
merges into it. Every command keeps only what its model operation returned (records added,
records removed with their addresses, the old type), so undo and redo restore the same bytes
and memory follows the edit, not the scene.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum

import numpy as np
from PySide6.QtGui import QUndoCommand

from model.foliage.edits import (
    FoliageStroke,
    add_by_type,
    insert_type,
    remove_type,
    rename_type,
    restore_type,
    unique_name,
)
from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.volume import FoliageVolume, Removed, Selection


class FoliageCommandId(IntEnum):
    """Merge ids (QUndoCommand.id); commands without one never merge."""

    STROKE = 9001
    TYPE_SETTING = 9002


# ---- strokes ----------------------------------------------------------------------------------
class FoliageStrokeCommand(QUndoCommand):
    """One stamp of a stroke: the first redo runs `apply(stroke)`; stamps of one stroke merge."""

    def __init__(self, stroke: FoliageStroke, apply: Callable[[FoliageStroke], None], text: str) -> None:
        super().__init__(text)
        self.stroke = stroke
        self._apply: Callable | None = apply

    def id(self) -> int:
        return int(FoliageCommandId.STROKE)

    def redo(self) -> None:
        if self._apply is not None:
            self._apply(self.stroke)
            self._apply = None
            if not self.stroke.ops:
                self.setObsolete(True)  # a stamp that changed nothing is no step (or merges away)
        else:
            self.stroke.redo()

    def undo(self) -> None:
        self.stroke.undo()

    def mergeWith(self, other: QUndoCommand) -> bool:
        # The other stamp is already in the shared stroke; it only needs absorbing.
        return isinstance(other, FoliageStrokeCommand) and other.stroke is self.stroke


# ---- selection edits ----------------------------------------------------------------------------
class DeleteInstancesCommand(QUndoCommand):
    """Remove the selected instances; undo puts them back at the same addresses."""

    def __init__(self, volume: FoliageVolume, selection: Selection) -> None:
        n = int(sum(len(v) for v in selection.values()))
        super().__init__(f"Delete {n} instance{'s' if n != 1 else ''}")
        self.volume = volume
        self.selection = {k: np.asarray(v, np.int64) for k, v in selection.items()}
        self.removed: Removed | None = None

    def redo(self) -> None:
        self.removed = self.volume.remove(self.selection)

    def undo(self) -> None:
        self.volume.restore(self.removed)


class TransformInstancesCommand(QUndoCommand):
    """A gizmo drag: the originals removed and their transformed records added (possibly in
    other cells). Built after the drag has been shown live, so the first redo does nothing.
    `select(selection)` hears the instances' addresses after each undo and redo: the selection
    follows them back and forth, as the Inspector and the gizmo show it."""

    def __init__(self, volume: FoliageVolume, removed: Removed, records: np.ndarray, added: Selection,
                 text: str, select: Callable[[Selection], None] | None = None) -> None:
        super().__init__(text)
        self.volume = volume
        self.removed = removed
        self.records = records
        self.added = added
        self.select = select
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.volume.remove({key: idx for key, (idx, _) in self.removed.parts.items()})
        self.added = add_by_type(self.volume, self.removed, self.records)
        if self.select is not None:
            self.select(self.added)

    def undo(self) -> None:
        self.volume.remove(self.added)
        self.volume.restore(self.removed)
        if self.select is not None:
            self.select({key: idx for key, (idx, _) in self.removed.parts.items()})


# ---- palette edits ------------------------------------------------------------------------------
class AddTypeCommand(QUndoCommand):
    """Add a type (new, duplicated or read from a .vxfoliage) to the palette."""

    def __init__(self, palette: Palette, ftype: FoliageType, text: str | None = None) -> None:
        if ftype.name in palette:
            ftype = ftype.renamed(unique_name(palette, ftype.name))
        super().__init__(text or f"Add foliage type '{ftype.name}'")
        self.palette, self.ftype = palette, ftype

    def redo(self) -> None:
        insert_type(self.palette, self.ftype)

    def undo(self) -> None:
        self.palette.remove(self.ftype.name)


class RemoveTypeCommand(QUndoCommand):
    """Remove a type and its instances; undo puts both back exactly."""

    def __init__(self, palette: Palette, volume: FoliageVolume, name: str) -> None:
        n = volume.count(name)
        super().__init__(f"Remove foliage type '{name}'" + (f" and {n} instances" if n else ""))
        self.palette, self.volume, self.name = palette, volume, name
        self.state: tuple | None = None

    def redo(self) -> None:
        self.state = remove_type(self.palette, self.volume, self.name)

    def undo(self) -> None:
        restore_type(self.palette, self.volume, *self.state)


class SetTypeCommand(QUndoCommand):
    """Change one setting of a type. Successive changes of the same setting merge, and a value
    brought back to where it started leaves no step; `merge=False` makes a step of its own (a
    variant added, a level removed), named by `text` ("{type}" stands for the type's name)."""

    def __init__(self, palette: Palette, volume: FoliageVolume, new: FoliageType, key: str,
                 old_name: str | None = None, text: str | None = None, merge: bool = True) -> None:
        old_name = old_name or new.name
        super().__init__(text.replace("{type}", old_name) if text else f"Change {key} of '{old_name}'")
        self.palette, self.volume, self.key, self.merge = palette, volume, key, merge
        self.old = palette[old_name]
        self.new = new
        if new.name != old_name and new.name in palette:
            raise ValueError(f"the palette already has a type named {new.name!r}")

    def id(self) -> int:
        return int(FoliageCommandId.TYPE_SETTING) if self.merge else -1

    def _set(self, current: FoliageType, target: FoliageType) -> None:
        if target.name != current.name:
            rename_type(self.palette, self.volume, current.name, target.name)
        self.palette.replace(target)

    def redo(self) -> None:
        self._set(self.old, self.new)

    def undo(self) -> None:
        self._set(self.new, self.old)

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, SetTypeCommand) or not (self.merge and other.merge) \
                or other.key != self.key or other.old != self.new:
            return False
        self.new = other.new
        self.setObsolete(self.new == self.old)
        return True
