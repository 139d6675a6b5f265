"""The Spawners window as a new user first opens it on a 1280 × 800 window."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QScrollArea


def opened(main_window):
    main_window.resize(1280, 800)
    main_window.show()
    QApplication.processEvents()
    main_window.set_tool_window_visible("spawners", True)
    for _ in range(5):
        QApplication.processEvents()
    dock = main_window.tool_docks["spawners"]
    return dock, dock.findChild(QScrollArea), main_window.spawner_editor.panel


def test_the_spawners_tab_is_tall_enough_and_never_scrolls_sideways(main_window) -> None:
    dock, scroll, panel = opened(main_window)
    assert dock in main_window.tabifiedDockWidgets(main_window.docks["inspector"])
    assert dock.height() >= 0.3 * main_window.height()  # not a 130 px strip under Layers
    assert panel.minimumSizeHint().width() <= 240
    assert not scroll.horizontalScrollBar().isVisible()
    main_window.resizeDocks([dock], [240], Qt.Orientation.Horizontal)
    for _ in range(5):
        QApplication.processEvents()
    assert not scroll.horizontalScrollBar().isVisible()


def test_with_no_spawners_the_panel_says_what_to_do(main_window) -> None:
    _dock, _scroll, panel = opened(main_window)
    assert panel.spawners == [] and panel.empty_hint.isVisible()
    assert "Add" in panel.empty_hint.text()
    panel.add_button.click()
    QApplication.processEvents()
    assert len(panel.spawners) == 1 and not panel.empty_hint.isVisible()
    main_window.document.undo_stack.undo()
    QApplication.processEvents()
    assert panel.spawners == [] and panel.empty_hint.isVisible()


def test_each_refusal_of_a_run_reads_whole_in_the_narrow_column(main_window, qtbot) -> None:
    from model.demo import demo_resource_path
    from model.formats.scene_file import load_scene

    main_window.open_scene(load_scene(demo_resource_path()))
    _dock, _scroll, panel = opened(main_window)
    panel.add_button.click()
    panel.run_button.click()
    qtbot.waitUntil(lambda: panel.results.count() > 0, timeout=20000)
    for _ in range(5):
        QApplication.processEvents()
    buttons = [b for r in range(panel.results.count()) if (w := panel.results.itemAt(r).widget())
               for b in w.buttons]
    assert len(buttons) >= 3
    for b in buttons:  # "not on conifer's layer 'forest_floor'", not "not on conif"
        assert b.width() >= b.fontMetrics().horizontalAdvance(b.text()), b.text()


def test_with_a_run_shown_the_spawners_take_most_of_the_column_and_nothing_is_cut(main_window, qtbot) -> None:
    from model.demo import demo_resource_path
    from model.formats.scene_file import load_scene

    main_window.open_scene(load_scene(demo_resource_path()))
    dock, scroll, panel = opened(main_window)
    panel.add_button.click()  # runs it: a form, species and a result per refusal reason
    qtbot.waitUntil(lambda: panel.results.count() > 0, timeout=20000)
    for _ in range(5):
        QApplication.processEvents()
    column = [d for d in main_window.findChildren(type(dock)) if not d.isFloating() and d.isVisible()
              and not d.visibleRegion().isEmpty()
              and main_window.dockWidgetArea(d) == Qt.DockWidgetArea.RightDockWidgetArea]
    assert dock.height() >= 0.5 * sum(d.height() for d in column)  # most of the right column
    assert not scroll.horizontalScrollBar().isVisible()
    assert panel.width() <= scroll.viewport().width()
    for label in (panel.results.itemAt(r).widget() for r in range(panel.results.count())):
        assert label.minimumSizeHint().width() <= scroll.viewport().width()
