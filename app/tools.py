"""One framework for every editing tool: the hooks a tool has, and the host that drives them.

A `Tool` is an object with activate/deactivate/press/move/release/hover/key hooks; positions are
world (x, z) on the terrain, or None off it. A `ToolHost` holds the tools of one viewport in a
single exclusive action group, owns the shared brush (saved in the settings), and feeds the
active tool the viewport's left-button drags through one event filter, so the viewport's own
navigation (right/middle drag, Alt + left drag, wheel) is untouched. `[`/`]` resize the brush,
Shift+`[`/`]` change its strength.
"""

from __future__ import annotations

import json
import math
import traceback
from collections.abc import Iterator

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QApplication, QToolTip

from model.brush import Brush
from model.ray import ray_heightfield
from model.terrain import Terrain

BRUSH_SETTINGS_KEY = "brush/settings"
STAMP_SPACING = 0.25  # a new stamp every quarter radius along a drag

Point = tuple[float, float]


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


def stamp_points(last: Point, pos: Point, spacing: float) -> Iterator[Point]:
    """Points at even `spacing` after `last` along the segment to `pos`, so a fast drag leaves no gaps."""
    spacing = max(spacing, 1e-6)
    (x0, z0), (x1, z1) = last, pos
    length = math.hypot(x1 - x0, z1 - z0)
    for i in range(1, int(length // spacing) + 1):
        f = i * spacing / length
        yield (x0 + (x1 - x0) * f, z0 + (z1 - z0) * f)


# ---- tools ------------------------------------------------------------------------------------
class Tool:
    """Hooks every editing tool has. Positions are world (x, z), or None off the terrain."""

    tool_key = ""
    title = ""
    shortcut = ""
    tooltip = ""
    hint = ""  # one line for the status bar while the tool is active
    icon: QIcon | None = None
    points_into_holes = False  # positions over a terrain hole are the hole's (surface) place, not None

    def activate(self) -> None:
        pass

    def deactivate(self) -> None:
        pass

    def press(self, pos: Point | None, modifiers: Qt.KeyboardModifier) -> None:
        pass

    def move(self, pos: Point | None, modifiers: Qt.KeyboardModifier) -> None:
        pass

    def release(self, pos: Point | None, modifiers: Qt.KeyboardModifier) -> None:
        pass

    def hover(self, pos: Point | None, modifiers: Qt.KeyboardModifier) -> None:
        """The cursor moved with no button held."""

    def cancel(self) -> None:
        """Escape during a drag. By default the drag ends as a release would and the host undoes its
        step; a tool whose release does more than push a step (a selection) gives the drag up here."""
        self.release(None, Qt.KeyboardModifier.NoModifier)

    def key(self, event: QKeyEvent) -> bool:
        """Handle a key; True if used."""
        return False


class ToolHost(QObject):
    """The tools of one viewport: one exclusive action group, one event filter, one shared brush."""

    brush_changed = Signal(object)
    tool_changed = Signal(object)  # the active Tool, or None
    cursor_moved = Signal(object)  # (x, y, z) of the ground under the cursor, or None
    message = Signal(str)

    def __init__(self, viewport, document, settings=None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.viewport = viewport
        self.document = document
        self.settings = settings
        self.brush = self._load_brush()
        self.active: Tool | None = None
        self.tools: list[Tool] = []
        self.actions: dict[int, QAction] = {}
        self.action_group = QActionGroup(self)
        self.action_group.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
        self.dragging = False
        self._press_index = 0  # the undo stack's index when the drag began: Escape goes back to it
        self.press_screen = QPointF()
        self.screen = QPointF()  # the cursor, in viewport pixels, at the event being handled
        self.modifiers = Qt.KeyboardModifier.NoModifier
        self.hover_ground: Point | None = None  # (x, z) under the resting cursor: a new brush shows there
        # each says why the viewport may not edit now (work in the background reads the scene), or None
        self.refusals: list = []
        viewport.installEventFilter(self)
        viewport.setMouseTracking(True)  # hover feeds the cursor read-out and the brush cursor

    @property
    def terrain(self) -> Terrain:
        return self.document.scene.terrain

    # ---- tools ----------------------------------------------------------------------
    def add_tool(self, tool: Tool, object_name: str) -> QAction:
        """Register `tool` with a checkable action (shortcut, tooltip, icon) in the group."""
        action = QAction(tool.title, self)
        action.setObjectName(object_name)
        action.setCheckable(True)
        if tool.shortcut:
            action.setShortcut(QKeySequence(tool.shortcut))
        if tool.icon is not None:
            action.setIcon(tool.icon)
        action.setToolTip(tool.tooltip)
        action.setStatusTip(tool.tooltip)
        action.toggled.connect(lambda on, t=tool: self._on_toggled(t, on))
        self.action_group.addAction(action)
        self.tools.append(tool)
        self.actions[id(tool)] = action
        return action

    def action_of(self, tool: Tool) -> QAction:
        return self.actions[id(tool)]

    def activate(self, tool: Tool | None) -> None:
        """Make `tool` active; None deactivates whichever tool is."""
        if tool is None:
            if self.active is not None:
                self.action_of(self.active).setChecked(False)
            return
        self.action_of(tool).setChecked(True)

    def _on_toggled(self, tool: Tool, on: bool) -> None:
        if on:
            if self.active is not None and self.active is not tool:
                self._end_drag()
                self.active.deactivate()
            self.active = tool
            tool.activate()
            self.tool_changed.emit(tool)
            if not tool.hint:  # a hint stays in the status read-out; saying it twice is noise
                self.message.emit(tool.tooltip)
        elif self.active is tool:
            self._end_drag()
            tool.deactivate()
            self.active = None
            self.tool_changed.emit(None)

    def escape(self) -> None:
        """Escape: a drag in progress is cancelled (its step undone), else the tool is put down, so the
        mouse only navigates."""
        if self.dragging and self.active is not None:
            self.dragging = False
            self.active.cancel()
            stack = self.document.undo_stack
            cancelled = stack.index() > self._press_index
            while stack.index() > self._press_index and stack.canUndo():
                stack.undo()
            self.message.emit(f"{self.active.title} cancelled" + (": the stroke is undone (Redo brings it "
                              "back)" if cancelled else ""))
            return
        if self.active is not None:
            title = self.active.title
            self.activate(None)
            self.message.emit(f"{title} put down: the mouse navigates (pick a tool to edit again)")

    def _end_drag(self) -> None:
        if self.dragging and self.active is not None:
            self.active.release(None, Qt.KeyboardModifier.NoModifier)
        self.dragging = False

    def cancel_drag(self) -> None:
        """End a drag in progress (the scene is being replaced)."""
        self._end_drag()

    # ---- brush ----------------------------------------------------------------------
    def set_brush(self, brush: Brush) -> None:
        if brush == self.brush:
            return
        self.brush = brush
        if self.settings is not None:
            self.settings.qsettings.setValue(BRUSH_SETTINGS_KEY, json.dumps(brush.to_dict()))
        self.brush_changed.emit(brush)

    def _load_brush(self) -> Brush:
        if self.settings is None:
            return Brush()
        text = self.settings.qsettings.value(BRUSH_SETTINGS_KEY, "")
        try:
            return Brush.from_dict(json.loads(text)) if text else Brush()
        except (TypeError, ValueError):
            return Brush()

    # ---- world positions ------------------------------------------------------------
    def ground_at(self, x: float, y: float) -> tuple[float, float, float] | None:
        """The terrain point (x, y, z) under a viewport pixel, or None."""
        picker = getattr(self.viewport, "pick_terrain", None)
        if callable(picker):  # the viewport's own picking, where it offers one
            hit = picker(x, y)
            return None if hit is None else (float(hit[0]), float(hit[1]), float(hit[2]))
        origin, direction = self.ray(x, y)
        return ray_hit(self.terrain, origin, direction)

    def world_at(self, x: float, y: float) -> Point | None:
        """The terrain point (x, z) under a viewport pixel, or None."""
        hit = self.ground_at(x, y)
        return None if hit is None else (hit[0], hit[2])

    def ray(self, x: float, y: float):
        """Camera ray (origin, direction) through a viewport pixel."""
        w, h = max(1, self.viewport.width()), max(1, self.viewport.height())
        return self.viewport.camera.ray(2.0 * x / w - 1.0, 1.0 - 2.0 * y / h, w / h)

    def view_projection(self) -> np.ndarray:
        w, h = max(1, self.viewport.width()), max(1, self.viewport.height())
        return np.asarray(self.viewport.camera.view_projection(w / h), np.float64)

    def to_screen(self, points) -> np.ndarray:
        """World (n, 3) points to viewport pixels (n, 2); NaN behind the camera."""
        pts = np.atleast_2d(np.asarray(points, np.float64))
        helper = getattr(self.viewport, "world_to_screen", None)
        if callable(helper):
            return np.asarray(helper(pts), np.float64).reshape(-1, 2)
        m = self.view_projection()
        clip = np.c_[pts, np.ones(len(pts))] @ m.T
        w = clip[:, 3]
        with np.errstate(divide="ignore", invalid="ignore"):
            ndc = clip[:, :2] / w[:, None]
        out = np.stack([(ndc[:, 0] + 1.0) * 0.5 * self.viewport.width(),
                        (1.0 - ndc[:, 1]) * 0.5 * self.viewport.height()], axis=-1)
        out[w <= 1e-9] = np.nan
        return out

    def screen_box_planes(self, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        """Planes (a, b, c, d), inside ≥ 0, of the frustum through a screen rectangle."""
        w, h = max(1, self.viewport.width()), max(1, self.viewport.height())
        m = self.view_projection()
        nx0, nx1 = sorted((2.0 * x0 / w - 1.0, 2.0 * x1 / w - 1.0))
        ny0, ny1 = sorted((1.0 - 2.0 * y0 / h, 1.0 - 2.0 * y1 / h))
        return np.stack([m[0] - nx0 * m[3], nx1 * m[3] - m[0], m[1] - ny0 * m[3], ny1 * m[3] - m[1],
                         m[3] + m[2]])

    def refusal(self) -> str | None:
        """The sentence saying why a stroke may not start now, or None."""
        return next((text for text in (f() for f in self.refusals) if text), None)

    def _refused(self) -> bool:
        text = self.refusal()
        if text:
            self.message.emit(text)
        return bool(text)

    # ---- scripted strokes (tests, macros) -------------------------------------------
    def drag(self, points: list[Point],
             modifiers: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
        """Drive the active tool through press, moves and release at world (x, z) points."""
        if self.active is None or not points or self._refused():
            return
        self.modifiers = modifiers
        self.active.press(points[0], modifiers)
        for p in points[1:]:
            self.active.move(p, modifiers)
        self.active.release(points[-1], modifiers)

    # ---- events from the viewport ---------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is not self.viewport:
            return False
        try:
            return self._filter(event)
        except Exception:  # a failing tool reports; an exception must not cross into Qt's event loop
            self.dragging = False
            traceback.print_exc()
            title = getattr(self.active, "title", "")
            tool = f"The {title} tool" if title else "The tool"
            self.message.emit(f"{tool} stopped on a problem Boscage did not expect and let go of the mouse; "
                              "Undo takes back what it did (the details are in the console)")
            return True

    def _filter(self, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove, QEvent.Type.MouseButtonRelease) \
                and isinstance(event, QMouseEvent):
            return self._mouse(kind, event)
        if kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) and self.active is not None:
            return self._key(event)
        if kind == QEvent.Type.ToolTip and (self.dragging or self.active is not None
                                            or QApplication.mouseButtons() != Qt.MouseButton.NoButton):
            # the navigation tip would cover the brush, or the lasso being drawn when a drag pauses;
            # the status bar carries the active tool's hint instead
            QToolTip.hideText()
            return True
        if kind == QEvent.Type.Leave:
            self.hover_ground = None
            self.cursor_moved.emit(None)
        return False

    def _mouse(self, kind: QEvent.Type, event: QMouseEvent) -> bool:
        self.screen = event.position()
        self.modifiers = event.modifiers()
        if kind == QEvent.Type.MouseMove and not self.dragging:
            if event.buttons():  # the viewport is orbiting or panning: no read-out to keep up
                return False
            hit = self.ground_at(self.screen.x(), self.screen.y())
            self.hover_ground = None if hit is None else (hit[0], hit[2])
            self.cursor_moved.emit(hit)
            if self.active is not None:
                at = self.hover_ground
                if at is None:
                    at = self._into_hole(self.screen.x(), self.screen.y())
                self.active.hover(at, event.modifiers())
            return False
        if self.active is None:
            return False
        if kind == QEvent.Type.MouseButtonPress:
            if event.button() == Qt.MouseButton.LeftButton \
                    and not event.modifiers() & Qt.KeyboardModifier.AltModifier:
                if self._refused():
                    return True
                self.dragging = True
                self.press_screen = event.position()
                self._press_index = self.document.undo_stack.index()
                self.active.press(self._world(event), event.modifiers())
                return True
        elif kind == QEvent.Type.MouseMove and self.dragging:
            pos = self._world(event)
            if pos is not None:
                self.cursor_moved.emit((pos[0], float(self.terrain.height_at(*pos)), pos[1]))
            self.active.move(pos, event.modifiers())
            return True
        elif kind == QEvent.Type.MouseButtonRelease and self.dragging:
            if event.button() == Qt.MouseButton.LeftButton:
                self.dragging = False
                self.active.release(self._world(event), event.modifiers())
                return True
        return False

    def _world(self, event: QMouseEvent) -> Point | None:
        p = event.position()
        pos = self.world_at(p.x(), p.y())
        return pos if pos is not None else self._into_hole(p.x(), p.y())

    def _into_hole(self, x: float, y: float) -> Point | None:
        """Where the pixel's ray meets a hole of the ground, for a tool that works on holes."""
        if self.active is None or not self.active.points_into_holes or self.terrain.holes is None:
            return None
        hit = ray_heightfield(self.terrain, *self.ray(x, y), through_holes=True)
        return None if hit is None else (float(hit[0]), float(hit[2]))

    def _key(self, event: QKeyEvent) -> bool:
        if self.active is not None and self.active.key(event):
            return True
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.escape()
            return True
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        key = event.key()
        steps = {Qt.Key.Key_BracketLeft: -1, Qt.Key.Key_BracketRight: 1,
                 Qt.Key.Key_BraceLeft: -1, Qt.Key.Key_BraceRight: 1}.get(key)
        if steps is None:
            return False
        shift = shift or key in (Qt.Key.Key_BraceLeft, Qt.Key.Key_BraceRight)
        self.set_brush(self.brush.strengthened(steps) if shift else self.brush.resized(steps))
        self.message.emit(f"Brush radius {self.brush.radius:g} m, strength {self.brush.strength:.2f}")
        return True


def host_of(main_window) -> ToolHost:
    """The main window's one tool host, created on first call."""
    host = getattr(main_window, "tool_host", None)
    if host is None:
        host = ToolHost(main_window.viewport, main_window.document,
                        getattr(main_window, "settings", None), main_window)
        main_window.tool_host = host
        host.message.connect(lambda text: main_window.statusBar().showMessage(text, 4000))
    return host
