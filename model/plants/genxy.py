"""GenXY values and rule-file text: `key=value` lines whose first value character is a type token."""

from __future__ import annotations

import datetime as _dt
import re
import struct
from dataclasses import dataclass
from typing import Any

from model.errors import FormatError

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

# token → (kind, description); the kind is what field checks compare against.
TOKENS: dict[str, tuple[str, str]] = {
    "n": ("int", "int, decimal"),
    "N": ("int[]", "int[], decimal, comma-separated"),
    "m": ("long", "long, decimal"),
    "i": ("int", "int, hex"),
    "4": ("int[]", "int[], hex, comma-separated"),
    "L": ("long", "long, hex"),
    "6": ("long[]", "long[], hex, comma-separated"),
    "f": ("double", "double, decimal"),
    "t": ("float", "float, 8 hex digits of its bytes"),
    "T": ("double", "double, 16 hex digits of its bytes"),
    "2": ("bytes", "bytes, hex pairs"),
    "$": ("string", "string with \\XY escapes"),
    "5": ("string[]", "string[], comma-separated"),
    "d": ("date", "date y.m.d.h.m.s"),
    "c": ("color", "colour r.g.b.a, hex"),
    "p": ("point", "point x.y, hex"),
    "3": ("position", "position x.y.z, hex"),
    "P": ("position[]", "position[], comma-separated"),
    "r": ("area", "area x1.y1.x2.y2, hex"),
    "R": ("area[]", "area[], comma-separated"),
    "[": ("dict", "nested dictionary"),
}


@dataclass(frozen=True)
class Value:
    """A parsed value: the token that typed it, its kind (e.g. "int[]"), the Python data and raw text."""

    token: str
    kind: str
    data: Any
    raw: str

    @property
    def bare(self) -> bool:
        """An unprefixed digit array such as `40,3,3,4`: typed by its leading `4` (hex)."""
        return self.token == "4"


@dataclass(frozen=True)
class Entry:
    """One `key=value` line of a rule file."""

    key: str
    value: Value
    line: int  # 1-based line number in the file


class _ValueError(Exception):
    """A body that does not parse; the caller turns it into a FormatError with file and line."""


# ---- numbers -------------------------------------------------------------------------------------
_DEC = re.compile(r"[+-]?[0-9]+")
_HEX = re.compile(r"[0-9A-Fa-f]+")


def _dec(text: str, bounds: tuple[int, int] = INT32) -> int:
    s = text.strip()
    if not _DEC.fullmatch(s):
        raise _ValueError(f"{text!r} is not a decimal integer")
    return _bounded(int(s), bounds, text)


def _hex(text: str, bounds: tuple[int, int] = INT32) -> int:
    s = text.strip()
    sign = 1
    if s.startswith("-"):
        sign, s = -1, s[1:]
    if not _HEX.fullmatch(s):
        raise _ValueError(f"{text!r} is not a hex integer")
    bits = 32 if bounds == INT32 else 64
    magnitude = int(s, 16)
    # The game parses the digits as the int's bit pattern (`FFFFFFFF` is -1), then applies the sign.
    if magnitude >> bits:
        raise _ValueError(f"{text!r} does not fit in {bits} bits")
    return _wrap(sign * _wrap(magnitude, bits), bits)


def _wrap(v: int, bits: int) -> int:
    """Two's complement: the signed value of the low `bits` bits of `v`."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _bounded(v: int, bounds: tuple[int, int], text: str) -> int:
    if not bounds[0] <= v <= bounds[1]:
        raise _ValueError(f"{text!r} does not fit in {'32' if bounds == INT32 else '64'} bits")
    return v


def _float(text: str) -> float:
    s = text.strip()
    if not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", s):
        raise _ValueError(f"{text!r} is not a decimal number ('.' separator)")
    return float(s)


def _bytes_of(text: str, count: int) -> bytes:
    s = text.strip()
    if len(s) != 2 * count or not _HEX.fullmatch(s):
        raise _ValueError(f"expected {2 * count} hex digits, got {text!r}")
    return bytes.fromhex(s)


def _split(body: str, sep: str = ",") -> list[str]:
    return [] if body == "" else body.split(sep)


def _tuple(body: str, n: int, what: str) -> tuple[int, ...]:
    parts = _split(body, ".")
    if len(parts) != n:
        raise _ValueError(f"{what} needs {n} '.'-separated hex numbers, got {body!r}")
    return tuple(_hex(p) for p in parts)


def unescape(text: str) -> str:
    """`\\XY` is one character with hex code XY."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            code = text[i + 1:i + 3]
            if len(code) != 2 or not _HEX.fullmatch(code):
                raise _ValueError(f"bad escape {text[i:i + 3]!r}: '\\' needs two hex digits")
            out.append(chr(int(code, 16)))
            i += 3
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _date(body: str) -> _dt.datetime:
    parts = _split(body, ".")
    if len(parts) != 6:
        raise _ValueError(f"a date needs y.m.d.h.m.s, got {body!r}")
    try:
        return _dt.datetime(*(_dec(p) for p in parts))
    except ValueError as e:
        raise _ValueError(f"{body!r} is not a valid date: {e}") from None


