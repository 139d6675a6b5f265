"""FoliageStore: the binary instance file beside a scene (`<stem>.foliage.bin`).

Layout, little-endian:

    magic      8 bytes  b"BSCGFOL\\0"
    version    u32      1
    cell_size  f64      the cell size the volume had when written (reading re-cells anyway)
    type_count u32
    per type:  name_len u16, name (UTF-8), count u64, count × 28 bytes of records
               (7 × f32: x, y, z, yaw, pitch, roll, scale), chunks in sorted cell order
    crc32      u32      CRC-32 of every byte before it

Derived types are never written. A count the file cannot hold is refused before allocating.
The CRC-32 runs on a second thread beside the write or the parse (zlib releases the GIL).
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np

from model.atomic import atomic_write
from model.errors import FormatError, check_available
from model.foliage.volume import RECORD_BYTES, RECORD_SIZE, FoliageVolume

MAGIC = b"BSCGFOL\0"
VERSION = 1
SUFFIX = ".foliage.bin"
_HEADER = struct.Struct("<8sIdI")
_NAME_LEN = struct.Struct("<H")
_COUNT = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_THREAD_BYTES = 1 << 20  # below this a second thread costs more than it saves


def _layout(volume: FoliageVolume) -> list[tuple[bytes, list[np.ndarray]]]:
    """The file without its CRC: the header, then per stored type its prefix and chunk arrays."""
    palette = volume.palette
    names = [n for n in palette.names() if palette[n].stored and volume.count(n)]
    names += [n for n in volume.type_names() if n not in palette and volume.count(n)]
    parts: list[tuple[bytes, list[np.ndarray]]] = [
        (_HEADER.pack(MAGIC, VERSION, volume.cell_size, len(names)), [])]
    for name in names:
        raw = name.encode("utf-8")
        chunks = [np.ascontiguousarray(c.records, "<f4")
                  for _, c in sorted(volume.chunks(name), key=lambda kc: kc[0][0])]
        parts.append((_NAME_LEN.pack(len(raw)) + raw + _COUNT.pack(sum(len(c) for c in chunks)), chunks))
    return parts


def _pieces(parts: list[tuple[bytes, list[np.ndarray]]]) -> list[bytes | np.ndarray]:
    """Byte pieces in file order (contiguous arrays serve as buffers directly)."""
    return [p for prefix, chunks in parts for p in (prefix, *chunks)]


class _Crc:
    """CRC-32 of a sequence of buffers, on a second thread when they are large."""

    def __init__(self, pieces) -> None:
        self.value = 0
        self._pieces = pieces
        big = sum(memoryview(p).nbytes for p in pieces) >= _THREAD_BYTES
        self._thread = threading.Thread(target=self._run, daemon=True) if big else None
        if self._thread:
            self._thread.start()
        else:
            self._run()

    def _run(self) -> None:
        crc = 0
        for p in self._pieces:
            crc = zlib.crc32(p, crc)
        self.value = crc

    def result(self) -> int:
        if self._thread:
            self._thread.join()
        return self.value


class _Batcher:
    """Copies small pieces into one reused 4 MiB block and writes it whole: thousands of
    chunk-sized writes cost several times the bytes they carry, and one joined copy of the
    whole file costs a page fault per page."""

    SIZE = 4 << 20

    def __init__(self, f: BinaryIO) -> None:
        self.f = f
        self.block = bytearray(self.SIZE)
        self.view = memoryview(self.block)
        self.used = 0

    def write(self, piece: bytes | np.ndarray) -> None:
        data = memoryview(piece).cast("B")
        if self.used + len(data) > self.SIZE:
            self.flush()
        if len(data) >= self.SIZE:
            self.f.write(data)
            return
        self.view[self.used:self.used + len(data)] = data
        self.used += len(data)

    def flush(self) -> None:
        if self.used:
            self.f.write(self.view[:self.used])
            self.used = 0


def encode_store(volume: FoliageVolume) -> bytes:
    """The whole file as bytes (for the scene's side-file set)."""
    data = b"".join(p if isinstance(p, bytes) else p.tobytes() for p in _pieces(_layout(volume)))
    return data + _CRC.pack(zlib.crc32(data))


def _writer(volume: FoliageVolume) -> Callable[[BinaryIO], None]:
    def write(f: BinaryIO) -> None:
        parts = _layout(volume)
        crc = _Crc(_pieces(parts))  # over the chunk views, beside the joining below
        out = _Batcher(f)
        for prefix, chunks in parts:
            out.write(prefix)
            for chunk in chunks:
                out.write(chunk)
        out.flush()
        f.write(_CRC.pack(crc.result()))
    return write


def save_store(volume: FoliageVolume, path: str | Path) -> None:
    """Write the instance file atomically."""
    atomic_write(path, _writer(volume))


def decode_store(data: bytes | bytearray | memoryview, volume: FoliageVolume,
                 path: str | Path | None = None) -> dict[str, int]:
    """Parse an instance file into `volume` (re-celled to its cell size); returns counts per type.

    Everything is checked before the volume is touched, so a bad file leaves it as it was.
    """
    buf = memoryview(data).cast("B")
    size = len(buf)
    if size < _HEADER.size + _CRC.size:
        raise FormatError(path, 0, f"file too short for a foliage instance file ({size} bytes)")
    magic, version, cell_size, ntypes = _HEADER.unpack_from(buf, 0)
    if magic != MAGIC:
        raise FormatError(path, 0, "not a Boscage foliage instance file (bad magic)")
    if version != VERSION:
        raise FormatError(path, 8, f"unsupported foliage file version {version} (this build reads {VERSION})")
    if not (cell_size > 0 and np.isfinite(cell_size)):
        raise FormatError(path, 12, f"impossible cell size {cell_size}")
    end = size - _CRC.size
    pos = _HEADER.size
    # each type needs at least its name length and count
    check_available(path, 20, ntypes * (_NAME_LEN.size + _COUNT.size), end - pos, "type count")
    parts: list[tuple[str, np.ndarray]] = []
    for t in range(ntypes):
        check_available(path, pos, _NAME_LEN.size, end - pos, f"type {t} name length")
        (nlen,) = _NAME_LEN.unpack_from(buf, pos)
        pos += _NAME_LEN.size
        check_available(path, pos, nlen + _COUNT.size, end - pos, f"type {t} name")
        try:
            name = bytes(buf[pos:pos + nlen]).decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(path, pos, f"type {t} name is not UTF-8") from None
        if not name or any(name == n for n, _ in parts):
            raise FormatError(path, pos, f"empty or duplicate type name {name!r}")
        pos += nlen
        (count,) = _COUNT.unpack_from(buf, pos)
        pos += _COUNT.size
        if count > (end - pos) // RECORD_BYTES:
            raise FormatError(path, pos - _COUNT.size, f"type {name!r} claims {count} instances "
                              f"({count * RECORD_BYTES} bytes) but only {end - pos} bytes remain")
        nbytes = count * RECORD_BYTES
        rec = np.frombuffer(buf[pos:pos + nbytes], dtype="<f4").reshape(count, RECORD_SIZE)
        parts.append((name, rec))
        pos += nbytes
    if pos != end:
        raise FormatError(path, pos, f"{end - pos} unexpected bytes after the last type")
    crc = _Crc([buf[:end]])
    # Re-cell into a staging volume beside the CRC thread; the target is touched only once
    # every check has passed.
    staging = FoliageVolume(volume.palette, volume.cell_size)
    try:
        for name, rec in parts:
            if not np.isfinite(rec).all():
                raise FormatError(path, None, f"type {name!r} has a record with NaN or infinity")
            staging.add_grouped(name, rec, staging.group(rec), copy=not rec.flags.writeable,
                                addresses=False)
    finally:
        checksum = crc.result()
    if checksum != _CRC.unpack_from(buf, end)[0]:
        raise FormatError(path, end, "checksum mismatch (file damaged)")
    volume.absorb(staging)
    return {name: len(rec) for name, rec in parts}


def read_bytes(path: str | Path) -> np.ndarray:
    """The whole file in a writable uint8 array (so chunks can be views of it without a copy).

    A numpy buffer rather than a bytearray: large numpy allocations get huge pages, which
    saves most of the page faults of filling tens of megabytes.
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            f.seek(0)
            data = np.empty(size, np.uint8)
            got = f.readinto(memoryview(data))
    except FileNotFoundError:
        raise FormatError(path, None, "file not found") from None
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    if got != size:
        raise FormatError(path, got, "file changed while it was read")
    return data


def load_store(path: str | Path, volume: FoliageVolume) -> dict[str, int]:
    """Read an instance file into `volume`; one FormatError names the file and offset on any fault."""
    return decode_store(read_bytes(path), volume, path)
