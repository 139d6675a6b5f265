"""Foliage mode in the editor: the Collision View tool window (Tools ▸ Collision View)."""

from __future__ import annotations

from typing import Any

from app.extensions import ToolWindow


def _collision_view(main_window: Any) -> Any:
    """Probe and body read-out; with a main window, bound to its scene's foliage."""
    if main_window is None:
        from widgets.collision_panel import CollisionPanel

        return CollisionPanel()
    from app.foliage_editor import install

    return install(main_window).collision_view()


WINDOWS = [
    ToolWindow("collision", "Collision View", _collision_view, shortcut="Ctrl+Shift+K",
               tooltip="Place a probe (or use the camera) and see which foliage instances have bodies"),
]
