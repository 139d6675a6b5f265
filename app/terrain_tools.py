"""Terrain tools: Raise/Lower, Smooth, Flatten, Noise, Paint layer, Erase layer, the Holes tool
(`app.holes_tool`) and the Road tool (`app.spline_tool`).

Each tool is an `app.tools.Tool`; the `TerrainToolbox` registers them into a `ToolHost`, which
holds every tool of the viewport in one exclusive action group, owns the shared brush and feeds
the active tool the viewport's left-button drags.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction

from app.foliage_tools import ERASE_COLOUR, erase_mark
from app.terrain_commands import TerrainStrokeCommand
from app.tools import STAMP_SPACING, Tool, ToolHost, ray_hit, stamp_points
from model.brush import Brush
from model.layer_ops import LayerPaintStroke, paint_layer_stamp
from model.sculpt import HEIGHTS, TerrainStroke, flatten, noise, raise_lower, smooth
from model.terrain import Terrain

RAISE_RATE = 0.04  # metres per stamp per metre of brush radius, at full strength
REMOVE_MARK = "terrain_remove_brush"  # overlay line set: the red rim and minus of a lowering brush


# ---- tools ------------------------------------------------------------------------------------
class TerrainTool(Tool):
    """A terrain tool: the shared hooks, with its toolbox at hand."""

    def __init__(self, toolbox: TerrainToolbox) -> None:
        self.toolbox = toolbox


class StrokeTool(TerrainTool):
    """A drag lays stamps every STAMP_SPACING × radius; the whole drag is one undo step."""

    target_is_layer = False

    def __init__(self, toolbox: TerrainToolbox) -> None:
        super().__init__(toolbox)
        self.stroke: TerrainStroke | None = None
        self._last: tuple[float, float] | None = None
        self._modifiers = Qt.KeyboardModifier.NoModifier

    def target(self) -> str | None:
        return HEIGHTS

    def stroke_text(self) -> str:
        return self.title

    def begin(self, x: float, z: float) -> None:
        """Called once at the press, before the first stamp (Flatten reads its height here)."""

    def make_patch(self, terrain: Terrain, brush: Brush, x: float, z: float):
        raise NotImplementedError

    def press(self, pos, modifiers) -> None:
        target = self.target()
        hidden = self._hidden_edit_layer() if target is HEIGHTS else None
        if hidden is not None:
            self.toolbox.report(f"Edit layer '{hidden}' is hidden (or at 0 % opacity): show it, or pick "
                                "another in Terrain Layers, to sculpt into it.")
            return
        if self.target_is_layer and (target is None or self.toolbox.terrain.layer(target) is None):
            if target is None:
                self.toolbox.report("No layer to paint: pick one in the Layers panel (or Add one).")
            else:
                self.toolbox.report(f"No layer named '{target}' to paint: pick one in the Layers panel.")
            return
        self.stroke = self.new_stroke(target)
        self._modifiers = modifiers
        self.toolbox.stroke_seed += 1
        self._last = None
        self.toolbox.show_brush(pos, self.removes(modifiers))
        if pos is not None:
            self.begin(*pos)
            self._stamp(*pos)

    def _hidden_edit_layer(self) -> str | None:
        """The selected edit layer's name when a sculpt into it would not show."""
        stack = self.toolbox.terrain.edits
        layer = stack.get(stack.selected) if stack is not None and stack.selected is not None else None
        return layer.name if layer is not None and not layer.shows else None

    def new_stroke(self, target: str | None):
        """The undo step a press starts: a sculpt carries the foliage standing on the ground."""
        return TerrainStroke(self.toolbox.terrain, target, self.toolbox.foliage_volume(),
                             follow=self.toolbox.stroke_follower())

    def removes(self, modifiers) -> bool:
        """Whether the brush takes away (lowers, erases) with these keys held: its ring says so."""
        return False

    def activate(self) -> None:
        # picked by its key while the pointer rests over the ground: the ring shows at once
        host = self.toolbox.host
        self.toolbox.show_brush(getattr(host, "hover_ground", None), self.removes(host.modifiers))

    def hover(self, pos, modifiers) -> None:
        self.toolbox.show_brush(pos, self.removes(modifiers))

    def move(self, pos, modifiers) -> None:
        self.toolbox.show_brush(pos, self.removes(modifiers))
        if self.stroke is None or pos is None:
            return
        self._modifiers = modifiers
        if self._last is None:
            self.begin(*pos)
            self._stamp(*pos)
            return
        for x, z in stamp_points(self._last, pos, self.toolbox.brush.radius * STAMP_SPACING):
            self._stamp(x, z)

    def release(self, pos, modifiers) -> None:
        if self.stroke is not None:
            self.stroke.finish()
            self.toolbox.stroke_finished.emit(self.stroke)
        self.stroke = None
        self._last = None

    def deactivate(self) -> None:
        self.release(None, Qt.KeyboardModifier.NoModifier)
        self.toolbox.show_brush(None)

    def _stamp(self, x: float, z: float) -> None:
        self._last = (x, z)
        patch = self.make_patch(self.toolbox.terrain, self.toolbox.brush, x, z)
        if patch is None:
            return
        self.toolbox.undo_stack().push(TerrainStrokeCommand(self.stroke, patch, self.stroke_text()))

    @property
    def ctrl(self) -> bool:
        return bool(self._modifiers & Qt.KeyboardModifier.ControlModifier)


