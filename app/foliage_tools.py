"""Foliage tools: Paint, Erase, Single, Select, Fill, Reapply — registered into the shared ToolHost.

Every drag is one undo step (`FoliageStrokeCommand`s of one `FoliageStroke` merge); Ctrl while
painting erases. Select takes a click, a box or a lasso (Shift adds, Ctrl removes); the selection
is what the gizmo transforms and Delete removes.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from app.foliage_commands import DeleteInstancesCommand, FoliageStrokeCommand
from app.tools import STAMP_SPACING, Point, Tool, ToolHost, stamp_points
from model.foliage.edits import FoliageStroke, selection_size
from model.foliage.report import BrushTally
from model.foliage.scatter import FoliageScatter, Stamp, StrokeResult
from model.foliage.section import SceneFoliage, foliage_of
from model.foliage.volume import Selection

CLICK_PIXELS = 4.0  # a press and release closer than this is a click, not a box or lasso
PICK_PIXELS = 12.0  # a click selects the nearest instance within this many pixels


def glyph_icon(glyph: str, colour: str) -> QIcon:
    """A small round icon with one glyph: enough to tell the tools apart on a toolbar."""
    pm = QPixmap(32, 32)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setBrush(QColor(colour))
    p.setPen(Qt.PenStyle.NoPen)
    p.drawEllipse(2, 2, 28, 28)
    p.setPen(QColor("white"))
    font = QFont()
    font.setBold(True)
    font.setPixelSize(17)
    p.setFont(font)
    p.drawText(QRectF(0, 0, 32, 32), Qt.AlignmentFlag.AlignCenter, glyph)
    p.end()
    return QIcon(pm)


# ---- selections ------------------------------------------------------------------------------
def union(a: Selection, b: Selection) -> Selection:
    out = dict(a)
    for key, idx in b.items():
        out[key] = np.union1d(out[key], idx) if key in out else np.asarray(idx, np.int64)
    return out


def subtract(a: Selection, b: Selection) -> Selection:
    out: Selection = {}
    for key, idx in a.items():
        rest = np.setdiff1d(idx, b[key]) if key in b else idx
        if len(rest):
            out[key] = rest
    return out


def combine(current: Selection, picked: Selection, modifiers: Qt.KeyboardModifier) -> Selection:
    """Shift adds, Ctrl removes, otherwise the pick replaces the selection."""
    if modifiers & Qt.KeyboardModifier.ControlModifier:
        return subtract(current, picked)
    if modifiers & Qt.KeyboardModifier.ShiftModifier:
        return union(current, picked)
    return picked


ERASE_MARK = "foliage_erase_brush"
ERASE_COLOUR = (0.95, 0.3, 0.25, 1.0)


def erase_mark(center, radius: float, height_at) -> np.ndarray:
    """(n, 2, 3) segments of an erasing brush: its rim draped on the ground and a minus sign."""
    a = np.linspace(0.0, 2.0 * np.pi, 65)
    x = center[0] + radius * np.cos(a)
    z = center[2] + radius * np.sin(a)
    y = np.asarray(height_at(x, z), np.float64) + 0.25
    rim = np.stack([x, y, z], axis=-1)
    segments = np.stack([rim[:-1], rim[1:]], axis=1)
    segments = segments[np.all(np.isfinite(segments), axis=(1, 2))]
    c = np.asarray(center, np.float64) + (0.0, 0.25, 0.0)
    bar = max(radius * 0.25, 0.2)
    minus = np.array([[c - (bar, 0.0, 0.0), c + (bar, 0.0, 0.0)]])
    return np.concatenate([segments, minus])


# ---- tools -----------------------------------------------------------------------------------
class FoliageTool(Tool):
    glyph, colour = "?", "#607060"

    def __init__(self, toolset: FoliageToolset) -> None:
        self.toolset = toolset
        self.icon = glyph_icon(self.glyph, self.colour)

    def deactivate(self) -> None:
        # The last stroke's refused candidates belong to this tool: another tool draws none of them
        # (the Refusals panel keeps its text; coming back shows nothing until the next stroke).
        refusals = getattr(self.toolset._overlays(), "refusals", None)
        if refusals is not None:
            refusals.clear()


class StrokeTool(FoliageTool):
    """A drag lays a stamp every STAMP_SPACING × radius; the whole drag is one undo step."""

    def __init__(self, toolset: FoliageToolset) -> None:
        super().__init__(toolset)
        self.stroke: FoliageStroke | None = None
        self.result: StrokeResult | None = None
        self.tally: BrushTally | None = None  # what an erasing or reapplying drag met under the brush
        self._last: Point | None = None
        self._index = 0
        self._seed = 0
        self._modifiers = Qt.KeyboardModifier.NoModifier

    def types(self) -> list[str] | None:
        return self.toolset.paint_types()

    def removes(self, modifiers) -> bool:
        """Whether a stamp with these modifiers takes instances away (its cursor is drawn red)."""
        return False

    def activate(self) -> None:
        # switched by a shortcut while the mouse rests over the ground: the brush shows at once
        self.toolset.show_brush(self.toolset.host.hover_ground, self.removes(self.toolset.host.modifiers))

    def press(self, pos, modifiers) -> None:
        self._modifiers = modifiers
        types = self.types()
        if types is not None and not types:
            self.toolset.report("Pick one or more stored types in the Palette first.")
            return
        self.stroke = FoliageStroke(self.toolset.volume)
        self.result = StrokeResult()
        self.tally = None
        self._seed = self.toolset.next_seed()
        self._index = 0
        self._last = None
        if pos is not None:
            self._stamp(*pos)

    def move(self, pos, modifiers) -> None:
        if self.stroke is None or pos is None:
            return
        self._modifiers = modifiers
        if self._last is None:
            self._stamp(*pos)
            return
        for x, z in stamp_points(self._last, pos, self.toolset.brush.radius * STAMP_SPACING):
            self._stamp(x, z)

    def release(self, pos, modifiers) -> None:
        if self.stroke is not None:
            self.toolset.finish_stroke(self.result, self.tally)
        self.stroke = None
        self._last = None

    def deactivate(self) -> None:
        self.release(None, Qt.KeyboardModifier.NoModifier)  # may finish a stroke: markers cleared after
        self.toolset.show_brush(None)
        super().deactivate()

    def hover(self, pos, modifiers) -> None:
        self.toolset.show_brush(pos, self.removes(modifiers))

    @property
    def erasing(self) -> bool:
        return bool(self._modifiers & Qt.KeyboardModifier.ControlModifier)

    def _stamp(self, x: float, z: float) -> None:
        self._last = (x, z)
        self.toolset.show_brush((x, z), self.removes(self._modifiers))
        stamp = Stamp.from_brush(self.toolset.brush, (x, z), self._seed, self._index)
        self._index += 1
        text = self.stroke_text()
        self.toolset.push(FoliageStrokeCommand(self.stroke, lambda s: self.apply(s, stamp), text))

    def stroke_text(self) -> str:
        return self.title

    def apply(self, stroke: FoliageStroke, stamp: Stamp) -> None:
        raise NotImplementedError

    def _tally(self, action: str, stamp: Stamp, types: list[str] | None) -> BrushTally:
        """The drag's tally, with what stands under this stamp (every type: the others are left alone)."""
        if self.tally is None:
            self.tally = BrushTally(action, None if types is None else tuple(types))
        volume = self.toolset.volume
        for key, idx in volume.query_radius(stamp.center[0], stamp.center[1], stamp.radius).items():
            self.tally.saw(key[1], volume.records(*key)[idx][:, [0, 2]])
        return self.tally

    def _erase(self, stroke: FoliageStroke, stamp: Stamp, types: list[str] | None) -> None:
        tally = self._tally("erase", stamp, types)
        removed = self.toolset.scatter().erase(types, stamp)
        stroke.removed(removed)
        for (_, name), (_, records) in removed.parts.items():
            tally.took(name, records[:, [0, 2]])

    def _paint(self, stroke: FoliageStroke, stamp: Stamp, types: list[str]) -> None:
        result = self.toolset.scatter().paint(types, stamp)
        for name, outcome in result.outcomes.items():
            added = {k: v for k, v in result.added.items() if k[1] == name}
            stroke.added(name, outcome.records, added)
        self.result.merge(result)


