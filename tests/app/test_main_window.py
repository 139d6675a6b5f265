"""The editor window: docks, menus, title marker, open/save/close flow, extensions, persistence."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
import tomli_w
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeySequence, QUndoCommand
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QLineEdit,
    QMessageBox,
    QTableWidget,
    QUndoView,
)

from app import main_window as mw_module
from app.extensions import Exporter, Importer, ToolWindow
from app.main_window import MainWindow, menu_titles
from model.formats.scene_file import load_scene, save_scene
from tests.conftest import make_small_scene
from tests.model.test_scene_file import BAD_FILES as SCENE_BAD_FILES
from tests.model.test_scene_file import saved as saved_scene

DOCK_KEYS = ["palette", "tool_settings", "refusals", "history", "layers", "terrain_layers", "inspector"]


class Touch(QUndoCommand):
    """A trivial edit, to drive the undo stack."""

    def __init__(self, log: list) -> None:
        super().__init__("Touch")
        self.log = log

    def redo(self) -> None:
        self.log.append("redo")

    def undo(self) -> None:
        self.log.append("undo")


@pytest.fixture
def errors(monkeypatch):
    """Error dialogs are recorded instead of shown (title, text[, the details of an unexpected error])."""
    shown: list[tuple[str, ...]] = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    monkeypatch.setattr(mw_module.QMessageBox, "open",
                        lambda box: shown.append((box.windowTitle(), box.text(), box.detailedText())))
    return shown


def answer_unsaved(monkeypatch, button) -> list:
    asked = []

    def warning(parent, title, text, *args, **kwargs):
        asked.append(text)
        return button

    monkeypatch.setattr(mw_module.QMessageBox, "warning", warning)
    return asked


def menu(window: MainWindow, title: str):
    for action in window.menuBar().actions():
        if action.text().replace("&", "") == title:
            return action.menu()
    raise AssertionError(f"no menu {title}")


def test_fixed_docks_have_unique_object_names_and_are_exposed(main_window) -> None:
    assert list(main_window.docks) == ["palette", "tool_settings", "layers", "terrain_layers", "inspector",
                                       "history", "refusals"]
    names = [d.objectName() for d in main_window.findChildren(QDockWidget)]
    assert sorted(names) == sorted(f"dock_{k}" for k in DOCK_KEYS)
    assert len(set(names)) == len(names)
    history = main_window.docks["history"].widget()
    assert isinstance(history, QUndoView) and history.stack() is main_window.document.undo_stack
    assert history.emptyLabel() == "Scene as opened"  # the row that undoes everything, in words
    assert main_window.centralWidget() is main_window.viewport


def test_menus_hold_the_standard_entries_with_standard_shortcuts(main_window) -> None:
    assert [a.text().replace("&", "") for a in main_window.menuBar().actions()] == [
        "File", "Edit", "View", "Terrain", "Foliage", "Tools", "Help"]
    assert menu_titles(menu(main_window, "File")) == [
        "New…", "Open…", "Open Recent", "Save", "Save As…", "Import", "Export", "Quit"]
    assert menu_titles(menu(main_window, "Edit"))[:2] == ["Undo", "Redo"]
    view = menu_titles(menu(main_window, "View"))
    for title in ["Palette", "Tool Settings", "Refusals", "History", "Layers", "Inspector", "Reset Layout"]:
        assert title in view
    assert menu_titles(menu(main_window, "Help")) == ["Keyboard Shortcuts", "About Boscage"]
    K = QKeySequence.StandardKey
    for key, std in [("new", K.New), ("open", K.Open), ("save", K.Save), ("quit", K.Quit),
                     ("undo", K.Undo), ("redo", K.Redo)]:
        assert main_window.actions_by_key[key].shortcut() == QKeySequence(std), key
    assert main_window.actions_by_key["frame_all"].shortcut() == QKeySequence("F")


def test_title_shows_name_and_modified_marker_from_the_undo_stack(main_window) -> None:
    log: list = []
    assert main_window.windowTitle().startswith("Small[*]")
    assert not main_window.isWindowModified()
    main_window.document.undo_stack.push(Touch(log))
    assert main_window.isWindowModified() and main_window.document.modified
    main_window.document.undo_stack.undo()
    assert not main_window.isWindowModified()  # back at the clean state
    main_window.document.undo_stack.redo()
    assert main_window.isWindowModified()
    assert log == ["redo", "undo", "redo"]


def test_closing_with_unsaved_changes_asks_and_cancel_keeps_the_window(main_window, monkeypatch) -> None:
    main_window.show()
    main_window.document.undo_stack.push(Touch([]))
    asked = answer_unsaved(monkeypatch, QMessageBox.StandardButton.Cancel)
    assert main_window.close() is False
    assert len(asked) == 1 and "Small" in asked[0] and main_window.isVisible()
    asked = answer_unsaved(monkeypatch, QMessageBox.StandardButton.Discard)
    assert main_window.close() is True
    assert len(asked) == 1


def test_closing_a_clean_document_does_not_ask(main_window, monkeypatch) -> None:
    asked = answer_unsaved(monkeypatch, QMessageBox.StandardButton.Cancel)
    main_window.show()
    assert main_window.close() is True and asked == []


def test_save_on_close_writes_the_file_and_clears_the_marker(main_window, monkeypatch, tmp_path) -> None:
    path = tmp_path / "kept.boscage"
    main_window.document.save(path)
    main_window.document.scene.terrain.heights[2, 2] = 77.0
    main_window.document.undo_stack.push(Touch([]))
    answer_unsaved(monkeypatch, QMessageBox.StandardButton.Save)
    assert main_window.close() is True
    assert load_scene(path).terrain.heights[2, 2] == 77.0
    assert not main_window.document.modified


def test_save_as_asks_for_a_name_and_adds_the_extension(main_window, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(mw_module.QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "named"), ""))
    assert main_window.save() is True  # no path yet, so Save asks
    assert (tmp_path / "named.boscage").is_file()
    assert main_window.windowTitle().startswith("named.boscage[*]")
    assert main_window.settings.recent_files()[0] == str((tmp_path / "named.boscage").resolve())


def test_opening_a_good_file_replaces_scene_and_viewport(main_window, tmp_path, errors) -> None:
    other = make_small_scene(rows=9, cols=11)
    other.name = "Other"
    save_scene(other, tmp_path / "other.boscage")
    old_renderer = main_window.viewport.terrain_renderer
    assert main_window.open_file(tmp_path / "other.boscage") is True
    assert main_window.document.scene.terrain.heights.shape == (9, 11)
    assert main_window.viewport.terrain_renderer is not old_renderer
    assert main_window.viewport.terrain_renderer.terrain is main_window.document.scene.terrain
    assert main_window.terrain_editor.panel.layer_names() == ["red", "blue"]
    assert errors == []


def _truncate_heights(path: Path, doc: dict) -> str:
    f = path.with_name(doc["terrain"]["heights"][0][0])  # version 2: the first tile
    f.write_bytes(f.read_bytes()[:100])
    return "bytes"


def _wrong_size(path: Path, doc: dict) -> str:
    doc["terrain"]["rows"] += 3
    path.write_text(tomli_w.dumps(doc))
    return "expected"


def _unknown_version(path: Path, doc: dict) -> str:
    doc["version"] = 7
    path.write_text(tomli_w.dumps(doc))
    return "version"


def _missing_side_file(path: Path, doc: dict) -> str:
    path.with_name(doc["terrain"]["layers"][0][0]).unlink()
    return "missing"


def _truncated_manifest(path: Path, doc: dict) -> str:
    path.write_bytes(path.read_bytes()[:30])
    return "TOML"


@pytest.mark.parametrize("corrupt", [_truncate_heights, _wrong_size, _unknown_version, _missing_side_file,
                                     _truncated_manifest], ids=lambda f: f.__name__.strip("_"))
def test_opening_a_bad_file_shows_one_error_and_keeps_the_scene(main_window, tmp_path, errors,
                                                                corrupt) -> None:
    path = tmp_path / "broken.boscage"
    save_scene(make_small_scene(rows=9, cols=11), path)
    words = corrupt(path, tomllib.loads(path.read_text()))
    scene = main_window.document.scene
    heights = scene.terrain.heights.copy()
    renderer = main_window.viewport.terrain_renderer
    title = main_window.windowTitle()
    assert main_window.open_file(path) is False
    assert len(errors) == 1
    dialog_title, text = errors[0]
    assert dialog_title == "Could not open scene"
    assert "broken" in text and words.lower() in text.lower()
    assert main_window.document.scene is scene and np.array_equal(scene.terrain.heights, heights)
    assert main_window.viewport.terrain_renderer is renderer
    assert main_window.windowTitle() == title
    assert main_window.settings.recent_files() == []


def test_open_recent_of_a_vanished_file_reports_and_forgets_it(main_window, tmp_path, errors) -> None:
    path = tmp_path / "gone.boscage"
    main_window.settings.add_recent_file(path)
    main_window.open_recent(str(path.resolve()))
    assert len(errors) == 1 and "gone.boscage" in errors[0][1]
    assert main_window.settings.recent_files() == []


def test_layout_and_recent_files_survive_a_restart(qtbot, settings_folder, small_scene, tmp_path) -> None:
    save_scene(small_scene, tmp_path / "a.boscage")
    first = MainWindow(make_small_scene())
    qtbot.addWidget(first)
    first.show()
    first.resize(1000, 700)
    first.open_file(tmp_path / "a.boscage")
    first.docks["layers"].hide()
    first.docks["palette"].setFloating(True)
    qtbot.waitUntil(lambda: first.docks["palette"].isFloating())
    assert first.close()
    assert (settings_folder / "boscage.ini").is_file()

    second = MainWindow(make_small_scene())
    qtbot.addWidget(second)
    second.show()
    assert second.settings.recent_files() == [str((tmp_path / "a.boscage").resolve())]
    assert "1 a.boscage" in menu_titles(second.recent_menu)
    assert second.docks["layers"].isHidden()
    assert second.docks["palette"].isFloating()
    assert second.size().width() == 1000
    second.reset_layout()
    assert not second.docks["layers"].isHidden() and not second.docks["palette"].isFloating()
    second.close()


def test_tools_menu_builds_docks_lazily_from_extensions(qtbot, monkeypatch, settings_folder) -> None:
    made = []

    def create(main_window):
        made.append(main_window)
        return QLabel("browser")

    monkeypatch.setattr(mw_module, "tool_windows",
                        lambda: [ToolWindow("zone_viewer", "Zone Viewer", create, "Ctrl+Shift+Z", "Zones")])
    window = MainWindow(make_small_scene())
    qtbot.addWidget(window)
    window.show()
    action = window.actions_by_key["tool_zone_viewer"]
    assert menu_titles(window.tools_menu) == ["Zone Viewer"] and made == []
    assert window.findChild(QDockWidget, "dock_zone_viewer") is None
    action.trigger()
    dock = window.findChild(QDockWidget, "dock_zone_viewer")
    assert dock is not None and made == [window] and dock.isVisible()
    action.trigger()
    assert dock.isHidden() and not action.isChecked()
    action.trigger()
    assert made == [window]  # shown again, never created twice
    assert window.close()

    again = MainWindow(make_small_scene())  # an open tool window comes back after a restart
    qtbot.addWidget(again)
    again.show()
    assert again.findChild(QDockWidget, "dock_zone_viewer") is not None
    assert again.actions_by_key["tool_zone_viewer"].isChecked()
    again.close()


def test_a_failing_tool_window_reports_instead_of_crashing(qtbot, monkeypatch, errors) -> None:
    def broken(main_window):
        raise RuntimeError("no data")

    monkeypatch.setattr(mw_module, "tool_windows", lambda: [ToolWindow("bad", "Bad", broken)])
    window = MainWindow(make_small_scene())
    qtbot.addWidget(window)
    window.actions_by_key["tool_bad"].trigger()
    assert errors and "Bad" in errors[0][1] and "no data" in errors[0][2]  # the Python text under details
    assert not window.actions_by_key["tool_bad"].isChecked()


def test_importers_fill_file_import_and_their_scene_becomes_the_document(qtbot, monkeypatch) -> None:
    results = [make_small_scene(rows=5, cols=6), None]
    monkeypatch.setattr(mw_module, "importers",
                        lambda: [Importer("trn", "TRN Terrain…", lambda mw: results.pop(0))])
    window = MainWindow(make_small_scene())
    qtbot.addWidget(window)
    action = window.findChild(type(window.actions_by_key["new"]), "action_import_trn")
    assert menu_titles(window.import_menu) == ["TRN Terrain…"]
    action.trigger()
    assert window.document.scene.terrain.heights.shape == (5, 6)
    assert "not saved yet" in window.statusBar().currentMessage()
    answer_unsaved(monkeypatch, QMessageBox.StandardButton.Discard)  # the import is not on disk
    action.trigger()  # an importer that returns None changes nothing
    assert window.document.scene.terrain.heights.shape == (5, 6)
    window.document.undo_stack.setClean()  # no question when the test closes the window


def test_an_imported_scene_counts_as_unsaved_until_saved(qtbot, monkeypatch, tmp_path) -> None:
    imported = Importer("trn", "TRN Terrain…", lambda mw: make_small_scene(rows=5, cols=6))
    monkeypatch.setattr(mw_module, "importers", lambda: [imported])
    window = MainWindow(make_small_scene())
    qtbot.addWidget(window)
    window.show()
    window.findChild(type(window.actions_by_key["new"]), "action_import_trn").trigger()
    assert window.document.modified and window.isWindowModified()
    assert window.windowTitle().startswith("Small[*]")
    asked = answer_unsaved(monkeypatch, QMessageBox.StandardButton.Cancel)
    assert not window.close()  # closing offers to save the import, and Cancel keeps the window
    assert window.isVisible() and len(asked) == 1 and "Small" in asked[0]
    # Saving it makes it clean: then closing asks nothing.
    monkeypatch.setattr(mw_module.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "imported.boscage"), "")))
    assert window.save() and not window.document.modified and not window.isWindowModified()
    assert window.close() and len(asked) == 1


def test_a_failing_importer_reports_and_keeps_the_scene(qtbot, monkeypatch, errors) -> None:
    def broken(main_window):
        raise ValueError("no terrain in file")

    monkeypatch.setattr(mw_module, "importers", lambda: [Importer("x", "&X…", broken)])  # a menu's text
    window = MainWindow(make_small_scene())
    qtbot.addWidget(window)
    scene = window.document.scene
    window.findChild(type(window.actions_by_key["new"]), "action_import_x").trigger()
    assert window.document.scene is scene
    (title, text, details), = errors
    assert (title, text) == ("Import X failed",
                             "X stopped on a problem Boscage did not expect; the open scene is unchanged.")
    assert details.endswith("ValueError: no terrain in file")  # the Python account, under Show Details


def test_a_failing_exporter_is_titled_in_plain_words(main_window, errors) -> None:
    from model.errors import FormatError

    def broken(window):
        raise FormatError("/tmp/out.glb", None, "no room left on the disk")

    def buggy(window):
        raise RuntimeError("oops")

    main_window.run_exporter(Exporter("gltf", "&glTF…", broken))
    main_window.run_exporter(Exporter("gltf", "&glTF…", buggy))
    (title, text), (title2, text2, _details) = errors
    assert (title, text) == ("Export glTF failed", "/tmp/out.glb: no room left on the disk")
    assert title2 == "Export glTF failed"
    assert text2 == "Exporting glTF stopped on a problem Boscage did not expect; nothing was written."


def test_new_asks_about_unsaved_changes_first(main_window, monkeypatch) -> None:
    offered = []
    main_window.ask_new_scene = lambda parent, options: offered.append(options) or options
    scene = main_window.document.scene
    main_window.document.undo_stack.push(Touch([]))
    answer_unsaved(monkeypatch, QMessageBox.StandardButton.Cancel)
    main_window.actions_by_key["new"].trigger()
    assert main_window.document.scene is scene and offered == []  # no size asked for a scene kept
    answer_unsaved(monkeypatch, QMessageBox.StandardButton.Discard)
    main_window.actions_by_key["new"].trigger()
    assert len(offered) == 1
    assert main_window.document.scene is not scene and main_window.document.scene.name == "Untitled"
    assert main_window.document.undo_stack.count() == 0 and not main_window.isWindowModified()


def test_keyboard_shortcuts_dialog_lists_the_shortcuts(main_window) -> None:
    dialog = main_window.show_shortcuts()
    rows = dict(main_window.shortcut_rows())
    assert rows["Save"] == QKeySequence(QKeySequence.StandardKey.Save).toString(
        QKeySequence.SequenceFormat.NativeText)
    assert rows["Frame All"] == "F" and "Orbit" in rows
    native = QKeySequence.SequenceFormat.NativeText
    assert rows["Quit"]  # never blank, even where the desktop defines no Quit key
    redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
    assert all(k.toString(native) in rows["Redo"] for k in redo_keys
               if k.toString(native) != "Redo")  # every binding the platform has
    assert "W A S D" in rows["Fly"] and "[" in rows["Brush radius"]
    # a submenu's entry says which menu it is in: "glTF" alone would not say it exports
    assert rows["Export ▸ glTF"] == "Ctrl+E" and rows["Import ▸ Foliage"] == "Ctrl+I"
    assert "glTF" not in rows and "Foliage" not in rows
    assert rows["Cancel the stroke, else put the tool down"] == "Escape"
    table = dialog.findChild(QTableWidget, "shortcuts_table")
    assert table.rowCount() == len(rows) and not table.verticalHeader().isVisible()
    search = dialog.findChild(QLineEdit)
    search.setText("undo")
    shown = [table.item(i, 0).text() for i in range(table.rowCount()) if not table.isRowHidden(i)]
    assert shown == ["Undo"]
    dialog.close()


def test_about_names_the_version_and_the_graphics(main_window) -> None:
    text = main_window.about_text()
    assert mw_module.app_version() in text and "Qt " in text and "Graphics:" in text


def test_set_panel_replaces_a_placeholder_and_deletes_it(main_window, qtbot) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    old = main_window.docks["inspector"].widget()
    destroyed = []
    old.destroyed.connect(lambda *_: destroyed.append(True))
    panel = main_window.set_panel("inspector", QLabel("filled"))
    assert main_window.docks["inspector"].widget() is panel
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert destroyed == [True]
    main_window.set_panel("layers", QLabel("layers"))
    main_window.open_scene(make_small_scene(rows=5, cols=5))  # the old list is not refreshed
    assert main_window.docks["layers"].widget().text() == "layers"


def test_the_default_layout_leaves_the_viewport_most_of_the_window(main_window, qtbot) -> None:
    main_window.resize(1400, 900)
    main_window.show()
    qtbot.waitExposed(main_window)
    qtbot.wait(50)
    view, docks = main_window.viewport, main_window.docks
    assert view.width() > main_window.width() / 2 and view.height() > main_window.height() * 0.7
    refusals = docks["refusals"]
    assert refusals.height() < main_window.height() * 0.15  # a short strip, not a third of the window
    assert refusals.width() <= view.width() + 8  # under the viewport only: the side columns reach down
    right = mw_module.Qt.DockWidgetArea.RightDockWidgetArea
    assert main_window.dockWidgetArea(docks["tool_settings"]) == right
    assert main_window.tabifiedDockWidgets(docks["inspector"]) == [docks["history"]]
    palette = docks["palette"].widget().list
    shown = [i for i in range(palette.count()) if palette.visualItemRect(palette.item(i)).bottom()
             <= palette.viewport().height()]
    assert len(shown) >= 4  # several types at a glance
    main_window.docks["palette"].setFloating(True)
    main_window.reset_layout()
    assert not docks["palette"].isFloating() and docks["refusals"].height() < main_window.height() * 0.15


def test_flying_keys_do_not_switch_tools(main_window, qtbot) -> None:
    """S is Smooth's shortcut, and also 'fly back' while the right button is held."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QMouseEvent

    main_window.show()
    main_window.activateWindow()
    qtbot.waitActive(main_window)
    viewport = main_window.viewport
    viewport.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is viewport)  # shortcuts need the active window
    host = main_window.tool_host
    before = host.action_group.checkedAction()
    target = viewport.camera.target.copy()
    right = Qt.MouseButton.RightButton
    press = QMouseEvent(QEvent.Type.MouseButtonPress, QPointF(100, 100), QPointF(100, 100), right, right,
                        Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, press)
    qtbot.keyPress(viewport, Qt.Key.Key_S)
    qtbot.wait(150)
    qtbot.keyRelease(viewport, Qt.Key.Key_S)
    release = QMouseEvent(QEvent.Type.MouseButtonRelease, QPointF(100, 100), QPointF(100, 100), right,
                          Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, release)
    assert host.action_group.checkedAction() is before
    assert not np.array_equal(viewport.camera.target, target)  # the camera flew back instead
    qtbot.keyClick(viewport, Qt.Key.Key_S)  # without the right button, S picks Smooth
    assert host.action_group.checkedAction().text().replace("&", "") == "Smooth"


