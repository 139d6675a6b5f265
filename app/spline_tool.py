"""The Road tool: lay and reshape a road (or river) spline in the viewport.

Click on the ground to add a point at the road's end (the first two clicks make the road), drag a
point to move it, Ctrl+click a point (or select it and press Delete) to remove it. Every edit is one
undo step that recomputes only the stretch of road it changes (`model.spline_edits`). The spline
layer, its width for new points, the selected point's width, and its kind (a road levels the ground,
a river carves a bed `depth` below it) are in Tool Settings.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QUndoCommand

from app.terrain_tools import TerrainTool
from model.edit_layers import EditLayerError
from model.layer_ops import LayerError
from model.spline_edits import KIND, SplineChange, apply_spline, redo_spline, spline_of, undo_spline
from model.splines import Spline, SplineError

POINTS_KEY, SELECTED_KEY = "spline_points", "spline_selected_point"
POINT_COLOUR = (1.0, 0.85, 0.2, 1.0)
SELECTED_COLOUR = (1.0, 0.35, 0.1, 1.0)
PICK_METRES = 4.0  # a press this near a point (or within its half-width) takes the point


class SplineCommand(QUndoCommand):
    """One edit of a spline layer: the first redo lays it, undo and redo replay what it wrote."""

    def __init__(self, scene, name: str, spline: Spline, text: str, after=None) -> None:
        super().__init__(text)
        self.scene, self.name, self.spline = scene, name, spline
        self.change: SplineChange | None = None
        self.after = after  # called after every redo and undo (the tool's markers)

    def redo(self) -> None:
        if self.change is None:
            self.change = apply_spline(self.scene, self.name, self.spline)
        else:
            redo_spline(self.scene, self.change)
        if self.after is not None:
            self.after()

    def undo(self) -> None:
        undo_spline(self.scene, self.change)
        if self.after is not None:
            self.after()


class SplineTool(TerrainTool):
    tool_key, title, shortcut = "spline", "Road", "Shift+R"
    tooltip = "Lay a road spline: click adds a point, drag moves one, Ctrl+click deletes — Shift+R"

    def __init__(self, toolbox) -> None:
        super().__init__(toolbox)
        self.selected: int | None = None
        self.pending: tuple[float, float] | None = None  # the first point of a road not made yet
        self._drag: int | None = None
        self._drag_to: tuple[float, float] | None = None

    # ---- the spline being edited --------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.toolbox.spline_name

    def spline(self) -> Spline | None:
        stack = self.toolbox.terrain.edits
        layer = None if stack is None else stack.get(self.name)
        if layer is None or layer.kind != KIND:
            return None
        try:
            return spline_of(layer)
        except SplineError:
            return None

    def _new_spline(self, a: tuple[float, float], b: tuple[float, float]) -> Spline:
        tb = self.toolbox
        pts = np.array([(a[0], np.nan, a[1]), (b[0], np.nan, b[1])])
        return Spline(pts, tb.spline_width, tb.spline_falloff, tb.spline_type,
                      max_grade=tb.spline_max_grade, depth=tb.spline_depth, paint=tb.spline_paint)

    def _pick(self, spline: Spline | None, pos) -> int | None:
        if spline is None or pos is None:
            return None
        d = np.hypot(spline.points[:, 0] - pos[0], spline.points[:, 2] - pos[1])
        k = int(np.argmin(d))
        return k if d[k] <= max(PICK_METRES, spline.widths[k] / 2) else None

    def push(self, spline: Spline, text: str) -> bool:
        """Check the spline and push its edit as one undo step; False (and a message) if refused."""
        try:
            spline.check()
            if self.toolbox.terrain.edits is not None:
                layer = self.toolbox.terrain.edits.get(self.name)
                if layer is not None and layer.kind != KIND:
                    raise EditLayerError(f"the edit layer {self.name!r} is a {layer.kind} layer, "
                                         "not a spline: pick another name")
        except (SplineError, EditLayerError, LayerError) as e:
            self.toolbox.report(f"Cannot {text[0].lower() + text[1:]}: {e}")
            return False
        scene = self.toolbox.document.scene
        self.toolbox.undo_stack().push(SplineCommand(scene, self.name, spline, text, self.show_points))
        return True

    # ---- hooks --------------------------------------------------------------------------------
    def activate(self) -> None:
        self.show_points()
        self.toolbox.show_brush(None)

    def deactivate(self) -> None:
        self._drag = self._drag_to = None
        self.pending = None
        points = getattr(getattr(self.toolbox.viewport, "overlays", None), "points", None)
        if points is not None:
            points.remove(POINTS_KEY)
            points.remove(SELECTED_KEY)

    def press(self, pos, modifiers) -> None:
        if pos is None:
            return
        spline = self.spline()
        hit = self._pick(spline, pos)
        if hit is not None and modifiers & Qt.KeyboardModifier.ControlModifier:
            self.delete_point(hit)
            return
        if hit is not None:
            self.selected = self._drag = hit
            self._drag_to = None
            self.toolbox.spline_point_selected(hit, float(spline.widths[hit]))
            self.show_points()
            return
        if spline is None:
            if self.pending is None:
                self.pending = pos
                self.show_points()
                self.toolbox.report("Click again for the road's second point")
                return
            first, self.pending = self.pending, None
            if self.push(self._new_spline(first, pos), f"Lay {self.toolbox.spline_type} '{self.name}'"):
                self.selected = 1
            return
        moved = spline.inserted(len(spline.points), pos[0], pos[1])
        widths = moved.widths.copy()
        widths[-1] = self.toolbox.spline_width
        moved = Spline(moved.points, widths, moved.falloffs, moved.type, moved.smooth, moved.depth,
                       moved.max_grade, moved.smoothing, moved.paint, moved.clear_foliage)
        if self.push(moved, f"Add a point to '{self.name}'"):
            self.selected = len(moved.points) - 1

    def move(self, pos, modifiers) -> None:
        if self._drag is not None and pos is not None:
            self._drag_to = pos
            self.show_points()

    def release(self, pos, modifiers) -> None:
        index, to = self._drag, (pos if pos is not None else self._drag_to)
        self._drag = self._drag_to = None
        spline = self.spline()
        if index is None or to is None or spline is None or index >= len(spline.points):
            return
        if tuple(spline.points[index, (0, 2)]) == (to[0], to[1]):
            return  # a click on a point selects it: no step
        self.push(spline.with_point(index, to[0], to[1]), f"Move point {index + 1} of '{self.name}'")

    def cancel(self) -> None:
        self._drag = self._drag_to = None
        self.pending = None
        self.show_points()

    def key(self, event: QKeyEvent) -> bool:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.selected is not None:
            self.delete_point(self.selected)
            return True
        return False

    # ---- edits --------------------------------------------------------------------------------
    def delete_point(self, index: int) -> bool:
        spline = self.spline()
        if spline is None or index >= len(spline.points):
            return False
        if len(spline.points) <= 2:
            self.toolbox.report("A road keeps at least 2 points: hide or delete its edit layer instead")
            return False
        ok = self.push(spline.removed(index), f"Delete point {index + 1} of '{self.name}'")
        if ok:
            self.selected = None
        return ok

    def set_width(self, width: float) -> bool:
        """Give the selected point `width` metres (one undo step); False when none is selected."""
        spline = self.spline()
        if spline is None or self.selected is None or self.selected >= len(spline.points):
            return False
        if float(spline.widths[self.selected]) == float(width):
            return False
        return self.push(spline.with_width(self.selected, width),
                         f"Set point {self.selected + 1} of '{self.name}' to {width:g} m wide")

    def set_shape(self, kind: str | None = None, depth: float | None = None) -> bool:
        """Make the edited spline a road or a river, or give a river another depth (one undo step);
        False when there is no spline or nothing changes."""
        spline = self.spline()
        if spline is None:
            return False
        new = replace(spline, type=kind or spline.type, depth=spline.depth if depth is None else depth)
        if new.type == spline.type and (new.type != "river" or new.depth == spline.depth):
            return False  # a road stores no depth: changing it changes nothing
        if new.type != spline.type:
            text = f"Make '{self.name}' a {new.type}"
        else:
            text = f"Set the depth of '{self.name}' to {new.depth:g} m"
        return self.push(new, text)

    # ---- markers ------------------------------------------------------------------------------
    def show_points(self) -> None:
        spline = self.spline()
        if spline is not None:  # Tool Settings show the kind and depth of the spline being edited
            self.toolbox.spline_shape.emit(spline.type, float(spline.depth))
        points = getattr(getattr(self.toolbox.viewport, "overlays", None), "points", None)
        if points is None:
            return
        xz = [] if spline is None else [tuple(p) for p in spline.points[:, (0, 2)]]
        if self._drag is not None and self._drag_to is not None and self._drag < len(xz):
            xz[self._drag] = self._drag_to
        if self.pending is not None:
            xz.append(self.pending)
        if not xz:
            points.remove(POINTS_KEY)
            points.remove(SELECTED_KEY)
            return
        arr = np.array(xz, np.float64)
        y = np.nan_to_num(self.toolbox.terrain.height_at(arr[:, 0], arr[:, 1]))
        at = np.column_stack([arr[:, 0], y, arr[:, 1]])
        points.set(POINTS_KEY, at, POINT_COLOUR, 10.0)
        if self.selected is not None and self.selected < len(at):
            points.set(SELECTED_KEY, at[self.selected:self.selected + 1], SELECTED_COLOUR, 14.0)
        else:
            points.remove(SELECTED_KEY)
