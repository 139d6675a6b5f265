"""Undo commands for terrain edits: one class per kind of edit, ids in one enum.

A drag is one step: the press pushes a stroke command, every move pushes another carrying the
next stamp, and it merges into the first. Each command calls a pure model operation and keeps
only what that operation returned (touched tiles, the removed layer, the old name…).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from PySide6.QtGui import QUndoCommand

from model import layer_ops
from model.formats import tiles as tiling
from model.ground_follow import GroundFollow
from model.paged import PagedPlane, TileState
from model.reground import FoliageLift
from model.sculpt import HEIGHTS, Patch, TerrainStroke, sculpting_into, target_grid
from model.terrain import Terrain


class CommandId(IntEnum):
    """Merge ids (QUndoCommand.id); -1 means never merge."""

    TERRAIN_STROKE = 8001
    LAYER_COLOUR = 8002
    EDIT_LAYER_OPACITY = 8003
    STAMP_STROKE = 8004
    HOLE_STROKE = 8005


class TerrainStrokeCommand(QUndoCommand):
    """One stamp of a stroke; stamps of the same stroke merge into the first command."""

    def __init__(self, stroke: TerrainStroke, patch: Patch, text: str) -> None:
        super().__init__(text)
        self.stroke = stroke
        self._patch: Patch | None = patch

    def id(self) -> int:
        return int(CommandId.TERRAIN_STROKE)

    def redo(self) -> None:
        if self._patch is not None:  # first time: lay this stamp down
            self.stroke.apply(self._patch)
            self._patch = None
        else:
            self.stroke.redo()

    def undo(self) -> None:
        self.stroke.undo()

    def mergeWith(self, other: QUndoCommand) -> bool:
        # The other command's stamp is already in the shared stroke; it only needs absorbing.
        return isinstance(other, TerrainStrokeCommand) and other.stroke is self.stroke


class ReplaceGridCommand(QUndoCommand):
    """Replace a whole grid (heights or one layer's weights): an imported heightmap or weights.

    On a paged terrain the new values are written tile by tile into new tiles of the grid (its
    copy on write, one copy of the values), and undo and redo swap those tiles with the ones they
    replaced, copying nothing: a tile still read from its file goes back to its file. So the
    command holds no copy of either grid (`values` is not kept once written). An in-memory grid
    goes through a stroke (the old and new values of every tile kept for undo). Either way, with
    edit layers, imported heights replace the base beneath them, whichever layer is selected.

    Given the scene, the foliage follows in the same step as after any other change of the ground
    (`model.ground_follow`): imported heights re-ground the stored instances and re-run the spawners;
    imported weights re-run the spawners that read that layer. Given only a `volume`, imported
    heights re-ground its instances."""

    def __init__(self, terrain: Terrain, target: str | None, values: np.ndarray, text: str,
                 volume=None, scene=None) -> None:
        super().__init__(text)
        self.terrain, self.target, self.scene = terrain, target, scene
        if scene is not None:
            volume = None  # the scene's foliage follows as a whole (`redo`)
        grid = self._plane()  # an array, or a paged terrain's tiles: never assembled
        if tuple(values.shape) != tuple(grid.shape):
            raise ValueError(f"the new grid is {values.shape[1]} x {values.shape[0]}, the terrain "
                             f"{grid.shape[1]} x {grid.shape[0]}")
        self.rows, self.cols = slice(0, grid.shape[0]), slice(0, grid.shape[1])
        self._values: np.ndarray | None = values
        self._other: dict | None = None  # the tiles not in the grid now (paged)
        self.stroke: TerrainStroke | None = None
        self.lift = FoliageLift(terrain, volume) if volume is not None and target is HEIGHTS else None
        self.follow = None  # GroundFollow (heights) or SpawnEdits (weights) once done, or None
        self._done = False
        if not isinstance(grid, PagedPlane):
            with sculpting_into(terrain, None):  # the base beneath the layers, as on a paged terrain
                self.stroke = TerrainStroke(terrain, target, volume)
            # the stroke keeps the old values of the tiles it writes (its undo): no copy here
            self._patch: Patch | None = Patch(self.rows, self.cols, None,
                                              values.astype(grid.dtype, copy=False))

    def _plane(self):
        """The paged grid the command swaps tiles of: with edit layers, the heights' base (an
        import replaces the ground beneath the layers, whichever layer brushes paint into)."""
        stack = self.terrain.edits if self.target is HEIGHTS else None
        if stack is not None and stack.active():
            return stack.base
        return target_grid(self.terrain, self.target)

    def _changed(self) -> None:
        stack = self.terrain.edits if self.target is HEIGHTS else None
        if stack is not None and stack.active():
            stack.base_replaced(self.rows, self.cols)  # the composite follows the new base; announced
        elif self.target is HEIGHTS:
            self.terrain.heights_changed.emit(self.rows, self.cols)
        else:
            self.terrain.layer_weights_changed.emit(self.terrain.layer_index(self.target),
                                                    self.rows, self.cols)

    def redo(self) -> None:
        if self._done:  # again: the grid, then the foliage as it followed
            self._write()
            if self.follow is not None:
                self.follow.redo()
            return
        self._done = True
        heights = self.scene is not None and self.target is HEIGHTS
        follow = GroundFollow(self.scene, (self.rows, self.cols)) if heights else None
        self._write()
        if follow is not None:
            self.follow = follow.after()
        elif self.scene is not None:
            from model.foliage.spawner_section import follow_terrain_edit

            self.follow = follow_terrain_edit(self.scene, self.target, self.rows, self.cols)

    def _write(self) -> None:
        if self.stroke is not None:
            if self._patch is not None:
                self.stroke.apply(self._patch)
                self.stroke.finish()
                self._patch = None
            else:
                self.stroke.redo()
            return
        plane = self._plane()
        if self._values is None:
            self._other = plane.grid.swap_tiles(self._other)
            self._changed()
            if self.lift:
                self.lift.redo()
            return
        pending = self.lift.before(self.rows, self.cols) if self.lift else None
        grid, values, self._values = plane.grid, self._values, None
        new = {}
        for i, j, rs, cs in tiling.tiles_of(grid.rows, grid.columns, grid.tile):
            tile = np.array(grid.tile_array(i, j))  # every plane: a tile holds them stacked
            tile[plane.plane] = values[rs, cs]
            new[(i, j)] = TileState(tile)
        del values
        self._other = grid.swap_tiles(new)
        self._changed()
        if self.lift:
            self.lift.after(pending)
            self.lift.seal()

    def undo(self) -> None:
        if self.follow is not None:
            self.follow.undo()
        if self.stroke is not None:
            self.stroke.undo()
            return
        plane = self._plane()
        self._other = plane.grid.swap_tiles(self._other)
        self._changed()
        if self.lift:
            self.lift.undo()


class AddLayerCommand(QUndoCommand):
    def __init__(self, terrain: Terrain, name: str, color: tuple[int, int, int],
                 weights: np.ndarray | None = None) -> None:
        super().__init__(f"Add layer '{name.strip()}'")
        self.terrain = terrain
        self.name, self.color, self.weights = name.strip(), color, weights
        self.removed: layer_ops.RemovedLayer | None = None
        layer_ops.check_name(terrain, name)  # refuse before the command reaches the stack
        layer_ops.check_color(color)

    def redo(self) -> None:
        if self.removed is None:
            layer_ops.add_layer(self.terrain, self.name, self.color, weights=self.weights)
        else:
            layer_ops.insert_layer(self.terrain, self.removed)

    def undo(self) -> None:
        self.removed = layer_ops.delete_layer(self.terrain, self.name)


class DeleteLayerCommand(QUndoCommand):
    """Delete a layer; types filtering on it will refuse with "layer missing" until undone."""

    def __init__(self, terrain: Terrain, name: str) -> None:
        super().__init__(f"Delete layer '{name}'")
        layer_ops.index_of(terrain, name)
        self.terrain, self.name = terrain, name
        self.removed: layer_ops.RemovedLayer | None = None

    def redo(self) -> None:
        self.removed = layer_ops.delete_layer(self.terrain, self.name)

    def undo(self) -> None:
        layer_ops.insert_layer(self.terrain, self.removed)


class RenameLayerCommand(QUndoCommand):
    """Rename a layer and, with a palette, point the foliage types that filter on it at the new name."""

    def __init__(self, terrain: Terrain, old: str, new: str, palette=None) -> None:
        layer_ops.index_of(terrain, old)
        new = layer_ops.check_name(terrain, new, allow=old)
        super().__init__(f"Rename layer '{old}' to '{new}'"
                         + (" and update foliage types" if palette is not None else ""))
        self.terrain, self.old, self.new, self.palette = terrain, old, new, palette
        self.replaced: list = []

    def redo(self) -> None:
        layer_ops.rename_layer(self.terrain, self.old, self.new)
        if self.palette is not None:
            self.replaced = layer_ops.retarget_types(self.palette, self.old, self.new)

    def undo(self) -> None:
        if self.palette is not None:
            layer_ops.restore_types(self.palette, self.replaced)
        layer_ops.rename_layer(self.terrain, self.new, self.old)


class RecolourLayerCommand(QUndoCommand):
    """Change a layer's colour; successive changes of one layer merge, and back-to-start leaves no step."""

    def __init__(self, terrain: Terrain, name: str, color: tuple[int, int, int]) -> None:
        super().__init__(f"Recolour layer '{name}'")
        self.terrain, self.name = terrain, name
        self.old = terrain.layers[layer_ops.index_of(terrain, name)].color
        self.new = layer_ops.check_color(color)

    def id(self) -> int:
        return int(CommandId.LAYER_COLOUR)

    def redo(self) -> None:
        layer_ops.recolour_layer(self.terrain, self.name, self.new)

    def undo(self) -> None:
        layer_ops.recolour_layer(self.terrain, self.name, self.old)

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, RecolourLayerCommand) or other.name != self.name:
            return False
        self.new = other.new
        self.setObsolete(self.new == self.old)
        return True


