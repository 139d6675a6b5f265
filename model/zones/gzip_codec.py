"""Gzip layer files that write back byte for byte.

A gzip file is a header (mtime, flags, file name…), a deflate stream and a trailer. Reading keeps
the header and the compression level it announces; an unchanged layer is written back as the
exact bytes it was read from (another encoder's deflate stream cannot be re-derived), and a
changed one is re-encoded with the same header and level.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass

from model.errors import FormatError

_FTEXT, _FHCRC, _FEXTRA, _FNAME, _FCOMMENT = 1, 2, 4, 8, 16
# mtime 0, no name, "unknown" OS: a file written from scratch is the same on every machine.
DEFAULT_HEADER = b"\x1f\x8b\x08\x00" + b"\x00\x00\x00\x00" + b"\x00\xff"
DEFAULT_LEVEL = 6


class TooLong(FormatError):
    """The content runs past the size the reader expects (inflating stopped there)."""


@dataclass(frozen=True)
class GzipSource:
    """How a layer was stored: its gzip header, deflate level, and the file's bytes and content digest."""

    header: bytes
    level: int
    original: bytes
    digest: bytes


def content_digest(data: bytes | memoryview) -> bytes:
    return hashlib.blake2b(data, digest_size=20).digest()


def parse_header(path: object, blob: bytes) -> tuple[bytes, int]:
    """(header bytes, deflate level implied by its XFL) of a gzip member starting at offset 0."""
    if len(blob) < 18:
        raise FormatError(path, 0, f"gzip file too short ({len(blob)} bytes)")
    if blob[:2] != b"\x1f\x8b":
        raise FormatError(path, 0, "not a gzip file (bad magic)")
    if blob[2] != 8:
        raise FormatError(path, 2, f"unsupported gzip compression method {blob[2]}")
    flags = blob[3]
    pos = 10
    if flags & _FEXTRA:
        if pos + 2 > len(blob):
            raise FormatError(path, pos, "gzip extra field runs past the end")
        (xlen,) = struct.unpack_from("<H", blob, pos)
        pos += 2 + xlen
    for bit in (_FNAME, _FCOMMENT):
        if flags & bit:
            end = blob.find(b"\x00", pos)
            if end < 0:
                raise FormatError(path, pos, "unterminated gzip name or comment")
            pos = end + 1
    if flags & _FHCRC:
        pos += 2
    if pos + 8 > len(blob):
        raise FormatError(path, pos, "gzip header runs past the end")
    xfl = blob[8]
    level = 9 if xfl == 2 else 1 if xfl == 4 else DEFAULT_LEVEL
    return blob[:pos], level


def claimed_size(blob: bytes) -> int:
    """The uncompressed size the trailer announces (of the last member, modulo 2**32)."""
    return struct.unpack_from("<I", blob, len(blob) - 4)[0] if len(blob) >= 4 else 0


# Inflating runs in steps of this many output bytes, so no step allocates more than this at once.
STEP = 1 << 20
# Any real zone layer fits in this (a 2048² plant layer is 28 MiB), whatever its ratio: an all-empty
# layer deflates about 1000:1, so the ratio alone cannot tell a bomb from an empty zone.
GRACE = 32 << 20
# Past GRACE the content may be at most this many times the compressed bytes read so far.
MAX_RATIO = 100


def ratio_error(path: object, content: int, compressed: int, where: str) -> FormatError | None:
    """The refusal for `content` bytes from `compressed` bytes when that is past the ratio bound."""
    if content > GRACE and content > MAX_RATIO * max(compressed, 1):
        return FormatError(path, None, f"{where} {content} bytes from {compressed} compressed bytes: "
                           f"more than {MAX_RATIO}:1 past {GRACE >> 20} MiB, refused as a gzip bomb")
    return None


def decompress(path: object, blob: bytes, expected: int) -> bytearray:
    """The content of every member, refusing content longer than `expected` (inflating stops one byte
    past it) and content that inflates past the ratio bound, before it is all inflated."""
    parse_header(path, blob)
    # An honest trailer gives a bomb away before anything is inflated (inflating would stop at
    # `expected` + 1 anyway, so only that much counts).
    error = ratio_error(path, min(claimed_size(blob), expected + 1), len(blob), "would inflate to")
    if error is not None:
        raise error
    out = bytearray()
    view = memoryview(blob)
    offset = 0
    while offset < len(blob):
        d = zlib.decompressobj(wbits=31)
        data = view[offset:]
        while not d.eof:
            want = min(STEP, expected + 1 - len(out))
            try:
                piece = d.decompress(data, want)
            except zlib.error as e:
                raise FormatError(path, offset, f"damaged gzip data: {e}") from None
            out += piece
            if len(out) > expected:
                raise TooLong(path, None, f"decompresses to more than the expected {expected} bytes "
                                  f"(its trailer says {claimed_size(blob)})")
            used = len(blob) - len(d.unconsumed_tail) - len(d.unused_data)
            error = ratio_error(path, len(out), used, "inflates to")
            if error is not None:
                raise error
            data = d.unconsumed_tail
            if not data and len(piece) < want:
                break  # the input is used up
        if not d.eof:
            raise FormatError(path, len(blob), f"gzip data ends early: decompressed {len(out)} bytes, "
                              f"expected {expected}")
        offset = len(blob) - len(d.unused_data)
        rest = d.unused_data
        if rest and rest[:2] != b"\x1f\x8b":
            if rest.strip(b"\x00"):
                raise FormatError(path, offset, "trailing bytes after the gzip data")
            break
    return out


def read_source(path: object, blob: bytes, content: bytes) -> GzipSource:
    header, level = parse_header(path, blob)
    return GzipSource(header, level, blob, content_digest(content))


def encode(content: bytes | memoryview, source: GzipSource | None = None) -> bytes:
    """Gzip bytes for `content`: the original file when the content is unchanged, else re-encoded."""
    if source is not None and content_digest(content) == source.digest:
        return source.original
    header = source.header if source is not None else DEFAULT_HEADER
    level = source.level if source is not None else DEFAULT_LEVEL
    c = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS, zlib.DEF_MEM_LEVEL, 0)
    body = c.compress(content) + c.flush()
    trailer = struct.pack("<II", zlib.crc32(content), len(content) & 0xFFFFFFFF)
    return header + body + trailer
