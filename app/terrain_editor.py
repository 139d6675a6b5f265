"""The terrain half of the editor, wired into a main window: tools, Layers dock, heightmap actions.

`install(main_window)` is idempotent and returns the window's `TerrainEditor`. Layer requests
from the panel become undoable commands here; a rename offers to carry the foliage types that
filter on the layer, and a delete names the types that will then refuse with "layer missing".
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog, QFileDialog, QMenu, QMessageBox, QToolBar

from app.terrain_commands import (
    AddLayerCommand,
    AutoPaintCommand,
    DeleteLayerCommand,
    LayerBlendCommand,
    LayerMaterialCommand,
    MoveLayerCommand,
    RecolourLayerCommand,
    RenameLayerCommand,
    ReplaceGridCommand,
)
from app.terrain_tools import TerrainToolbox
from app.tools import host_of
from model.errors import FormatError
from model.formats.heightmap import (
    LAYER_NAME_FILTER,
    NAME_FILTER,
    ImportCancelled,
    export_heights,
    format_of,
    open_heightmap,
    read_heightmap,
    read_layer_png,
    scene_from_heightmap,
    write_layer_png,
    write_scene_from_heightmap,
)
from model.layer_ops import LayerError, types_using_layer
from model.scene import Scene
from model.sculpt import HEIGHTS
from widgets.error_dialog import file_message
from widgets.heightmap_dialog import RAW_FORMATS, HeightmapOptionsDialog
from widgets.import_target import TileProgress, ask_scene_path, is_large
from widgets.layers_panel import LayersPanel
from widgets.progress import ModalProgress
from widgets.terrain_tool_panel import TerrainToolPanel


def ask_update_types(parent, old: str, new: str, types: list[str]) -> bool | None:
    """True: rename and update the types; False: rename only; None: cancel."""
    box = QMessageBox(QMessageBox.Icon.Question, "Rename layer",
                      f"{len(types)} foliage type(s) filter on layer '{old}': {', '.join(types)}.\n"
                      f"Update them to use '{new}'? Otherwise they will refuse with \"layer missing\".",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
                      | QMessageBox.StandardButton.Cancel, parent)
    box.button(QMessageBox.StandardButton.Yes).setText("Rename and update types")
    box.button(QMessageBox.StandardButton.No).setText("Rename only")
    answer = box.exec()
    if answer == QMessageBox.StandardButton.Cancel:
        return None
    return answer == QMessageBox.StandardButton.Yes


def confirm_delete(parent, name: str, types: list[str]) -> bool:
    text = f"Delete layer '{name}'? (Undo brings it back.)"
    if types:
        text += (f"\n\nThese foliage types filter on it and will refuse with \"layer missing\": "
                 f"{', '.join(types)}.")
    answer = QMessageBox.question(parent, "Delete layer", text,
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


class TerrainEditor(QObject):
    """Owns the terrain toolbox and the Layers panel of one main window."""

    def __init__(self, main_window) -> None:
        super().__init__(main_window)
        self.window = main_window
        self.document = main_window.document
        self.toolbox = TerrainToolbox(main_window.viewport, self.document,
                                      getattr(main_window, "settings", None), self, host_of(main_window))
        self.panel = LayersPanel(self.document.scene.terrain)
        main_window.set_panel("layers", self.panel)
        # Dialog hooks: tests and scripts replace these.
        self.ask_update_types: Callable[..., bool | None] = ask_update_types
        self.confirm_delete: Callable[..., bool] = confirm_delete
        self.last_delete_warning: list[str] = []
        self.last_auto_paint = None  # the rule the dialog offers again
        # callables(panel) that add their settings to each Terrain Tools panel made (the Stamp tool's)
        self.panel_extras: list[Callable[[TerrainToolPanel], None]] = []

        self.panel.current_changed.connect(lambda name: self.toolbox.set_current_layer(name or None))
        self.toolbox.set_current_layer(self.panel.current_name())
        self.panel.add_requested.connect(self.add_layer)
        self.panel.rename_requested.connect(self.rename_layer)
        self.panel.recolour_requested.connect(self.recolour_layer)
        self.panel.move_requested.connect(self.move_layer)
        self.panel.delete_requested.connect(self.delete_layer)
        self.panel.blend_requested.connect(self.set_weight_blend)
        self.panel.texture_requested.connect(self.choose_texture)
        self.panel.material_requested.connect(self.set_material)
        self.panel.textures_folder = lambda: self.document.scene.textures_folder()
        self.panel.refresh()  # the previews, now that the panel knows where the textures are
        self.panel.import_requested.connect(self.import_layer_dialog)
        self.panel.export_requested.connect(self.export_layer_dialog)
        self.document.scene_replaced.connect(self._on_scene_replaced)
        self.toolbox.message.connect(lambda text: main_window.statusBar().showMessage(text, 4000))
        self.toolbox.tool_changed.connect(self._show_settings_for)
        self._build_actions()

    # ---- window furniture -------------------------------------------------------------
    def _build_actions(self) -> None:
        w = self.window
        self.toolbar = QToolBar("Terrain", w)
        self.toolbar.setObjectName("toolbar_terrain")
        self.toolbar.addActions(self.toolbox.action_list())
        w.addToolBar(self.toolbar)
        menu = QMenu("&Terrain", w)
        menu.setObjectName("menu_terrain")
        w.menuBar().insertMenu(w.tools_menu.menuAction(), menu)
        menu.addActions(self.toolbox.action_list())
        menu.addSeparator()
        self.actions = {
            "import_heights": menu.addAction("Import &Heightmap into Scene…", self.import_heights_dialog),
            "export_heights": menu.addAction("&Export Heightmap…", self.export_heights_dialog),
        }
        menu.addSeparator()
        self.actions["auto_paint"] = menu.addAction("&Auto-Paint Layer…", self.auto_paint_dialog)
        self.actions["auto_paint"].setObjectName("action_terrain_auto_paint")
        self.actions["auto_paint"].setToolTip("Give a layer weight where the ground's slope, height and "
                                              "curvature fall in bands (one undo step)")
        self.actions["import_heights"].setToolTip("Replace the terrain's heights with a heightmap of the "
                                                  "same size (undoable)")
        self.actions["export_heights"].setToolTip("Save the heights as 16-bit PNG, RAW R16 or float32 .npy")
        self.menu = menu

    def _show_settings_for(self, key: str) -> None:
        """A terrain tool brings its settings (Terrain Tools, tabbed over Tool Settings) to the front;
        another tool gives the front back to Tool Settings."""
        w = self.window
        settings = getattr(w, "docks", {}).get("tool_settings")
        if not key:
            if settings is not None and self.toolbox.host.active is not None:
                settings.raise_()
            return
        if not w.isVisible() or "terrain_tools" not in getattr(w, "tool_window_specs", {}):
            return  # a hidden window (scripts, tests) keeps its layout as it is
        first = "terrain_tools" not in w.tool_docks
        dock = w.tool_window("terrain_tools")
        if dock is None:
            return
        if first and settings is not None and not settings.isFloating() and not dock.isFloating() \
                and w.dockWidgetArea(dock) == w.dockWidgetArea(settings):
            w.tabifyDockWidget(settings, dock)
        w.set_tool_window_visible("terrain_tools", True)
        w.actions_by_key["tool_terrain_tools"].setChecked(True)

    def tool_panel(self) -> TerrainToolPanel:
        """A settings panel bound to this editor's brush and tools."""
        # the Road tool is in the toolbar and the menu (Shift+R): a fourth row of buttons would not
        # fit the column's height
        buttons = [a for key, a in self.toolbox.actions.items() if key != "spline"]
        panel = TerrainToolPanel(buttons, self.toolbox.brush)
        panel.brush_edited.connect(self.toolbox.set_brush)
        self.toolbox.brush_changed.connect(panel.set_brush)
        panel.set_layer(self.toolbox.current_layer)
        self.panel.current_changed.connect(lambda name: panel.set_layer(name or None))
        self.document.scene_replaced.connect(lambda scene: panel.set_layer(self.toolbox.current_layer))
        panel.amount_edited.connect(lambda v: setattr(self.toolbox, "amount", float(v)))
        panel.seed_edited.connect(lambda v: setattr(self.toolbox, "noise_seed", int(v)))
        for extra in self.panel_extras:
            extra(panel)
        panel.road_width_edited.connect(self.toolbox.set_spline_width)
        panel.road_kind_edited.connect(self.toolbox.set_spline_kind)
        panel.road_depth_edited.connect(self.toolbox.set_spline_depth)
        self.toolbox.spline_shape.connect(panel.show_road_shape)
        panel.show_road_shape(self.toolbox.spline_type, self.toolbox.spline_depth)
        self.toolbox.tool_changed.connect(panel.set_tool)
        panel.set_tool(self.toolbox.active.tool_key if self.toolbox.active is not None else "")
        self.toolbox.spline_selected.connect(lambda _index, width: panel.show_road_width(width))
        return panel

    def _on_scene_replaced(self, scene: Scene) -> None:
        self.panel.set_terrain(scene.terrain)

    @property
    def terrain(self):
        return self.document.scene.terrain

    def _palette(self):
        section = self.document.scene.sections.get("foliage")
        return getattr(section, "palette", None)

    def _push(self, make: Callable) -> bool:
        """Build a command (which checks its input) and push it; errors become one dialog."""
        try:
            command = make()
        except LayerError as e:
            self.window.show_error("Layer edit refused", str(e))
            return False
        self.document.undo_stack.push(command)
        return True

    # ---- layer edits (panel requests) -------------------------------------------------
    def add_layer(self, name: str, color: tuple[int, int, int]) -> bool:
        ok = self._push(lambda: AddLayerCommand(self.terrain, name, tuple(color)))
        if ok:
            self.panel.select(name.strip())
        return ok

    def rename_layer(self, old: str, new: str) -> bool:
        palette = self._palette()
        types = types_using_layer(palette, old) if palette is not None else []
        update = False
        if types:
            update = self.ask_update_types(self.window, old, new, types)
            if update is None:
                return False
        ok = self._push(lambda: RenameLayerCommand(self.terrain, old, new, palette if update else None))
        if ok:
            self.panel.select(new.strip())
        return ok

    def recolour_layer(self, name: str, color: tuple[int, int, int]) -> bool:
        return self._push(lambda: RecolourLayerCommand(self.terrain, name, tuple(color)))

    def set_weight_blend(self, name: str, on: bool) -> bool:
        layer = self.terrain.layer(name)
        if layer is None or layer.weight_blend == bool(on):
            return False
        return self._push(lambda: LayerBlendCommand(self.terrain, name, on))

    def move_layer(self, name: str, to_index: int) -> bool:
        ok = self._push(lambda: MoveLayerCommand(self.terrain, name, to_index))
        if ok:
            self.panel.select(name)
        return ok

    def delete_layer(self, name: str) -> bool:
        palette = self._palette()
        types = types_using_layer(palette, name) if palette is not None else []
        self.last_delete_warning = types
        if not self.confirm_delete(self.window, name, types):
            return False
        ok = self._push(lambda: DeleteLayerCommand(self.terrain, name))
        if ok and types:
            self.panel.show_status(f"Deleted '{name}': {', '.join(types)} will refuse with "
                                   "\"layer missing\" until it is back (Undo).")
        return ok

    # ---- heightmaps and weights -------------------------------------------------------
    def import_heights(self, path: str | Path, offset: float | None = None, scale: float | None = None,
                       fmt: str | None = None) -> bool:
        """Replace the heights with a heightmap of the terrain's size, as one undo step."""
        t = self.terrain
        try:
            with _busy(self.window, f"Reading {path}…"):
                hm = read_heightmap(path, fmt, (t.columns, t.rows), offset, scale,
                                    expected_shape=(t.rows, t.columns))
        except FormatError as e:
            self.window.show_error("Could not import heightmap", str(e))
            return False
        self.document.undo_stack.push(ReplaceGridCommand(t, HEIGHTS, hm.heights,
                                                         f"Import heightmap {Path(path).name}",
                                                         scene=self.document.scene))
        return True

    def export_heights(self, path: str | Path, offset: float | None = None, scale: float | None = None,
                       fmt: str | None = None) -> bool:
        try:
            with _busy(self.window, f"Writing {path}…"):
                mapping = export_heights(self.terrain, path, fmt, offset, scale)
        except (OSError, ValueError) as e:
            self.window.show_error("Could not export heightmap",
                                   file_message(e, path) if isinstance(e, OSError) else f"{path}: {e}")
            return False
        text = f"Exported {path}"
        if mapping is not None:
            text += f": height = {mapping.offset:g} + {mapping.scale:g} m × value / 65535"
        self.window.statusBar().showMessage(text, 8000)
        return True

    def import_layer(self, name: str, path: str | Path) -> bool:
        t = self.terrain
        try:
            weights = read_layer_png(path, expected_shape=(t.rows, t.columns))
        except FormatError as e:
            self.window.show_error("Could not import layer weights", str(e))
            return False
        self.document.undo_stack.push(ReplaceGridCommand(t, name, weights, f"Import weights of '{name}'",
                                                         scene=self.document.scene))
        return True

    def export_layer(self, name: str, path: str | Path) -> bool:
        layer = self.terrain.layer(name)
        try:
            write_layer_png(path, layer.weights)
        except OSError as e:
            self.window.show_error("Could not export layer weights", file_message(e, path))
            return False
        self.window.statusBar().showMessage(f"Exported '{name}' to {path}", 5000)
        return True

    # ---- auto-paint -------------------------------------------------------------------------
    def auto_paint(self, rule, progress=None):
        """Run an auto-paint rule over the terrain as one undo step (spawners follow, as after a
        stroke); None when cancelled or refused (one error dialog), else its summary."""
        from model.auto_paint import AutoPaintError, apply_auto_paint, check_rule
        from model.layer_ops import LayerPaintStroke

        try:
            check_rule(self.terrain, rule)
        except AutoPaintError as e:
            self.window.show_error("Auto-paint refused", str(e))
            return None
        stroke = LayerPaintStroke(self.terrain, rule.layer, follow=self.toolbox.stroke_follower())
        own = progress is None and self.terrain.rows * self.terrain.columns > PROGRESS_SAMPLES
        bar = ModalProgress(self.window, f"Auto-painting '{rule.layer}'…") if own else None
        report = progress
        if bar is not None:
            def report(done: int, total: int) -> bool:
                bar.step(done / max(total, 1))
                return not bar.cancelled()
        try:
            summary = apply_auto_paint(self.terrain, rule, stroke, report)
        finally:
            if bar is not None:
                bar.__exit__(None, None, None)
        if summary.cancelled:
            self.window.statusBar().showMessage("Auto-paint cancelled; the terrain is unchanged", 5000)
            return None
        if summary.windows:
            self.document.undo_stack.push(AutoPaintCommand(stroke, f"Auto-paint layer '{rule.layer}'"))
        self.window.statusBar().showMessage(auto_paint_sentence(rule.layer, summary), 8000)
        return summary

    def make_auto_paint_dialog(self):
        """The dialog, with its preview wired to the terrain (tests drive it without exec)."""
        from model.auto_paint import AutoPaintError, apply_auto_paint, check_rule
        from model.layer_ops import LayerPaintStroke
        from widgets.auto_paint_dialog import AutoPaintDialog

        t = self.terrain
        dialog = AutoPaintDialog([la.name for la in t.layers], self.toolbox.current_layer, t.height_range(),
                                 self.window)
        if self.last_auto_paint is not None and t.layer(self.last_auto_paint.layer) is not None:
            dialog.set_rule(self.last_auto_paint)
        big = t.rows * t.columns > PREVIEW_SAMPLES
        if big:  # a whole-terrain pass per edit would lag: preview on request only
            dialog.preview.setChecked(False)
        shown: list = []  # the preview's stroke, applied

        def take_back() -> None:
            while shown:
                shown.pop().undo()

        def preview(rule) -> None:
            take_back()
            if rule is None or not dialog.preview.isChecked():
                return
            try:
                check_rule(t, rule)
            except AutoPaintError as e:
                dialog.set_summary(str(e))
                return
            stroke = LayerPaintStroke(t, rule.layer)
            summary = apply_auto_paint(t, rule, stroke)
            shown.append(stroke)
            dialog.set_summary(auto_paint_sentence(rule.layer, summary))

        dialog.rule_changed.connect(preview)
        dialog.preview_toggled.connect(lambda on: preview(dialog.rule()))
        dialog.finished.connect(lambda result: take_back())
        dialog.take_back_preview = take_back
        dialog.flush()
        dialog.rule_changed.emit(dialog.rule())
        return dialog

    def auto_paint_dialog(self) -> None:
        """Terrain ▸ Auto-Paint Layer…: ask for the rule (previewed live), then paint it as one step."""
        if not self.terrain.layers:
            self.window.show_error("No layer to paint", "Add a layer in the Layers panel first.")
            return
        dialog = self.make_auto_paint_dialog()
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        rule = dialog.rule()
        dialog.deleteLater()
        if accepted and rule is not None:
            self.last_auto_paint = rule
            self.auto_paint(rule)

    # ---- dialogs ----------------------------------------------------------------------
    def _folder(self, name: str = "") -> str:
        """A file dialog's start: the scene's folder (or the window's choice), with `name` in it."""
        start = _start(self.window)
        return str(Path(start) / name) if start and name else (start or name)

    def _stem(self) -> str:
        path = self.document.scene.path
        return path.stem if path is not None else self.document.scene.name

    def import_heights_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Import Heightmap", self._folder(), NAME_FILTER)
        if not path:
            return
        t = self.terrain
        options = _options(self.window, "Import Heightmap", path, True, t.spacing, (t.columns, t.rows),
                           ask_spacing=False, note=f"Must be {t.columns} × {t.rows} samples, as the terrain")
        if options is not None:
            self.import_heights(path, options["offset"], options["scale"])

    def export_heights_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export Heightmap",
                                              self._folder(f"{self._stem()}.heights.png"), NAME_FILTER)
        if not path:
            return
        t = self.terrain
        lo, hi = t.height_range()  # paged: from the tiles' ranges
        options = _options(self.window, "Export Heightmap", path, False,
                           note=f"{t.columns} × {t.rows} samples, heights {lo:.2f} m to {hi:.2f} m")
        if options is not None:
            self.export_heights(path, options["offset"], options["scale"])

    # ---- layer textures --------------------------------------------------------------------
    def set_material(self, name: str, material) -> bool:
        layer = self.terrain.layer(name)
        if layer is None or layer.material == material:
            return False
        return self._push(lambda: LayerMaterialCommand(self.terrain, name, material))

    def pick_texture_file(self, folder: Path, title: str) -> str:
        """The file dialog, opened in the scene's folder (tests replace it)."""
        path, _ = QFileDialog.getOpenFileName(self.window, title, str(folder), TEXTURE_FILTER)
        return path

    def ask_copy_texture(self, file: Path, folder: Path) -> bool:
        """Whether to copy a texture from outside the scene's folder into it (tests replace it)."""
        answer = QMessageBox.question(
            self.window, "Copy Texture into the Scene Folder",
            f"{file.name} is outside the scene's folder ({folder}); a scene only reads textures inside "
            f"it.\n\nCopy it to {folder / 'textures'}?")
        return answer == QMessageBox.StandardButton.Yes

    def choose_texture(self, name: str, kind: str) -> bool:
        """Ask for a texture file for the layer's `kind` map (copied into the scene's folder where it
        lies outside) and set it as one undo step; an albedo also sets the layer's colour to its mean."""
        from model.formats.texture_image import read_texture
        from model.layer_material import relative_to_folder

        layer = self.terrain.layer(name)
        folder = self.document.scene.textures_folder()
        if layer is None:
            return False
        if folder is None:
            self.window.show_error("Scene not saved yet", "Save the scene first: a layer's textures "
                                   "are kept in the scene's folder, named relative to it.")
            return False
        chosen = self.pick_texture_file(folder, f"{kind.capitalize()} map of '{name}'")
        if not chosen:
            return False
        file = Path(chosen)
        try:
            pixels = read_texture(file)  # refused here, not at the next frame
        except FormatError as e:
            self.window.show_error("Cannot use this texture", str(e))
            return False
        rel = relative_to_folder(folder, file)
        if rel is None:
            if not self.ask_copy_texture(file, folder):
                return False
            try:
                rel = copy_into(file, folder)
            except OSError as e:
                self.window.show_error("Cannot copy the texture", file_message(e, folder / "textures"))
                return False
        color = None
        if kind == "albedo":  # the colour is the texture's tint: start where the texture is
            rgb = pixels[..., :3] if pixels.shape[2] >= 3 else np.repeat(pixels[..., :1], 3, axis=2)
            mean = rgb.reshape(-1, 3).mean(axis=0) / (255.0 if pixels.dtype == np.uint8 else 1.0)
            color = tuple(int(round(min(max(float(c), 0.0), 1.0) * 255.0)) for c in mean)
        material = layer.material.with_map(kind, rel)
        return self._push(lambda: LayerMaterialCommand(self.terrain, name, material, color,
                                                       f"Set the {kind} map of layer '{name}'"))

    def import_layer_dialog(self, name: str) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, f"Import weights of '{name}'", self._folder(),
                                              LAYER_NAME_FILTER)
        if path:
            self.import_layer(name, path)

    def export_layer_dialog(self, name: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, f"Export weights of '{name}'",
                                              self._folder(f"{self._stem()}.{name}.png"),
                                              LAYER_NAME_FILTER)
        if path:
            self.export_layer(name, path)


