"""Spawners in the editor: the Spawners window (Tools ▸ Spawners)."""

from __future__ import annotations

from typing import Any

from app.extensions import ToolWindow


def _panel(main_window: Any) -> Any:
    """The spawner list, recipe form and last run; with a main window, bound to its scene."""
    if main_window is None:
        from widgets.spawner_panel import SpawnerPanel

        return SpawnerPanel()
    from app.foliage_editor import scrolling
    from app.spawner_editor import install

    return scrolling(install(main_window).panel)


WINDOWS = [
    ToolWindow("spawners", "Spawners", _panel, shortcut="Ctrl+Shift+F",
               tooltip="Procedural foliage: seeded recipes of species and conditions that fill an area, "
                       "re-run when the ground changes, and say why each candidate was refused"),
]
