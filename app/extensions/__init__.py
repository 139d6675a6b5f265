"""Tool windows and importers that subsystems add to the editor.

Each module in this package may expose `WINDOWS: list[ToolWindow]`, `IMPORTERS: list[Importer]`
and `EXPORTERS: list[Exporter]`; the main window builds its Tools menu, File ▸ Import ▸ and
File ▸ Export ▸ from them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolWindow:
    """A browser or inspector: `create(main_window)` returns the QWidget to show in a dock."""

    key: str  # unique; the dock's objectName is f"dock_{key}"
    title: str
    create: Callable[[Any], Any]
    shortcut: str | None = None
    tooltip: str = ""


@dataclass(frozen=True)
class Importer:
    """`run(main_window)` asks for its inputs, builds a Scene (with progress) or returns None."""

    key: str
    title: str
    run: Callable[[Any], Any]
    tooltip: str = ""
    into_open_scene: bool = False  # adds to the open scene (one undo step) instead of replacing it
    shortcut: str | None = None


@dataclass(frozen=True)
class Exporter:
    """`run(main_window)` asks where and how, and writes the open scene (with progress)."""

    key: str
    title: str
    run: Callable[[Any], Any]
    tooltip: str = ""
    shortcut: str | None = None


def _modules():
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        yield importlib.import_module(f"{__name__}.{info.name}")


def tool_windows() -> list[ToolWindow]:
    return [w for m in _modules() for w in getattr(m, "WINDOWS", [])]


def importers() -> list[Importer]:
    return [i for m in _modules() for i in getattr(m, "IMPORTERS", [])]


def exporters() -> list[Exporter]:
    return [e for m in _modules() for e in getattr(m, "EXPORTERS", [])]