PROGRESS_SAMPLES = 4_000_000  # auto-painting more samples than this shows a progress dialog
PREVIEW_SAMPLES = 2049 * 2049  # larger terrains preview only when asked


def auto_paint_sentence(layer: str, summary) -> str:
    """One status line for what an auto-paint rule did (or would do)."""
    if not summary.windows:
        return f"Auto-paint: '{layer}' unchanged (no ground falls in the bands, or it is painted already)"
    took = f"; took weight from {', '.join(summary.others)}" if summary.others else ""
    return f"Auto-paint: '{layer}' changed on {summary.changed:,} samples{took}"


TEXTURE_FILTER = "Textures (*.png *.jpg *.jpeg *.exr);;All files (*)"


def copy_into(file: Path, folder: Path) -> str:
    """Copy `file` to `folder`/textures (atomically; a different file already there keeps its name:
    the copy gets a numbered one); its path relative to `folder`."""
    from model.atomic import atomic_write

    data = file.read_bytes()
    target_dir = folder / "textures"
    target_dir.mkdir(parents=True, exist_ok=True)
    target, n = target_dir / file.name, 2
    while target.exists() and target.read_bytes() != data:
        target, n = target_dir / f"{file.stem}_{n}{file.suffix}", n + 1
    if not target.exists():
        atomic_write(target, data)
    return target.relative_to(folder).as_posix()


