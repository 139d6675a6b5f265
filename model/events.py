"""A tiny event: the model announces change, views subscribe and unsubscribe."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Event:
    """Callbacks connected to one kind of change; `emit` calls them in connection order."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> None:
        if callback not in self._callbacks:
            self._callbacks.append(callback)

    def disconnect(self, callback: Callable[..., Any]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def emit(self, *args: Any, **kwargs: Any) -> None:
        for callback in list(self._callbacks):
            callback(*args, **kwargs)

    def __len__(self) -> int:
        return len(self._callbacks)
