"""Reading biome folders: one asset per `*.json` file, keyed by file name; later folders overlay."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from model.biomes.issues import ERROR, WARNING, Issue
from model.biomes.jsonc import relax
from model.biomes.paths import JsonPath, format_path
from model.errors import FormatError

MAX_FILE_BYTES = 8 * 1024 * 1024  # a biome asset is a few kilobytes; refuse anything absurd


@dataclass(eq=False)
class AssetFile:
    """One file of a biome set: its key, where it is, which folder (0 = base) and its document."""

    key: str
    path: Path
    folder: int
    doc: dict | None  # None when the file could not be read as a JSON object

    @property
    def name(self) -> str:
        return str(self.path)


def read_folders(folders: Sequence[str | Path]) -> tuple[dict[str, list[AssetFile]], list[Issue]]:
    """Every asset file by key, in overlay order (base first), and the problems reading them.

    A folder that does not exist raises `FormatError`; a bad file is an issue, never an exception.
    """
    if not folders:
        raise FormatError(None, None, "no biome folder given")
    stacks: dict[str, list[AssetFile]] = {}
    issues: list[Issue] = []
    for index, folder in enumerate(folders):
        folder = Path(folder)
        if not folder.is_dir():
            raise FormatError(folder, None, "not a folder of biome assets")
        root = folder.resolve()
        for path in sorted(folder.glob("*.json")):
            key = path.stem
            doc = _read_file(path, root, key, issues)
            if doc is not None and not _is_unicode(key):
                issues.append(Issue(WARNING, key, str(path), "", "the file name is not UTF-8: no "
                                    "asset's Parent (JSON text) can name this asset"))
            stacks.setdefault(key, []).append(AssetFile(key, path, index, doc))
    return dict(sorted(stacks.items())), issues


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read_file(path: Path, root: Path, key: str, issues: list[Issue]) -> dict | None:
    def error(place: str, reason: str) -> None:
        issues.append(Issue(ERROR, key, str(path), place, reason))

    real = path.resolve()
    if not real.is_relative_to(root):
        error("", "the file links outside the biome folder; refused")
        return None
    if not real.is_file():
        error("", "not a regular file")
        return None
    size = real.stat().st_size
    if size > MAX_FILE_BYTES:
        error("", f"file is {size} bytes; a biome asset may be at most {MAX_FILE_BYTES}")
        return None
    try:
        data = real.read_bytes()
    except OSError as e:
        error("", f"cannot read: {e.strerror or e}")
        return None
    try:  # UTF-8, with or without a byte-order mark; UTF-16 when its mark says so (Windows editors)
        text = data.decode("utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig")
    except UnicodeDecodeError as e:
        error(f"byte {e.start}", "not UTF-8 text")
        return None
    duplicates: list[str] = []
    try:
        doc = _loads(text, duplicates)
    except json.JSONDecodeError as strict:
        relaxed, found = relax(text)
        if not found:
            error(f"line {strict.lineno} column {strict.colno}", f"invalid JSON: {strict.msg}")
            return None
        duplicates.clear()
        try:
            doc = _loads(relaxed, duplicates)
        except (ValueError, RecursionError):  # not just comments or commas: the first fault as written
            error(f"line {strict.lineno} column {strict.colno}", f"invalid JSON: {strict.msg}")
            return None
        for place, what in found:
            issues.append(Issue(WARNING, key, str(path), place, f"{what}: not strict JSON; accepted"))
    except ValueError as e:
        error("", f"invalid JSON: {e}")
        return None
    except RecursionError:
        error("", "invalid JSON: nested too deeply")
        return None
    if not isinstance(doc, dict):
        error("", f"a biome asset must be a JSON object, not {json_kind(doc)}")
        return None
    if _depth_beyond(doc, MAX_DEPTH):
        error("", f"objects and arrays nest deeper than {MAX_DEPTH} levels")
        return None
    bad = unstorable(doc)
    if bad is not None:
        error(format_path(bad[0]), bad[1])
        return None
    for name in duplicates:
        issues.append(Issue(WARNING, key, str(path), "",
                            f"key {name!r} appears twice in one object; the last one wins"))
    return doc


MAX_DEPTH = 64  # real assets nest a handful of levels; merging deeper ones would recurse without bound


def _depth_beyond(doc: object, limit: int) -> bool:
    """Whether objects or arrays nest deeper than `limit` (walked without recursion)."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _loads(text: str, duplicates: list[str]) -> object:
    return json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, duplicates),
                      parse_constant=_refuse_constant, parse_int=_parse_int)


class _HugeInteger:
    """An integer literal too long to be a 64-bit float, kept as its digit count for the message
    (converting it would only hit Python's 4,300-digit guard, an error without a JSON path)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _parse_int(text: str) -> int | _HugeInteger:
    digits = len(text) - text.startswith("-")
    return _HugeInteger(digits) if digits > 320 else int(text)


def _object(pairs: list[tuple[str, object]], duplicates: list[str]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            duplicates.append(k)
        out[k] = v
    return out


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _lone_surrogate(text: str) -> str | None:
    """The first lone UTF-16 surrogate in `text` as `U+D800`, or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"U+{ord(text[e.start]):04X}"
    return None


def unstorable(doc: object) -> tuple[JsonPath, str] | None:
    """The first value the engine cannot hold, with its JSON path: a string or key with a lone
    surrogate (`"\\ud800"` parses, but is no Unicode text: it cannot be written as UTF-8 or shown), or
    a number beyond the 64-bit float range (a 400-digit integer, `1e999` read as infinity).

    Refused at read, so nothing downstream (validation, plots, export) meets them. Walked with a
    stack: the parser has already bounded the depth.
    """
    stack: list[tuple[JsonPath, object]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key, child in reversed(node.items()):
                where = _lone_surrogate(key)
                if where is not None:
                    return path + (key,), f"key contains a lone surrogate ({where}): not Unicode text"
                stack.append((path + (key,), child))
        elif isinstance(node, list):
            stack.extend((path + (i,), child) for i, child in reversed(list(enumerate(node))))
        elif isinstance(node, str):
            where = _lone_surrogate(node)
            if where is not None:
                return path, f"string contains a lone surrogate ({where}): not Unicode text"
        elif isinstance(node, float) and node in (float("inf"), float("-inf")):
            return path, "number beyond the 64-bit float range (largest about 1.8e308)"
        elif isinstance(node, _HugeInteger) or (isinstance(node, int) and not isinstance(node, bool)
                                                and abs(node) > sys.float_info.max):
            digits = node.digits if isinstance(node, _HugeInteger) else len(str(abs(node)))
            return path, (f"integer of {digits} digits is beyond the 64-bit float range "
                          "(largest about 1.8e308)")
    return None


def json_kind(value: object) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
