"""Plant rules in the editor: the rule inspector (Tools) and File ▸ Import ▸ Grow a forest (on a zone or
the open scene)."""

from __future__ import annotations

from typing import Any

from app.extensions import Importer, ToolWindow


def _inspector(main_window: Any) -> Any:
    from widgets.plant_inspector import PlantInspector

    return PlantInspector(main_window)


def _open_folders(main_window: Any) -> tuple[Any, Any]:
    """(zone folder, rules folder) open in the Zone Layers and Plant Rules windows, or None each."""
    def widget(key: str) -> Any:
        return main_window.tool_widget(key) if hasattr(main_window, "tool_widget") else None

    zone = getattr(widget("zone_viewer"), "zone", None)
    load = getattr(widget("plant_inspector"), "load", None)
    return getattr(zone, "folder", None), getattr(load, "folder", None)


def _grow(main_window: Any) -> Any:
    from widgets.plant_grow import grow_forest_scene

    zones, rules = _open_folders(main_window)
    return grow_forest_scene(main_window, zones, rules)


def _grow_here(main_window: Any) -> Any:
    from widgets.plant_grow import grow_forest_on_scene

    return grow_forest_on_scene(main_window, _open_folders(main_window)[1])


WINDOWS = [
    ToolWindow("plant_inspector", "Plant Rules", _inspector, shortcut="Ctrl+Shift+P",
               tooltip="Inspect a plant rules folder: merged fields and origins, lints, the growth state "
                       "machine, Markov figures and survival"),
]
IMPORTERS = [
    Importer("plant_forest", "Grow a Forest from a Zone…", _grow,
             tooltip="Run growth passes over a zone with a rules folder, then open the result as a scene: "
                     "blocking plants stored, the rest derived grass"),
    Importer("plant_forest_here", "Grow a Forest on the Open Scene…", _grow_here,
             tooltip="Run growth passes over the open scene's terrain (ground types from layers named "
                     "after them) and open a copy with the forest as foliage"),
]
