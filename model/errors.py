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

    def __reduce__(self):  # a worker process's error arrives whole (batch jobs on Dask)
        return (type(self), (self.path, self.place, self.reason))


def check_available(path: str | Path | None, offset: int, needed: int, available: int,
                    what: str) -> None:
    """Refuse a claimed size before allocating: `needed` bytes must fit in `available`."""
    if needed < 0 or needed > available:
        raise FormatError(path, offset,
                          f"{what} claims {needed} bytes but only {available} remain")


def read_text_file(path: str | Path) -> str:
    """A UTF-8 text file's contents; a missing, unreadable or non-text file is one FormatError."""
    try:
        return Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise FormatError(path, None, "file not found") from None
    except UnicodeDecodeError as e:
        raise FormatError(path, e.start, "not a text file (invalid UTF-8)") from None
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
