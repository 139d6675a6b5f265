"""Zone layers in the editor: the zone viewer (Tools) and File ▸ Import ▸ Zone as scene."""

from __future__ import annotations

from typing import Any

from app.extensions import ToolWindow


def _viewer(main_window: Any) -> Any:
    from widgets.zone_viewer import ZoneViewer

    return ZoneViewer()


WINDOWS = [
    ToolWindow("zone_viewer", "Zone Layers", _viewer, shortcut="Ctrl+Shift+Z",
               tooltip="View a zone's altitude, slope, blocks, control bits and plant tiles, tile by tile"),
]
