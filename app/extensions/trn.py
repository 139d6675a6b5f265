"""TRN terrain generators in the editor: the TRN browser (Tools) and File ▸ Import ▸ TRN as scene."""

from __future__ import annotations

from typing import Any

from app.extensions import Importer, ToolWindow


def _browser(main_window: Any) -> Any:
    from widgets.trn_browser import TrnBrowser

    return TrnBrowser(main_window)


def _import(main_window: Any) -> Any:
    from widgets.trn_import import import_trn_scene

    # the file open in the TRN browser is the one to import: not asked for again
    browser = main_window.tool_widget("trn_browser") if hasattr(main_window, "tool_widget") else None
    doc = getattr(browser, "doc", None)
    return import_trn_scene(main_window, getattr(doc, "path", None))


WINDOWS = [
    ToolWindow("trn_browser", "TRN Browser", _browser, shortcut="Ctrl+Shift+R",
               tooltip="Browse a TRN terrain generator: layer tree, properties, families and an evaluated "
                       "map preview"),
]
IMPORTERS = [
    Importer("trn_scene", "TRN as Scene…", _import,
             tooltip="Evaluate a region of a TRN file: heights become terrain, shader families paint "
                     "layers, flora families foliage"),
]
