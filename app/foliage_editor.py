"""Foliage mode, wired into a main window: the six tools and the gizmo, the Palette, Tool Settings and
Refusals docks, a Collision view, the Foliage menu and toolbar, and the status bar read-out.

`install(main_window)` is idempotent and returns the window's `FoliageEditor`. Every palette or
type edit becomes an undoable command here. A scene without foliage starts with the built-in
palette, so there is something to paint with.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.foliage_commands import AddTypeCommand, RemoveTypeCommand, SetTypeCommand
from app.foliage_tools import FoliageToolset
from app.gizmo import COLOURS
from app.tools import Tool, host_of
from model.errors import FormatError
from model.foliage.edits import selection_records, unique_name
from model.foliage.foliage_type import NAME_FILTER, FoliageType, load_foliage_type
from model.foliage.palette import builtin_palette
from model.foliage.placeability import growth_obstacles, obstacle_sentence
from model.foliage.scatter import PLACED
from model.foliage.section import foliage_of
from rendering.gizmo import GizmoRenderer
from widgets.brush_panel import BrushPanel
from widgets.collision_panel import CollisionPanel
from widgets.error_dialog import user_message
from widgets.hint_label import hint_label
from widgets.palette_panel import PalettePanel
from widgets.refusal_panel import RefusalPanel
from widgets.status_readout import StatusReadout

GIZMO_SHORTCUTS = {"move": "M", "rotate": "O", "scale": "U"}
SELECTION_COLOUR = (1.0, 0.85, 0.1, 1.0)
NO_STROKE = "No stroke yet: paint, fill or place one to see what the brush decided."
THUMBNAILS_WAIT_MS = 5000  # the palette's thumbnails wait at most this long for the first frame
MAX_SELECTION_MARKERS = 20_000  # beyond this the markers would cost more than they tell


class ProbeTool(Tool):
    """One click on the ground places the Collision view's probe."""

    tool_key, title = "probe", "Place Probe"
    tooltip = "Click the ground to put the collision probe there"
    hint = "Place Probe: click the ground where a player or projectile would be"

    def __init__(self, placed: Callable[[tuple[float, float, float]], None]) -> None:
        self.placed = placed
        self.host = None

    def press(self, pos, modifiers) -> None:
        if pos is not None and self.host is not None:
            self.placed((pos[0], float(self.host.terrain.height_at(*pos)), pos[1]))


def scrolling(widget: QWidget) -> QScrollArea:
    """`widget` in a frameless scroll area, so a dock never forces the window taller."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


def removal_box(parent, name: str, count: int) -> QMessageBox:
    """The question before a type with instances goes: its buttons say what they do, Cancel first."""
    text = (f"'{name}' has {count:,} instance{'s' if count != 1 else ''} in this scene. Remove the type and "
            "all of them? (Undo brings them back.)")
    cancel = QMessageBox.StandardButton.Cancel
    box = QMessageBox(QMessageBox.Icon.Question, "Remove foliage type", text, cancel, parent)
    box.setObjectName("remove_type_box")
    box.remove_button = box.addButton(f"Remove '{name}'", QMessageBox.ButtonRole.DestructiveRole)
    box.setDefaultButton(cancel)
    return box


def confirm_remove(parent, name: str, count: int) -> bool:
    box = removal_box(parent, name, count)
    box.exec()
    return box.clickedButton() is box.remove_button


REACH_RINGS = "collision_reach"
REACH_COLOUR = (0.95, 0.45, 0.85, 1.0)


def reach_rings(point, palette, height_at) -> np.ndarray:
    """(n, 2, 3) segments: one ground circle around `point` per distinct activation radius of the
    palette's stored types (derived types are never asked)."""
    radii = sorted({t.activation_radius for t in palette if t.stored and t.activation_radius > 0})
    parts = []
    a = np.linspace(0.0, 2.0 * np.pi, 97)
    for r in radii:
        x = point[0] + r * np.cos(a)
        z = point[2] + r * np.sin(a)
        y = np.asarray(height_at(x, z), np.float64) + 0.3
        ring = np.stack([x, y, z], axis=-1)
        segments = np.stack([ring[:-1], ring[1:]], axis=1)
        parts.append(segments[np.all(np.isfinite(segments), axis=(1, 2))])
    return np.concatenate(parts) if parts else np.empty((0, 2, 3))