class PaintTool(StrokeTool):
    tool_key, title, shortcut, glyph, colour = "paint", "Paint", "P", "P", "#3d8a3d"
    tooltip = "Paint the active types under the brush (Ctrl erases) — P"
    hint = "Paint: left drag places the active types · Ctrl+drag erases · [ ] radius · Shift+[ ] strength"

    def stroke_text(self) -> str:
        return "Erase foliage" if self.erasing else "Paint foliage"

    def removes(self, modifiers) -> bool:
        return bool(modifiers & Qt.KeyboardModifier.ControlModifier)

    def apply(self, stroke, stamp) -> None:
        if self.erasing:
            self._erase(stroke, stamp, self.toolset.paint_types() or None)
        else:
            self._paint(stroke, stamp, self.toolset.paint_types())


class EraseTool(StrokeTool):
    tool_key, title, shortcut, glyph, colour = "erase", "Erase", "Shift+P", "E", "#a04a3a"
    tooltip = "Erase instances of the active types under the brush, thinned by falloff — Shift+P"
    hint = "Erase: left drag removes the active types (all types when none is active)"

    def types(self) -> list[str] | None:
        return self.toolset.paint_types() or None

    def stroke_text(self) -> str:
        return "Erase foliage"

    def removes(self, modifiers) -> bool:
        return True

    def apply(self, stroke, stamp) -> None:
        self._erase(stroke, stamp, self.types())


