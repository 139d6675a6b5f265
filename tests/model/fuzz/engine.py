"""The seeded mutation engine: one `random.Random` per input, so (format, seed) names an input exactly.

Written here rather than driven by Hypothesis: Hypothesis shrinks and replays from its own
database, while a fuzz input here must be rebuilt from a printed seed on any machine, and one
child process must read hundreds of them per second.

An input is a folder: files (bytes), symlinks (`Link`, pointing into the shared
`outside/` folder beside the inputs), FIFOs and empty directories (`Folder`). Text may hold
`OUTSIDE` (the absolute path of that folder), replaced when the input is written, so a saved
input replays wherever it is unpacked.
"""

from __future__ import annotations

import functools
import random
import re
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

OUTSIDE = b"@OUTSIDE@"  # replaced by the absolute path of the `outside/` folder when written


@dataclass(frozen=True)
class Link:
    """A symlink in the input folder to `outside/<target>` (a file the reader must not read)."""

    target: str


@dataclass(frozen=True)
class Fifo:
    """A named pipe where a file is expected: opening it for reading would block forever."""


@dataclass(frozen=True)
class Folder:
    """An empty directory where a file is expected (a layer or side file named as a file)."""


Entry = bytes | Link | Fifo | Folder


@dataclass(frozen=True)
class SizeField:
    """An integer in a file that claims a size or count: where, how wide, which byte order."""

    file: str
    offset: int
    width: int  # bytes: 1, 2, 4 or 8
    big_endian: bool = False


@dataclass
class Seed:
    """A valid input made by the project's own writers, and what the mutator may know about it."""

    name: str
    files: dict[str, Entry]
    main: str  # the file the reader is given (a folder reader: one of its files)
    folder_reader: bool = False  # the reader is given the folder: every file of it is a side file
    kind: dict[str, str] = field(
        default_factory=dict
    )  # file → "text" | "toml" | "json" | "genxy" | "binary" | "gzip"
    size_fields: list[SizeField] = field(default_factory=list)
    boundaries: dict[str, list[int]] = field(default_factory=dict)  # file → offsets of structure edges
    # file names text may name instead (side files, rule files): the path tricks aim at these
    references: list[str] = field(default_factory=list)
    # repairs checksums after a mutation so the mutation reaches past the checksum test
    fixup: Callable[[dict[str, Entry]], dict[str, Entry]] | None = None
    # more mutations this format knows (gzip bombs, deep nesting in its own syntax, …)
    special: list[Callable[[random.Random, dict[str, Entry], Seed], str]] = field(default_factory=list)


@dataclass
class Input:
    """One fuzz input: format, seed number, files, the reader's main entry and what was done."""

    format: str
    seed: int
    files: dict[str, Entry]
    main: str
    steps: list[str]


# ---- values that break readers ------------------------------------------------------------------
INTERESTING_INTS = (
    0,
    1,
    2,
    7,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x10000,
    0x7FFFFFFF,
    0x80000000,
    0xFFFFFFFF,
    0x100000000,
    0x7FFFFFFFFFFFFFFF,
    0xFFFFFFFFFFFFFFFF,
)
NUMBER_WORDS = {
    "toml": (
        "nan",
        "inf",
        "-inf",
        "+inf",
        "-nan",
        "1e999",
        "-1e999",
        "1e308",
        "-0.0",
        "5e-324",
        "9" * 400,
        "-" + "9" * 400,
        "9223372036854775807",
        "-9223372036854775808",
        "0",
        "0x7fffffff",
    ),
    "json": (
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "-1e999",
        "1e308",
        "-0",
        "5e-324",
        "9" * 400,
        "-" + "9" * 400,
        "9223372036854775808",
        "0",
        "1" + "0" * 5000,
        "0.1e-99999",
    ),
    "genxy": (
        "nan",
        "inf",
        "1e999",
        "-1e999",
        "9" * 400,
        "-" + "9" * 400,
        "2147483648",
        "-2147483649",
        "FFFFFFFF",
        "7FFFFFFFFFFFFFFF",
        "0",
        "-0",
        "7fc00000",
        "7f800000",
    ),
}
NUMBER_RE = re.compile(rb"(?<![A-Za-z_#])[-+]?(?:0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)")
STRING_RE = {
    "toml": re.compile(rb'"((?:[^"\\\n]|\\.)*)"'),
    "json": re.compile(rb'"((?:[^"\\\n]|\\.)*)"'),
    "genxy": re.compile(rb"\$([^\r\n|#\]]*)"),
}


