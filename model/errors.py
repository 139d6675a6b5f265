"""The one error type every reader raises: a file, a place in it, and a reason."""

from __future__ import annotations

from pathlib import Path


class FormatError(Exception):
    """Bad input: names the file, the place (byte offset, line, or key path) and the reason."""

    def __init__(self, path: str | Path | None, place: int | str | None, reason: str) -> None:
        self.path = str(path) if path is not None else None
        self.place = place
        self.reason = reason
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = self.path or "<input>"
        if isinstance(self.place, int):
            where += f" @ offset {self.place}"
        elif self.place:
            where += f": {self.place}"
        return f"{where}: {self.reason}"

    def __str__(self) -> str:
        return self.message


def check_available(path: str | Path | None, offset: int, needed: int, available: int,
                    what: str) -> None:
    """Refuse a claimed size before allocating: `needed` bytes must fit in `available`."""
    if needed < 0 or needed > available:
        raise FormatError(path, offset,
                          f"{what} claims {needed} bytes but only {available} remain")