class MoveLayerCommand(QUndoCommand):
    def __init__(self, terrain: Terrain, name: str, to_index: int) -> None:
        super().__init__(f"Move layer '{name}'")
        layer_ops.index_of(terrain, name)
        if not 0 <= to_index < len(terrain.layers):
            raise layer_ops.LayerError(f"layer index {to_index} is out of range")
        self.terrain, self.name, self.to_index = terrain, name, to_index
        self.from_index = layer_ops.index_of(terrain, name)

    def redo(self) -> None:
        self.from_index = layer_ops.move_layer(self.terrain, self.name, self.to_index)

    def undo(self) -> None:
        layer_ops.move_layer(self.terrain, self.name, self.from_index)


class LayerBlendCommand(QUndoCommand):
    """Turn a layer's weight blending on or off (off: painting it leaves the other layers alone)."""

    def __init__(self, terrain: Terrain, name: str, on: bool) -> None:
        layer = terrain.layers[layer_ops.index_of(terrain, name)]
        super().__init__(f"{'Weight-blend' if on else 'Stop weight-blending'} layer '{name}'")
        self.terrain, self.layer, self.on = terrain, layer, bool(on)
        self.old = layer.weight_blend

    def _set(self, on: bool) -> None:  # by identity: a rename in between does not lose the layer
        layer_ops.set_weight_blend(self.terrain, self.layer.name, on)

    def redo(self) -> None:
        self._set(self.on)

    def undo(self) -> None:
        self._set(self.old)