def _scalar(token: str, body: str) -> Any:
    """Parse a non-dictionary body for `token`."""
    if token == "n":
        return _dec(body)
    if token == "N":
        return [_dec(p) for p in _split(body)]
    if token == "m":
        return _dec(body, INT64)
    if token == "i":
        return _hex(body)
    if token == "4":
        return [_hex(p) for p in _split(body)]
    if token == "L":
        return _hex(body, INT64)
    if token == "6":
        return [_hex(p, INT64) for p in _split(body)]
    if token == "f":
        return _float(body)
    if token == "t":
        return struct.unpack("<f", _bytes_of(body, 4))[0]
    if token == "T":
        return struct.unpack("<d", _bytes_of(body, 8))[0]
    if token == "2":
        s = body.strip()
        if len(s) % 2 or (s and not _HEX.fullmatch(s)):
            raise _ValueError(f"bytes need hex pairs, got {body!r}")
        return bytes.fromhex(s)
    if token == "$":
        return unescape(body)
    if token == "5":
        return [unescape(p) for p in _split(body)]
    if token == "d":
        return _date(body)
    if token == "c":
        return _tuple(body, 4, "a colour")
    if token == "p":
        return _tuple(body, 2, "a point")
    if token == "3":
        return _tuple(body, 3, "a position")
    if token == "P":
        return [_tuple(p, 3, "a position") for p in _split(body)]
    if token == "r":
        return _tuple(body, 4, "an area")
    if token == "R":
        return [_tuple(p, 4, "an area") for p in _split(body)]
    return body  # any other token: the rest is a plain string


MAX_DICT_DEPTH = 32  # nested dictionaries: real rules use two or three; deeper would recurse without bound


def _parse(text: str, pos: int, nested: bool, depth: int = 0) -> tuple[Value, int]:
    """Parse one value starting at `pos`; inside a dictionary it ends at `|`, `#` or `]`."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        raise _ValueError("empty value: a value needs a type token")
    token = text[pos]
    pos += 1
    if token == "[":
        if depth >= MAX_DICT_DEPTH:
            raise _ValueError(f"dictionaries nest deeper than {MAX_DICT_DEPTH} levels")
        return _parse_dict(text, pos, depth + 1)
    end = len(text)
    if nested:
        m = re.compile(r"[#|\]]").search(text, pos)
        end = m.start() if m else len(text)
    body = text[pos:end]
    kind = TOKENS[token][0] if token in TOKENS else "string"
    return Value(token, kind, _scalar(token, body), token + body), end


def _parse_dict(text: str, pos: int, depth: int = 1) -> tuple[Value, int]:
    start = pos - 1
    data: dict[str, Value] = {}
    while True:
        while pos < len(text) and (text[pos].isspace() or text[pos] == "["):
            pos += 1
        if pos >= len(text):
            raise _ValueError("nested dictionary is not closed by ']'")
        if text[pos] == "]":
            pos += 1
            break
        eq = text.find("=", pos)
        if eq < 0:
            raise _ValueError(f"nested key without '=' near {text[pos:pos + 20]!r}")
        key = "".join(c for c in text[pos:eq] if c not in "#|" and not c.isspace())
        if not key:
            raise _ValueError("nested entry has an empty key")
        value, pos = _parse(text, eq + 1, nested=True, depth=depth)
        data[key] = value
    return Value("[", "dict", data, text[start:pos]), pos


def parse_value(text: str) -> Value:
    """Parse a whole value (what follows `=`); raises ValueError with the reason when malformed."""
    try:
        value, end = _parse(text, 0, nested=False)
    except _ValueError as e:
        raise ValueError(str(e)) from None
    if text[end:].strip():
        raise ValueError(f"unexpected text after the value: {text[end:]!r}")
    return value


def plain(value: Value) -> Any:
    """The value as JSON-friendly Python data (nested dictionaries unwrapped)."""
    d = value.data
    if value.kind == "dict":
        return {k: plain(v) for k, v in d.items()}
    if isinstance(d, bytes):
        return d.hex()
    if isinstance(d, _dt.datetime):
        return d.isoformat()
    if isinstance(d, tuple):
        return list(d)
    if isinstance(d, list):
        return [list(x) if isinstance(x, tuple) else x for x in d]
    return d


# ---- rule-file text ------------------------------------------------------------------------------
def strip_comment(line: str) -> str:
    """`//…//` removes the enclosed text (what follows the closing `//` stays); a lone `//` ends the line."""
    out = []
    while True:
        i = line.find("//")
        if i < 0:
            out.append(line)
            break
        out.append(line[:i])
        j = line.find("//", i + 2)
        if j < 0:
            break
        line = line[j + 2:]
    return "".join(out)


def split_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) for each physical line; CR, LF and CRLF all end a line."""
    return list(enumerate(re.split(r"\r\n|\r|\n", text), start=1))


def read_entries(text: str, path: str | None = None) -> list[Entry]:
    """Parse rule-file text into entries in file order; the first malformed line raises FormatError."""
    entries, errors = read_entries_lenient(text, path)
    if errors:
        raise errors[0]
    return entries


def read_entries_lenient(text: str, path: str | None = None) -> tuple[list[Entry], list[FormatError]]:
    """Parse every line, collecting one FormatError per malformed line instead of stopping."""
    entries: list[Entry] = []
    errors: list[FormatError] = []
    for number, raw in split_lines(text):
        line = strip_comment(raw)
        if not line.strip():
            continue
        if "=" not in line:
            errors.append(FormatError(path, f"line {number}", f"expected key=value, got {line.strip()!r}"))
            continue
        key_text, value_text = line.split("=", 1)
        # The game joins the lines with '#' and reads keys as GenXY keys: whitespace and the key
        # markers '#' and '|' are not part of a key.
        key = "".join(c for c in key_text if c not in "#|" and not c.isspace())
        if not key:
            errors.append(FormatError(path, f"line {number}", "empty key before '='"))
            continue
        try:
            value = parse_value(value_text)
        except ValueError as e:
            errors.append(FormatError(path, f"line {number}", f"{key}: {e}"))
            continue
        entries.append(Entry(key, value, number))
    return entries, errors
