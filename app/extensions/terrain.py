"""Terrain tools in the editor: the Terrain Tools window (Tools) and File ▸ Import ▸ Heightmap as Scene."""

from __future__ import annotations

from typing import Any

from app.extensions import Importer, ToolWindow


def _tool_panel(main_window: Any) -> Any:
    """Brush and tool settings; with a main window, also installs the terrain tools into it."""
    if main_window is None:
        from widgets.terrain_tool_panel import TerrainToolPanel

        return TerrainToolPanel()
    from app.terrain_editor import install

    return install(main_window).tool_panel()


def _heightmap_scene(main_window: Any) -> Any:
    from app.terrain_editor import new_scene_from_heightmap_dialog

    return new_scene_from_heightmap_dialog(main_window)


WINDOWS = [
    ToolWindow("terrain_tools", "Terrain Tools", _tool_panel, shortcut="Ctrl+Shift+T",
               tooltip="Sculpt (raise, lower, smooth, flatten, noise) and paint terrain layers"),
]

IMPORTERS = [
    Importer("heightmap", "Heightmap as Scene…", _heightmap_scene,
             tooltip="A new scene from a 16-bit PNG, RAW R16, float32 .npy, EXR, TIFF or RAW R32 heightmap"),
]
