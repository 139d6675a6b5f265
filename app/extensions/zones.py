"""Zone layers in the editor: the zone viewer (Tools) and File ▸ Import ▸ Zone as scene."""

from __future__ import annotations

from typing import Any

from app.extensions import Importer, ToolWindow


def _viewer(main_window: Any) -> Any:
    from widgets.zone_viewer import ZoneViewer

    return ZoneViewer()


def _import(main_window: Any) -> Any:
    from widgets.zone_open import import_zone_scene

    return import_zone_scene(main_window)


WINDOWS = [
    ToolWindow("zone_viewer", "Zone Layers", _viewer, shortcut="Ctrl+Shift+L",
               tooltip="View a zone's altitude, slope, blocks, control bits and plant tiles, tile by tile"),
]
IMPORTERS = [
    Importer("zone_scene", "Zone as Scene…", _import,
             tooltip="Altitude becomes terrain, ground types paint layers, plant tiles foliage"),
]
