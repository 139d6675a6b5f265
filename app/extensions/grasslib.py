"""The grass library browser as a tool window."""

from __future__ import annotations

from app.extensions import ToolWindow


def create_browser(main_window):
    from widgets.grasslib_browser import GrassLibraryBrowser

    return GrassLibraryBrowser(main_window)


WINDOWS = [
    ToolWindow(
        key="grasslib",
        title="Grass Library",
        create=create_browser,
        shortcut="Ctrl+Shift+G",
        tooltip="Inspect a grass pattern library: models, groups and rules, material table, "
                "terrain picker preview and derived grass",
    )
]