class FoliageEditor(QObject):
    """Owns the foliage toolset and the panels of one main window."""

    def __init__(self, main_window) -> None:
        super().__init__(main_window)
        self.window = main_window
        self.document = main_window.document
        self.viewport = main_window.viewport
        self.host = host_of(main_window)
        # Dialog hooks: tests and scripts replace these.
        self.confirm_remove: Callable[..., bool] = confirm_remove
        self.choose_files: Callable[[], list[str]] = self._choose_files
        self._palette = None
        self._volume = None
        self._terrain = None
        self._stroked = False  # no stroke yet on this scene: the panel says what keeps types off it
        self._obstacles_timer = QTimer(self)
        self._obstacles_timer.setSingleShot(True)
        self._obstacles_timer.setInterval(250)  # a terrain stroke's many changes, one look
        self._obstacles_timer.timeout.connect(self._show_obstacles)
        self.document.scene_replaced.connect(self._seed)  # before the toolset looks at the scene
        self._seed(self.document.scene)
        self.toolset = FoliageToolset(self.host, self)
        self.gizmo = self.toolset.gizmo
        self.probe_tool = ProbeTool(self._probe_placed)
        self.probe_tool.host = self.host
        self.host.add_tool(self.probe_tool, "action_foliage_probe")
        self.gizmo_renderer = GizmoRenderer(self.gizmo.handles, COLOURS)
        self.viewport.add_renderer(self.gizmo_renderer)

        self.palette_panel = main_window.set_panel("palette", PalettePanel())
        if main_window.first_frame_first and not self.viewport.frames_rendered:
            self.palette_panel.hold_thumbnails()
            self.viewport.frame_rendered.connect(self._after_first_frame)
            # a viewport that draws no frame (no OpenGL 3.3) holds them no longer than this
            QTimer.singleShot(THUMBNAILS_WAIT_MS, self.palette_panel, self.palette_panel.release_thumbnails)
        self.refusal_panel = RefusalPanel()
        main_window.set_panel("refusals", scrolling(self.refusal_panel))
        self.settings_panel = self._build_settings_panel()
        main_window.set_panel("tool_settings", scrolling(self.settings_panel))
        self.collision_panel: CollisionPanel | None = None  # Tools ▸ Collision View creates it
        self.readout = StatusReadout()
        main_window.statusBar().addPermanentWidget(self.readout)

        self._counts_timer = QTimer(self)
        self._counts_timer.setSingleShot(True)
        self._counts_timer.setInterval(60)  # coalesce a stroke's many changes into one refresh
        self._counts_timer.timeout.connect(self.refresh_counts)

        self._refusal_step: int | None = None  # the history index of the stroke the markers explain
        self._wire()
        self._build_actions()
        self.document.undo_stack.indexChanged.connect(self._on_history_moved)
        self.document.scene_replaced.connect(self._on_scene_replaced)
        # a save into another folder moves where mesh paths resolve: the form must follow
        self.document.saved.connect(lambda _path: self._on_palette_changed())
        self._on_scene_replaced(self.document.scene)

    def _after_first_frame(self) -> None:
        self.viewport.frame_rendered.disconnect(self._after_first_frame)
        # once the frame is on screen
        QTimer.singleShot(0, self.palette_panel, self.palette_panel.release_thumbnails)

    # ---- scene ------------------------------------------------------------------------
    def _seed(self, scene) -> None:
        foliage_of(scene, builtin_palette())

    @property
    def foliage(self):
        return foliage_of(self.document.scene)

    def _on_scene_replaced(self, scene) -> None:
        if self._palette is not None:
            self._palette.changed.disconnect(self._on_palette_changed)
            self._volume.changed.disconnect(self._on_volume_changed)
        if self._terrain is not None:
            self._terrain.layers_changed.disconnect(self._on_palette_changed)
            self._terrain.heights_changed.disconnect(self._on_terrain_edited)
            self._terrain.layer_weights_changed.disconnect(self._on_terrain_edited)
        # a renamed or removed layer changes what a name-filtered type does: the palette says so
        self._terrain = scene.terrain
        self._terrain.layers_changed.connect(self._on_palette_changed)
        self._terrain.heights_changed.connect(self._on_terrain_edited)
        self._terrain.layer_weights_changed.connect(self._on_terrain_edited)
        foliage = foliage_of(scene)
        self._palette, self._volume = foliage.palette, foliage.volume
        self._palette.changed.connect(self._on_palette_changed)
        self._volume.changed.connect(self._on_volume_changed)
        if self.collision_panel is not None:
            self.collision_panel.set_volume(self._volume)
        self.refusal_panel.set_result(None, scene.terrain)
        self._stroked = False
        self._clear_refusal_overlay()
        stored = [t for t in self._palette if t.stored]
        self._on_palette_changed()
        if not self.toolset.active_types and stored:
            # the first type that can grow here as the scene is: a new user's first stroke places
            growing = [t for t in stored if not growth_obstacles(t, scene.terrain)]
            self.palette_panel.select([(growing or stored)[0].name])
        self._show_obstacles()

    def _show_obstacles(self) -> None:
        """Before the scene's first stroke: why the selected types cannot grow here yet, if so."""
        if self._stroked:
            return
        terrain = self.document.scene.terrain
        said = [obstacle_sentence(self._palette[n], terrain) for n in self.toolset.active_types
                if n in self._palette]
        self.refusal_panel.sentence.setText(" ".join(s for s in said if s) or NO_STROKE)

    def _on_terrain_edited(self, *_window) -> None:
        if not self._stroked:
            self._obstacles_timer.start()

    def _on_palette_changed(self) -> None:
        if not self._stroked:
            self._obstacles_timer.start()
        names = set(self._palette.names())
        self.toolset.set_active_types([n for n in self.toolset.active_types if n in names])
        self.palette_panel.set_types(list(self._palette), self._volume.counts(), self.toolset.active_types,
                                     [layer.name for layer in self.document.scene.terrain.layers],
                                     self._mesh_folder())

    def _mesh_folder(self):
        """Where the palette's mesh file paths resolve: the folder the foliage was read from, else the
        scene's folder."""
        if self._volume.mesh_folder is not None:
            return self._volume.mesh_folder
        path = self.document.scene.path
        return Path(path).parent if path is not None else None

    def _on_volume_changed(self, keys) -> None:
        if not self._counts_timer.isActive():  # at most every 60 ms, also all through a long stroke
            self._counts_timer.start()
        if self.gizmo.busy:
            self._show_selection()

    def refresh_counts(self) -> None:
        self.palette_panel.set_counts(self._volume.counts())

    # ---- wiring -----------------------------------------------------------------------
    def _wire(self) -> None:
        p = self.palette_panel
        p.active_changed.connect(self.toolset.set_active_types)
        p.active_changed.connect(lambda _names: self._show_obstacles())
        p.add_file_requested.connect(self.add_type_files)
        p.new_requested.connect(self.new_type)
        p.duplicate_requested.connect(self.duplicate_type)
        p.remove_requested.connect(self.remove_type)
        p.type_edited.connect(self.edit_type)
        p.type_stepped.connect(lambda old, new, key, text: self.edit_type(old, new, key, text, merge=False))
        self.toolset.stroke_finished.connect(self._on_stroke)
        self.toolset.selection_changed.connect(self._show_selection)
        self.toolset.message.connect(lambda text: self.window.statusBar().showMessage(text, 5000))
        self.refusal_panel.reason_clicked.connect(self._highlight)
        self.gizmo.changed.connect(self.viewport.update)
        self.host.cursor_moved.connect(lambda hit: self.readout.set_cursor(hit, self.document.scene.terrain))
        self.host.tool_changed.connect(lambda tool: self.readout.set_hint(tool.hint if tool else ""))

    def collision_view(self) -> CollisionPanel:
        """The Collision view bound to this window's scene (the Tools menu shows it in a dock)."""
        if self.collision_panel is None:
            panel = self.collision_panel = CollisionPanel()
            panel.set_volume(self._volume)
            panel.camera_requested.connect(lambda: panel.set_probe(self.viewport.camera.target))
            panel.probe_moved.connect(self._probe_moved)
            panel.place_requested.connect(self._place_probe)
            panel.destroyed.connect(lambda *_: setattr(self, "collision_panel", None))
        return self.collision_panel

    def _place_probe(self, on: bool) -> None:
        if on:
            self.host.activate(self.probe_tool)
        elif self.host.active is self.probe_tool:
            self.host.activate(None)

    def _probe_placed(self, point) -> None:
        if self.collision_panel is not None:
            self.collision_panel.set_probe(point)
            self.collision_panel.place.setChecked(False)

    def _probe_moved(self, point) -> None:
        overlays = getattr(self.viewport, "overlays", None)
        if overlays is not None:
            overlays.set_probe(point)
            overlays.set_toggle("show_collision", True)
            lines = getattr(overlays, "lines", None)
            if lines is not None:
                # how far the probe reaches for each type: beyond these rings nothing has a body
                reach = reach_rings(point, self._palette, self.document.scene.terrain.height_at)
                if len(reach):
                    lines.set(REACH_RINGS, reach, REACH_COLOUR)
                else:
                    lines.remove(REACH_RINGS)

    # ---- window furniture -------------------------------------------------------------
    def _build_settings_panel(self) -> QWidget:
        panel = QWidget()
        panel.setObjectName("foliage_tool_settings")
        grid = QGridLayout()
        for i, action in enumerate(self.toolset.actions.values()):
            button = QToolButton(panel)
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            grid.addWidget(button, i // 2, i % 2)  # three a row would not fit a 240 px column
        self.brush_panel = BrushPanel(self.host.brush, panel)
        self.brush_panel.brush_edited.connect(self.host.set_brush)
        self.host.brush_changed.connect(self.brush_panel.set_brush)
        self.select_mode = QComboBox(panel)
        self.select_mode.addItems(["box", "lasso"])
        self.select_mode.setToolTip("What a Select drag draws: a screen box or a lasso on the ground")
        select = self.toolset.tools["select"]
        self.select_mode.currentTextChanged.connect(lambda m: setattr(select, "mode", m))
        self.gizmo_mode = QComboBox(panel)
        self.gizmo_mode.addItems(["move", "rotate", "scale"])
        self.gizmo_mode.setToolTip("What the selection's handles do (M move, O rotate, U scale)")
        self.gizmo_mode.currentTextChanged.connect(self.gizmo.set_mode)
        self.gizmo.mode_changed.connect(self.gizmo_mode.setCurrentText)
        self.fill_layer_button = QPushButton("Fill painted layer…", panel)
        self.fill_layer_button.setToolTip("Fill every place the current terrain layer is painted with the "
                                          "active types")
        self.fill_layer_button.clicked.connect(self.fill_current_layer)
        form = QFormLayout()
        form.addRow("Select drag", self.select_mode)
        form.addRow("Gizmo", self.gizmo_mode)
        layout = QVBoxLayout(panel)
        layout.addLayout(grid)
        layout.addWidget(self.brush_panel)
        layout.addLayout(form)
        layout.addWidget(self.fill_layer_button)
        self.hint = hint_label("Left drag: apply · Ctrl: erase while painting · [ ]: radius · "
                               "Shift+[ ]: strength · Delete: remove the selection", panel)
        layout.addWidget(self.hint)
        layout.addStretch(1)
        return panel

    def _build_actions(self) -> None:
        w = self.window
        self.toolbar = QToolBar("Foliage", w)
        self.toolbar.setObjectName("toolbar_foliage")
        # named like the Terrain toolbar beside it: six coloured letters alone say little to a new user
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toolbar.addActions(list(self.toolset.actions.values()))
        w.addToolBar(self.toolbar)
        menu = QMenu("F&oliage", w)
        menu.setObjectName("menu_foliage")
        w.menuBar().insertMenu(w.tools_menu.menuAction(), menu)
        menu.addActions(list(self.toolset.actions.values()))
        menu.addSeparator()

        def action(key: str, text: str, slot, shortcut: str | None, tip: str) -> QAction:
            a = QAction(text, w)
            a.setObjectName(f"action_foliage_{key}")
            if shortcut:
                a.setShortcut(QKeySequence(shortcut))
            a.setToolTip(tip)
            a.setStatusTip(tip)
            a.triggered.connect(lambda checked=False: slot())
            menu.addAction(a)
            self.actions[key] = a
            return a

        self.actions: dict[str, QAction] = {}
        action("delete", "&Delete Selection", self.toolset.delete_selection, "Delete",
               "Remove the selected instances (undoable)")
        action("select_none", "Select &None", lambda: self.toolset.set_selection({}), "Ctrl+Shift+A",
               "Clear the foliage selection")
        menu.addSeparator()
        group = QActionGroup(self)
        for mode, key in GIZMO_SHORTCUTS.items():
            a = action(f"gizmo_{mode}", f"Gizmo: {mode.capitalize()}", lambda m=mode: self.gizmo.set_mode(m),
                       key, f"The selection's handles {mode} it — {key}")
            a.setCheckable(True)
            a.setChecked(mode == self.gizmo.mode)
            group.addAction(a)
        self.gizmo.mode_changed.connect(lambda m: self.actions[f"gizmo_{m}"].setChecked(True))
        menu.addSeparator()
        action("fill_layer", "&Fill Painted Layer", self.fill_current_layer, None,
               "Fill wherever the current terrain layer is painted with the active types")
        action("add_builtin", "Add &Built-in Types", self.add_builtin_types, None,
               "Add the shipped sample types the palette does not have yet")
        collision = w.actions_by_key.get("tool_collision")
        if collision is not None:
            menu.addSeparator()
            menu.addAction(collision)
        self.menu = menu

    # ---- strokes and refusals ---------------------------------------------------------
    def _on_stroke(self, result, tally=None) -> None:
        terrain = self.document.scene.terrain
        self._stroked = True
        self.refresh_counts()  # the stroke's own count now, not after the next quiet moment
        self._refusal_step = self.document.undo_stack.index()
        self.refusal_panel.set_result(result, terrain, self._palette, tally)
        overlays = getattr(self.viewport, "overlays", None)
        if overlays is None or result is None or not result.candidates:
            return
        xz, reasons = self._refused(result)
        y = np.nan_to_num(terrain.height_at(xz[:, 0], xz[:, 1]))
        overlays.refusals.set(np.stack([xz[:, 0], y, xz[:, 1]], axis=-1), reasons)

    def _on_history_moved(self, index: int) -> None:
        """Undo or redo away from the stroke the refusal markers explain: they go with it. The
        counts say what the step left at once (the coalescing timer would show the old ones)."""
        self.refresh_counts()
        if self._refusal_step is not None and index != self._refusal_step:
            self._refusal_step = None
            self._clear_refusal_overlay()

    @staticmethod
    def _refused(result):
        parts = [(o.xz[o.refusals != PLACED], o.refusals[o.refusals != PLACED])
                 for o in result.outcomes.values()]
        if not parts:
            return np.empty((0, 2)), np.empty(0, np.int32)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]).astype(np.int32)

    def _highlight(self, reason) -> None:
        overlays = getattr(self.viewport, "overlays", None)
        result = self.refusal_panel.result
        if overlays is None or result is None or not result.candidates:
            return
        xz, reasons = self._refused(result)
        terrain = self.document.scene.terrain
        y = np.nan_to_num(terrain.height_at(xz[:, 0], xz[:, 1]))
        overlays.refusals.set(np.stack([xz[:, 0], y, xz[:, 1]], axis=-1), reasons,
                              None if reason is None else int(reason))

    def _clear_refusal_overlay(self) -> None:
        overlays = getattr(self.viewport, "overlays", None)
        if overlays is not None:
            overlays.refusals.clear()

    def _show_selection(self) -> None:
        overlays = getattr(self.viewport, "overlays", None)
        if overlays is None:
            return
        if self.gizmo.busy:  # mid-drag the selection's addresses are in flux: show the live records
            rec = self.gizmo.live_records()
            if rec is None:
                return
        else:
            rec = selection_records(self._volume, self.toolset.selection)
        show = getattr(self.viewport, "show_selection", None)
        if show is not None:  # the instances themselves drawn tinted (mid-drag: where they are now)
            show(getattr(self.gizmo, "_added", {}) if self.gizmo.busy else self.toolset.selection)
        if not len(rec):
            overlays.points.remove("selection")
        else:
            overlays.points.set("selection", rec[:MAX_SELECTION_MARKERS, :3], SELECTION_COLOUR, 9.0)
        self.viewport.update()

    # ---- palette edits ----------------------------------------------------------------
    def _push(self, make: Callable) -> bool:
        try:
            command = make()
        except (ValueError, KeyError) as e:
            self.window.show_error("Palette edit refused", user_message(e))
            return False
        self.document.undo_stack.push(command)
        return True

    def _choose_files(self) -> list[str]:
        files, _ = QFileDialog.getOpenFileNames(self.window, "Add Foliage Types", "", NAME_FILTER)
        return files

    def add_type_files(self, paths: list[str | Path] | None = None) -> int:
        """Add types from `.vxfoliage` files (asking for them when None); returns how many were added."""
        paths = self.choose_files() if paths is None else paths
        added = 0
        if len(paths) > 1:
            self.document.undo_stack.beginMacro(f"Add {len(paths)} foliage types")
        try:
            for path in paths:
                try:
                    ftype = load_foliage_type(path)
                except FormatError as e:
                    self.window.show_error("Could not add foliage type", str(e))
                    continue
                ftype = self._rebase_mesh(ftype, Path(path))
                added += self._push(lambda f=ftype: AddTypeCommand(self._palette, f))
        finally:
            if len(paths) > 1:
                self.document.undo_stack.endMacro()
        return added

    def _rebase_mesh(self, ftype: FoliageType, path: Path) -> FoliageType:
        """A mesh file path is relative to its `.vxfoliage`; in the scene's palette it is relative
        to the scene, so it is rewritten (and the user told when it cannot be)."""
        scene_path = self.document.scene.path
        if ftype.mesh.startswith("builtin:") or scene_path is None:
            return ftype
        rebased = ftype.rebased(path.parent, Path(scene_path).parent)
        if rebased is None:
            self.window.statusBar().showMessage(
                f"'{ftype.name}': mesh {ftype.mesh} lies outside the scene's folder; copy it beside the "
                f"scene and set the type's mesh path (a placeholder is drawn until then)", 15000)
            return ftype
        return rebased

    def new_type(self) -> str | None:
        name = unique_name(self._palette, "new type")
        if self._push(lambda: AddTypeCommand(self._palette, FoliageType(name))):
            self.palette_panel.select([name])
            return name
        return None

    def duplicate_type(self, name: str) -> str | None:
        copy = unique_name(self._palette, f"{name} copy")
        if self._push(lambda: AddTypeCommand(self._palette, self._palette[name].renamed(copy),
                                             f"Duplicate foliage type '{name}'")):
            self.palette_panel.select([copy])
            return copy
        return None

    def remove_type(self, name: str) -> bool:
        count = self._volume.count(name)
        if count and not self.confirm_remove(self.window, name, count):
            return False
        self.toolset.set_selection({k: v for k, v in self.toolset.selection.items() if k[1] != name})
        return self._push(lambda: RemoveTypeCommand(self._palette, self._volume, name))

    def edit_type(self, old_name: str, new: FoliageType, key: str, text: str | None = None,
                  merge: bool = True) -> bool:
        """Change one setting of a type (the form's edit) as an undoable step, merging with the
        last when it changed the same setting (unless `merge` is False)."""
        if old_name not in self._palette:
            return False
        active = list(self.toolset.active_types)
        ok = self._push(lambda: SetTypeCommand(self._palette, self._volume, new, key, old_name, text, merge))
        if ok and new.name != old_name:
            self.toolset.set_selection({})
            self.palette_panel.select([new.name if n == old_name else n for n in active] or [new.name],
                                      new.name)
        return ok

    def add_builtin_types(self) -> int:
        missing = [t for t in builtin_palette() if t.name not in self._palette]
        if not missing:
            return 0
        stack = self.document.undo_stack
        stack.beginMacro("Add built-in foliage types")
        for ftype in missing:
            stack.push(AddTypeCommand(self._palette, ftype))
        stack.endMacro()
        return len(missing)

    def fill_current_layer(self):
        editor = getattr(self.window, "terrain_editor", None)
        layer = getattr(getattr(editor, "toolbox", None), "current_layer", None)
        if layer is None:
            layers = self.document.scene.terrain.layers
            layer = layers[0].name if layers else None
        if layer is None:
            self.window.statusBar().showMessage("No terrain layer to fill: add one in the Layers panel.",
                                                5000)
            return None
        return self.toolset.fill_layer(layer)


def install(main_window) -> FoliageEditor:
    """The window's foliage editor, created on first call."""
    editor = getattr(main_window, "foliage_editor", None)
    if editor is None:
        editor = FoliageEditor(main_window)
        main_window.foliage_editor = editor
    return editor
