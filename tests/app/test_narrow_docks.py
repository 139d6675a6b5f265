"""The side columns at their narrowest (240 px, a 1280 × 800 window): nothing is cut off and nothing
scrolls sideways."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QWidget

from tests.gui_helpers import settle

SHOWN_SIZE, SHOWN_VIEW = (1280, 800), None


def test_the_palette_with_variants_and_levels_fits_a_240_px_column(main_window, shown) -> None:
    editor = main_window.foliage_editor
    panel = editor.palette_panel
    panel.select(["conifer"])
    form = panel.form
    for mesh in ("builtin:broadleaf", "builtin:rock"):
        next(a for a in form.variants.add.menu().actions() if a.text() == mesh).trigger()
    form.lods.add.click()
    dock = main_window.docks["palette"]
    scroll = panel.findChild(QScrollArea)
    for width in (240, 256):  # the narrowest column, and the one a 1280 px window gives it
        main_window.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
        settle()
        assert panel.minimumSizeHint().width() <= 240
        assert dock.width() <= width + 2  # the column really shrinks
        assert form.minimumSizeHint().width() <= scroll.viewport().width()
        assert not scroll.horizontalScrollBar().isVisible()  # the form is whole: no sideways scrolling
    for key in ("add", "duplicate", "remove"):
        assert panel.buttons[key].isVisible() and len(panel.buttons[key].toolTip()) > 15


def test_the_palette_add_menu_offers_a_new_type_and_files(qtbot) -> None:
    from model.foliage import builtin_palette
    from widgets.palette_panel import PalettePanel

    panel = PalettePanel()
    qtbot.addWidget(panel)
    panel.set_types(list(builtin_palette()), {}, [])
    asked = []
    panel.new_requested.connect(lambda: asked.append("new"))
    panel.add_file_requested.connect(lambda: asked.append("file"))
    texts = [a.text() for a in panel.buttons["add"].menu().actions()]
    assert texts == ["New Type", "From .vxfoliage Files…"]
    for action in panel.buttons["add"].menu().actions():
        action.trigger()
    assert asked == ["new", "file"]


def test_the_foliage_tool_settings_fit_the_right_column(main_window, shown) -> None:
    dock = main_window.docks["tool_settings"]
    panel = main_window.findChild(QWidget, "foliage_tool_settings")
    assert panel is not None
    assert panel.minimumSizeHint().width() <= 240
    assert dock.width() <= 242  # the column a 1280 px window gives it
    assert main_window.docks["layers"].widget().minimumSizeHint().width() <= 240
    for scroll in dock.findChildren(QScrollArea):
        assert not scroll.horizontalScrollBar().isVisible()


def test_the_foliage_toolbar_names_its_tools_and_fits_beside_the_terrain_one(main_window, shown) -> None:
    from PySide6.QtWidgets import QToolBar, QToolButton

    bar = main_window.findChild(QToolBar, "toolbar_foliage")
    buttons = [bar.widgetForAction(a) for a in bar.actions()]
    beside = Qt.ToolButtonStyle.ToolButtonTextBesideIcon
    assert all(isinstance(b, QToolButton) and b.toolButtonStyle() == beside for b in buttons)
    terrain = main_window.findChild(QToolBar, "toolbar_terrain")
    assert terrain.y() == bar.y()  # one row of toolbars at 1280 px
    assert all(b.isVisible() for b in buttons)  # none pushed into the overflow menu


def test_tools_terrain_tools_opens_as_a_tab_of_tool_settings_and_keeps_the_window_size(main_window,
                                                                                         shown) -> None:
    main_window.actions_by_key["tool_terrain_tools"].trigger()
    settle()
    dock = main_window.tool_docks["terrain_tools"]
    assert dock in main_window.tabifiedDockWidgets(main_window.docks["tool_settings"])
    assert dock.widget().minimumSizeHint().width() <= 240
    assert main_window.size().width() == 1280 and main_window.size().height() == 800  # nothing pushed out


def test_the_variant_and_level_tables_show_every_row(main_window, shown) -> None:
    panel = main_window.foliage_editor.palette_panel
    panel.select(["conifer"])
    form = panel.form
    for mesh in ("builtin:broadleaf", "builtin:rock", "builtin:bush"):
        next(a for a in form.variants.add.menu().actions() if a.text() == mesh).trigger()
    form.lods.add.click()
    settle()
    for table, rows in ((form.variants.table, 4), (form.lods.table, 3)):
        assert table.rowCount() == rows
        assert not table.verticalScrollBar().isVisible()  # no list scrolling inside the scrolling form
        assert table.viewport().height() >= sum(table.rowHeight(i) for i in range(rows))
