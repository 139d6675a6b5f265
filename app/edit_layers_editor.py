"""The terrain's edit layers in the editor: the Terrain Layers dock, Terrain ▸ Erode…, Terrace…
and the Stamp tool.

`install(main_window)` is idempotent. Panel requests become commands (`app.edit_layer_commands`);
long work (erosion, terraces) runs with a progress dialog and Cancel before anything changes, and
its result is one undo step that adds or recomputes its layer.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog

from app.edit_layer_commands import (
    AddEditLayerCommand,
    CollapseEditLayerCommand,
    EditLayerOpacityCommand,
    EditLayerVisibilityCommand,
    MoveEditLayerCommand,
    OutputLayers,
    RemoveEditLayerCommand,
    RenameEditLayerCommand,
    RunEditLayerCommand,
)
from app.stamp_tool import STAMP_FOLDER_KEY, StampTool, library_files
from model import layer_ops
from model.batch import BatchCancelled
from model.edit_layers import EditLayerError, EditStack, stack_of
from model.formats import tiles as tiling
from model.terrain_edits import beneath_of, mask_of, region_window
from widgets.edit_layer_dialogs import ErodeDialog, TerraceDialog
from widgets.edit_layers_panel import EditLayersPanel
from widgets.progress import BatchProgress
from widgets.stamp_settings import StampSettings


def _exec(dialog: QDialog) -> dict | None:
    return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None


class EditLayersEditor(QObject):
    """Owns the Terrain Layers panel, the Erode/Terrace actions and the Stamp tool of a main window."""

    def __init__(self, main_window) -> None:
        super().__init__(main_window)
        self.window = main_window
        self.document = main_window.document
        self.terrain_editor = main_window.terrain_editor
        self.toolbox = self.terrain_editor.toolbox
        self.panel = EditLayersPanel(self.terrain)
        main_window.set_panel("terrain_layers", self.panel)
        # Dialog and progress hooks: tests and scripts replace these.
        self.ask_erosion: Callable[[], dict | None] = lambda: _exec(self.erode_dialog())
        self.ask_terrace: Callable[[], dict | None] = lambda: _exec(self.terrace_dialog())
        self.progress_factory: Callable[..., BatchProgress] = BatchProgress
        self.last_ground: tuple[float, float] | None = None  # where the brush last was on the ground

        p = self.panel
        p.selected_changed.connect(self.select)
        p.add_requested.connect(self.add_layer)
        p.rename_requested.connect(self.rename_layer)
        p.move_requested.connect(self.move_layer)
        p.visibility_requested.connect(self.set_visible)
        p.opacity_requested.connect(self.set_opacity)
        p.opacity_slider.sliderReleased.connect(self.finish_opacity)
        p.delete_requested.connect(self.delete_layer)
        p.collapse_requested.connect(self.collapse_layer)
        # bound slots of the panel: the connections go with it when the window closes
        self.document.scene_replaced.connect(self.panel.show_scene)
        self.document.undo_stack.indexChanged.connect(self.panel.history_moved)
        self.toolbox.host.cursor_moved.connect(self._on_cursor_moved)

        self.stamp_tool = StampTool(self.toolbox)
        self.stamp_tool.folder = self._setting(STAMP_FOLDER_KEY) or ""
        self._build_actions()
        self.terrain_editor.panel_extras.append(self._add_stamp_settings)

    # ---- furniture ----------------------------------------------------------------------
    def _build_actions(self) -> None:
        ed = self.terrain_editor
        stamp_action = self.toolbox.add_tool(self.stamp_tool)
        menu = ed.menu
        first_separator = next((a for a in menu.actions() if a.isSeparator()), None)
        menu.insertAction(first_separator, stamp_action)
        ed.toolbar.addAction(stamp_action)
        menu.addSeparator()
        self.actions = {
            "erode": menu.addAction("&Erode…", self.erode_from_dialog),
            "terrace": menu.addAction("Te&rrace…", self.terrace_from_dialog),
        }
        self.actions["erode"].setObjectName("action_terrain_erode")
        self.actions["erode"].setToolTip("Thermal or hydraulic erosion into an edit layer (undoable; Cancel "
                                         "leaves the terrain as it was)")
        self.actions["terrace"].setObjectName("action_terrain_terrace")
        self.actions["terrace"].setToolTip("Cut the terrain into terraces in an edit layer (undoable)")

    def _setting(self, key: str) -> str | None:
        settings = getattr(self.window, "settings", None)
        value = settings.qsettings.value(key) if settings is not None else None
        return str(value) if value else None

    def _add_stamp_settings(self, tool_panel) -> None:
        box = StampSettings(tool_panel)
        tool = self.stamp_tool
        box.set_values(tool.rotation, tool.height, tool.mode, tool.spacing)
        self._fill_stamps(box)
        box.source_chosen.connect(lambda source: (tool.set_source(source), self._fill_stamps(box)))
        box.folder_chosen.connect(lambda folder: self.set_stamp_folder(folder, box))
        box.rotation_edited.connect(lambda v: setattr(tool, "rotation", float(v)))
        box.height_edited.connect(lambda v: setattr(tool, "height", float(v)))
        box.mode_edited.connect(lambda v: setattr(tool, "mode", str(v)))
        box.spacing_edited.connect(lambda v: setattr(tool, "spacing", float(v)))
        layout = tool_panel.layout()
        layout.insertWidget(layout.count() - 1, box)  # above the closing stretch
        box.setVisible(self.toolbox.active is tool)
        self.toolbox.tool_changed.connect(box.show_for_tool)  # a bound slot: gone with the box
        tool_panel.stamp_settings = box

    def _fill_stamps(self, box: StampSettings) -> None:
        from model.terrain_shapes import stamp_image

        def preview(path):
            try:
                return stamp_image(path)
            except Exception:  # noqa: BLE001 - a file that cannot be read shows no preview
                return None

        tool = self.stamp_tool
        box.set_stamps(tool.builtins, library_files(tool.folder), tool.source, preview)

    def set_stamp_folder(self, folder: str, box: StampSettings | None = None) -> None:
        self.stamp_tool.folder = folder
        settings = getattr(self.window, "settings", None)
        if settings is not None:
            settings.qsettings.setValue(STAMP_FOLDER_KEY, folder)
        if box is not None:
            self._fill_stamps(box)

    # ---- state ----------------------------------------------------------------------------
    @property
    def terrain(self):
        return self.document.scene.terrain

    @property
    def stack(self) -> EditStack | None:
        return self.terrain.edits

    def _ensure_stack(self) -> EditStack:
        stack = stack_of(self.terrain, create=True)
        self._follow()
        return stack

    def _follow(self) -> None:
        """The panel on this terrain's stack, its rows and selection as they are now (an undo can
        change the selection without a change of the stack's layers)."""
        if self.panel.terrain is not self.terrain:
            self.panel.set_terrain(self.terrain)
        else:
            self.panel.follow()

    def _on_cursor_moved(self, hit) -> None:
        if hit is not None:
            self.last_ground = (hit[0], hit[2])

    def brush_box(self) -> tuple[float, float, float, float] | None:
        """The square the brush covered where it was last on the ground (for a region)."""
        if self.last_ground is None:
            return None
        x, z = self.last_ground
        r = self.toolbox.brush.radius
        return (x - r, z - r, x + r, z + r)

    def select(self, name: str) -> None:
        """The sculpt target: an edit layer by name, or the base ("")."""
        stack = self.stack
        if stack is not None:
            stack.selected = name or None
        self.toolbox.report(f"Sculpting into edit layer '{name}'" if name else "Sculpting the base heights")

    def _push(self, make: Callable) -> bool:
        try:
            command = make()
        except EditLayerError as e:
            self.window.show_error("Edit layer change refused", str(e))
            return False
        self.document.undo_stack.push(command)
        return True

    # ---- panel requests ---------------------------------------------------------------------
    def add_layer(self, name: str | None = None, kind: str = "sculpt") -> bool:
        stack = self._ensure_stack()
        if name is None:
            n = 1
            while stack.get(f"Sculpt {n}") is not None:
                n += 1
            name = f"Sculpt {n}"
        return self._push(lambda: AddEditLayerCommand(stack, name, kind))

    def rename_layer(self, old: str, new: str) -> bool:
        return self._push(lambda: RenameEditLayerCommand(self.stack, old, new))

    def move_layer(self, name: str, to_index: int) -> bool:
        return self._push(lambda: MoveEditLayerCommand(self.stack, name, to_index, self.document.scene))

    def set_visible(self, name: str, visible: bool) -> bool:
        return self._push(lambda: EditLayerVisibilityCommand(self.stack, name, visible, self.document.scene))

    def set_opacity(self, name: str, opacity: float, drag: int = -1) -> bool:
        ok = self._push(lambda: EditLayerOpacityCommand(self.stack, name, opacity, drag, self.document.scene))
        if not self.panel.opacity_slider.isSliderDown():
            self.finish_opacity()  # a typed value or a click: the step is whole now
        return ok

    def finish_opacity(self) -> None:
        """An opacity drag ended: the foliage follows the ground it leaves (once per drag)."""
        stack = self.document.undo_stack
        command = stack.command(stack.index() - 1) if stack.index() > 0 else None
        if isinstance(command, EditLayerOpacityCommand):
            command.finish()

    def delete_layer(self, name: str) -> bool:
        ok = self._push(lambda: RemoveEditLayerCommand(self.stack, name, self.document.scene))
        if ok:
            self.panel.show_status(f"Deleted edit layer '{name}' (Undo brings it back).")
        return ok

    def collapse_layer(self, name: str) -> bool:
        layer = self.stack.get(name) if self.stack is not None else None
        commands: list[CollapseEditLayerCommand] = []

        def make() -> CollapseEditLayerCommand:
            commands.append(CollapseEditLayerCommand(self.stack, name, self.document.scene))
            return commands[-1]

        ok = self._push(make)
        if ok and layer is not None:
            text = (f"Collapsed '{name}' into the base." if layer.shows else
                    f"'{name}' was hidden: removed without changing the base.")
            if layer.shows and layer.kind == "spline":  # its exclusion went with the layer
                rerun = commands[-1].respawned if commands else 0
                text += (f" Spawners no longer keep off its width ({rerun} re-ran there; "
                         "Undo brings the layer back).")
            self.panel.show_status(text)
        return ok

    # ---- procedural layers --------------------------------------------------------------------
    def _masks(self) -> list[str]:
        return [layer.name for layer in self.terrain.layers]

    def _selected_of(self, kind: str):
        stack = self.stack
        layer = stack.get(stack.selected) if stack is not None and stack.selected is not None else None
        return layer if layer is not None and layer.kind == kind else None

    def erode_dialog(self) -> ErodeDialog:
        """The dialog, starting from the selected erosion layer's settings where one is selected."""
        names = [la.name for la in self.stack.layers if la.kind == "erosion"] if self.stack else []
        dialog = ErodeDialog(self.terrain.bounds(), self.brush_box(), self._masks(), self.window, names)
        layer = self._selected_of("erosion")
        if layer is not None:
            dialog.load(layer.name, layer.params)
        return dialog

    def terrace_dialog(self) -> TerraceDialog:
        dialog = TerraceDialog(self.terrain.bounds(), self.brush_box(), self._masks(), self.window)
        layer = self._selected_of("terrace")
        if layer is not None:
            dialog.load(layer.name, layer.params)
        return dialog

    def erode_from_dialog(self) -> bool:
        values = self.ask_erosion()
        return self.erode(values) if values is not None else False

    def terrace_from_dialog(self) -> bool:
        values = self.ask_terrace()
        return self.terrace(values) if values is not None else False

    def _check_target(self, name: str, kind: str) -> None:
        if not name:
            raise EditLayerError("the edit layer needs a name")
        stack = self.stack
        existing = stack.get(name) if stack is not None else None
        if existing is not None and existing.kind != kind:
            raise EditLayerError(f"the edit layer {name!r} is a {existing.kind} layer, not a {kind} one: "
                                 "choose another name")
        if existing is None and stack is not None:
            stack.check_name(name)

    def erode(self, values: dict) -> bool:
        """Erode as the dialog's `values` say, with progress and Cancel; one undo step. False when
        refused or cancelled (the terrain then as it was)."""
        from model.erosion.run import Hydraulic, Thermal, erode, parameters

        t = self.terrain
        name = values.get("layer") or f"erode-{values['method']}"
        try:
            if values["method"] == "thermal":
                how = Thermal(int(values.get("iterations", 50)), float(values.get("talus", 35.0)))
            else:
                how = Hydraulic(iterations=int(values.get("iterations", 1)), seed=int(values.get("seed", 0)),
                                rain=float(values.get("rain", 1.0)))
            how.check()
            names = list(values.get("outputs") or [])
            if names and values["method"] != "hydraulic":
                raise ValueError("flow, deposition and wear come from hydraulic erosion only")
            for output in names:
                if output not in ("flow", "deposition", "wear"):
                    raise ValueError(f"no erosion output named {output!r} (flow, deposition, wear)")
                layer = t.layer("erosion_" + output)
                if layer is None:
                    layer_ops.check_name(t, "erosion_" + output)
            self._check_target(name, "erosion")
            area = region_window(t, values.get("region"))
            mask = mask_of(t, values.get("mask"))
        except (ValueError, EditLayerError, layer_ops.LayerError) as e:
            self.window.show_error("Cannot erode", str(e))
            return False
        params = parameters(how) | ({"region": list(values["region"])} if values.get("region") else {}) | (
            {"mask": values["mask"]} if values.get("mask") else {})
        try:
            with self.progress_factory(self.window, f"Eroding ({params['method']})…", "tiles") as progress:
                result = erode(beneath_of(t, name), (t.rows, t.columns), t.spacing, how, area, mask,
                               workers=1, progress=progress.step, outputs=bool(names))
        except BatchCancelled:
            self.window.statusBar().showMessage("Erosion cancelled; the terrain is unchanged.", 6000)
            return False
        outputs = OutputLayers(t, result.outputs, result.area, names) if names else None
        return self._run(name, "erosion", params, result.deltas,
                         f"Erode ({params['method']}) into '{name}'", outputs)

    def terrace(self, values: dict) -> bool:
        """Terrace as the dialog's `values` say, with progress and Cancel; one undo step."""
        from model.terrain_shapes import terrace_deltas

        t = self.terrain
        name = values.get("layer") or "terrace"
        step, sharpness = float(values["step"]), float(values.get("sharpness", 0.7))
        try:
            if not (math.isfinite(step) and step > 0) or not 0.0 <= sharpness <= 1.0:
                raise ValueError("the step must be a positive number of metres and the sharpness from 0 to 1")
            self._check_target(name, "terrace")
            area = region_window(t, values.get("region"))
            mask = mask_of(t, values.get("mask"))
        except (ValueError, EditLayerError) as e:
            self.window.show_error("Cannot terrace", str(e))
            return False
        params = {"step": step, "sharpness": sharpness} | (
            {"region": list(values["region"])} if values.get("region") else {}) | (
            {"mask": values["mask"]} if values.get("mask") else {})
        whole = area or (slice(0, t.rows), slice(0, t.columns))
        total = len(list(tiling.tiles_meeting(*whole, tiling.TILE)))
        beneath = beneath_of(t, name)
        try:
            with self.progress_factory(self.window, "Terracing…", "tiles") as progress:
                done = [0]

                def counted(rows: slice, cols: slice):
                    # the work goes window by window: each read of the ground is a step
                    if progress.step(done[0], total) is False:
                        raise BatchCancelled(f"stopped after {done[0]} of {total} tiles")
                    done[0] += 1
                    return beneath(rows, cols)

                deltas = terrace_deltas(counted, (t.rows, t.columns), step, sharpness, area, mask)
                progress.step(total, total)
        except BatchCancelled:
            self.window.statusBar().showMessage("Terracing cancelled; the terrain is unchanged.", 6000)
            return False
        return self._run(name, "terrace", params, deltas, f"Terrace into '{name}' every {step:g} m")

    def _run(self, name: str, kind: str, params: dict, deltas, text: str, outputs=None) -> bool:
        ok = self._push(lambda: RunEditLayerCommand(self.terrain, name, kind, params, deltas, text, outputs,
                                                                  self.document.scene))
        self._follow()
        if ok:
            self.panel.select(name)
            self.window.statusBar().showMessage(f"{text}: done (Undo takes it back).", 6000)
        return ok


def install(main_window) -> EditLayersEditor:
    """The window's edit-layers editor, created on first call."""
    editor = getattr(main_window, "edit_layers_editor", None)
    if editor is None:
        editor = EditLayersEditor(main_window)
        main_window.edit_layers_editor = editor
    return editor
