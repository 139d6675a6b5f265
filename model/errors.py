"""The one error type every reader raises: a file, a place in it, and a reason."""

from __future__ import annotations

import math
import re
import tomllib
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


def is_finite_number(value: object) -> bool:
    """A real, finite number (an int past the float range is not: math.isfinite would raise)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


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


class WriteError(FormatError, OSError):
    """A write the disk refused (full, read-only, …): one sentence naming the file.

    An OSError too, so every `except OSError` around a save still catches it; a FormatError so
    the CLI reports it with exit 1 like any other input it cannot use."""

    def __init__(self, path: str | Path, reason: str, errno: int | None = None,
                 sentence: str | None = None) -> None:
        self._sentence = sentence
        super().__init__(path, None, reason)
        self.errno = errno
        self.strerror = self.message
        self.filename = str(path)

    def __reduce__(self):
        return (type(self), (self.path, self.reason, self.errno, self._sentence))

    @property
    def message(self) -> str:
        return self._sentence or super().message


MAX_TOML_DEPTH = 64  # arrays, inline tables and dotted keys; real files nest a handful of levels
_TOML_PLACE = re.compile(r"\s*\(at (line \d+, column \d+|end of document)\)$")
# Strings and comments hide brackets; what is left of a TOML text nests only through [ and {.
_TOML_TOKEN = re.compile(r'"""(?:[^\\]|\\.)*?"""' r"|'''.*?'''" r'|"(?:[^"\\\n]|\\.)*"'
                         r"|'[^'\n]*'|#[^\n]*|[\[\]{}\n]", re.S)


def _toml_nesting_place(text: str) -> str | None:
    """'line L, column C' of the first bracket nested deeper than MAX_TOML_DEPTH, else None.

    Python's TOML parser recurses once per level: checked before parsing, a deep file is one
    FormatError, not a RecursionError."""
    depth, line, line_start = 0, 1, 0
    for m in _TOML_TOKEN.finditer(text):
        token = m.group()
        if token == "\n":
            line, line_start = line + 1, m.end()
        elif token in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return f"line {line}, column {m.start() - line_start + 1}"
        elif token in "]}":
            depth = max(0, depth - 1)
        elif "\n" in token:  # a multi-line string
            line += token.count("\n")
            line_start = m.start() + token.rindex("\n") + 1
    return None


def _toml_depth_place(doc: dict) -> str | None:
    """The key path of the first value nested deeper than MAX_TOML_DEPTH (dotted keys and table
    headers nest without brackets); walked with a stack, so no depth can overflow it."""
    stack: list[tuple[object, str, int]] = [(doc, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_TOML_DEPTH:
            return where if len(where) <= 80 else where[:77] + "..."
        if isinstance(value, dict):
            stack.extend((v, f"{where}.{k}" if where else str(k), depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
    return None


def parse_toml(text: str, path: str | Path | None = None) -> dict:
    """A TOML document; bad or absurdly nested TOML is one FormatError naming the file and place."""
    place = _toml_nesting_place(text)
    if place is not None:
        raise FormatError(path, place, f"nested deeper than {MAX_TOML_DEPTH} levels")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = _TOML_PLACE.search(str(e))
        if found is None:
            raise FormatError(path, None, f"bad TOML: {e}") from None
        raise FormatError(path, found.group(1), f"bad TOML: {str(e)[:found.start()]}") from None
    except RecursionError:  # a nesting the bracket scan did not see: still one error
        raise FormatError(path, None, "nested too deeply for the TOML parser") from None
    place = _toml_depth_place(doc)
    if place is not None:
        raise FormatError(path, place, f"nested deeper than {MAX_TOML_DEPTH} levels")
    return doc


def read_toml_file(path: str | Path) -> dict:
    """`read_text_file` then `parse_toml`: every TOML reader's one way in."""
    return parse_toml(read_text_file(path), path)


def refuse_link_outside(folder: str | Path, path: str | Path, what: str, owner: str) -> None:
    """A file that is a link leading out of `folder` is refused: reads never leave the opened
    folder (a link to a file inside it, as large-file stores make, stays allowed)."""
    try:
        real = Path(path).resolve()
        inside = real.is_relative_to(Path(folder).resolve())
    except (OSError, RuntimeError):  # a link loop resolves to nothing
        raise FormatError(path, None, f"{what} is a link that cannot be followed") from None
    if not inside:
        raise FormatError(path, None, f"{what} links outside the {owner}'s folder (to {real}); refused")
