"""The one way JSON is read: bounded in size, depth and number length, then checked field by field.

`parse_json` turns any fault into one FormatError naming the file and the place (`line L column
C`, or the JSON path of a value nested too deeply): bad UTF-8, bad syntax, NaN/Infinity, an
integer too long to be a number (Python's own 4,300-digit guard would raise a bare ValueError), a
number beyond the float range, nesting past `MAX_DEPTH` (or past the parser's recursion limit).
`field`, `expect` and `numbers` check a value's type before it is used, so a wrong type is a
FormatError at its JSON path (`nodes[3].translation`), never a TypeError further on.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from model.errors import FormatError, is_finite_number

MAX_DEPTH = 64  # real documents nest a handful of levels
MAX_INT_DIGITS = 309  # 1.8e308, the largest float, has 309 digits: a longer integer is no number here
_MISSING = object()
REQUIRED = _MISSING  # `field`'s default for a key that must be present


class _Refused(ValueError):
    """A number the hooks refuse, with the literal (to find its place) and the reason."""

    def __init__(self, literal: str, reason: str) -> None:
        super().__init__(reason)
        self.literal, self.reason = literal, reason


def _parse_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise _Refused(text, f"integer of {digits} digits is beyond the range of a number")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(text, f"number {text[:24]} is beyond the 64-bit float range (about 1.8e308)")
    return value


def _parse_constant(name: str) -> None:
    raise _Refused(name, f"{name} is not a JSON number")


def _line_column(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    return f"line {line} column {index - (text.rfind(chr(10), 0, index) + 1) + 1}"


def _place_of(text: str, literal: str) -> str | None:
    found = re.search(r"(?<![\w.+-])" + re.escape(literal) + r"(?![\w.])", text)
    return _line_column(text, found.start()) if found else None


def json_path(parts: tuple) -> str:
    """`nodes[3].translation` from ("nodes", 3, "translation")."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def _too_deep(doc: object, limit: int) -> tuple | None:
    """The JSON path of the first container nested deeper than `limit`, else None (no recursion;
    scalars are skipped at C speed, so long arrays of numbers cost little)."""
    stack: list[tuple[object, tuple, int]] = [(doc, (), 1)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, dict):
            items = value.items()
            if not ({type(v) for v in value.values()} & {dict, list}):
                continue
        else:
            if not (set(map(type, value)) & {dict, list}):  # type: ignore[arg-type]
                continue
            items = enumerate(value)  # type: ignore[arg-type, assignment]
        for key, child in items:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return where + (key,)
                stack.append((child, where + (key,), depth + 1))
    return None


def parse_json(data: bytes | str, path: str | Path | None, max_depth: int = MAX_DEPTH,
               what: str = "JSON") -> Any:
    """A JSON document from UTF-8 bytes (or text); any fault is one FormatError (see the module)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise FormatError(path, e.start, f"{what} is not UTF-8 text") from None
    else:
        text = data
    if text.startswith("\ufeff"):  # a byte-order mark, as Windows editors write
        text = text[1:]
    try:
        doc = json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                         parse_constant=_parse_constant)
    except json.JSONDecodeError as e:
        raise FormatError(path, f"line {e.lineno} column {e.colno}", f"bad {what}: {e.msg}") from None
    except _Refused as e:
        raise FormatError(path, _place_of(text, e.literal), e.reason) from None
    except RecursionError:
        raise FormatError(path, None, f"{what} nested deeper than {max_depth} levels") from None
    except ValueError as e:  # nothing else is expected; still one sentence, never a traceback
        raise FormatError(path, None, f"bad {what}: {e}") from None
    if isinstance(doc, (dict, list)):
        deep = _too_deep(doc, max_depth)
        if deep is not None:
            raise FormatError(path, json_path(deep), f"{what} nested deeper than {max_depth} levels")
    return doc


def read_json_file(path: str | Path, max_bytes: int, what: str = "JSON") -> Any:
    """`parse_json` of a file, its size checked against `max_bytes` before it is read."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise FormatError(path, None, f"{what} of {size:,} bytes is over the {max_bytes:,}-byte limit")
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    return parse_json(data, path, what=what)


# ---- checking types before use ------------------------------------------------------------------
_KINDS: dict[str, str] = {"object": "an object", "array": "an array", "string": "a string",
                          "number": "a finite number", "integer": "a whole number",
                          "index": "a whole number ≥ 0", "boolean": "true or false"}


def kind_of(value: object) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def is_kind(value: object, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == "number":
        return is_finite_number(value)  # an int past the float range is not one
    if kind == "integer":
        return isinstance(value, int)
    if kind == "index":
        return isinstance(value, int) and value >= 0
    raise ValueError(f"unknown JSON kind {kind!r}")


def expect(path: str | Path | None, value: object, kind: str, where: str) -> Any:
    """`value` when it is of `kind` (see _KINDS), else a FormatError at `where`."""
    if not is_kind(value, kind):
        got = kind_of(value)
        if kind in ("number", "integer", "index") and got == "a number":
            got = repr(value)
        raise FormatError(path, where, f"expected {_KINDS[kind]}, got {got}")
    return value


def field(path: str | Path | None, obj: dict, key: str, kind: str, where: str,
          default: Any = _MISSING) -> Any:
    """`obj[key]` checked to be of `kind` (`where` is obj's own JSON path); `default` when absent
    (absent and no default: a FormatError saying it is missing)."""
    place = f"{where}.{key}" if where else key
    if key not in obj:
        if default is _MISSING:
            raise FormatError(path, place, "missing")
        return default
    return expect(path, obj[key], kind, place)


def numbers(path: str | Path | None, value: object, count: int, where: str) -> list[float]:
    """An array of exactly `count` finite numbers."""
    if isinstance(value, list) and len(value) == count:
        if all(is_kind(v, "number") for v in value):
            return [float(v) for v in value]
        got = "an array with an item that is not a finite number"
    else:
        got = f"an array of {len(value)} items" if isinstance(value, list) else kind_of(value)
    raise FormatError(path, where, f"expected an array of {count} finite numbers, got {got}")