@pytest.mark.parametrize("corrupt", SCENE_BAD_FILES, ids=lambda f: f.__name__.removeprefix("corrupt_"))
def test_every_kind_of_bad_scene_file_is_one_dialog_and_the_scene_stays(main_window, tmp_path, errors,
                                                                         corrupt) -> None:
    path, doc = saved_scene(tmp_path)
    named, words = corrupt(path, doc)
    scene = main_window.document.scene
    heights = scene.terrain.heights.copy()
    assert main_window.open_file(path) is False
    assert len(errors) == 1
    assert errors[0][0] == "Could not open scene"
    assert str(named) in errors[0][1] and words.lower() in errors[0][1].lower()
    assert main_window.document.scene is scene and np.array_equal(scene.terrain.heights, heights)
    assert not main_window.document.modified


def test_an_unexpected_failure_while_opening_is_one_dialog_too(main_window, tmp_path, errors,
                                                               monkeypatch) -> None:
    from app import document as document_module

    path = tmp_path / "odd.boscage"
    save_scene(make_small_scene(rows=9, cols=11), path)

    def broken(p, *args):
        raise ValueError("a section reader slipped")

    monkeypatch.setattr(document_module, "load_scene", broken)
    scene = main_window.document.scene
    assert main_window.open_file(path) is False
    assert len(errors) == 1 and "odd.boscage" in errors[0][1] and "ValueError" not in errors[0][1]
    assert "a section reader slipped" in errors[0][2]  # under Show Details
    assert main_window.document.scene is scene


