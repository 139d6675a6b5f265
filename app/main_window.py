"""The editor's main window: viewport, docks, menus, and the open/save/close flow."""

from __future__ import annotations

import html
import importlib.metadata
import platform
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import PySide6
from PySide6.QtCore import QByteArray, Qt, QTimer, qVersion
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QUndoView,
    QVBoxLayout,
    QWidget,
)

from app.autosave import AutoSaver, Recovery, ask_restore, orphaned_recoveries
from app.document import SceneDocument, new_scene
from app.extensions import Exporter, Importer, ToolWindow, exporters, importers, tool_windows
from app.file_watch import FileWatcher
from app.scoped_keys import ScopedKeys
from app.settings import Settings
from app.wind_preview import install_wind_actions
from model.errors import FormatError
from model.formats.scene_file import NAME_FILTER, LoadCancelled
from model.interchange.usd_preflight import use_fresh_interpreter
from model.scene import Scene
from widgets.error_dialog import error_box, error_details, file_message, unexpected_message
from widgets.inspector_panel import InspectorPanel
from widgets.new_scene_dialog import NewSceneOptions, ask_new_scene
from widgets.progress import Relay, TextureProgress
from widgets.viewport import Viewport, install_view_actions, prepare_opening
from widgets.wheel_guard import install_wheel_guard

APP_NAME = "Boscage"
DEFAULT_SIZE = (1400, 900)
PROGRESS_DELAY_MS = 500  # a read shorter than this shows no progress dialog

# key, title, area, tooltip — the fixed docks; later work fills the placeholders.
# The default layout leaves the viewport most of the window: the palette alone on the left, the
# tool's settings, layers and inspector on the right, and a short Refusals strip under the view.
FIXED_DOCKS = [
    ("palette", "Palette", Qt.DockWidgetArea.LeftDockWidgetArea, "Foliage types to paint with"),
    ("tool_settings", "Tool Settings", Qt.DockWidgetArea.RightDockWidgetArea,
     "Brush radius, strength, falloff and the active tool's options"),
    ("layers", "Layers", Qt.DockWidgetArea.RightDockWidgetArea, "The scene's terrain paint layers"),
    ("terrain_layers", "Terrain Layers", Qt.DockWidgetArea.RightDockWidgetArea,
     "Non-destructive edit layers over the terrain's base heights (sculpt, stamps, erosion, terraces)"),
    ("inspector", "Inspector", Qt.DockWidgetArea.RightDockWidgetArea, "Properties of the selection"),
    ("history", "History", Qt.DockWidgetArea.RightDockWidgetArea,
     "Undo history: click a step to go back to it"),
    ("refusals", "Refusals", Qt.DockWidgetArea.BottomDockWidgetArea,
     "Why the last stroke placed what it placed, and what it refused"),
]


# Tool windows that belong beside the tool settings; every other one is a data window (Plant Rules,
# TRN Browser, Zone Layers…): they open as tabs of one group under the viewport, full width.
# Tool windows that are tall forms beside the viewport, not wide data views under it; the value
# names the panel they first open as a tab of (None: a dock of their own in the right column).
SIDE_TOOL_WINDOWS = {"terrain_tools": "tool_settings", "spawners": "inspector"}
# Side windows whose form grows with the active tool (the Stamp's settings): they scroll rather than
# pushing a 1280 x 800 window taller
SCROLLING_SIDE_WINDOWS = {"terrain_tools"}
DATA_WINDOW_AREA = Qt.DockWidgetArea.BottomDockWidgetArea
DATA_WINDOW_HEIGHT = 0.42  # of the window, when the first data window opens
SIDE_WINDOW_HEIGHT = 0.6  # of the right column at least, for a side tool window when it first opens


def warning_box(parent: QWidget, title: str, message: str) -> None:
    """A window-modal warning that returns at once (no nested event loop)."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok, parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()


def _scrolling(widget: QWidget, key: str) -> QScrollArea:
    """A data window in a scroll area: a narrow dock scrolls it instead of widening the window."""
    area = QScrollArea()
    area.setObjectName(f"scroll_{key}")
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidget(widget)
    return area


def _read_for_opening(path: str | Path, progress) -> Scene:
    """A scene file read (on a helper thread), with the view it opens with."""
    scene = SceneDocument.read(path, progress)
    prepare_opening(scene)
    return scene


def _plain_title(text: str) -> str:
    """A menu entry's text without its mnemonic and ellipsis: "&Foliage…" → "Foliage"."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


def _menu_path(action: QAction) -> str:
    """An action's name for the shortcut list: "Export ▸ glTF" for a submenu's entry, which alone
    ("glTF", "Foliage") would not say what it does."""
    name = _plain_title(action.text())
    for menu in action.associatedObjects():
        if isinstance(menu, QMenu) and isinstance(menu.parent(), QMenu) and menu.title():
            return f"{_plain_title(menu.title())} ▸ {name}"
    return name


def placeholder(text: str) -> QWidget:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    label.setWordWrap(True)
    label.setMargin(8)
    label.setEnabled(False)
    return label