class RaiseLowerTool(StrokeTool):
    tool_key, title, shortcut = "raise", "Raise / Lower", "R"
    tooltip = "Raise the ground under the brush (Ctrl lowers) — R"

    def stroke_text(self) -> str:
        return "Lower terrain" if self.ctrl else "Raise terrain"

    def removes(self, modifiers) -> bool:
        return bool(modifiers & Qt.KeyboardModifier.ControlModifier)

    def make_patch(self, terrain, brush, x, z):
        amount = RAISE_RATE * brush.radius * self.toolbox.amount
        return raise_lower(terrain, brush, x, z, -amount if self.ctrl else amount)


class SmoothTool(StrokeTool):
    tool_key, title, shortcut = "smooth", "Smooth", "S"
    tooltip = "Even out bumps under the brush — S"

    def make_patch(self, terrain, brush, x, z):
        return smooth(terrain, brush, x, z)


class FlattenTool(StrokeTool):
    tool_key, title, shortcut = "flatten", "Flatten", "T"
    tooltip = "Level the ground to the height under the press — T"
    target_height = math.nan

    def begin(self, x: float, z: float) -> None:
        self.target_height = float(self.toolbox.terrain.height_at(x, z))

    def make_patch(self, terrain, brush, x, z):
        return flatten(terrain, brush, x, z, self.target_height)


class NoiseTool(StrokeTool):
    tool_key, title, shortcut = "noise", "Noise", "N"
    tooltip = "Roughen the ground with seeded noise (the same seed gives the same bumps) — N"

    def make_patch(self, terrain, brush, x, z):
        amount = RAISE_RATE * brush.radius * self.toolbox.amount
        return noise(terrain, brush, x, z, seed=self.toolbox.noise_seed, amount=amount)


class PaintLayerTool(StrokeTool):
    tool_key, title, shortcut = "paint_layer", "Paint Layer", "L"
    tooltip = "Paint the current layer's weight (Ctrl erases) — L"
    erase = False
    target_is_layer = True

    def target(self) -> str | None:
        return self.toolbox.current_layer

    def removes(self, modifiers) -> bool:
        return self.erase != bool(modifiers & Qt.KeyboardModifier.ControlModifier)

    def stroke_text(self) -> str:
        verb = "Erase" if self.erase != self.ctrl else "Paint"
        return f"{verb} layer '{self.toolbox.current_layer}'"

    def new_stroke(self, target: str | None):
        return LayerPaintStroke(self.toolbox.terrain, target, follow=self.toolbox.stroke_follower())

    def make_patch(self, terrain, brush, x, z):
        # a weight-blended layer takes its weight from the others: they add up to at most 100 %
        return paint_layer_stamp(terrain, self.stroke.target, brush, x, z, erase=self.erase != self.ctrl)