class ReapplyTool(StrokeTool):
    tool_key, title, shortcut, glyph, colour = "reapply", "Reapply", "Shift+G", "R", "#8a6d2a"
    tooltip = "Re-run the types' filters and randomisation on instances under the brush — Shift+G"
    hint = "Reapply: left drag re-runs the filters and randomisation; instances now refused are removed"

    def types(self) -> list[str] | None:
        return self.toolset.paint_types() or None

    def stroke_text(self) -> str:
        return "Reapply foliage settings"

    def apply(self, stroke, stamp) -> None:
        tally = self._tally("reapply", stamp, self.types())
        result = self.toolset.scatter().reapply(self.types(), stamp)
        stroke.reapplied(result)
        for (_, name), (_, records) in result.removed.parts.items():
            tally.took(name, records[:, [0, 2]])
        start = 0
        for (_, name), idx in result.replaced.items():  # `new` holds the rewritten records in this order
            tally.rewrote(name, result.new[start:start + len(idx), [0, 2]])
            start += len(idx)


class SingleTool(FoliageTool):
    tool_key, title, shortcut, glyph, colour = "single", "Single", "I", "1", "#2d6f8a"
    tooltip = "Place exactly one instance of the first active type at the click, or say why not — I"
    hint = "Single: click places one instance of the first active type"

    def footprint(self) -> float | None:
        """The first active type's canopy radius at its mean scale (where the one instance goes)."""
        types = self.toolset.paint_types()
        if not types:
            return None
        ftype = self.toolset.palette[types[0]]
        extent = ftype.resolved_extent(self.toolset.volume.mesh_folder)
        return max(extent.radius * sum(ftype.scale) / 2.0, 0.25)

    def activate(self) -> None:
        radius = self.footprint()
        self.toolset.show_brush(self.toolset.host.hover_ground if radius else None, radius=radius)

    def deactivate(self) -> None:
        self.toolset.show_brush(None)
        super().deactivate()

    def hover(self, pos, modifiers) -> None:
        radius = self.footprint()
        self.toolset.show_brush(pos if radius else None, radius=radius)

    def press(self, pos, modifiers) -> None:
        types = self.toolset.paint_types()
        if not types:
            self.toolset.report("Pick a stored type in the Palette first.")
            return
        if pos is None:
            self.toolset.report("Nothing placed: no terrain under the cursor.")
            return
        name, seed = types[0], self.toolset.next_seed()
        holder: dict = {}

        def apply(stroke: FoliageStroke) -> None:
            result = self.toolset.scatter().single(name, pos[0], pos[1], seed)
            stroke.added(name, result.records(name), result.added)
            holder["result"] = result

        self.toolset.push(FoliageStrokeCommand(FoliageStroke(self.toolset.volume), apply,
                                               f"Place one '{name}'"))
        self.toolset.finish_stroke(holder.get("result"), None)


