"""Terrain tools: Raise/Lower, Smooth, Flatten, Noise, Paint layer, Erase layer.

Each tool is an object with the same hooks (activate, deactivate, press, move, release, key).
The `TerrainToolbox` holds them in one exclusive action group, owns the shared brush, and feeds
the active tool the viewport's left-button drags (as world x, z) through an event filter, so the
viewport's own navigation (right/middle drag, Alt + left drag, wheel) is untouched.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeyEvent, QKeySequence, QMouseEvent

from app.terrain_commands import TerrainStrokeCommand
from model.brush import Brush
from model.sculpt import HEIGHTS, TerrainStroke, flatten, noise, paint_layer, raise_lower, smooth
from model.terrain import Terrain

STAMP_SPACING = 0.25  # a new stamp every quarter radius along a drag
RAISE_RATE = 0.04  # metres per stamp per metre of brush radius, at full strength


# ---- picking ----------------------------------------------------------------------------------
def ray_hit(terrain: Terrain, origin, direction) -> tuple[float, float, float] | None:
    """First point where a ray meets the heightfield (marched at half a grid step, then bisected)."""
    o = np.asarray(origin, np.float64)
    d = np.asarray(direction, np.float64)
    x0, z0, x1, z1 = terrain.bounds()
    lo_h, hi_h = terrain.height_range()
    t0, t1 = 0.0, math.inf
    for axis, lo, hi in ((0, x0, x1), (1, lo_h - 1e-3, hi_h + 1e-3), (2, z0, z1)):
        if abs(d[axis]) < 1e-12:
            if not lo <= o[axis] <= hi:
                return None
            continue
        a, b = (lo - o[axis]) / d[axis], (hi - o[axis]) / d[axis]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    if t0 > t1:
        return None
    step = terrain.spacing / 2.0
    t = np.append(np.arange(t0, t1, step), t1)
    p = o[None, :] + t[:, None] * d[None, :]
    ground = terrain.height_at(p[:, 0], p[:, 2])
    below = np.flatnonzero(np.nan_to_num(ground, nan=-np.inf) >= p[:, 1])
    if below.size == 0:
        return None
    i = int(below[0])
    if i == 0:
        return float(p[0, 0]), float(ground[0]), float(p[0, 2])
    a, b = t[i - 1], t[i]
    for _ in range(30):
        m = (a + b) / 2.0
        q = o + m * d
        g = terrain.height_at(q[0], q[2])
        if np.isfinite(g) and g >= q[1]:
            b = m
        else:
            a = m
    q = o + b * d
    return float(q[0]), float(terrain.height_at(q[0], q[2])), float(q[2])


# ---- tools ------------------------------------------------------------------------------------
class TerrainTool:
    """Hooks every editing tool has. Positions are world (x, z), or None off the terrain."""

    tool_key = ""
    title = ""
    shortcut = ""
    tooltip = ""

    def __init__(self, toolbox: TerrainToolbox) -> None:
        self.toolbox = toolbox

    def activate(self) -> None:
        pass

    def deactivate(self) -> None:
        pass

    def press(self, pos: tuple[float, float] | None, modifiers: Qt.KeyboardModifier) -> None:
        pass

    def move(self, pos: tuple[float, float] | None, modifiers: Qt.KeyboardModifier) -> None:
        pass

    def release(self, pos: tuple[float, float] | None, modifiers: Qt.KeyboardModifier) -> None:
        pass

    def key(self, event: QKeyEvent) -> bool:
        """Handle a key; True if used."""
        return False


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
        if self.target_is_layer and (target is None or self.toolbox.terrain.layer(target) is None):
            self.toolbox.report(f"No layer named '{target}' to paint: pick one in the Layers panel.")
            return
        volume = None if self.target_is_layer else self.toolbox.foliage_volume()
        self.stroke = TerrainStroke(self.toolbox.terrain, target, volume)
        self._modifiers = modifiers
        self.toolbox.stroke_seed += 1
        self._last = None
        if pos is not None:
            self.begin(*pos)
            self._stamp(*pos)

    def move(self, pos, modifiers) -> None:
        if self.stroke is None or pos is None:
            return
        self._modifiers = modifiers
        if self._last is None:
            self.begin(*pos)
            self._stamp(*pos)
            return
        # Lay stamps at even spacing along the segment, so a fast drag leaves no gaps.
        spacing = max(self.toolbox.brush.radius * STAMP_SPACING, 1e-6)
        (x0, z0), (x1, z1) = self._last, pos
        length = math.hypot(x1 - x0, z1 - z0)
        steps = int(length // spacing)
        for i in range(1, steps + 1):
            f = i * spacing / length
            self._stamp(x0 + (x1 - x0) * f, z0 + (z1 - z0) * f)

    def release(self, pos, modifiers) -> None:
        if self.stroke is not None:
            self.stroke.finish()
            self.toolbox.stroke_finished.emit(self.stroke)
        self.stroke = None
        self._last = None

    def deactivate(self) -> None:
        self.release(None, Qt.KeyboardModifier.NoModifier)

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

    def stroke_text(self) -> str:
        verb = "Erase" if self.erase != self.ctrl else "Paint"
        return f"{verb} layer '{self.toolbox.current_layer}'"

    def make_patch(self, terrain, brush, x, z):
        return paint_layer(terrain, self.stroke.target, brush, x, z, erase=self.erase != self.ctrl)


class EraseLayerTool(PaintLayerTool):
    tool_key, title, shortcut = "erase_layer", "Erase Layer", "Shift+L"
    tooltip = "Erase the current layer's weight (Ctrl paints) — Shift+L"
    erase = True


TOOL_CLASSES: list[type[TerrainTool]] = [RaiseLowerTool, SmoothTool, FlattenTool, NoiseTool,
                                         PaintLayerTool, EraseLayerTool]


# ---- the toolbox ------------------------------------------------------------------------------
class TerrainToolbox(QObject):
    """The terrain tools, the shared brush, and the wiring from viewport events to tool hooks."""

    brush_changed = Signal(object)
    tool_changed = Signal(str)  # key of the active tool, "" for none
    stroke_finished = Signal(object)  # the TerrainStroke
    message = Signal(str)

    def __init__(self, viewport, document, settings=None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.viewport = viewport
        self.document = document
        self.settings = settings
        self.brush = self._load_brush()
        self.amount = 1.0  # Raise/Noise strength multiplier
        self.noise_seed = 1
        self.stroke_seed = 0
        self.current_layer: str | None = None
        self.tools = {cls.tool_key: cls(self) for cls in TOOL_CLASSES}
        self.active: TerrainTool | None = None
        self._dragging = False
        self.action_group = QActionGroup(self)
        self.action_group.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
        self.actions: dict[str, QAction] = {}
        for key, tool in self.tools.items():
            action = QAction(tool.title, self)
            action.setObjectName(f"action_terrain_{key}")
            action.setCheckable(True)
            action.setShortcut(QKeySequence(tool.shortcut))
            action.setToolTip(tool.tooltip)
            action.setStatusTip(tool.tooltip)
            action.toggled.connect(lambda on, k=key: self._on_toggled(k, on))
            self.action_group.addAction(action)
            self.actions[key] = action
        self._pick: Callable | None = None
        viewport.installEventFilter(self)
        document.scene_replaced.connect(self._on_scene_replaced)
        self._on_scene_replaced(document.scene)

    # ---- state ----------------------------------------------------------------------
    @property
    def terrain(self) -> Terrain:
        return self.document.scene.terrain

    def undo_stack(self):
        return self.document.undo_stack

    def foliage_volume(self):
        """The scene's stored foliage, re-grounded by sculpt strokes; None when it has none."""
        section = self.document.scene.sections.get("foliage")
        return getattr(section, "volume", None)

    def report(self, text: str) -> None:
        self.message.emit(text)

    def _on_scene_replaced(self, scene) -> None:
        if self.active is not None:  # a stroke in progress belongs to the old scene: end it
            self.active.release(None, Qt.KeyboardModifier.NoModifier)
        self._dragging = False
        names = [layer.name for layer in scene.terrain.layers]
        if self.current_layer not in names:
            self.current_layer = names[0] if names else None

    def set_current_layer(self, name: str | None) -> None:
        self.current_layer = name

    # ---- tools ----------------------------------------------------------------------
    def activate(self, key: str | None) -> None:
        """Make the tool `key` active (None: no terrain tool)."""
        if key is None:
            if self.active is not None:
                self.actions[self.active.tool_key].setChecked(False)
            return
        self.actions[key].setChecked(True)

    def _on_toggled(self, key: str, on: bool) -> None:
        tool = self.tools[key]
        if on:
            if self.active is not None and self.active is not tool:
                self.active.deactivate()
            self.active = tool
            tool.activate()
            self.tool_changed.emit(key)
            self.report(f"{tool.tooltip.split(' — ')[0]}. Left drag applies; [ ] radius, Shift+[ ] strength.")
        elif self.active is tool:
            tool.deactivate()
            self.active = None
            self.tool_changed.emit("")

    # ---- brush ----------------------------------------------------------------------
    def set_brush(self, brush: Brush) -> None:
        if brush == self.brush:
            return
        self.brush = brush
        if self.settings is not None:
            self.settings.qsettings.setValue("brush/settings", json.dumps(brush.to_dict()))
        self.brush_changed.emit(brush)

    def _load_brush(self) -> Brush:
        if self.settings is None:
            return Brush()
        text = self.settings.qsettings.value("brush/settings", "")
        try:
            return Brush.from_dict(json.loads(text)) if text else Brush()
        except (TypeError, ValueError):
            return Brush()

    # ---- world positions ------------------------------------------------------------
    def world_at(self, x: float, y: float) -> tuple[float, float] | None:
        """The terrain point (x, z) under a viewport pixel, or None."""
        picker = getattr(self.viewport, "pick_terrain", None)
        if callable(picker):  # the viewport's own picking, where it offers one
            hit = picker(x, y)
            return None if hit is None else (float(hit[0]), float(hit[2]))
        w, h = max(1, self.viewport.width()), max(1, self.viewport.height())
        origin, direction = self.viewport.camera.ray(2.0 * x / w - 1.0, 1.0 - 2.0 * y / h, w / h)
        hit = ray_hit(self.terrain, origin, direction)
        return None if hit is None else (hit[0], hit[2])

    # ---- scripted strokes (tests, macros) -------------------------------------------
    def drag(self, points: list[tuple[float, float]],
             modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        """Drive the active tool through press, moves and release at world (x, z) points."""
        if self.active is None or not points:
            return
        self.active.press(points[0], modifiers)
        for p in points[1:]:
            self.active.move(p, modifiers)
        self.active.release(points[-1], modifiers)

    # ---- events from the viewport ---------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if self.active is None or obj is not self.viewport:
            return False
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            if (event.button() == Qt.MouseButton.LeftButton
                    and not event.modifiers() & Qt.KeyboardModifier.AltModifier):
                self._dragging = True
                self.active.press(self._world(event), event.modifiers())
                return True
        elif kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent) and self._dragging:
            self.active.move(self._world(event), event.modifiers())
            return True
        elif kind == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent) and self._dragging:
            if event.button() == Qt.MouseButton.LeftButton:
                self._dragging = False
                self.active.release(self._world(event), event.modifiers())
                return True
        elif kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(event)
        return False

    def _world(self, event: QMouseEvent) -> tuple[float, float] | None:
        p = event.position()
        return self.world_at(p.x(), p.y())

    def _key(self, event: QKeyEvent) -> bool:
        if self.active is not None and self.active.key(event):
            return True
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        key = event.key()
        steps = {Qt.Key.Key_BracketLeft: -1, Qt.Key.Key_BracketRight: 1,
                 Qt.Key.Key_BraceLeft: -1, Qt.Key.Key_BraceRight: 1}.get(key)
        if steps is None:
            return False
        shift = shift or key in (Qt.Key.Key_BraceLeft, Qt.Key.Key_BraceRight)
        self.set_brush(self.brush.strengthened(steps) if shift else self.brush.resized(steps))
        self.report(f"Brush radius {self.brush.radius:g} m, strength {self.brush.strength:.2f}")
        return True
