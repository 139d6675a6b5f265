"""Keyboard discoverability: Escape cancels a stroke or puts the tool down; no two actions share a
shortcut; toolbar tips name their shortcut."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolBar

from model.brush import Brush
from model.demo import demo_resource_path
from model.foliage import foliage_of
from model.formats.scene_file import load_scene
from tests.app.test_foliage_mode import forest_spot, pixel_of, snapshot


def painting_over_the_forest(main_window):
    main_window.open_scene(load_scene(demo_resource_path()))
    editor = main_window.foliage_editor
    editor.host.set_brush(Brush(radius=8.0, strength=1.0, falloff=0.3))
    terrain = main_window.document.scene.terrain
    editor.palette_panel.select(["conifer"])
    x, z = forest_spot(terrain)
    viewport = main_window.viewport
    viewport.camera.yaw, viewport.camera.pitch = 0.4, math.radians(80)
    y = float(terrain.height_at(x, z))
    viewport.focus_on(np.array([[x - 30, y, z - 30], [x + 30, y, z + 30]]))
    editor.toolset.activate("paint")
    return editor, [pixel_of(viewport, x + dx, z, terrain) for dx in (-12.0, -6.0, 0.0, 6.0, 12.0)]


def test_escape_during_a_stroke_cancels_it_and_after_puts_the_tool_down(main_window) -> None:
    editor, pixels = painting_over_the_forest(main_window)
    viewport, stack = main_window.viewport, main_window.document.undo_stack
    volume = foliage_of(main_window.document.scene).volume
    before = snapshot(volume)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixels[0])
    for p in pixels[1:]:
        QTest.mouseMove(viewport, p)
    assert snapshot(volume) != before  # the stroke is placing
    QTest.keyClick(viewport, Qt.Key.Key_Escape)
    assert snapshot(volume) == before and not stack.canUndo()  # cancelled: nothing left behind
    assert "cancelled" in main_window.statusBar().currentMessage()
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixels[-1])
    assert snapshot(volume) == before  # the release after Escape places nothing
    assert editor.host.active is editor.toolset.tools["paint"]  # still painting
    QTest.keyClick(viewport, Qt.Key.Key_Escape)
    assert editor.host.active is None and not editor.toolset.actions["paint"].isChecked()
    assert "navigates" in main_window.statusBar().currentMessage()
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixels[2])
    assert snapshot(volume) == before  # no tool: a click paints nothing


def test_no_two_actions_share_a_shortcut(main_window) -> None:
    for key in list(main_window.tool_window_specs):  # tool windows bring actions of their own
        main_window.set_tool_window_visible(key, True)
    QApplication.processEvents()
    owners: dict[str, list[str]] = {}
    for action in main_window.findChildren(QAction):
        if action.shortcutContext() in (Qt.ShortcutContext.WidgetShortcut,
                                        Qt.ShortcutContext.WidgetWithChildrenShortcut):
            continue  # a panel's own: the window lends it the key while the focus is there (below)
        for seq in action.shortcuts():
            owners.setdefault(seq.toString(), []).append(action.text() or action.objectName())
    shared = {seq: names for seq, names in owners.items() if len(set(names)) > 1}
    assert shared == {}
    for key in list(main_window.tool_docks):
        main_window.set_tool_window_visible(key, False)


def test_toolbar_and_file_actions_name_their_shortcut(main_window) -> None:
    for bar in main_window.findChildren(QToolBar):
        for action in bar.actions():
            for seq in action.shortcuts():
                assert seq.toString() in action.toolTip(), action.text()
    for key in ("export_gltf", "import_foliage"):
        action = main_window.findChild(QAction, f"action_{key}")
        assert not action.shortcut().isEmpty(), key
        assert action.shortcut().toString() in action.toolTip() or action.statusTip(), key



def test_a_browser_s_own_ctrl_o_wins_while_it_has_the_focus(main_window) -> None:
    from PySide6.QtGui import QShortcut

    main_window.show()
    main_window.set_tool_window_visible("biomes", True)
    browser = main_window.tool_widget("biomes")
    assert [s for s in browser.findChildren(QShortcut) if s.key().toString() == "Ctrl+O"]
    window_open = main_window.actions_by_key["open"]
    main_window.activateWindow()
    browser.open_button.setFocus()
    QApplication.processEvents()
    assert window_open.shortcut().toString() != "Ctrl+O"  # lent to the browser while it has the focus
    main_window.viewport.setFocus()
    QApplication.processEvents()
    assert window_open.shortcut().toString() == "Ctrl+O"  # and given back


def test_delete_in_the_palette_list_removes_the_type_not_the_selected_foliage(main_window, qtbot) -> None:
    main_window.show()
    main_window.activateWindow()
    qtbot.waitActive(main_window)
    editor = main_window.foliage_editor
    panel = editor.palette_panel
    panel.select(["bush"])
    asked: list[str] = []
    panel.remove_requested.connect(asked.append)
    deleted: list[bool] = []
    editor.actions["delete"].triggered.connect(lambda *_: deleted.append(True))
    panel.list.setFocus()
    qtbot.waitUntil(panel.list.hasFocus)
    qtbot.keyClick(panel.list, Qt.Key.Key_Delete)
    assert asked == ["bush"] and deleted == []
    assert "bush" not in foliage_of(main_window.document.scene).palette.names()  # removed, undoable
    main_window.document.undo_stack.undo()
    assert "bush" in foliage_of(main_window.document.scene).palette.names()


def test_escape_during_a_box_select_or_a_fill_lasso_drops_it(main_window) -> None:
    editor, pixels = painting_over_the_forest(main_window)
    viewport, stack = main_window.viewport, main_window.document.undo_stack
    volume = foliage_of(main_window.document.scene).volume
    before = snapshot(volume)
    size = viewport.size()
    corners = [QPoint(20, 20), QPoint(size.width() - 20, 20), QPoint(size.width() - 20, size.height() - 20),
               QPoint(20, size.height() - 20)]  # the whole view: a box or lasso full of trees

    def drag(escape: bool) -> None:
        QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, corners[0])
        for p in corners[1:]:
            QTest.mouseMove(viewport, p)
        if escape:
            QTest.keyClick(viewport, Qt.Key.Key_Escape)
        QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, corners[2])

    def selected() -> int:
        return sum(len(v) for v in editor.toolset.selection.values())

    editor.toolset.activate("select")
    drag(escape=False)
    assert selected() > 10  # the same drag without Escape selects the trees in view
    editor.toolset.set_selection({})
    drag(escape=True)
    assert selected() == 0 and "cancelled" in main_window.statusBar().currentMessage()
    editor.toolset.activate("fill")
    drag(escape=True)
    assert snapshot(volume) == before and not stack.canUndo()  # nothing filled
    assert stack.count() == 0  # not filled and undone either: Redo has nothing to bring back
    assert editor.host.active is editor.toolset.tools["fill"]


def test_the_remove_type_question_names_its_buttons_and_defaults_to_cancel(main_window) -> None:
    from PySide6.QtWidgets import QMessageBox

    from app.foliage_editor import removal_box

    box = removal_box(main_window, "conifer", 1289)
    texts = sorted(b.text().replace("&", "") for b in box.buttons())
    assert texts == ["Cancel", "Remove 'conifer'"]  # verbs, not Yes / No
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert "1,289 instances" in box.text() and "Undo" in box.text()
    box.deleteLater()