class FillTool(FoliageTool):
    tool_key, title, shortcut, glyph, colour = "fill", "Fill", "G", "F", "#4f7a2a"
    tooltip = "Fill a lasso polygon with the active types (Foliage ▸ Fill Painted Layer for a layer) — G"
    hint = "Fill: drag a lasso around the area to fill with the active types"

    def __init__(self, toolset: FoliageToolset) -> None:
        super().__init__(toolset)
        self.polygon: list[Point] = []

    def press(self, pos, modifiers) -> None:
        self.polygon = [pos] if pos is not None else []

    def move(self, pos, modifiers) -> None:
        if pos is not None:
            self.polygon.append(pos)
            self.toolset.show_lasso(self.polygon)

    def release(self, pos, modifiers) -> None:
        polygon, self.polygon = self.polygon, []
        self.toolset.show_lasso([])
        if len(polygon) >= 3:
            self.toolset.fill_polygon(polygon)

    def cancel(self) -> None:
        self.polygon = []  # Escape: the lasso is dropped, nothing is filled
        self.toolset.show_lasso([])

    def deactivate(self) -> None:
        self.polygon = []
        self.toolset.show_lasso([])
        super().deactivate()


class SelectTool(FoliageTool):
    tool_key, title, shortcut, glyph, colour = "select", "Select", "V", "S", "#5a5a9a"
    tooltip = "Select instances: click, box or lasso drag; Shift adds, Ctrl removes; Delete removes them — V"
    hint = ("Select: click or drag (box or lasso) · Shift adds · Ctrl removes · "
            "drag a gizmo handle to transform")
    modes = ("box", "lasso")

    def __init__(self, toolset: FoliageToolset) -> None:
        super().__init__(toolset)
        self.mode = "box"
        self.lasso: list[Point] = []
        self._press = QPointF()
        self._travel = 0.0  # the farthest the cursor got from the press: a lasso may end where it began
        self._gizmo_drag = False

    def activate(self) -> None:
        self.toolset.gizmo.set_visible(True)

    def deactivate(self) -> None:
        if self._gizmo_drag:
            self.toolset.gizmo.end()
            self._gizmo_drag = False
        self.toolset.gizmo.set_visible(False)
        self.toolset.show_lasso([])
        super().deactivate()

    def cancel(self) -> None:
        if self._gizmo_drag:  # the handle's step is pushed here and undone by the host
            self._gizmo_drag = False
            self.toolset.gizmo.end()
            return
        self.lasso = []  # Escape: the box or lasso is dropped, the selection stays as it was
        self.toolset.show_lasso([])

    def press(self, pos, modifiers) -> None:
        screen = self.toolset.host.screen
        self._press = QPointF(screen)
        handle = self.toolset.gizmo.hit(screen.x(), screen.y())
        if handle is not None:
            self._gizmo_drag = True
            self.toolset.gizmo.begin(handle, screen.x(), screen.y())
            return
        self.lasso = [pos] if pos is not None else []
        self._travel = 0.0

    def move(self, pos, modifiers) -> None:
        screen = self.toolset.host.screen
        if self._gizmo_drag:
            self.toolset.gizmo.drag(screen.x(), screen.y())
            return
        away = math.hypot(screen.x() - self._press.x(), screen.y() - self._press.y())
        self._travel = max(self._travel, away)
        if pos is not None:
            self.lasso.append(pos)
        if self.mode == "lasso":
            self.toolset.show_lasso(self.lasso)

    def release(self, pos, modifiers) -> None:
        if self._gizmo_drag:
            self._gizmo_drag = False
            self.toolset.gizmo.end()
            return
        self.toolset.show_lasso([])
        screen = self.toolset.host.screen
        moved = max(self._travel, math.hypot(screen.x() - self._press.x(), screen.y() - self._press.y()))
        if moved < CLICK_PIXELS:
            picked = self.toolset.pick(screen.x(), screen.y())
        elif self.mode == "box":
            picked = self.toolset.select_box(self._press.x(), self._press.y(), screen.x(), screen.y())
        else:
            picked = self.toolset.volume.query_polygon(self.lasso) if len(self.lasso) >= 3 else {}
        self.lasso = []
        self.toolset.set_selection(combine(self.toolset.selection, picked, modifiers))


TOOL_CLASSES: list[type[FoliageTool]] = [PaintTool, EraseTool, SingleTool, SelectTool, FillTool, ReapplyTool]