def string_tricks(kind: str, seed: Seed) -> list[bytes]:
    """String contents that test names and paths: empty, overlong, NUL, surrogates, path escapes."""
    nul = {"toml": b"a\\u0000b", "json": b"a\\u0000b", "genxy": b"a\\00b"}.get(kind, b"a\0b")
    out = [
        b"",
        b" ",
        b"a" * 300,
        b"a" * 70000,
        nul,
        b"\0",
        b"..",
        b".",
        b"../../outside/secret.txt",
        b"../x",
        b"..\\x",
        b"/etc/passwd",
        OUTSIDE + b"/secret.txt",
        b"C:\\Windows\\x",
        b"a/b",
        b"~",
        "\u00e9\u4e2d\U0001f332".encode(),
        b"CON",
        b"\xff\xfe" if kind == "binary" else b"\\",
    ]
    if kind == "json":
        out += [b"\\ud800", b"\\udfff\\ud800", b"\\u0000"]
    for ref in seed.references:
        out += [
            b"../" + ref.encode(),
            OUTSIDE + b"/" + ref.encode(),
            ref.encode() + b"\0",
            b"./" + ref.encode(),
            ref.upper().encode(),
        ]
    return out


def deep_nesting(kind: str, depth: int) -> bytes:
    """A value nested `depth` levels in the syntax of `kind`."""
    if kind == "toml":
        return b"[" * depth + b"1" + b"]" * depth if depth % 2 else b"{a=" * depth + b"1" + b"}" * depth
    if kind == "json":
        return b"[" * depth + b"1" + b"]" * depth if depth % 2 else b'{"a":' * depth + b"1" + b"}" * depth
    if kind == "genxy":
        return b"[a=" * depth + b"n1" + b"]" * depth
    return b"(" * depth


# ---- generic byte mutations ---------------------------------------------------------------------
def _pos(rng: random.Random, data: bytes, seed: Seed, name: str) -> int:
    """A position: often a structure edge the format knows, else anywhere."""
    edges = seed.boundaries.get(name)
    if edges and rng.random() < 0.5:
        return min(len(data), max(0, rng.choice(edges) + rng.choice((-1, 0, 0, 0, 1))))
    return rng.randrange(len(data) + 1)


def bit_flips(rng, data: bytearray, seed, name) -> str:
    n = rng.choice((1, 1, 2, 3, 8))
    for _ in range(n):
        if data:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    return f"flip {n} bits"


def byte_set(rng, data: bytearray, seed, name) -> str:
    if not data:
        return "set nothing"
    i = rng.randrange(len(data))
    data[i] = rng.choice((0, 0xFF, 0x7F, 0x80, 0x20, 0x0A, rng.randrange(256)))
    return f"set byte {i}"


def insert_bytes(rng, data: bytearray, seed, name) -> str:
    i = _pos(rng, data, seed, name)
    blob = rng.choice(
        (
            b"\0",
            b"\0" * rng.randrange(1, 64),
            bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16))),
            b"\xff\xfe\xfd",
            b"\r",
            b"\n",
            b"\xef\xbb\xbf",
        )
    )
    data[i:i] = blob
    return f"insert {len(blob)} bytes at {i}"


def delete_bytes(rng, data: bytearray, seed, name) -> str:
    i = _pos(rng, data, seed, name)
    n = rng.choice((1, 1, 2, 4, 8, rng.randrange(1, 256)))
    del data[i : i + n]
    return f"delete {n} bytes at {i}"


def duplicate_range(rng, data: bytearray, seed, name) -> str:
    i = _pos(rng, data, seed, name)
    j = _pos(rng, data, seed, name)
    i, j = min(i, j), max(i, j)
    chunk = bytes(data[i:j])[: 1 << 16]
    data[j:j] = chunk
    return f"duplicate {len(chunk)} bytes at {i}"