class LayerMaterialCommand(QUndoCommand):
    """Give a layer a material (a texture set or cleared, tiling, projection), and with a new albedo
    the texture's mean as its colour: one step either way."""

    def __init__(self, terrain: Terrain, name: str, material, color: tuple[int, int, int] | None = None,
                 text: str | None = None) -> None:
        layer = terrain.layers[layer_ops.index_of(terrain, name)]
        super().__init__(text or f"Change the material of layer '{name}'")
        self.terrain, self.layer = terrain, layer
        self.new, self.old = material, layer.material
        self.new_color = layer.color if color is None else layer_ops.check_color(color)
        self.old_color = layer.color

    def _set(self, material, color) -> None:  # by identity: a rename in between does not lose it
        name = self.layer.name
        layer_ops.recolour_layer(self.terrain, name, color)
        layer_ops.set_material(self.terrain, name, material)

    def redo(self) -> None:
        self._set(self.new, self.new_color)

    def undo(self) -> None:
        self._set(self.old, self.old_color)


class AutoPaintCommand(QUndoCommand):
    """An auto-paint rule run over the terrain (`model.auto_paint`): the layer and the weight-blended
    layers it took weight from, as one step. The stroke arrives applied and finished (it ran with
    progress and Cancel before it was pushed), so the first redo does nothing."""

    def __init__(self, stroke, text: str) -> None:
        super().__init__(text)
        self.stroke = stroke
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.stroke.redo()

    def undo(self) -> None:
        self.stroke.undo()