def _options(parent, title: str, path: str, importing: bool, spacing: float = 1.0,
             size: tuple[int, int] | None = None, ask_spacing: bool = True, note: str = "",
             size_fixed: bool | None = None) -> dict | None:
    try:
        fmt = format_of(path)
    except ValueError as e:
        QMessageBox.critical(parent, title, str(e))
        return None
    dialog = HeightmapOptionsDialog(title, fmt, importing, parent, spacing, size, ask_spacing, path, note,
                                    size_fixed)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return dialog.values()


def new_scene_from_heightmap_dialog(main_window) -> Scene | None:
    """File ▸ Import ▸ Heightmap as Scene: ask for the file and its settings, build the scene.

    A file's header (and a PNG's chunks) is checked first, so a bad file is reported before any
    question, the dialog can show its size, and a spacing the file stores is the one offered.
    A terrain larger than `LARGE_IMPORT_CELLS` is written to a scene file the user names, tile by
    tile with progress and Cancel, and opened from it paged (never held whole)."""
    path, _ = QFileDialog.getOpenFileName(main_window, "New Scene from Heightmap", _start(main_window),
                                          NAME_FILTER)
    if not path:
        return None
    spacing, note, size = 1.0, "", None
    try:
        fmt = format_of(path)
    except ValueError as e:
        raise FormatError(path, None, str(e)) from None
    if fmt in RAW_FORMATS:  # RAW files say nothing of their size: offer the square the byte count makes
        try:
            nbytes = Path(path).stat().st_size
        except OSError as e:
            raise FormatError(path, None, e.strerror or str(e)) from None
        sample = RAW_FORMATS[fmt]
        side = math.isqrt(nbytes // sample)
        note = f"{nbytes:,} bytes"
        if side >= 2 and side * side * sample == nbytes:
            size = (side, side)
            note += f": {side} × {side} samples if square"
    else:  # the header only: a big file is not read whole to say its size
        with _busy(main_window, f"Reading {path}…"):
            peek = open_heightmap(path, fmt)
        rows, columns = peek.rows, peek.columns
        note = f"{columns} × {rows} samples"
        if peek.spacing is not None:
            spacing = peek.spacing
            note += f", {peek.spacing:g} m spacing stored in the file"
    options = _options(main_window, "New Scene from Heightmap", path, True, spacing, size, note=note,
                       size_fixed=False)
    if options is None:
        return None
    if fmt in RAW_FORMATS:
        columns, rows = options["size"] if options["size"] else (size or (0, 0))
    if is_large(rows, columns):
        return _write_large_heightmap_scene(main_window, path, options)
    with _busy(main_window, f"Reading {path}…"):
        return scene_from_heightmap(path, None, options["size"], options["offset"], options["scale"],
                                    options["spacing"])


def _write_large_heightmap_scene(main_window, path: str, options: dict) -> Scene | None:
    """A big heightmap is written to a scene file tile by tile, then opened from it paged."""
    out = ask_scene_path(main_window, "Save the Imported Scene As",
                         Path(_start(main_window) or Path(path).parent) / f"{Path(path).stem}.boscage")
    if out is None:
        return None
    try:
        with TileProgress(main_window, f"Importing {Path(path).name}") as progress:
            return write_scene_from_heightmap(path, out, None, options["size"], options["offset"],
                                              options["scale"], options["spacing"], progress=progress)
    except ImportCancelled:
        return None


def _start(window) -> str:
    folder = getattr(window, "start_folder", None)
    return str(folder()) if callable(folder) else ""


def _busy(window, text: str):
    """The window's wait cursor and status line while a file is read or written (none without one)."""
    busy = getattr(window, "busy", None)
    return busy(text) if callable(busy) else nullcontext()


def install(main_window) -> TerrainEditor:
    """The window's terrain editor, created on first call."""
    editor = getattr(main_window, "terrain_editor", None)
    if editor is None:
        editor = TerrainEditor(main_window)
        main_window.terrain_editor = editor
    return editor