def truncate(rng, data: bytearray, seed, name) -> str:
    i = _pos(rng, data, seed, name)
    del data[i:]
    return f"truncate at {i}"


def append_junk(rng, data: bytearray, seed, name) -> str:
    blob = rng.choice((b"\0", b"\0" * 7, b"junk", bytes(data[:64]), b"\xff" * 300))
    data += blob
    return f"append {len(blob)} bytes"


BYTE_OPS = (
    bit_flips,
    bit_flips,
    byte_set,
    insert_bytes,
    delete_bytes,
    duplicate_range,
    truncate,
    truncate,
    append_junk,
)


def size_lie(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """Overwrite a size or count field with a value it cannot mean."""
    fields = [f for f in seed.size_fields if isinstance(files.get(f.file), bytes)]
    if not fields:
        return ""
    f = rng.choice(fields)
    data = bytearray(files[f.file])
    if f.offset + f.width > len(data):
        return ""
    fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}[f.width]
    fmt = (">" if f.big_endian else "<") + fmt
    (old,) = struct.unpack_from(fmt, data, f.offset)
    top = (1 << (8 * f.width)) - 1
    value = rng.choice(
        [v & top for v in INTERESTING_INTS]
        + [(old + d) & top for d in (1, -1, 2, 8, -8, 1 << 20)]
        + [len(data) & top, (len(data) + 1) & top, top - old]
    )
    struct.pack_into(fmt, data, f.offset, value)
    files[f.file] = bytes(data)
    return f"size field {f.file}@{f.offset} {old} -> {value}"


# ---- text mutations -----------------------------------------------------------------------------
def text_mutation(rng: random.Random, data: bytes, kind: str, seed: Seed) -> tuple[bytes, str]:
    """One change in the language of a text file: numbers, strings, nesting, lines."""
    op = rng.randrange(9)
    if op == 0:  # a number becomes NaN, infinity, huge or odd
        hits = list(NUMBER_RE.finditer(data))
        if hits:
            m = rng.choice(hits)
            word = rng.choice(NUMBER_WORDS.get(kind, NUMBER_WORDS["toml"])).encode()
            return data[: m.start()] + word + data[m.end() :], f"number at {m.start()} -> {word[:20]!r}"
    if op == 1:  # a string becomes a path trick, an overlong name, NUL, a surrogate
        regex = STRING_RE.get(kind)
        hits = list(regex.finditer(data)) if regex else []
        if hits:
            m = rng.choice(hits)
            word = rng.choice(string_tricks(kind, seed))
            return data[: m.start(1)] + word + data[m.end(1) :], f"string at {m.start(1)} -> {word[:40]!r}"
    if op == 2:  # a value nested deeply
        depth = rng.choice((64, 500, 1000, 5000, 100_000))
        eq = [m.end() for m in re.finditer(rb"[=:]", data)]
        if eq:
            at = rng.choice(eq)
            end = data.find(b"\n", at)
            end = len(data) if end < 0 else end
            if kind == "json":  # replace up to the next comma or closing bracket
                m = re.compile(rb"[,}\]\n]").search(data, at)
                end = m.start() if m else len(data)
            return (
                data[:at] + (b" " if kind == "toml" else b"") + deep_nesting(kind, depth) + data[end:],
                f"value at {at} nested {depth} deep",
            )
    lines = data.split(b"\n")
    if op == 3 and len(lines) > 1:
        i = rng.randrange(len(lines))
        del lines[i]
        return b"\n".join(lines), f"delete line {i + 1}"
    if op == 4 and lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[rng.randrange(len(lines))])
        return b"\n".join(lines), f"duplicate a line at {i + 1}"
    if op == 5 and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines), f"swap lines {i + 1} and {j + 1}"
    if op == 6:
        i = rng.randrange(len(data) + 1)
        junk = rng.choice(
            (
                b"\0",
                b"\xff",
                b"\xc3",
                b"\xed\xa0\x80",
                b"\r",
                b"=",
                b"[",
                b"]]",
                b"{",
                b'"',
                b"\\",
                b"//",
                b"/*",
                b"#",
                b"|",
                b"$",
                b"\n[x]\n",
                b"\n" * 3,
            )
        )
        return data[:i] + junk + data[i:], f"insert {junk!r} at {i}"
    if op == 7:  # cut inside a token, or at a line end
        ends = [m.start() for m in re.finditer(rb"\n", data)] or [len(data)]
        i = rng.choice(ends) if rng.random() < 0.5 else rng.randrange(len(data) + 1)
        return data[:i], f"truncate at {i}"
    return data + rng.choice((b"\nx", b"\n" + b"k=1\n" * 3, b"\0", b"\n\xff\n")), "append"