def test_dropping_a_scene_file_on_the_window_opens_it(main_window, tmp_path, errors) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    class Enter:  # what dragEnterEvent reads (Qt's own constructor for it is deprecated)
        def __init__(self, data) -> None:
            self.data, self.accepted = data, None

        def mimeData(self):
            return self.data

        def acceptProposedAction(self) -> None:
            self.accepted = True

        def ignore(self) -> None:
            self.accepted = False

    path = tmp_path / "dropped.boscage"
    save_scene(make_small_scene(rows=7, cols=8), path)

    def drop(paths):
        data = QMimeData()
        data.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
        enter = Enter(data)
        main_window.dragEnterEvent(enter)
        event = QDropEvent(QPointF(main_window.rect().center()), Qt.DropAction.CopyAction, data,
                           Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        main_window.dropEvent(event)
        return enter.accepted

    assert drop([tmp_path / "notes.txt"]) is False
    assert main_window.document.scene.terrain.heights.shape != (7, 8)
    assert drop([path]) is True
    assert main_window.document.scene.terrain.heights.shape == (7, 8) and errors == []


def test_reading_the_same_file_again_keeps_the_view_and_another_file_frames_it(main_window, tmp_path,
                                                                               errors) -> None:
    a, b = tmp_path / "a.boscage", tmp_path / "b.boscage"
    save_scene(make_small_scene(rows=9, cols=11), a)
    save_scene(make_small_scene(rows=9, cols=11, spacing=5.0), b)
    assert main_window.open_file(a)
    camera = main_window.viewport.camera
    main_window.viewport.orbit_by_degrees(40.0, 10.0)
    main_window.viewport.zoom_at(10, 10, 3)
    view = (camera.yaw, camera.pitch, camera.distance, tuple(camera.target))
    assert main_window.open_file(a)  # e.g. reloaded after another program saved it
    assert (camera.yaw, camera.pitch, camera.distance, tuple(camera.target)) == view
    assert main_window.open_file(b)
    assert (camera.yaw, camera.pitch, camera.distance, tuple(camera.target)) != view


def test_file_dialogs_start_in_the_scenes_folder_or_the_last_one_used(main_window, tmp_path) -> None:
    from pathlib import Path as P

    assert main_window.start_folder() == P.cwd()  # nothing opened yet, no recent files
    folder = tmp_path / "levels"
    folder.mkdir()
    save_scene(make_small_scene(rows=5, cols=5), folder / "a.boscage")
    main_window.settings.add_recent_file(folder / "a.boscage")
    assert main_window.start_folder() == folder.resolve() or main_window.start_folder() == folder
    assert main_window.open_file(folder / "a.boscage")
    assert main_window.start_folder() == folder


def test_opening_shows_cancellable_progress_and_cancel_keeps_the_scene(main_window, tmp_path, errors,
                                                                       monkeypatch) -> None:
    from PySide6.QtWidgets import QProgressDialog

    from model.formats import scene_file

    path = tmp_path / "big.boscage"
    save_scene(make_small_scene(rows=40, cols=50), path)
    monkeypatch.setattr(scene_file, "READ_CHUNK", 512)
    values: list[int] = []
    monkeypatch.setattr(QProgressDialog, "setValue", lambda self, v: values.append(v))
    assert main_window.open_file(path)
    # the read's reports reach the dialog every 20 ms (the latest one): at least its start and end
    assert values[-1] == 1000 and len(values) >= 2 and values == sorted(values)
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QProgressDialog) and w.isVisible()]

    scene = main_window.document.scene
    other = tmp_path / "other.boscage"
    save_scene(make_small_scene(rows=30, cols=20), other)
    monkeypatch.setattr(QProgressDialog, "wasCanceled", lambda self: True)
    assert main_window.open_file(other) is False
    assert main_window.document.scene is scene and errors == []
    assert "cancelled" in main_window.statusBar().currentMessage()