# ---- the toolset ----------------------------------------------------------------------------
class FoliageToolset(QObject):
    """The foliage tools of one window, the active types, the selection and the last stroke's result."""

    stroke_finished = Signal(object, object)  # StrokeResult or None; BrushTally of an erase/reapply or None
    selection_changed = Signal()
    active_types_changed = Signal(list)
    message = Signal(str)

    def __init__(self, host: ToolHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        from app.gizmo import Gizmo

        self.host = host
        self.document = host.document
        self.active_types: list[str] = []
        self.selection: Selection = {}
        self.last_result: StrokeResult | None = None
        self._seed = 0
        self._own_edit = False
        self._volume = None
        self.gizmo = Gizmo(self, self)
        self.tools = {cls.tool_key: cls(self) for cls in TOOL_CLASSES}
        self.actions = {key: host.add_tool(tool, f"action_foliage_{key}") for key, tool in self.tools.items()}
        self.document.scene_replaced.connect(self._on_scene_replaced)
        self._on_scene_replaced(self.document.scene)

    # ---- state ----------------------------------------------------------------------
    @property
    def foliage(self) -> SceneFoliage:
        return foliage_of(self.document.scene)

    @property
    def volume(self):
        return self.foliage.volume

    @property
    def palette(self):
        return self.foliage.palette

    @property
    def terrain(self):
        return self.document.scene.terrain

    @property
    def brush(self):
        return self.host.brush

    @property
    def active(self) -> FoliageTool | None:
        tool = self.host.active
        return tool if isinstance(tool, FoliageTool) and tool.toolset is self else None

    def activate(self, key: str | None) -> None:
        if key is None:
            if self.active is not None:
                self.actions[self.active.tool_key].setChecked(False)
            return
        self.actions[key].setChecked(True)

    def drag(self, points: list[Point], modifiers=Qt.KeyboardModifier.NoModifier) -> None:
        if self.active is not None:
            self.host.drag(points, modifiers)

    def scatter(self) -> FoliageScatter:
        return FoliageScatter(self.terrain, self.volume)

    def next_seed(self) -> int:
        self._seed += 1
        return self._seed

    def report(self, text: str) -> None:
        self.message.emit(text)

    def push(self, command) -> None:
        self._own_edit = True
        try:
            self.document.undo_stack.push(command)
        finally:
            self._own_edit = False

    def set_active_types(self, names: list[str]) -> None:
        names = [n for n in names if n in self.palette]
        if names != self.active_types:
            self.active_types = names
            self.active_types_changed.emit(list(names))

    def paint_types(self) -> list[str]:
        """The active types that can be painted (derived types grow from rules, not brushes)."""
        return [n for n in self.active_types if n in self.palette and self.palette[n].stored]

    def _on_scene_replaced(self, scene) -> None:
        self.host.cancel_drag()
        if self._volume is not None:
            self._volume.changed.disconnect(self._on_volume_changed)
        self._volume = foliage_of(scene).volume
        self._volume.changed.connect(self._on_volume_changed)
        self.selection = {}
        self.last_result = None
        self.set_active_types([n for n in self.active_types if n in self.palette])
        self.selection_changed.emit()

    def _on_volume_changed(self, keys) -> None:
        # Addresses in a chunk that someone else changed (undo, another stroke) may point elsewhere now.
        if self._own_edit or self.gizmo.busy or not self.selection:
            return
        stale = [k for k in keys if k in self.selection]
        if stale:
            self.selection = {k: v for k, v in self.selection.items() if k not in stale}
            self.selection_changed.emit()

    # ---- results --------------------------------------------------------------------
    def finish_stroke(self, result: StrokeResult | None, tally: BrushTally | None = None) -> None:
        if result is not None and result.candidates:
            self.last_result = result
        self.stroke_finished.emit(result, tally)

    def fill_polygon(self, polygon: list[Point]) -> StrokeResult | None:
        return self._fill("Fill lasso", lambda s, types, seed: s.fill_polygon(types, polygon, seed))

    def fill_layer(self, layer: str, min_weight: float = 0.5) -> StrokeResult | None:
        return self._fill(f"Fill layer '{layer}'",
                          lambda s, types, seed: s.fill_layer(types, layer, min_weight, seed))

    def _fill(self, text: str, run) -> StrokeResult | None:
        types = self.paint_types()
        if not types:
            self.report("Pick one or more stored types in the Palette first.")
            return None
        seed = self.next_seed()
        holder: dict = {}

        def apply(stroke: FoliageStroke) -> None:
            result = run(self.scatter(), types, seed)
            for name, outcome in result.outcomes.items():
                stroke.added(name, outcome.records, {k: v for k, v in result.added.items() if k[1] == name})
            holder["result"] = result

        self.push(FoliageStrokeCommand(FoliageStroke(self.volume), apply, text))
        result = holder.get("result")
        self.finish_stroke(result, None)
        return result

    # ---- selection ------------------------------------------------------------------
    def set_selection(self, selection: Selection) -> None:
        self.selection = {k: np.asarray(v, np.int64) for k, v in selection.items() if len(v)}
        self.selection_changed.emit()
        n = selection_size(self.selection)
        self.report(f"{n} instance{'s' if n != 1 else ''} selected" + (" · Delete removes them" if n else ""))

    def selection_count(self) -> int:
        return selection_size(self.selection)

    def delete_selection(self) -> bool:
        if not self.selection:
            return False
        command = DeleteInstancesCommand(self.volume, self.selection)
        self.push(command)
        self.selection = {}
        self.selection_changed.emit()
        return True

    def pick(self, x: float, y: float) -> Selection:
        """The instance under a viewport pixel: the viewport's picking, else the nearest on screen."""
        picker = getattr(self.host.viewport, "pick_instance", None)
        if callable(picker):
            address = picker(x, y)
            if address is None:
                return {}
            return {(tuple(address.cell), address.type): np.array([address.index], np.int64)}
        ground = self.host.world_at(x, y)
        if ground is None:
            return {}
        reach = max(self.brush.radius, 4.0)
        near = self.volume.query_radius(ground[0], ground[1], reach)
        best, best_d = None, PICK_PIXELS
        for key, idx in near.items():
            rec = self.volume.records(*key)[idx]
            screen = self.host.to_screen(rec[:, :3])
            d = np.hypot(screen[:, 0] - x, screen[:, 1] - y)
            if len(d) and np.nanmin(d) < best_d:
                i = int(np.nanargmin(d))
                best, best_d = (key, idx[i]), float(d[i])
        return {} if best is None else {best[0]: np.array([best[1]], np.int64)}

    def select_box(self, x0: float, y0: float, x1: float, y1: float) -> Selection:
        """Every instance whose position projects inside a screen rectangle (cells first)."""
        return self.volume.query_frustum(self.host.screen_box_planes(x0, y0, x1, y1))

    # ---- viewport overlays (where the viewport offers them) -------------------------
    def _overlays(self):
        return getattr(self.host.viewport, "overlays", None)

    def show_brush(self, pos: Point | None, removes: bool = False, radius: float | None = None) -> None:
        """The brush outline at `pos` (None hides it); `removes`: a red rim and a minus sign, so
        an erasing brush never looks like a painting one; `radius` instead of the brush's (then
        with a hard edge: the Single tool's footprint)."""
        overlays = self._overlays()
        cursor = getattr(overlays, "brush_cursor", None)
        if cursor is None:
            return
        lines = getattr(overlays, "lines", None)
        if pos is None or not np.isfinite(self.terrain.height_at(*pos)):
            cursor.hide()
            if lines is not None:
                lines.remove(ERASE_MARK)
            return
        y = float(self.terrain.height_at(*pos))
        if radius is None:
            cursor.show((pos[0], y, pos[1]), self.brush.radius, self.brush.falloff)
        else:
            cursor.show((pos[0], y, pos[1]), radius, 0.0)
        if lines is None:
            return
        if not removes:
            lines.remove(ERASE_MARK)
            return
        lines.set(ERASE_MARK, erase_mark((pos[0], y, pos[1]), self.brush.radius, self.terrain.height_at),
                  ERASE_COLOUR)

    def show_lasso(self, polygon: list[Point]) -> None:
        lines = getattr(self._overlays(), "lines", None)
        if lines is None:
            return
        if len(polygon) < 2:
            lines.remove("foliage_lasso")
            return
        p = np.asarray(polygon, np.float64)
        y = np.nan_to_num(self.terrain.height_at(p[:, 0], p[:, 1])) + 0.3
        pts = np.stack([p[:, 0], y, p[:, 1]], axis=-1)
        segments = np.stack([pts, np.roll(pts, -1, axis=0)], axis=1)
        lines.set("foliage_lasso", segments.astype(np.float32), (1.0, 0.9, 0.2, 1.0))
