"""Generic IFF container: 4-byte tags, big-endian u32 sizes, no padding, nested FORMs.

Every node keeps the file offset of its tag so later readers can name the byte that is wrong.
Writing the tree read from a file reproduces that file byte for byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

from model.errors import FormatError, check_available

HEADER = 8  # tag + size
MAX_DEPTH = 256


@dataclass(eq=False)
class Chunk:
    """A leaf block: tag and raw payload."""

    tag: str
    data: bytes = b""
    offset: int = 0  # of the tag in the file; payload starts at offset + 8

    @property
    def data_offset(self) -> int:
        return self.offset + HEADER

    def size(self) -> int:
        return HEADER + len(self.data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Chunk) and (self.tag, self.data) == (other.tag, other.data)


@dataclass(eq=False)
class Form:
    """A `FORM` block: a 4-byte form name and child blocks."""

    name: str
    children: list[Chunk | Form] = field(default_factory=list)
    offset: int = 0
    # fewer than 8 bytes left over at the end of the form: too short for a block header. Real files
    # carry such remains (an exclude affector's half-written DATA header); they are kept to be
    # written back exactly and reported by the TRN reader.
    tail: bytes = b""

    tag = "FORM"

    def size(self) -> int:
        return HEADER + 4 + sum(c.size() for c in self.children) + len(self.tail)

    @property
    def tail_offset(self) -> int:
        return self.offset + self.size() - len(self.tail)

    def forms(self, name: str | None = None) -> list[Form]:
        return [c for c in self.children if isinstance(c, Form) and (name is None or c.name == name)]

    def chunks(self, tag: str | None = None) -> list[Chunk]:
        return [c for c in self.children if isinstance(c, Chunk) and (tag is None or c.tag == tag)]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Form) and self.name == other.name
                and self.tail == other.tail and len(self.children) == len(other.children)
                and all(a == b for a, b in zip(self.children, other.children, strict=True)))


Node = Chunk | Form


def _tag(data: bytes, pos: int, path, what: str) -> str:
    raw = data[pos:pos + 4]
    if len(raw) < 4 or not all(32 <= b < 127 for b in raw):
        raise FormatError(path, pos, f"{what}: expected a 4-character ASCII tag, found {raw!r}")
    return raw.decode("ascii")


def _parse_range(data: bytes, start: int, end: int, path, depth: int,
                 tail: list[bytes] | None = None) -> list[Node]:
    """Blocks from start to end. Inside a FORM (`tail` given) fewer than 8 bytes left at the end are
    handed back through `tail`; anywhere else they are an error."""
    if depth > MAX_DEPTH:
        raise FormatError(path, start, f"blocks nested deeper than {MAX_DEPTH} levels")
    nodes: list[Node] = []
    pos = start
    while pos < end:
        if end - pos < HEADER:
            if tail is not None:
                tail.append(bytes(data[pos:end]))
                break
            raise FormatError(path, pos, f"truncated block header: {end - pos} bytes left, 8 needed")
        tag = _tag(data, pos, path, "block")
        (size,) = struct.unpack_from(">I", data, pos + 4)
        check_available(path, pos + 4, size, end - pos - HEADER, f"block {tag}")
        body = pos + HEADER
        if tag == "FORM":
            if size < 4:
                raise FormatError(path, pos + 4, f"FORM size {size} is too small for its name")
            name = _tag(data, body, path, "FORM name")
            rest: list[bytes] = []
            children = _parse_range(data, body + 4, body + size, path, depth + 1, rest)
            nodes.append(Form(name, children, pos, rest[0] if rest else b""))
        else:
            nodes.append(Chunk(tag, bytes(data[body:body + size]), pos))
        pos = body + size
    return nodes


def parse(data: bytes, path: str | Path | None = None) -> Form:
    """Parse a whole file: exactly one top-level FORM that covers every byte."""
    if len(data) < HEADER + 4:
        raise FormatError(path, 0, f"file of {len(data)} bytes is too short for an IFF FORM")
    if data[:4] != b"FORM":
        raise FormatError(path, 0, f"not an IFF file: starts with {bytes(data[:4])!r}, not FORM")
    (size,) = struct.unpack_from(">I", data, 4)
    check_available(path, 4, size, len(data) - HEADER, "top-level FORM")
    nodes = _parse_range(data, 0, HEADER + size, path, 0)
    if HEADER + size != len(data):
        raise FormatError(path, HEADER + size,
                          f"{len(data) - HEADER - size} bytes follow the top-level FORM")
    top = nodes[0]
    assert isinstance(top, Form)
    return top


def read(path: str | Path) -> Form:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(path, None, f"cannot read: {e.strerror or e}") from None
    return parse(data, path)


def _write(node: Node, out: list[bytes]) -> None:
    if isinstance(node, Form):
        out.append(b"FORM" + struct.pack(">I", node.size() - HEADER) + node.name.encode("ascii"))
        for child in node.children:
            _write(child, out)
        out.append(node.tail)
    else:
        out.append(node.tag.encode("ascii") + struct.pack(">I", len(node.data)) + node.data)


def serialize(node: Node) -> bytes:
    """The bytes of `node` and everything below it."""
    out: list[bytes] = []
    _write(node, out)
    return b"".join(out)


def walk(node: Node, depth: int = 0):
    """Yield (depth, node) for `node` and all its descendants, in file order."""
    yield depth, node
    if isinstance(node, Form):
        for child in node.children:
            yield from walk(child, depth + 1)
