"""Undo commands for the terrain's edit layers (`model.edit_layers`): one class per kind of edit.

Each calls one operation of the `EditStack` and keeps what it returned (the removed layer and its
index, the old name, the base tiles a collapse changed, the deltas a run replaced), so undo and
redo give the heights back bit for bit. Layers are held by identity: a rename in between does not
lose them. Given the scene, a command that changes the composite (showing, hiding, fading, moving,
deleting or running a layer) has the foliage follow the ground it changed in the same step: stored
instances re-grounded, spawners re-run there (`model.ground_follow`).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QUndoCommand

from app.terrain_commands import CommandId
from model import layer_ops
from model.edit_layers import EditLayer, EditLayerError, EditStack
from model.ground_follow import GroundFollow, layer_window
from model.paged import PagedGrid
from model.terrain_edits import run_layer, write_outputs


class FollowingCommand(QUndoCommand):
    """A change of the composite that the scene's foliage follows (none without a scene): the first
    redo records what the foliage did, later ones replay it; undo takes it back first."""

    def __init__(self, text: str, scene=None) -> None:
        super().__init__(text)
        self.scene = scene
        self.follows: list[GroundFollow] = []  # one per change (merged drags hold several)
        self._fresh = True

    def _apply(self, change, window=None) -> None:
        """Make `change()`; the first time the foliage follows over `window()` (read before it)."""
        if not self._fresh:
            change()
            for follow in self.follows:
                follow.redo()
            return
        self._fresh = False
        follow = GroundFollow(self.scene, window()) if self.scene is not None and window else None
        change()
        if follow is not None and follow.window is not None:
            self.follows.append(follow.after())

    def _revert(self, change) -> None:
        for follow in reversed(self.follows):
            follow.undo()
        change()


def _shown(stack: EditStack, layer: EditLayer):
    """Where a shown layer's deltas lie (None for a hidden one): where moving or deleting it changes
    the composite."""
    return layer_window(stack.terrain, layer.name) if layer.shows else None


class AddEditLayerCommand(QUndoCommand):
    """A new empty edit layer on top (a sculpt layer by default), selected as the sculpt target."""

    def __init__(self, stack: EditStack, name: str, kind: str = "sculpt", params: dict | None = None) -> None:
        self.layer: EditLayer = stack.new_layer(name, kind, params)  # refuses a taken name here
        super().__init__(f"Add edit layer '{self.layer.name}'")
        self.stack = stack
        self.index: int | None = None
        self.selected_before = stack.selected

    def redo(self) -> None:
        self.stack.selected = self.layer.name  # before the insert announces the change: the panel shows it
        self.index = self.stack.insert(self.layer, self.index)

    def undo(self) -> None:
        self.stack.remove(self.layer.name)
        self.stack.selected = self.selected_before if self.stack.get(self.selected_before or "") else None


class RemoveEditLayerCommand(FollowingCommand):
    def __init__(self, stack: EditStack, name: str, scene=None) -> None:
        self.layer = stack.layer(name)
        super().__init__(f"Delete edit layer '{name}'", scene)
        self.stack = stack
        self.index = stack.index(name)
        self.was_selected = stack.selected == name

    def redo(self) -> None:
        def remove() -> None:
            self.index, _ = self.stack.remove(self.layer.name)

        self._apply(remove, lambda: _shown(self.stack, self.layer))

    def undo(self) -> None:
        def insert() -> None:
            if self.was_selected:
                self.stack.selected = self.layer.name
            self.stack.insert(self.layer, self.index)

        self._revert(insert)


class RenameEditLayerCommand(QUndoCommand):
    def __init__(self, stack: EditStack, old: str, new: str) -> None:
        self.layer = stack.layer(old)
        new = stack.check_name(new, allow=old)
        super().__init__(f"Rename edit layer '{old}' to '{new}'")
        self.stack, self.old, self.new = stack, old, new

    def redo(self) -> None:
        self.stack.rename(self.layer.name, self.new)

    def undo(self) -> None:
        self.stack.rename(self.layer.name, self.old)


class MoveEditLayerCommand(FollowingCommand):
    """Move a layer to another place in the stack (index 0: the bottom, just above the base)."""

    def __init__(self, stack: EditStack, name: str, to_index: int, scene=None) -> None:
        self.layer = stack.layer(name)
        super().__init__(f"Move edit layer '{name}'", scene)
        self.stack = stack
        self.from_index = stack.index(name)
        self.to_index = max(0, min(int(to_index), len(stack.layers) - 1))

    def redo(self) -> None:
        def move() -> None:
            self.from_index = self.stack.move(self.layer.name, self.to_index)

        self._apply(move, lambda: _shown(self.stack, self.layer))

    def undo(self) -> None:
        self._revert(lambda: self.stack.move(self.layer.name, self.from_index))


class EditLayerVisibilityCommand(FollowingCommand):
    def __init__(self, stack: EditStack, name: str, visible: bool, scene=None) -> None:
        self.layer = stack.layer(name)
        super().__init__(f"{'Show' if visible else 'Hide'} edit layer '{name}'", scene)
        self.stack, self.visible = stack, bool(visible)
        self.old = self.layer.visible

    def redo(self) -> None:
        changes = self.old != self.visible and self.layer.opacity > 0.0
        self._apply(lambda: self.stack.set_visible(self.layer.name, self.visible),
                    lambda: layer_window(self.stack.terrain, self.layer.name) if changes else None)

    def undo(self) -> None:
        self._revert(lambda: self.stack.set_visible(self.layer.name, self.old))


class EditLayerOpacityCommand(FollowingCommand):
    """A layer's opacity; the changes of one drag (`drag` the same) merge into one step, and a
    drag back to where it started leaves no step. The foliage follows the ground once, when the
    drag ends (`finish`; undo finishes first): re-running the spawners on every step of a slider
    would stall it."""

    def __init__(self, stack: EditStack, name: str, opacity: float, drag: int = -1, scene=None) -> None:
        self.layer = stack.layer(name)
        if not 0.0 <= float(opacity) <= 1.0:
            raise EditLayerError(f"opacity must be between 0 and 1, got {opacity!r}")
        super().__init__(f"Set the opacity of edit layer '{name}'", scene)
        self.stack, self.new, self.drag = stack, float(opacity), drag
        self.old = self.layer.opacity
        self._pending: GroundFollow | None = None  # the ground read before the drag, until it ends

    def id(self) -> int:
        return int(CommandId.EDIT_LAYER_OPACITY)

    def redo(self) -> None:
        if not self._fresh:
            self._apply(lambda: self.stack.set_opacity(self.layer.name, self.new))
            return
        self._fresh = False
        if self.scene is not None and self.layer.visible and self.layer.opacity != self.new:
            self._pending = GroundFollow(self.scene, layer_window(self.stack.terrain, self.layer.name))
        self.stack.set_opacity(self.layer.name, self.new)

    def finish(self) -> None:
        """The drag ended: the foliage follows the ground as it is now (once)."""
        if self._pending is not None:
            follow, self._pending = self._pending, None
            if follow.window is not None:
                self.follows.append(follow.after())

    def undo(self) -> None:
        self.finish()
        self._revert(lambda: self.stack.set_opacity(self.layer.name, self.old))

    def mergeWith(self, other: QUndoCommand) -> bool:
        if (not isinstance(other, EditLayerOpacityCommand) or other.layer is not self.layer
                or self.drag < 0 or other.drag != self.drag):
            return False
        self.new = other.new
        if self.new == self.old:  # dragged back: no step, and the ground (so the foliage) as it was
            self._pending = None
        self.setObsolete(self.new == self.old)
        return True


class CollapseEditLayerCommand(FollowingCommand):
    """Fold a layer into the base (its deltas times its opacity) and remove it. The ground stays but
    for float rounding; a road or river stops keeping the spawners off its width. Given the scene,
    the foliage follows over the layer's ground as for any other change of it: stored instances
    re-grounded (a road's clearing of them stays), the spawners re-run (they may grow on a collapsed
    road now, as any later re-run there would)."""

    def __init__(self, stack: EditStack, name: str, scene=None) -> None:
        self.layer = stack.layer(name)
        super().__init__(f"Collapse edit layer '{name}' into the base", scene)
        self.stack = stack
        self.index: int | None = None
        self.before: dict | None = None
        self.was_selected = stack.selected == name

    def redo(self) -> None:
        def collapse() -> None:
            self.index, _, self.before = self.stack.collapse(self.layer.name)

        self._apply(collapse, lambda: _shown(self.stack, self.layer))

    def undo(self) -> None:
        def uncollapse() -> None:
            if self.was_selected:
                self.stack.selected = self.layer.name
            self.stack.uncollapse(self.index, self.layer, self.before)

        self._revert(uncollapse)

    @property
    def respawned(self) -> int:
        return sum(f.respawned for f in self.follows)


class OutputLayers:
    """Erosion outputs (flow, deposition, wear) written into paint layers `erosion_<name>`: the layers
    it made and the weights it replaced in the eroded area, for undo."""

    def __init__(self, terrain, outputs: dict, area: tuple[slice, slice], names: list[str]) -> None:
        self.terrain, self.outputs, self.area, self.names = terrain, outputs, area, list(names)
        self.created: list[str] = []
        self.removed: list[layer_ops.RemovedLayer] = []
        self.old: dict[str, np.ndarray] = {}
        self.new: dict[str, np.ndarray] = {}

    def _put(self, values: dict[str, np.ndarray]) -> None:
        for name, weights in values.items():
            self.terrain.layer(name).grid()[self.area] = weights
            self.terrain.layer_weights_changed.emit(self.terrain.layer_index(name), *self.area)

    def apply(self) -> None:
        if self.outputs is None:  # again (redo): the layers back, then the weights
            for removed in self.removed:
                layer_ops.insert_layer(self.terrain, removed)
            self._put({k: v for k, v in self.new.items() if k not in self.created})
            return
        for name in self.names:
            layer = self.terrain.layer("erosion_" + name)
            if layer is None:
                self.created.append("erosion_" + name)
            else:
                self.old[layer.name] = np.array(layer.read(*self.area))
        written = write_outputs(self.terrain, self.outputs, self.area, self.names)
        self.new = {n: np.array(self.terrain.layer(n).read(*self.area)) for n in written}
        self.outputs = None

    def undo(self) -> None:
        self._put(self.old)
        self.removed = [layer_ops.delete_layer(self.terrain, n) for n in reversed(self.created)][::-1]


class RunEditLayerCommand(FollowingCommand):
    """A procedural layer's result (erosion, terrace, stamp) computed beforehand: a new layer on top,
    or the deltas and parameters of the existing layer of that name replaced."""

    def __init__(self, terrain, name: str, kind: str, params: dict, deltas: PagedGrid, text: str,
                 outputs: OutputLayers | None = None, scene=None) -> None:
        super().__init__(text, scene)
        self.outputs = outputs
        self.terrain, self.name, self.kind = terrain, name, kind
        self.params, self.deltas = dict(params), deltas
        self.layer: EditLayer | None = None
        self.index: int | None = None
        self.old: tuple[PagedGrid, dict] | None = None
        self.created = False

    def redo(self) -> None:
        self._apply(self._run, lambda: layer_window(self.terrain, self.name, self.deltas.held_tiles()))

    def _run(self) -> None:
        stack = self.terrain.edits
        if self.layer is None:  # the first time: through the same path as the command line
            applied = run_layer(self.terrain, self.name, self.kind, self.params, lambda beneath: self.deltas)
            self.layer, self.created, self.old = applied.layer, applied.created, applied.old
            self.index = self.terrain.edits.index(self.layer.name)
        elif self.created:
            stack.insert(self.layer, self.index)
        else:
            stack.replace_deltas(self.layer.name, self.deltas, self.params)
        if self.outputs is not None:
            self.outputs.apply()

    def undo(self) -> None:
        self._revert(self._unrun)

    def _unrun(self) -> None:
        if self.outputs is not None:
            self.outputs.undo()
        stack = self.terrain.edits
        if self.created:
            self.index, _ = stack.remove(self.layer.name)
        else:
            stack.replace_deltas(self.layer.name, *self.old)