def test_recent_scenes_of_the_same_name_say_their_folder(main_window, tmp_path) -> None:
    for folder in ("forest", "desert"):
        (tmp_path / folder).mkdir()
        main_window.settings.add_recent_file(tmp_path / folder / "level.boscage")
    main_window.settings.add_recent_file(tmp_path / "R&D.boscage")
    main_window._fill_recent_menu()
    texts = [a.text() for a in main_window.recent_menu.actions()][:3]
    assert texts == ["&1 R&&D.boscage", "&2 level.boscage  (desert)", "&3 level.boscage  (forest)"]


@pytest.mark.parametrize("code, sentence", [
    (28, "no space left on device while writing {file}"),  # ENOSPC
    (30, "{file}: folder is read-only"),  # EROFS
])
def test_a_refused_save_says_the_clis_sentence_and_keeps_the_file(main_window, monkeypatch, tmp_path,
                                                                   errors, code, sentence) -> None:
    import os

    from model import atomic

    path = tmp_path / "kept.boscage"
    main_window.document.save(path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    main_window.document.scene.terrain.heights[2, 2] = 77.0
    main_window.document.undo_stack.push(Touch([]))

    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(atomic.tempfile, "mkstemp", refuse)
    assert main_window.save() is False
    monkeypatch.undo()
    (title, text), = errors
    assert title == "Could not save scene"
    assert text == sentence.format(file=path), text  # the scene the user saves, not one of its side files
    assert main_window.document.modified
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