# ---- the whole input ----------------------------------------------------------------------------
def folder_trick(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A file of the folder swapped for a link out of it, a FIFO, removed, or a stray file added."""
    # the file the user names is theirs to choose (a link or a FIFO there is followed as given);
    # the files a reader finds by itself must stay in the folder
    names = [n for n, e in files.items() if isinstance(e, bytes) and (seed.folder_reader or n != seed.main)]
    if not names:
        return ""
    name = rng.choice(names)
    op = rng.randrange(4)
    if op == 0 or op == 1:  # a link out of the folder to a copy of the same bytes
        files[name] = Link(f"{seed.name}/{name}")
        return f"{name} -> link outside"
    if op == 2:
        files[name] = Fifo()
        return f"{name} -> fifo"
    if name != seed.main and rng.random() < 0.7:
        del files[name]
        return f"remove {name}"
    files["stray.bin"] = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    return "add stray.bin"


def mutate(fmt: str, number: int, seeds: list[Seed]) -> Input:
    """Input `number` of `fmt`: a seed picked and mutated by a generator seeded with both."""
    rng = random.Random(f"boscage-fuzz:{fmt}:{number}")
    seed = seeds[rng.randrange(len(seeds))]
    files: dict[str, Entry] = dict(seed.files)
    steps = [f"seed {seed.name}"]
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 5))):
        roll = rng.random()
        if roll < 0.07:
            step = folder_trick(rng, files, seed)
        elif roll < 0.22 and seed.special:
            step = rng.choice(seed.special)(rng, files, seed)
        elif roll < 0.35 and seed.size_fields:
            step = size_lie(rng, files, seed)
        else:
            names = [n for n, e in files.items() if isinstance(e, bytes)]
            if not names:
                break
            # the main file most often, side files too
            name = seed.main if seed.main in names and rng.random() < 0.6 else rng.choice(names)
            kind = seed.kind.get(name, "binary")
            if kind in ("toml", "json", "genxy", "text") and rng.random() < 0.75:
                data, step = text_mutation(rng, files[name], kind, seed)
                files[name] = data
            else:
                buf = bytearray(files[name])
                step = rng.choice(BYTE_OPS)(rng, buf, seed, name)
                files[name] = bytes(buf)
            step = f"{name}: {step}"
        if step:
            steps.append(step)
    if seed.fixup is not None and rng.random() < 0.5:
        files = seed.fixup(files)
        steps.append("checksums repaired")
    return Input(fmt, number, files, seed.main, steps)


# ---- helpers for format knowledge ---------------------------------------------------------------
def gzip_bytes(content: bytes, level: int = 9, isize: int | None = None) -> bytes:
    """A gzip member of `content` (optionally with a lying ISIZE trailer)."""
    c = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = c.compress(content) + c.flush()
    size = len(content) if isize is None else isize
    return (
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
        + body
        + struct.pack("<II", zlib.crc32(content), size & 0xFFFFFFFF)
    )


@functools.lru_cache(maxsize=8)
def zeros_gzip(n: int) -> bytes:
    """Gzip of `n` zero bytes, compressed a megabyte at a time (a bomb costs little to build)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts, left, crc = [], n, 0
    while left:
        piece = block[: min(left, len(block))]
        parts.append(c.compress(piece))
        crc = zlib.crc32(piece, crc)
        left -= len(piece)
    parts.append(c.flush())
    return (
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
        + b"".join(parts)
        + struct.pack("<II", crc, n & 0xFFFFFFFF)
    )
