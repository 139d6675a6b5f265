"""Undo commands for spawners: edit the recipes, run, bake to painted. One class per kind of edit.

A recipe edit re-runs the spawner it changed in the same step (unless the editor says not to),
so the forest on screen always is what the recipe says, and one Undo takes both back. The re-run
goes in the background: its change joins the step when it lands (`pending` until then).
"""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

from model.foliage.spawn_run import SpawnResult
from model.foliage.spawner import Spawner
from model.foliage.spawner_section import (
    Detached,
    SpawnChange,
    bake_to_painted,
    move_ownership,
    redo_change,
    spawners_of,
    undo_bake,
    undo_change,
)
from model.scene import Scene


class RunSpawnersCommand(QUndoCommand):
    """Runs that happened, in order (Run, Run All): pushed when the first lands, the later ones
    joining it while it is the step the scene is at; redo re-applies them, undo takes them back."""

    def __init__(self, scene: Scene, text: str, result: SpawnResult, change: SpawnChange) -> None:
        super().__init__(text)
        self.scene = scene
        self.results, self.changes = [result], [change]
        self._done = True  # pushed after the run: the first redo has nothing to do

    def add(self, result: SpawnResult, change: SpawnChange) -> None:
        """A later spawner's run, already applied."""
        self.results.append(result)
        self.changes.append(change)

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        for change in self.changes:
            redo_change(self.scene, change)

    def undo(self) -> None:
        for change in reversed(self.changes):
            undo_change(self.scene, change)


SET_SPAWNERS_ID = 0x53505731  # QUndoStack merges commands of one id: recipe edits of one spawner


class SetSpawnersCommand(QUndoCommand):
    """Replace the scene's spawner list; with `changes`, the re-runs that edit caused (already done)."""

    def __init__(self, scene: Scene, old: list[Spawner], new: list[Spawner], text: str,
                 changes: list[SpawnChange] | None = None, renamed: tuple[str, str] | None = None) -> None:
        super().__init__(text)
        self.scene, self.old, self.new = scene, list(old), list(new)
        self.changes = list(changes or [])
        self.renamed = renamed  # (old name, new name): what it owns goes with the name
        self.pending: Spawner | None = None  # the recipe whose re-run is still to join this step
        self._first = True

    def id(self) -> int:
        return SET_SPAWNERS_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        """An edit of the same spawner made while this one's re-run had not landed joins this step:
        a step that never had its own forest would show its recipe with the forest before it."""
        if not isinstance(other, SetSpawnersCommand) or self.changes or other.changes \
                or self.pending is None or other.pending is None:
            return False
        before = other.renamed[0] if other.renamed else other.pending.name
        if before != self.pending.name:
            return False
        first = self.renamed[0] if self.renamed else before
        self.renamed = (first, other.pending.name) if first != other.pending.name else None
        self.new, self.pending = list(other.new), other.pending  # the text stays the first edit's
        return True

    def redo(self) -> None:
        if self._first:  # pushed after the editor applied the edit and ran it
            self._first = False
            return
        section = spawners_of(self.scene)
        section.spawners = list(self.new)
        if self.renamed:
            move_ownership(section, *self.renamed)
        for change in self.changes:
            redo_change(self.scene, change)

    def undo(self) -> None:
        section = spawners_of(self.scene)
        for change in reversed(self.changes):
            undo_change(self.scene, change)
        if self.renamed:
            move_ownership(section, self.renamed[1], self.renamed[0])
        section.spawners = list(self.old)



class BakeSpawnerCommand(QUndoCommand):
    """Detach a spawner's instances: they stay, as painted foliage its re-runs no longer touch."""

    def __init__(self, scene: Scene, name: str) -> None:
        count = spawners_of(scene).owned_count(name)
        super().__init__(f"Bake {count:,} instance{'s' if count != 1 else ''} of '{name}' to painted")
        self.scene, self.name = scene, name
        self.detached: Detached | None = None

    def redo(self) -> None:
        self.detached = bake_to_painted(self.scene, self.name)

    def undo(self) -> None:
        if self.detached is not None:
            undo_bake(self.scene, self.detached)
