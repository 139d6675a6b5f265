"""A `.usdz` package's zip structure checked before pxr opens it.

pxr walks a package's local file headers from its first byte and hands each entry's bytes to the
layer reader as they are; Python's `zipfile` (textures, `usd_material_reader`) reads the central
directory instead. A package is read only where both agree and the usdz rules hold: every entry
stored (not compressed, not encrypted), its sizes in its own header and equal, inside the file,
named by a plain relative path, the first one a layer, no package inside the package. Only headers
are read here, never an entry's bytes: sizes are checked before anything is allocated.
"""

from __future__ import annotations

import posixpath
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

from model.errors import FormatError

LOCAL = b"PK\x03\x04"
CENTRAL = b"PK\x01\x02"
END = b"PK\x05\x06"
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # 30 bytes
MAX_ENTRIES = 4096
LAYER_SUFFIXES = (".usd", ".usda", ".usdc")


@dataclass(frozen=True)
class PackageEntry:
    name: str
    header: int  # offset of its local header
    data: int  # offset of its bytes
    size: int


def is_package(path: Path) -> bool:
    """Whether pxr reads `path` as a package (it goes by the suffix)."""
    return path.suffix.lower() == ".usdz"


def _name_problem(name: str) -> str | None:
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return "is not a relative path"
    if any(part == ".." for part in name.split("/")):
        return "leaves the package (`..`)"
    if "[" in name or "]" in name:
        return "holds `[` or `]`, which USD package paths cannot name"
    if posixpath.splitext(name)[1].lower() == ".usdz":
        return "is a package inside the package (not read)"
    return None


def package_entries(path: Path) -> list[PackageEntry]:
    """The package's entries as pxr walks them; FormatError naming the package and the entry (or
    offset) where it breaks the rules above."""
    size = path.stat().st_size
    entries: list[PackageEntry] = []
    names: set[str] = set()
    with open(path, "rb") as f:
        offset = 0
        while True:
            f.seek(offset)
            head = f.read(_LOCAL_HEADER.size)
            if head[:4] != LOCAL:
                break
            if len(head) < _LOCAL_HEADER.size:
                raise FormatError(path, offset, "a zip entry's header is cut short")
            (_, _, flags, method, _, _, _, packed, unpacked, name_len, extra_len) = _LOCAL_HEADER.unpack(head)
            data = offset + _LOCAL_HEADER.size + name_len + extra_len
            if data + packed > size:  # before the name is read: its length may lie too
                raise FormatError(path, offset, f"a zip entry claims {packed} bytes from offset {data}, "
                                  f"beyond the package's {size} bytes")
            try:
                name = f.read(name_len).decode("utf-8")
            except UnicodeDecodeError:
                raise FormatError(path, offset, "a zip entry's name is not UTF-8") from None
            place = f"entry {name[:80]!r}"
            if flags & 1:
                raise FormatError(path, place, "encrypted (a .usdz holds its files as they are)")
            if method != zipfile.ZIP_STORED:
                raise FormatError(path, place, "compressed (a .usdz holds its files stored, uncompressed)")
            if flags & 8:
                raise FormatError(path, place, "its sizes follow its data (a .usdz entry states them first)")
            if packed != unpacked:
                raise FormatError(path, place, f"its sizes disagree ({packed} and {unpacked} bytes, stored)")
            problem = _name_problem(name)
            if problem:
                raise FormatError(path, place, f"its name {problem}")
            if name in names:
                raise FormatError(path, place, "named twice")
            names.add(name)
            entries.append(PackageEntry(name, offset, data, packed))
            if len(entries) > MAX_ENTRIES:
                raise FormatError(path, None, f"holds more than {MAX_ENTRIES} files")
            offset = data + packed
        if not entries:
            raise FormatError(path, 0, "not a USD package (a zip file whose first entry is a layer)")
        if head[:4] not in (CENTRAL, END):  # pxr stops here: what follows would be left unread
            raise FormatError(path, offset, "the bytes after the last entry are not the zip's directory")
    if posixpath.splitext(entries[0].name)[1].lower() not in LAYER_SUFFIXES:
        raise FormatError(path, f"entry {entries[0].name[:80]!r}", "the package's first file must be a "
                          "USD layer (.usd, .usda or .usdc)")
    _agree_with_directory(path, entries)
    return entries


def _agree_with_directory(path: Path, entries: list[PackageEntry]) -> None:
    """The central directory lists the same entries at the same places (`zipfile` reads by it)."""
    try:
        with zipfile.ZipFile(path) as z:
            listed = [(i.filename, i.header_offset, i.compress_size, i.file_size, i.compress_type)
                      for i in z.infolist()]
    except (zipfile.BadZipFile, ValueError, EOFError, struct.error, NotImplementedError, OverflowError):
        raise FormatError(path, None, "its zip directory is damaged") from None
    walked = [(e.name, e.header, e.size, e.size, zipfile.ZIP_STORED) for e in entries]
    if listed != walked:
        first = next((k for k, (a, b) in enumerate(zip(listed, walked, strict=False)) if a != b),
                     min(len(listed), len(walked)))
        name = walked[first][0] if first < len(walked) else listed[first][0]
        raise FormatError(path, f"entry {name[:80]!r}", "the zip's directory disagrees with the entry's own "
                          "header (name, place or size)")


def package_layers(path: Path) -> list[str]:
    """The names of the package's layers (its first entry first), its structure checked."""
    return [e.name for e in package_entries(path) if posixpath.splitext(e.name)[1].lower() in LAYER_SUFFIXES]