class MainWindow(QMainWindow):
    """`document`, `viewport`, `docks[key]`, `actions_by_key[key]` and `open_scene(scene)` are the
    interface for later work."""

    def __init__(self, scene: Scene | None = None, settings: Settings | None = None,
                 restore_layout: bool = True, first_frame_first: bool = False) -> None:
        """`first_frame_first` (the editor's start): what the viewport's first frame does not need
        (the palette's rendered thumbnails) waits until it is drawn."""
        super().__init__()
        self.first_frame_first = first_frame_first
        install_wheel_guard()  # every form's numbers change by wheel only once clicked into
        use_fresh_interpreter()  # this process's threads may hold locks: a crate check never forks it
        self.setObjectName("main_window")
        self.settings = settings if settings is not None else Settings()
        self.persist_layout = restore_layout
        self.document = SceneDocument(scene if scene is not None else new_scene(), self)
        self.viewport = Viewport(self)
        self.viewport.setObjectName("viewport")
        self.setCentralWidget(self.viewport)
        self.docks: dict[str, QDockWidget] = {}
        self.tool_docks: dict[str, QDockWidget] = {}
        self.actions_by_key: dict[str, QAction] = {}
        self.last_error: str | None = None
        self.last_error_details: str | None = None  # the Python account of an unexpected error
        self.warnings: list[str] = []  # problems the scene was drawn despite, this session
        self.resize(*DEFAULT_SIZE)
        self.setAcceptDrops(True)  # a .boscage file dropped on the window opens it
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)

        self._build_docks()
        self._build_actions()
        self._build_menus()
        install_view_actions(self)
        install_wind_actions(self)
        self.scoped_keys = ScopedKeys(self)  # a browser's own Ctrl+O wins while it has the focus
        self.statusBar().showMessage("Ready", 3000)

        self.document.scene_replaced.connect(self._on_scene_replaced)
        self.document.modified_changed.connect(self._update_title)
        self.document.saved.connect(lambda path: self._remember(path))
        self.viewport.gl_failed.connect(lambda msg: self.show_error(
            "Drawing failed", "Part of the 3-D view could not be drawn and is switched off; the scene itself "
            "is unchanged.", msg))
        self.viewport.warning.connect(self.show_drawing_warning)
        self.texture_progress = TextureProgress(self)
        self.statusBar().addPermanentWidget(self.texture_progress)
        self.viewport.textures_progress.connect(self.texture_progress.show_progress)
        self.last_warning: str | None = None
        # how a warning reaches the user: a dialog that does not block (a screenshot prints it)
        self.warning_hook: Callable[[QWidget, str, str], None] = warning_box
        self._mesh_warned = False  # the open scene's unreadable meshes were said (once per scene)
        self.viewport.mesh_failed.connect(self._on_mesh_failed)
        self._on_scene_replaced(self.document.scene)
        from app.terrain_editor import install as install_terrain_editor

        self.terrain_editor = install_terrain_editor(self)
        from app.edit_layers_editor import install as install_edit_layers_editor

        self.edit_layers_editor = install_edit_layers_editor(self)
        from app.foliage_editor import install as install_foliage_editor

        self.foliage_editor = install_foliage_editor(self)
        self._install_inspector()
        # Dialog hooks: tests and scripts replace them.
        self.ask_restore: Callable[[QWidget, Recovery], bool] = ask_restore
        self.ask_new_scene: Callable[[QWidget, NewSceneOptions], NewSceneOptions | None] = ask_new_scene
        self.ask_replace_textures: Callable[[QWidget, list[Path]], bool] = ask_replace_textures
        self.autosave = AutoSaver(self.document, self.settings.autosave_interval(), self)
        self.autosave.failed.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.file_watcher = FileWatcher(self.document, self, self)
        self.file_watcher.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self._sized = False
        self._default_sizes()
        self._default_state = self.saveState()
        if restore_layout:
            self.restore_layout()

    # ---- docks ------------------------------------------------------------------------
    def _build_docks(self) -> None:
        panels: dict[str, QWidget] = {
            "palette": placeholder("No foliage palette in this scene."),
            "tool_settings": placeholder("No tool is active."),
            "refusals": placeholder("No stroke yet."),
            "history": QUndoView(self.document.undo_stack),
            "layers": placeholder("No terrain layers."),
            "terrain_layers": placeholder("No terrain edit layers."),
            "inspector": placeholder("Nothing selected."),
        }
        panels["history"].setEmptyLabel("Scene as opened")  # click it to undo everything
        for key, title, area, tooltip in FIXED_DOCKS:
            dock = QDockWidget(title, self)
            dock.setObjectName(f"dock_{key}")
            dock.setWidget(panels[key])
            dock.setToolTip(tooltip)
            self.addDockWidget(area, dock)
            self.docks[key] = dock
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.docks["inspector"], self.docks["history"])
        self.docks["inspector"].raise_()

    def _default_sizes(self) -> None:
        """Side columns sized to the window and a short Refusals strip: the viewport gets the most."""
        d = self.docks
        width, height = self.width(), self.height()
        horizontal, vertical = Qt.Orientation.Horizontal, Qt.Orientation.Vertical
        # at most 40 % for both columns together: the viewport keeps 60 % of the width
        left = min(360, max(240, round(0.2 * width)))
        right = min(280, max(240, round(0.175 * width)))
        self.resizeDocks([d["palette"], d["tool_settings"]], [left, right], horizontal)
        # Tool Settings shows all of itself, Layers its list, the Inspector the rest of the column.
        self.resizeDocks([d["tool_settings"], d["layers"], d["inspector"]],
                         [390, 175, max(150, height - 670)], vertical)  # tools two a row: 390
        self.resizeDocks([d["refusals"]], [92], vertical)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._sized:  # the first show without a saved layout: fit the default to the window
            self._sized = True
            # Terrain Layers as a tab of Layers, made here: a second tab group made before the first
            # show lays the hidden window out at full size, which scripts driving it do not expect
            self.tabifyDockWidget(self.docks["layers"], self.docks["terrain_layers"])
            self.docks["layers"].raise_()
            self._default_sizes()
            self._default_state = self.saveState()

    def _install_inspector(self) -> None:
        """The Inspector follows the open scene and the foliage selection."""
        panel = self.inspector = self.set_panel("inspector", InspectorPanel())
        toolset = self.foliage_editor.toolset
        panel.live_records = self.foliage_editor.gizmo.live_records
        panel.set_scene(self.document.scene)
        self.document.scene_replaced.connect(panel.set_scene)
        panel.follow_selection(lambda: toolset.selection)
        toolset.selection_changed.connect(panel.selection_changed)  # a method: gone with the panel
        # an undo or redo shows at once what the step left, not after the coalescing timer
        self.document.undo_stack.indexChanged.connect(panel.refresh)

    def set_panel(self, key: str, widget: QWidget) -> QWidget:
        """Put `widget` in fixed dock `key`, deleting the panel it replaces; returns `widget`."""
        dock = self.docks[key]
        old = dock.widget()
        dock.setWidget(widget)
        if old is not None and old is not widget:
            old.deleteLater()
        return widget

    def _action(self, key: str, text: str, slot: Callable, shortcut=None, tip: str = "",
                fallback: str | None = None) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"action_{key}")
        if isinstance(shortcut, QKeySequence.StandardKey):
            # every binding the platform knows; some desktops define none for Quit
            keys = QKeySequence.keyBindings(shortcut) or ([QKeySequence(fallback)] if fallback else [])
            action.setShortcuts(keys)
        elif shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setStatusTip(tip)
        action.setToolTip(tip or text.replace("&", "").rstrip("…"))
        action.triggered.connect(lambda checked=False: slot())
        self.actions_by_key[key] = action
        return action

    def _build_actions(self) -> None:
        K = QKeySequence.StandardKey
        self._action("new", "&New…", self.new_scene, K.New,
                     "Start a new flat terrain scene (asks its size, spacing and height)")
        self._action("open", "&Open…", self.open_dialog, K.Open, "Open a .boscage scene")
        self._action("save", "&Save", self.save, K.Save, "Save the scene")
        self._action("save_as", "Save &As…", self.save_as, K.SaveAs, "Save the scene under a new name")
        self._action("quit", "&Quit", self.close, K.Quit, "Close the editor", fallback="Ctrl+Q")
        self.actions_by_key["quit"].setMenuRole(QAction.MenuRole.QuitRole)
        undo = self.document.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcuts(K.Undo)
        undo.setObjectName("action_undo")
        redo = self.document.undo_stack.createRedoAction(self, "&Redo")
        # Ctrl+Shift+Z and Ctrl+Y on every desktop (some platform themes bind only one of them)
        redo_keys = QKeySequence.keyBindings(K.Redo)
        redo_keys += [k for k in (QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")) if k not in redo_keys]
        redo.setShortcuts(redo_keys)
        redo.setObjectName("action_redo")
        self.actions_by_key["undo"], self.actions_by_key["redo"] = undo, redo
        self._action("frame_all", "&Frame All", self.viewport.frame_all, "F",
                     "Point the camera at the whole scene")
        self._action("reset_layout", "&Reset Layout", self.reset_layout, None,
                     "Put every panel back where it started")
        self._action("about", "&About Boscage", self.show_about, None)
        self._action("shortcuts", "&Keyboard Shortcuts", self.show_shortcuts, K.HelpContents,
                     "List every keyboard shortcut")
        self.actions_by_key["about"].setMenuRole(QAction.MenuRole.AboutRole)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.actions_by_key["new"], self.actions_by_key["open"]])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        self._fill_recent_menu()
        file_menu.addSeparator()
        file_menu.addActions([self.actions_by_key["save"], self.actions_by_key["save_as"]])
        file_menu.addSeparator()
        self.import_menu = file_menu.addMenu("&Import")
        self._fill_import_menu()
        self.export_menu = file_menu.addMenu("&Export")
        self.export_menu.setObjectName("menu_export")
        self._fill_export_menu()
        file_menu.addSeparator()
        file_menu.addAction(self.actions_by_key["quit"])

        edit_menu = bar.addMenu("&Edit")
        edit_menu.addActions([self.actions_by_key["undo"], self.actions_by_key["redo"]])

        view_menu = bar.addMenu("&View")
        view_menu.addAction(self.actions_by_key["frame_all"])
        view_menu.addSeparator()
        for key, *_ in FIXED_DOCKS:
            toggle = self.docks[key].toggleViewAction()
            toggle.setObjectName(f"action_show_{key}")
            toggle.setToolTip(f"Show or hide the {self.docks[key].windowTitle()} panel")
            view_menu.addAction(toggle)
        view_menu.addSeparator()
        view_menu.addAction(self.actions_by_key["reset_layout"])

        self.tools_menu = bar.addMenu("&Tools")
        self._fill_tools_menu()

        help_menu = bar.addMenu("&Help")
        help_menu.addActions([self.actions_by_key["shortcuts"], self.actions_by_key["about"]])

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files()
        names = [Path(p).name for p in files]
        for i, path in enumerate(files):
            label = Path(path).name
            if names.count(label) > 1:  # two scenes of one name: say which folder each is in
                label += f"  ({Path(path).parent.name or Path(path).parent})"
            action = self.recent_menu.addAction(f"&{i + 1} {label.replace('&', '&&')}")
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda checked=False, p=path: self.open_recent(p))
        if not files:
            self.recent_menu.addAction("(none)").setEnabled(False)
        self.recent_menu.addSeparator()
        clear = self.recent_menu.addAction("&Clear Recent Files")
        clear.setEnabled(bool(files))
        clear.triggered.connect(self._clear_recent)

    def _clear_recent(self) -> None:
        self.settings.clear_recent_files()
        self._fill_recent_menu()

    def _fill_import_menu(self) -> None:
        found = importers()
        for imp in found:
            action = self.import_menu.addAction(imp.title)
            action.setObjectName(f"action_import_{imp.key}")
            action.setToolTip(imp.tooltip or imp.title)
            action.setStatusTip(imp.tooltip)
            if imp.shortcut:
                action.setShortcut(QKeySequence(imp.shortcut))
                action.setToolTip(f"{action.toolTip()} — {action.shortcut().toString()}")
            action.triggered.connect(lambda checked=False, i=imp: self.run_importer(i))
        if not found:
            self.import_menu.addAction("(no importers)").setEnabled(False)

    def _fill_export_menu(self) -> None:
        for exp in exporters():
            action = self.export_menu.addAction(exp.title)
            action.setObjectName(f"action_export_{exp.key}")
            action.setToolTip(exp.tooltip)
            action.setStatusTip(exp.tooltip)
            if exp.shortcut:
                action.setShortcut(QKeySequence(exp.shortcut))
                action.setToolTip(f"{exp.tooltip} — {action.shortcut().toString()}")
            action.triggered.connect(lambda checked=False, e=exp: self.run_exporter(e))
        self.export_menu.setEnabled(bool(self.export_menu.actions()))

    def run_exporter(self, exporter: Exporter) -> None:
        name = _plain_title(exporter.title)  # "&glTF…" is a menu's text, not a dialog title's
        try:
            exporter.run(self)
        except FormatError as e:
            self.show_error(f"Export {name} failed", str(e))
        except Exception as e:  # a broken extension reports, it does not take the editor down
            self.show_error(f"Export {name} failed",
                            unexpected_message(f"Exporting {name}", "nothing was written"), error_details(e))

    def _fill_tools_menu(self) -> None:
        self.tool_window_specs = {w.key: w for w in tool_windows()}
        for spec in self.tool_window_specs.values():
            action = self.tools_menu.addAction(spec.title)
            action.setObjectName(f"action_tool_{spec.key}")
            action.setCheckable(True)
            if spec.shortcut:
                action.setShortcut(QKeySequence(spec.shortcut))
            action.setToolTip(spec.tooltip or spec.title)
            action.setStatusTip(spec.tooltip)
            action.toggled.connect(lambda on, k=spec.key: self.set_tool_window_visible(k, on))
            self.actions_by_key[f"tool_{spec.key}"] = action
        if not self.tool_window_specs:
            self.tools_menu.addAction("(no tool windows)").setEnabled(False)

    # ---- tool windows (created on first show) -----------------------------------------
    def tool_window(self, key: str) -> QDockWidget | None:
        """The dock for tool window `key`, creating it on first use; None if it cannot be made."""
        if key in self.tool_docks:
            return self.tool_docks[key]
        spec: ToolWindow | None = self.tool_window_specs.get(key)
        if spec is None:
            return None
        try:
            widget = spec.create(self)
        except Exception as e:  # a broken extension reports, it does not crash the editor
            self.show_error(f"Could not open {spec.title}",
                            unexpected_message(f"Opening {spec.title}"), error_details(e))
            return None
        dock = QDockWidget(spec.title, self)
        dock.setObjectName(f"dock_{key}")
        side = key in SIDE_TOOL_WINDOWS and key not in SCROLLING_SIDE_WINDOWS
        dock.setWidget(widget if side else _scrolling(widget, key))
        dock.setToolTip(spec.tooltip)
        # Back where the saved layout had it, if anywhere (asked before adding: an added dock would
        # find itself and "restore" in place).
        placed = self.restoreDockWidget(dock)
        if not placed and key in SIDE_TOOL_WINDOWS:
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            beside = self.docks.get(SIDE_TOOL_WINDOWS[key] or "")
            if beside is not None and not beside.isHidden():
                self.tabifyDockWidget(beside, dock)
            dock.setProperty("side_size_on_show", True)  # a tall form: its tab group grows
        elif not placed:
            self._place_data_window(dock)
        action = self.actions_by_key[f"tool_{key}"]
        dock.toggleViewAction().toggled.connect(action.setChecked)
        self.tool_docks[key] = dock
        return dock

    def tool_widget(self, key: str) -> QWidget | None:
        """The content of tool window `key` (inside its dock's scroll area), or None if not made yet."""
        dock = self.tool_docks.get(key)
        if dock is None:
            return None
        inner = dock.widget()
        return inner.widget() if isinstance(inner, QScrollArea) else inner

    def _place_data_window(self, dock: QDockWidget) -> None:
        """A data window's first place: a tab of the other data windows, else a new full-width group
        under the viewport (below Refusals), so the viewport keeps its width."""
        group = [d for k, d in self.tool_docks.items() if k not in SIDE_TOOL_WINDOWS
                 and not d.isHidden() and not d.isFloating() and self.dockWidgetArea(d) == DATA_WINDOW_AREA]
        if group:
            self.addDockWidget(DATA_WINDOW_AREA, dock)
            self.tabifyDockWidget(group[-1], dock)
            return
        self.addDockWidget(DATA_WINDOW_AREA, dock, Qt.Orientation.Vertical)
        dock.setProperty("size_on_show", True)  # a hidden dock cannot be resized yet

    def set_tool_window_visible(self, key: str, visible: bool) -> None:
        if not visible and key not in self.tool_docks:
            return
        dock = self.tool_window(key)
        if dock is None:
            self.actions_by_key[f"tool_{key}"].setChecked(False)
            return
        dock.setVisible(visible)
        if visible:
            dock.raise_()
            if dock.property("size_on_show"):
                dock.setProperty("size_on_show", False)
                self.resizeDocks([dock], [round(DATA_WINDOW_HEIGHT * self.height())], Qt.Orientation.Vertical)
            if dock.property("side_size_on_show"):
                dock.setProperty("side_size_on_show", False)
                QApplication.processEvents()  # the new tab laid out first, else the resize is lost
                self._grow_in_column(dock)

    def _grow_in_column(self, dock: QDockWidget) -> None:
        """A tall form opened in the right column takes most of it: the other panels there keep the
        least height they need (and at most a share of the window each)."""
        area = self.dockWidgetArea(dock)
        group = set(self.tabifiedDockWidgets(dock))
        others = [d for d in self.findChildren(QDockWidget) if d is not dock and d not in group
                  and not d.isFloating() and d.isVisible() and not d.visibleRegion().isEmpty()
                  and self.dockWidgetArea(d) == area]
        if not others:
            return
        total = dock.height() + sum(d.height() for d in others)
        least = [min(d.height(), max(d.minimumSizeHint().height(), round(0.1 * self.height())))
                 for d in others]
        wanted = max(total - sum(least), round(SIDE_WINDOW_HEIGHT * total), dock.height())
        self.resizeDocks(others + [dock], least + [wanted], Qt.Orientation.Vertical)

    # ---- layout -----------------------------------------------------------------------
    def restore_layout(self) -> None:
        geometry = self.settings.window_geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        for key in self.settings.open_tool_windows():
            if key in self.tool_window_specs:
                self.tool_window(key)
        state = self.settings.window_state()
        if state is not None:
            self._sized = self.restoreState(state)
        for key, dock in self.tool_docks.items():
            if state is not None:
                dock.setProperty("size_on_show", False)  # the saved layout sized it already
            self.actions_by_key[f"tool_{key}"].setChecked(not dock.isHidden())

    def save_layout(self) -> None:
        self.settings.set_window_layout(self.saveGeometry(), self.saveState())
        self.settings.set_open_tool_windows([k for k, d in self.tool_docks.items() if not d.isHidden()])
        self.settings.sync()

    def reset_layout(self) -> None:
        for dock in self.tool_docks.values():
            dock.hide()
        self.restoreState(QByteArray(self._default_state))
        self._default_sizes()

    # ---- document flow ----------------------------------------------------------------
    def _on_scene_replaced(self, scene: Scene) -> None:
        # The same file read again (changed on disk, or opened again) keeps the artist's view.
        shown = getattr(self, "_shown_path", None)
        same_file = shown is not None and scene.path is not None and Path(scene.path) == shown
        self._shown_path = Path(scene.path) if scene.path is not None else None
        self.viewport.set_scene(scene, frame=not same_file)
        self._update_title()
        self._mesh_warned = False
        QTimer.singleShot(0, lambda: self._check_meshes(scene))  # once the window (and its hooks) are up

    def _check_meshes(self, scene: Scene) -> None:
        """One warning naming every foliage type whose mesh file cannot be drawn (each is drawn as
        a placeholder), said when the scene opens rather than when the view first meets it."""
        from model.foliage.mesh_check import palette_mesh_problems

        foliage = scene.sections.get("foliage")
        if foliage is None or scene is not self.document.scene or self._mesh_warned:
            return
        folder = foliage.volume.mesh_folder
        if folder is None and scene.path is not None:
            folder = Path(scene.path).parent
        problems = palette_mesh_problems(foliage.palette, folder)
        if problems:
            self._mesh_warned = True
            lines = "\n".join(f"• {name}: {why}" for name, why in problems.items())
            what = ("1 foliage type cannot draw its mesh and is" if len(problems) == 1 else
                    f"{len(problems)} foliage types cannot draw their meshes and are")
            self.show_warning("Foliage meshes drawn as placeholders",
                              f"{what} drawn as a placeholder until the file is fixed or another mesh "
                              f"chosen:\n{lines}")

    def _on_mesh_failed(self, message: str) -> None:
        if not self._mesh_warned:  # a file that broke after the scene opened
            self._mesh_warned = True
            self.show_warning("Foliage mesh drawn as a placeholder",
                              f"{message}; it is drawn as a placeholder until the file is fixed or another "
                              "mesh chosen.")

    def show_warning(self, title: str, message: str) -> None:
        """One warning that does not stop the work: the status bar, and the warning hook."""
        self.last_warning = message
        self.statusBar().showMessage(message.splitlines()[0], 15000)
        self.warning_hook(self, title, message)

    def _update_title(self, *_) -> None:
        self.setWindowTitle(f"{self.document.display_name()}[*] — {APP_NAME}")
        self.setWindowModified(self.document.modified)

    def _remember(self, path: str | Path) -> None:
        self.settings.add_recent_file(path)
        self._fill_recent_menu()
        self._update_title()

    def open_scene(self, scene: Scene) -> None:
        """Make `scene` the open document (importers call this; asking to save is the caller's job)."""
        self.document.replace_scene(scene)

    def open_file(self, path: str | Path) -> bool:
        """Open a scene file; on any problem show one error and keep the current scene."""
        progress = self._progress_dialog("Opening Scene", f"Reading {Path(path).name}…")
        try:
            with self.busy(f"Opening {path}…"):
                # read on a helper thread (its opening view found there too), the window drawn; the
                # dialog is up from the start, so nothing edits the scene it replaces meanwhile
                progress(0, 1, at_once=True)
                relay = Relay(progress, lambda: any(box.wasCanceled() for box in progress.dialog))
                scene = relay.run(lambda report: _read_for_opening(path, report))
                if relay.stopped:  # Cancel pressed as the read ended: the scene stays as it was
                    raise LoadCancelled(str(path))
                self.document.replace_scene(scene)
        except LoadCancelled:
            self.statusBar().showMessage(f"Opening {path} cancelled; the open scene is unchanged", 5000)
            return False
        except FormatError as e:
            self.show_error("Could not open scene", str(e))
            return False
        except OSError as e:
            self.show_error("Could not open scene", file_message(e, path))
            return False
        except Exception as e:  # a reader's slip must not take the editor (or the open scene) down
            self.show_error("Could not open scene",
                            unexpected_message(f"Reading {path}", "the open scene is unchanged"),
                            error_details(e))
            return False
        finally:
            progress.close()
        self._remember(path)
        self.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open Scene", str(self.start_folder()), NAME_FILTER)
        if path:
            self.open_file(path)

    def start_folder(self) -> Path:
        """Where file dialogs start: the open scene's folder, else the last scene's, else here."""
        if self.document.path is not None:
            return self.document.path.parent
        for recent in self.settings.recent_files():
            if Path(recent).parent.is_dir():
                return Path(recent).parent
        return Path.cwd()

    def open_recent(self, path: str) -> None:
        if not self.maybe_save():
            return
        if not Path(path).exists():
            self.settings.remove_recent_file(path)
            self._fill_recent_menu()
            self.show_error("Could not open scene", f"{path}: file not found (removed from the list)")
            return
        self.open_file(path)

    def new_scene(self) -> bool:
        """Ask for the new terrain's size, spacing and base height (the last ones used are offered);
        True when a new scene replaced the open one."""
        if not self.maybe_save():
            return False
        options = self.ask_new_scene(self, self.new_scene_options())
        if options is None:
            return False
        options = options.clamped()
        self._remember_new_scene_options(options)
        with self.busy("Creating the new scene…"):
            self.open_scene(new_scene(options.samples, options.spacing, options.base_height))
        self.statusBar().showMessage(f"New scene: {options.extent_text()}", 5000)
        return True

    def new_scene_options(self) -> NewSceneOptions:
        """What File ▸ New offers: the last options used, else the defaults (unreadable values too)."""
        q, default = self.settings.qsettings, NewSceneOptions()
        try:
            return NewSceneOptions(float(q.value("new_scene/samples", default.samples)),  # type: ignore[arg-type]
                                   float(q.value("new_scene/spacing", default.spacing)),
                                   float(q.value("new_scene/base_height", default.base_height))).clamped()
        except (TypeError, ValueError, OverflowError):
            return default

    def _remember_new_scene_options(self, options: NewSceneOptions) -> None:
        q = self.settings.qsettings
        q.setValue("new_scene/samples", options.samples)
        q.setValue("new_scene/spacing", options.spacing)
        q.setValue("new_scene/base_height", options.base_height)

    def run_importer(self, importer: Importer) -> None:
        if not importer.into_open_scene and not self.maybe_save():
            return
        name = _plain_title(importer.title)
        try:
            scene = importer.run(self)
        except FormatError as e:
            self.show_error(f"Import {name} failed", str(e))
            return
        except Exception as e:  # a broken extension reports, it does not take the editor down
            self.show_error(f"Import {name} failed", unexpected_message(name, "the open scene is unchanged"),
                            error_details(e))
            return
        if scene is not None and scene.path is not None:  # a big import, written to its file first
            self.open_scene(scene)
            self._remember(scene.path)
            self.statusBar().showMessage(f"Imported '{scene.name}' into {scene.path}", 10000)
        elif scene is not None:
            self.open_scene(scene)
            self.document.mark_modified()  # it exists nowhere on disk yet: closing must offer to save it
            self.statusBar().showMessage(f"Imported '{scene.name}': not saved yet (File ▸ Save As…)", 10000)

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self._save_to(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path or self.start_folder() / f"{self.document.scene.name}.boscage")
        path, _ = QFileDialog.getSaveFileName(self, "Save Scene As", start, NAME_FILTER)
        if not path:
            return False
        if not path.endswith(".boscage"):
            path += ".boscage"
        return self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        from model.layer_texture_files import conflicts, texture_copies

        copies, _ = texture_copies(self.document.scene, path)  # into another folder: its textures too
        needed = [c for c in copies if c.needed()]
        clash = conflicts(needed)
        if clash and not self.ask_replace_textures(self, [c.target for c in clash]):
            return False
        try:
            with self.busy(f"Saving {path}…"):
                spawner_editor = getattr(self, "spawner_editor", None)
                if spawner_editor is not None:  # the recipe is saved with the forest its re-run makes
                    spawner_editor.finish()
                self.document.save(path, replace_textures=bool(clash))
        except OSError as e:  # a WriteError is already the CLI's sentence, naming the file
            self.show_error("Could not save scene", file_message(e, path))
            return False
        copied = f" (and {len(needed)} layer texture{'s' if len(needed) != 1 else ''})" if needed else ""
        self.statusBar().showMessage(f"Saved {path}{copied}", 5000)
        return True

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current scene (saved, discarded, or unmodified)."""
        if not self.document.modified:
            return True
        answer = QMessageBox.warning(
            self, "Unsaved changes",
            f"{self.document.display_name()} has unsaved changes. Save them?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    @staticmethod
    def _dropped_scene(event) -> str | None:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
        return paths[0] if len(paths) == 1 and paths[0].lower().endswith(".boscage") else None

    def dragEnterEvent(self, event) -> None:
        if self._dropped_scene(event) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        path = self._dropped_scene(event)
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        if self.maybe_save():
            self.open_file(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        if self.persist_layout:
            self.save_layout()
        spawner_editor = getattr(self, "spawner_editor", None)
        if spawner_editor is not None:  # a re-run in the background stops before the window goes
            spawner_editor.stop()
        self.autosave.close()  # a clean close: the recovery copy is no longer needed
        self.file_watcher.watch(None)
        event.accept()

    # ---- crash recovery ---------------------------------------------------------------
    def offer_recovery(self) -> bool:
        """Offer each recovery copy a crashed session left (newest first); True if one was restored.

        A restored document opens modified and points at its original file. Copies not restored
        or discarded here (after one is restored) stay for the next start."""
        found = orphaned_recoveries()
        if found and not self.maybe_save():
            for recovery in found:
                recovery.release()
            return False
        restored = False
        for recovery in found:
            if restored:
                recovery.release()
            elif not self.ask_restore(self, recovery):
                recovery.discard()
            else:
                restored = self._restore(recovery)
        if restored and len(found) > 1:
            self.statusBar().showMessage("More recovery copies remain: they are offered at the next start.",
                                         10000)
        return restored

    def _restore(self, recovery: Recovery) -> bool:
        try:
            scene = recovery.load()
        except FormatError as e:
            recovery.release()
            self.show_error("Could not restore the recovery copy", str(e))
            return False
        self.open_scene(scene)
        self.document.mark_modified()
        self.autosave.save_now()  # our own copy first, then the crashed session's can go
        recovery.discard()
        self.statusBar().showMessage(f"Restored {self.document.display_name()} from its recovery copy", 10000)
        return True

    # ---- dialogs ----------------------------------------------------------------------
    @contextmanager
    def busy(self, text: str) -> Iterator[None]:
        """A wait cursor and a status line while a file is read or written (large scenes take a while)."""
        self.statusBar().showMessage(text)
        self.statusBar().repaint()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            yield
        finally:
            QApplication.restoreOverrideCursor()
            self.statusBar().clearMessage()

    def _progress_dialog(self, title: str, text: str) -> Callable[[int, int], bool]:
        """A callback `(done, total) -> keep going` that shows a cancellable progress dialog once a
        read takes long enough to notice; `.close()` on it removes the dialog."""
        dialog: list[QProgressDialog] = []

        def report(done: int, total: int, at_once: bool = False) -> bool:
            if not dialog:
                box = QProgressDialog(text, "Cancel", 0, 1000, self)
                box.setWindowTitle(title)
                box.setWindowModality(Qt.WindowModality.WindowModal)
                box.setMinimumDuration(0 if at_once else PROGRESS_DELAY_MS)
                box.setAutoClose(False)
                box.setAutoReset(False)
                dialog.append(box)
                if at_once:
                    box.show()
            box = dialog[0]
            box.setValue(round(1000 * done / total) if total else 1000)  # keeps the dialog responsive
            return not box.wasCanceled()

        def close() -> None:
            for box in dialog:
                box.close()
                box.deleteLater()
            dialog.clear()

        report.close = close  # type: ignore[attr-defined]
        report.dialog = dialog  # type: ignore[attr-defined]
        return report

    def show_drawing_warning(self, message: str) -> None:
        """A problem the scene opens and draws despite (a texture it cannot read): the status bar and
        the terminal, no dialog; `warnings` keeps them for the session."""
        self.warnings.append(message)
        self.statusBar().showMessage(f"Warning: {message}", 15000)
        print(f"boscage: warning: {message}", file=sys.stderr)

    def show_error(self, title: str, message: str, details: str | None = None) -> None:
        """One error dialog; the text names the file and the problem (`details`: the Python account
        of an unexpected error, shown only under Show Details)."""
        self.last_error = message
        self.last_error_details = details
        self.statusBar().showMessage(message, 10000)
        if details is None:
            QMessageBox.critical(self, title, message)
        else:
            box = error_box(self, title, message, details)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()  # window-modal, without a nested event loop under whatever failed

    def about_text(self) -> str:
        info = self.viewport.gl_info
        gl = info.get("renderer", "not started")
        if info.get("version"):
            gl += f" — OpenGL {info['version']}"
        return (f"<b>{APP_NAME} {app_version()}</b><br>A foliage and terrain editor for game artists and "
                "technical artists: paint forests on terrain, sculpt and paint its layers, and open the "
                "vegetation data of existing games."
                f"<br><br>Qt {qVersion()} · PySide6 {PySide6.__version__} · "
                f"Python {platform.python_version()}"
                f"<br>Graphics: {html.escape(gl)}"
                f"<br>Settings: {html.escape(self.settings.qsettings.fileName())}")

    def show_about(self) -> None:
        QMessageBox.about(self, f"About {APP_NAME}", self.about_text())

    # Mouse and brush keys no action carries: (what, how), shown after the keyboard shortcuts.
    MOUSE_ROWS = [
        ("Orbit", "Right drag / Alt + left drag"),
        ("Pan", "Middle drag / Shift + right drag"),
        ("Zoom (towards the pointer)", "Mouse wheel"),
        ("Fly", "Hold right button + W A S D, Q down, E up"),
        ("Brush radius", "[ smaller / ] larger"),
        ("Brush strength", "Shift + [ / Shift + ]"),
        ("Lower, erase (inverts the tool)", "Ctrl + left drag"),
        ("Cancel the stroke, else put the tool down", "Escape"),
    ]

    def shortcut_rows(self) -> list[tuple[str, str]]:
        """(action, keys) for every action with a shortcut, sorted; then the mouse and brush keys."""
        native = QKeySequence.SequenceFormat.NativeText
        rows = set()
        for action in self.findChildren(QAction):
            # the keyboard's own New/Save/Undo/… launcher keys work too, but are not worth listing
            keys = [k.toString(native) for k in action.shortcuts()
                    if k.count() and k[0].key().value < Qt.Key.Key_Back.value
                    and not Qt.Key.Key_F13.value <= k[0].key().value <= Qt.Key.Key_F35.value]
            if keys:
                rows.add((_menu_path(action), ", ".join(keys)))
        return sorted(rows, key=lambda r: r[0].lower()) + list(self.MOUSE_ROWS)

    def show_shortcuts(self) -> QDialog:
        dialog = QDialog(self)
        dialog.setWindowTitle("Keyboard Shortcuts")
        rows = self.shortcut_rows()
        search = QLineEdit(dialog)
        search.setPlaceholderText("Filter by action or key…")
        search.setClearButtonEnabled(True)
        table = QTableWidget(len(rows), 2, dialog)
        table.setObjectName("shortcuts_table")
        table.setHorizontalHeaderLabels(["Action", "Shortcut"])
        for i, (name, keys) in enumerate(rows):
            table.setItem(i, 0, QTableWidgetItem(name))
            table.setItem(i, 1, QTableWidgetItem(keys))
        table.verticalHeader().hide()
        table.setAlternatingRowColors(True)
        table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.resizeColumnsToContents()
        table.horizontalHeader().setStretchLastSection(True)

        def filter_rows(text: str) -> None:
            needle = text.strip().lower()
            for i, (name, keys) in enumerate(rows):
                hit = needle in name.lower() or needle in keys.lower()
                table.setRowHidden(i, bool(needle) and not hit)

        search.textChanged.connect(filter_rows)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(search)
        layout.addWidget(table)
        layout.addWidget(buttons)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.resize(520, 560)
        dialog.open()
        search.setFocus()
        return dialog


def ask_replace_textures(parent: QWidget, files: list[Path]) -> bool:
    """Whether a Save As may overwrite files of the target folder that its layer textures would
    replace (another scene there may use them)."""
    shown = "\n".join(str(f) for f in files[:8])
    if len(files) > 8:
        shown += f"\n… and {len(files) - 8} more"
    answer = QMessageBox.warning(
        parent, "Replace Textures?",
        f"The scene's layer textures are copied beside it, but the target folder already has different "
        f"files of these names:\n\n{shown}\n\nReplace them? (Another scene in that folder may use them.)",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
    return answer == QMessageBox.StandardButton.Yes


def app_version() -> str:
    """The installed distribution's version (the source tree's when run from a checkout)."""
    try:
        return importlib.metadata.version("boscage")
    except importlib.metadata.PackageNotFoundError:
        return "(development)"


def menu_titles(menu: QMenu) -> list[str]:
    """Visible entries of a menu, without '&' markers (for tests and the shortcut list)."""
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]
