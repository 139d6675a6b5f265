"""The one question every rename asks: a new name for a layer, type or spawner."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QInputDialog, QWidget


def ask_new_name(parent: QWidget, title: str, old: str, get_text: Callable | None = None) -> str | None:
    """The name typed for `old`, trimmed; None when cancelled, empty or unchanged. `get_text` is
    QInputDialog.getText's stand-in (looked up at each call, so a test may replace either)."""
    new, ok = (get_text or QInputDialog.getText)(parent, title, f"New name for '{old}':", text=old)
    new = new.strip()
    return new if ok and new and new != old else None
