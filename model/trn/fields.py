"""Little-endian payload layouts: decode a chunk into named values and encode them back exactly.

A layout is a tuple of (name, kind). Kinds: "i32", "u32", "f32", "u8", "bool8", "cstr", "rgb",
"xz*" (i32 count, then count × (f32 x, f32 z)), "f32*" (i32 count, then floats), and
("list", layout) (i32 count, then count records).
"""

from __future__ import annotations

import copy
import struct
from pathlib import Path
from typing import Any

from model.errors import FormatError, check_available

Layout = tuple[tuple[str, Any], ...]

_SCALARS = {"i32": "<i", "u32": "<I", "f32": "<f", "u8": "<B", "bool8": "<?"}


def min_size(layout: Layout) -> int:
    """Smallest byte count a record of `layout` can take (used to refuse absurd counts)."""
    total = 0
    for _, kind in layout:
        if kind in _SCALARS:
            total += struct.calcsize(_SCALARS[kind])
        elif kind == "cstr":
            total += 1
        elif kind == "rgb":
            total += 3
        else:  # counted arrays start with their i32 count
            total += 4
    return total


class Cursor:
    """Reads little-endian values from a payload, naming file offsets in its errors."""

    def __init__(self, data: bytes, base: int, path: str | Path | None, what: str) -> None:
        self.data, self.base, self.path, self.what, self.pos = data, base, path, what, 0

    def need(self, n: int, field: str) -> None:
        if self.pos + n > len(self.data):
            raise FormatError(self.path, self.base + self.pos,
                              f"{self.what}: truncated reading {field} ({n} bytes needed, "
                              f"{len(self.data) - self.pos} left)")

    def scalar(self, kind: str, field: str):
        fmt = _SCALARS[kind]
        n = struct.calcsize(fmt)
        self.need(n, field)
        (v,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += n
        return bool(v) if kind == "bool8" else v

    def cstr(self, field: str) -> str:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise FormatError(self.path, self.base + self.pos,
                              f"{self.what}: string {field} has no terminating NUL")
        s = self.data[self.pos:end].decode("latin-1")
        self.pos = end + 1
        return s

    def count(self, field: str, item_size: int) -> int:
        at = self.base + self.pos
        n = self.scalar("i32", field)
        if n < 0:
            raise FormatError(self.path, at, f"{self.what}: negative count {n} for {field}")
        check_available(self.path, at, n * item_size, len(self.data) - self.pos, f"{self.what} {field}")
        return n


def _read(cur: Cursor, layout: Layout) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, kind in layout:
        if kind in _SCALARS:
            values[name] = cur.scalar(kind, name)
        elif kind == "cstr":
            values[name] = cur.cstr(name)
        elif kind == "rgb":
            cur.need(3, name)
            values[name] = tuple(cur.data[cur.pos:cur.pos + 3])
            cur.pos += 3
        elif kind == "xz*":
            n = cur.count(name, 8)
            flat = struct.unpack_from(f"<{2 * n}f", cur.data, cur.pos)
            cur.pos += 8 * n
            values[name] = [(flat[2 * i], flat[2 * i + 1]) for i in range(n)]
        elif kind == "f32*":
            n = cur.count(name, 4)
            values[name] = list(struct.unpack_from(f"<{n}f", cur.data, cur.pos))
            cur.pos += 4 * n
        elif isinstance(kind, tuple) and kind[0] == "list":
            sub = kind[1]
            n = cur.count(name, max(1, min_size(sub)))
            values[name] = [_read(cur, sub) for _ in range(n)]
        else:  # pragma: no cover - layouts are static
            raise ValueError(f"unknown field kind {kind!r}")
    return values


def decode(layout: Layout, data: bytes, base: int, path: str | Path | None, what: str) -> dict[str, Any]:
    """Decode `data` (payload starting at file offset `base`); it must be consumed exactly."""
    cur = Cursor(data, base, path, what)
    values = _read(cur, layout)
    if cur.pos != len(data):
        raise FormatError(path, base + cur.pos,
                          f"{what}: {len(data) - cur.pos} bytes left after the last field")
    return values


def _write(out: list[bytes], layout: Layout, values: dict[str, Any]) -> None:
    for name, kind in layout:
        v = values[name]
        if kind in _SCALARS:
            out.append(struct.pack(_SCALARS[kind], v))
        elif kind == "cstr":
            out.append(str(v).encode("latin-1") + b"\0")
        elif kind == "rgb":
            out.append(bytes(int(c) & 0xFF for c in v))
        elif kind == "xz*":
            out.append(struct.pack("<i", len(v)))
            out.append(struct.pack(f"<{2 * len(v)}f", *[c for p in v for c in p]))
        elif kind == "f32*":
            out.append(struct.pack("<i", len(v)) + struct.pack(f"<{len(v)}f", *v))
        else:
            out.append(struct.pack("<i", len(v)))
            for rec in v:
                _write(out, kind[1], rec)


def encode(layout: Layout, values: dict[str, Any]) -> bytes:
    out: list[bytes] = []
    _write(out, layout, values)
    return b"".join(out)


class Record:
    """Decoded values of one chunk. Unchanged values write back the original bytes (NaN-safe)."""

    def __init__(self, layout: Layout, values: dict[str, Any], raw: bytes | None = None) -> None:
        self.layout = layout
        self.values = values
        self._original = (copy.deepcopy(values), raw) if raw is not None else None

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        if name not in self.values:
            raise KeyError(name)
        kind = dict(self.layout).get(name)
        if kind is not None:
            check_value(name, kind, value)
        self.values[name] = value

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def to_bytes(self) -> bytes:
        if self._original is not None and _same(self._original[0], self.values):
            return self._original[1]
        return encode(self.layout, self.values)


_INT_RANGES = {"i32": (-2**31, 2**31 - 1), "u32": (0, 2**32 - 1), "u8": (0, 255)}


def check_value(name: str, kind: Any, value: Any) -> None:
    """Refuse a value its field cannot store (ValueError), so an edit never writes a broken file:
    strings are NUL-terminated Latin-1, integers fit their width."""
    if kind == "cstr":
        text = str(value)
        if "\0" in text:
            raise ValueError(f"{name}: a NUL character would end the string early")
        try:
            text.encode("latin-1")
        except UnicodeEncodeError as e:
            bad = text[e.start:e.end]
            raise ValueError(f"{name}: {bad!r} cannot be stored (Latin-1 text only)") from None
    elif kind in _INT_RANGES:
        lo, hi = _INT_RANGES[kind]
        if isinstance(value, float) or not lo <= int(value) <= hi:
            raise ValueError(f"{name}: {value!r} is not an integer from {lo} to {hi}")
    elif kind == "f32":
        v = float(value)
        if v == v and abs(v) != float("inf") and abs(v) > 3.4028234663852886e38:
            raise ValueError(f"{name}: {value!r} is too large for a 32-bit float")


def _same(a: Any, b: Any) -> bool:
    """Equality that treats NaN as equal to itself (an unchanged NaN field is unchanged)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