class EraseLayerTool(PaintLayerTool):
    tool_key, title, shortcut = "erase_layer", "Erase Layer", "Shift+L"
    tooltip = "Erase the current layer's weight (Ctrl paints) — Shift+L"
    erase = True


TOOL_CLASSES: list[type[TerrainTool]] = [RaiseLowerTool, SmoothTool, FlattenTool, NoiseTool,
                                         PaintLayerTool, EraseLayerTool]


# ---- the toolbox ------------------------------------------------------------------------------
class TerrainToolbox(QObject):
    """The terrain tools, registered into a `ToolHost` (its own one when none is given)."""

    brush_changed = Signal(object)
    tool_changed = Signal(str)  # key of the active terrain tool, "" for none
    stroke_finished = Signal(object)  # the TerrainStroke
    message = Signal(str)
    spline_selected = Signal(int, float)  # the Road tool's selected point and its width
    spline_shape = Signal(str, float)  # the Road tool's spline kind ("road", "river") and depth

    def __init__(self, viewport, document, settings=None, parent: QObject | None = None,
                 host: ToolHost | None = None) -> None:
        super().__init__(parent)
        self.host = host if host is not None else ToolHost(viewport, document, settings, self)
        self.viewport = viewport
        self.document = document
        self.settings = settings
        self.amount = 1.0  # Raise/Noise strength multiplier
        self.noise_seed = 1
        self.stroke_seed = 0
        self.current_layer: str | None = None
        # the Road tool's spline layer and what its new points and new roads take
        self.spline_name, self.spline_type, self.spline_paint = "road", "road", "road"
        self.spline_width, self.spline_falloff = 8.0, 4.0
        self.spline_max_grade, self.spline_depth = 12.0, 2.0
        from app.holes_tool import HolesTool  # they build on the tools defined above
        from app.spline_tool import SplineTool

        self.tools = {cls.tool_key: cls(self) for cls in [*TOOL_CLASSES, HolesTool, SplineTool]}
        self.actions: dict[str, QAction] = {
            key: self.host.add_tool(tool, f"action_terrain_{key}") for key, tool in self.tools.items()}
        self._cursor_at: tuple[float, float] | None = None
        self._removes = False
        self.host.brush_changed.connect(self.brush_changed)
        self.host.brush_changed.connect(self._on_brush_changed)
        self.host.tool_changed.connect(self._on_tool_changed)
        self.host.cursor_moved.connect(self._on_cursor_moved)
        document.scene_replaced.connect(self._on_scene_replaced)
        self._on_scene_replaced(document.scene)

    # ---- state ----------------------------------------------------------------------
    @property
    def brush(self) -> Brush:
        return self.host.brush

    @property
    def active(self) -> TerrainTool | None:
        tool = self.host.active
        return tool if isinstance(tool, TerrainTool) and tool.toolbox is self else None

    @property
    def action_group(self):
        return self.host.action_group

    def action_list(self) -> list[QAction]:
        return list(self.actions.values())

    @property
    def terrain(self) -> Terrain:
        return self.document.scene.terrain

    def undo_stack(self):
        return self.document.undo_stack

    def stroke_follower(self):
        """What re-runs after a stroke of this scene (its spawners, over the touched ground), or None."""
        from model.foliage.spawner_section import terrain_follower

        return terrain_follower(self.document.scene)

    def foliage_volume(self):
        """The scene's stored foliage, re-grounded by sculpt strokes; None when it has none."""
        section = self.document.scene.sections.get("foliage")
        return getattr(section, "volume", None)

    def report(self, text: str) -> None:
        self.message.emit(text)

    def _on_scene_replaced(self, scene) -> None:
        if self.active is not None:  # a stroke in progress belongs to the old scene: end it
            self.host.cancel_drag()
        names = [layer.name for layer in scene.terrain.layers]
        if self.current_layer not in names:
            self.current_layer = names[0] if names else None

    def set_current_layer(self, name: str | None) -> None:
        self.current_layer = name

    def add_tool(self, tool: TerrainTool) -> QAction:
        """Register one more terrain tool (after the built-in ones) into the host's group."""
        self.tools[tool.tool_key] = tool
        self.actions[tool.tool_key] = self.host.add_tool(tool, f"action_terrain_{tool.tool_key}")
        return self.actions[tool.tool_key]
    def spline_point_selected(self, index: int, width: float) -> None:
        self.spline_selected.emit(index, width)

    def set_spline_width(self, width: float) -> None:
        """The width new road points take; with a point selected, that point's width too (one step)."""
        self.spline_width = float(width)
        self.tools["spline"].set_width(self.spline_width)

    def set_spline_kind(self, kind: str) -> None:
        """Road or river for the splines laid next, and for the edited one (one undo step)."""
        self.spline_type = self.spline_paint = kind  # a river paints a "river" layer, not the road's
        self.tools["spline"].set_shape(kind=kind)

    def set_spline_depth(self, depth: float) -> None:
        """A river's bed depth for the splines laid next, and for the edited river (one undo step)."""
        self.spline_depth = float(depth)
        self.tools["spline"].set_shape(depth=self.spline_depth)

    # ---- brush cursor -----------------------------------------------------------------
    def show_brush(self, pos: tuple[float, float] | None, removes: bool = False) -> None:
        """Draw the brush ring (radius and falloff) on the ground at `pos`; None hides it.
        `removes`: a red rim and a minus sign, so a lowering or erasing brush never looks like
        a raising or painting one."""
        self._cursor_at = pos if self.active is not None else None
        self._removes = removes and self._cursor_at is not None
        overlays = getattr(self.viewport, "overlays", None)
        cursor = getattr(overlays, "brush_cursor", None)
        lines = getattr(overlays, "lines", None)
        if cursor is None:
            return
        if self._cursor_at is None or not math.isfinite(float(self.terrain.height_at(*self._cursor_at))):
            if self.active is not None or pos is None:
                cursor.hide()
                if lines is not None:
                    lines.remove(REMOVE_MARK)
            return
        x, z = self._cursor_at
        y = float(self.terrain.height_at(x, z))
        cursor.show((x, y, z), self.brush.radius, self.brush.falloff)
        if lines is None:
            return
        if removes:
            lines.set(REMOVE_MARK, erase_mark((x, y, z), self.brush.radius, self.terrain.height_at),
                      ERASE_COLOUR)
        else:
            lines.remove(REMOVE_MARK)

    def _on_brush_changed(self, brush: Brush) -> None:
        if self.active is not None and self._cursor_at is not None:  # [ ] keys resize the ring in place
            self.show_brush(self._cursor_at, self._removes)

    def _on_cursor_moved(self, hit) -> None:
        if hit is None and self.active is not None:  # the pointer left the view or the ground
            self.show_brush(None)

    # ---- tools ----------------------------------------------------------------------
    def activate(self, key: str | None) -> None:
        """Make the tool `key` active (None: no terrain tool)."""
        if key is None:
            if self.active is not None:
                self.actions[self.active.tool_key].setChecked(False)
            return
        self.actions[key].setChecked(True)

    def _on_tool_changed(self, tool) -> None:
        mine = isinstance(tool, TerrainTool) and tool.toolbox is self
        self.tool_changed.emit(tool.tool_key if mine else "")
        if mine:
            self.report(f"{tool.tooltip.split(' — ')[0]}. Left drag applies; [ ] radius, Shift+[ ] strength.")

    # ---- brush ----------------------------------------------------------------------
    def set_brush(self, brush: Brush) -> None:
        self.host.set_brush(brush)

    # ---- world positions and scripted strokes ---------------------------------------
    def world_at(self, x: float, y: float) -> tuple[float, float] | None:
        """The terrain point (x, z) under a viewport pixel, or None."""
        return self.host.world_at(x, y)

    def drag(self, points: list[tuple[float, float]],
             modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        """Drive the active terrain tool through press, moves and release at world (x, z) points."""
        if self.active is not None:
            self.host.drag(points, modifiers)
            self.show_brush(None)  # a scripted stroke has no pointer to leave the brush ring under


__all__ = ["TOOL_CLASSES", "TerrainTool", "TerrainToolbox", "ray_hit"]
