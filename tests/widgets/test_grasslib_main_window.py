"""The grass library browser inside the editor: Tools menu entry, dock, derived grass into the scene."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QKeySequence

from model.foliage.section import foliage_of
from tests.model.grasslib import fixtures as fx
from widgets.grasslib_browser import GrassLibraryBrowser


def test_tools_menu_opens_the_browser_and_derived_grass_reaches_the_scene(main_window, tmp_path: Path):
    action = main_window.actions_by_key["tool_grasslib"]
    assert action.shortcut() == QKeySequence("Ctrl+Shift+G") and action.toolTip()
    action.setChecked(True)
    dock = main_window.tool_docks["grasslib"]
    browser = main_window.tool_widget("grasslib")
    assert isinstance(browser, GrassLibraryBrowser) and browser.main_window is main_window
    assert browser.open_path(fx.write(tmp_path / "small.lib", fx.small_library_bytes()))
    browser.picker.set_values(255, 0x60, 0xFE)
    browser.picker.derive_button.click()
    names = [t["name"] for t in browser.derived.derived.types]
    assert len(names) == 3
    browser.derived.use_button.click()
    palette = foliage_of(main_window.document.scene).palette
    assert all(name in palette and palette[name].derived for name in names)
    action.setChecked(False)
    assert dock.isHidden()
