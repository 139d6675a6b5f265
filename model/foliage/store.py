"""FoliageStore: the binary instance file beside a scene (`<stem>.foliage.<crc32>.bin`).

Layout, little-endian:

    magic      8 bytes  b"BSCGFOL\\0"
    version    u32      1
    cell_size  f64      the cell size the volume had when written (reading re-cells anyway)
    type_count u32
    per type:  name_len u16, name (UTF-8), count u64, count × 28 bytes of records
               (7 × f32: x, y, z, yaw, pitch, roll, scale), chunks in sorted cell order
    crc32      u32      CRC-32 of every byte before it

Derived types are never written. A count the file cannot hold is refused before allocating.

Speed (the budget: save + load within 2x raw numpy file I/O of the same bytes):
- the CRC-32 is ISA-L's when installed (the same function as zlib's, ~8x faster), else zlib's.
- saving gathers the chunks a batch at a time into a few reused 1 MiB blocks; a writer thread
  writes each block (with zlib: and adds it to the CRC) while the next is gathered. One buffer
  the size of the file costs page faults; thousands of chunk-sized writes cost far more than
  the bytes they carry.
- loading reads into one buffer whose first type's records are 64-byte aligned; chunks are views
  of it. One blocked pass per type checks finiteness, takes the CRC-32 and finds the runs of one
  cell of a file written in cell order (the usual case), in a few parts on threads whose CRCs
  are joined with `crc32_combine`; only a file written with other cells is sorted.
"""

from __future__ import annotations

import os
import queue
import struct
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO, NamedTuple

import numpy as np

try:  # ISA-L's CRC-32 (carry-less multiply) is the same function as zlib's, about 8x faster
    from isal.isal_zlib import crc32 as _crc32
    FAST_CRC = True
except ImportError:  # pragma: no cover - depends on the environment
    from zlib import crc32 as _crc32
    FAST_CRC = False

from model.atomic import atomic_write
from model.errors import FormatError, check_available
from model.foliage.volume import RECORD_BYTES, RECORD_SIZE, Cell, FoliageVolume, collector_paused

MAGIC = b"BSCGFOL\0"
VERSION = 1
SUFFIX = ".foliage.bin"  # the fixed name older saves used; scenes now name it by checksum
KIND = "foliage"  # the side-file kind in `<stem>.foliage.<crc32>.bin`
_HEADER = struct.Struct("<8sIdI")
_NAME_LEN = struct.Struct("<H")
_COUNT = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_THREAD_BYTES = 2 << 20  # below this, a second thread costs more than it saves

# ---- CRC-32 in pieces -----------------------------------------------------------------------

_POLY = 0xEDB88320  # the CRC-32 polynomial, reflected (bit 31 stands for x^0)


def _multmodp(a: int, b: int) -> int:
    """a × b modulo the CRC polynomial over GF(2), reflected bit order (a is never 0 here)."""
    m = 1 << 31
    p = 0
    while True:
        if a & m:
            p ^= b
            if not a & (m - 1):
                return p
        m >>= 1
        b = (b >> 1) ^ _POLY if b & 1 else b >> 1


_X2N = [1 << 30]  # x^(2^k) modulo the polynomial, k = 0..31
for _ in range(31):
    _X2N.append(_multmodp(_X2N[-1], _X2N[-1]))


@lru_cache(maxsize=64)
def _x8n(n: int) -> int:
    """x^(8n) modulo the polynomial: the operator that carries a CRC past n more bytes."""
    p = 1 << 31  # x^0
    k = 3  # 8n = n × 2^3
    while n:
        if n & 1:
            p = _multmodp(_X2N[k & 31], p)
        n >>= 1
        k += 1
    return p


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """CRC-32 of A + B from crc32(A), crc32(B) and len(B), in O(log len2) (zlib's method)."""
    if len2 < 0:
        raise ValueError("length must not be negative")
    if len2 == 0:
        return crc1
    return _multmodp(_x8n(len2), crc1) ^ crc2


# ---- writing --------------------------------------------------------------------------------

def _stored(volume: FoliageVolume) -> list[tuple[str, list[np.ndarray], np.ndarray]]:
    """(name, chunk arrays in sorted cell order, their cumulative counts) of every stored type
    with instances: palette order first, then types the palette does not know, by name."""
    by_type = volume.records_by_type()
    palette = volume.palette
    names = [n for n in palette.names() if n in by_type and palette[n].stored]
    names += [n for n in by_type if n not in palette]
    out = [(n, by_type[n], np.cumsum([len(c) for c in by_type[n]])) for n in names]
    return [t for t in out if t[2][-1]]


class _Plan(NamedTuple):
    header: bytes
    # per type: name length + name + count, chunk arrays, cumulative counts of the chunks
    types: list[tuple[bytes, list[np.ndarray], np.ndarray]]
    end: int  # size of the file without its CRC


def _plan(volume: FoliageVolume) -> _Plan:
    types = []
    for name, chunks, ends in _stored(volume):
        raw = name.encode("utf-8")
        types.append((_NAME_LEN.pack(len(raw)) + raw + _COUNT.pack(int(ends[-1])), chunks, ends))
    header = _HEADER.pack(MAGIC, VERSION, volume.cell_size, len(types))
    return _Plan(header, types, len(header) + sum(len(p) + int(e[-1]) * RECORD_BYTES for p, _, e in types))


class _Collect:
    """A file-like sink that writes into one preallocated buffer."""

    def __init__(self, size: int) -> None:
        self.buf = np.empty(size, np.uint8)
        self.pos = 0

    def write(self, data) -> None:
        view = memoryview(data).cast("B")
        self.buf[self.pos:self.pos + len(view)] = view
        self.pos += len(view)


def encode_with_crc(volume: FoliageVolume) -> tuple[np.ndarray, int]:
    """The whole file as a uint8 array, and its CRC-32 (the value in its last 4 bytes)."""
    plan = _plan(volume)
    sink = _Collect(plan.end + _CRC.size)
    crc = _write_blocks(sink, plan, threaded=False)  # type: ignore[arg-type]
    return sink.buf, crc


def encode_store(volume: FoliageVolume) -> bytes:
    """The whole file as bytes."""
    return encode_with_crc(volume)[0].tobytes()


_WRITE_BLOCK = 1 << 20  # bytes gathered, checked and written at a time: stays in the CPU cache


class _BlockOut:
    """Where `_write_blocks` sends each full block, in file order: adds it to the CRC and writes
    it, inline or (`threaded`) on a writer thread while the next block is gathered."""

    def __init__(self, f: BinaryIO, threaded: bool) -> None:
        self.f = f
        self.crc = 0
        self.error: BaseException | None = None
        self.free: queue.SimpleQueue[np.ndarray] = queue.SimpleQueue()
        for _ in range(3 if threaded else 1):
            self.free.put(np.empty(_WRITE_BLOCK, np.uint8))
        self.full: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, daemon=True) if threaded else None
        if self.thread:
            self.thread.start()

    def take(self) -> np.ndarray:
        """An empty block (waits until the writer has one back); the writer's error, if any."""
        block = self.free.get() if self.error is None else None
        if self.error is not None:
            raise self.error
        return block

    def send(self, data: np.ndarray, used: int, recycle: bool = True) -> None:
        """`data[:used]` comes next in the file; `recycle`: it is one of the blocks."""
        view = memoryview(data).cast("B")[:used]
        if self.thread is None or FAST_CRC:  # here, while the block is in this core's cache
            self.crc = _crc32(view, self.crc)
        if self.thread:
            self.full.put((data, used, recycle))
        else:
            self.f.write(view)
            if recycle:
                self.free.put(data)

    def _run(self) -> None:
        while (item := self.full.get()) is not None:
            data, used, recycle = item
            if self.error is None:
                try:
                    view = memoryview(data).cast("B")[:used]
                    if not FAST_CRC:  # zlib's CRC is slow: beside the gathering, not after it
                        self.crc = _crc32(view, self.crc)
                    self.f.write(view)
                except BaseException as e:  # raised in the gathering thread
                    self.error = e
            if recycle:
                self.free.put(data)
        self.free.put(None)  # type: ignore[arg-type]  # wakes a take() waiting after an error

    def finish(self) -> int:
        """Wait for every block sent; the CRC-32 of all of them."""
        if self.thread:
            self.full.put(None)
            self.thread.join()
        if self.error is not None:
            raise self.error
        return self.crc


def _write_blocks(f: BinaryIO, plan: _Plan, threaded: bool | None = None) -> int:
    """Write the file through a few reused blocks: chunks are gathered into a block a batch at a
    time, and each full block is added to the CRC and written while it is still in the cache,
    on a second thread for a large file (no buffer the size of the file, no thousands of
    chunk-sized writes). Returns the CRC-32 written at the end."""
    out = _BlockOut(f, threaded=plan.end >= _THREAD_BYTES if threaded is None else threaded)
    try:
        block = out.take()
        used = 0

        def flush() -> None:
            nonlocal block, used
            if used:
                out.send(block, used)
                block, used = out.take(), 0

        def put(data: bytes) -> None:
            nonlocal used
            if used + len(data) > _WRITE_BLOCK:
                flush()
            block[used:used + len(data)] = np.frombuffer(data, np.uint8)
            used += len(data)

        put(plan.header)
        for prefix, chunks, ends in plan.types:
            put(prefix)
            i = done = 0  # chunks written so far, and their records
            while i < len(chunks):
                room = (_WRITE_BLOCK - used) // RECORD_BYTES
                j = int(np.searchsorted(ends, done + room, side="right"))  # whole chunks that fit
                if j > i:
                    rows = int(ends[j - 1]) - done
                    np.concatenate(chunks[i:j], out=np.ndarray((rows, RECORD_SIZE), "<f4", buffer=block,
                                                               offset=used))
                    used += rows * RECORD_BYTES
                    done, i = int(ends[j - 1]), j
                elif used:
                    flush()
                else:  # a chunk larger than a block: straight from its own memory
                    chunk = np.ascontiguousarray(chunks[i], "<f4")
                    out.send(chunk, chunk.nbytes, recycle=False)
                    done, i = int(ends[i]), i + 1
        flush()
    except BaseException:
        try:
            out.finish()
        except BaseException:  # noqa: S110 - the first error is the one to report
            pass
        raise
    crc = out.finish()
    f.write(_CRC.pack(crc))
    return crc


def _writer(volume: FoliageVolume) -> Callable[[BinaryIO], None]:
    def write(f: BinaryIO) -> None:
        _write_blocks(f, _plan(volume))
    return write


def save_store(volume: FoliageVolume, path: str | Path) -> None:
    """Write the instance file atomically."""
    atomic_write(path, _writer(volume))


# ---- reading --------------------------------------------------------------------------------

def _parse(buf: memoryview, path) -> list[tuple[str, np.ndarray, int]]:
    """Check the file's structure and return (name, records view, offset of the records) per
    type; allocates nothing before a count is known to fit."""
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
    parts: list[tuple[str, np.ndarray, int]] = []
    for t in range(ntypes):
        check_available(path, pos, _NAME_LEN.size, end - pos, f"type {t} name length")
        (nlen,) = _NAME_LEN.unpack_from(buf, pos)
        pos += _NAME_LEN.size
        check_available(path, pos, nlen + _COUNT.size, end - pos, f"type {t} name")
        try:
            name = bytes(buf[pos:pos + nlen]).decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(path, pos, f"type {t} name is not UTF-8") from None
        if not name or any(name == n for n, _, _ in parts):
            raise FormatError(path, pos, f"empty or duplicate type name {name!r}")
        pos += nlen
        (count,) = _COUNT.unpack_from(buf, pos)
        pos += _COUNT.size
        if count > (end - pos) // RECORD_BYTES:
            raise FormatError(path, pos - _COUNT.size, f"type {name!r} claims {count} instances "
                              f"({count * RECORD_BYTES} bytes) but only {end - pos} bytes remain")
        nbytes = count * RECORD_BYTES
        rec = np.frombuffer(buf[pos:pos + nbytes], dtype="<f4").reshape(count, RECORD_SIZE)
        parts.append((name, rec, pos))
        pos += nbytes
    if pos != end:
        raise FormatError(path, pos, f"{end - pos} unexpected bytes after the last type")
    return parts


_SCAN_ROWS = 1 << 16  # records per block of the scan: its temporaries stay in the CPU cache
_SCAN_PARTS = max(2, min(4, os.cpu_count() or 2))  # parts of a large scan run at once


class _Call:
    """`fn(*args)` on a thread of its own; `result()` waits and returns or raises its outcome."""

    def __init__(self, fn: Callable, *args) -> None:
        self._outcome: tuple[bool, object] = (False, None)
        self._thread = threading.Thread(target=self._run, args=(fn, args), daemon=True)
        self._thread.start()

    def _run(self, fn: Callable, args: tuple) -> None:
        try:
            self._outcome = (True, fn(*args))
        except BaseException as e:  # raised again by result()
            self._outcome = (False, e)

    def result(self):
        self._thread.join()
        ok, value = self._outcome
        if not ok:
            raise value  # type: ignore[misc]
        return value


def _scan_part(records: np.ndarray, cell_size: float, lo: int, hi: int,
               prev: tuple[float, float] | None) -> tuple[bool, list[np.ndarray], list[np.ndarray], int]:
    """`_scan` of records[lo:hi]; `prev` is the cell before lo (None at the start).

    Returns (finite, where runs start, each run's cell as a (2, k) float array, per block, and
    the CRC-32 of the records' bytes)."""
    rows = min(hi - lo, _SCAN_ROWS)
    # index 0 of the cell buffers carries the cell before the block
    cx, cz = np.empty(rows + 1), np.empty(rows + 1)
    finite, change, other = np.empty((rows, RECORD_SIZE), bool), np.empty(rows, bool), np.empty(rows, bool)
    if prev is not None:
        cx[0], cz[0] = prev
    starts, heads, crc = [], [], 0
    for a in range(lo, hi, rows):
        block = records[a:min(hi, a + rows)]
        m = len(block)
        if not np.isfinite(block, out=finite[:m]).all():
            return False, [], [], 0
        crc = _crc32(block, crc)  # while the block is in the cache
        x, z = cx[1:m + 1], cz[1:m + 1]
        for column, cells in ((0, x), (2, z)):  # as cell_of: float64(position) / cell size, floored
            np.copyto(cells, block[:, column])  # a plain cast, then contiguous loops: faster than fused
            np.divide(cells, cell_size, out=cells)
            np.floor(cells, out=cells)
        c = np.not_equal(x, cx[:m], out=change[:m])
        c |= np.not_equal(z, cz[:m], out=other[:m])
        if a == lo and prev is None:
            c[0] = True
        i = np.flatnonzero(c)
        starts.append(i + a)
        heads.append(np.stack([x[i], z[i]]))
        cx[0], cz[0] = cx[m], cz[m]
    return True, starts, heads, crc


def _scan(records: np.ndarray, cell_size: float) -> tuple[bool, np.ndarray | None, list[Cell] | None, int]:
    """One blocked pass over C-contiguous `records`: are they finite, and if they are in
    ascending cell order, where do their runs of one cell start and which cells are they?

    Returns (finite, bounds, cells, CRC-32 of the records' bytes); bounds and cells are None when
    not finite or not in order. Cells are `FoliageVolume.cell_of`'s: floor of position / cell
    size, computed in float64. Records are in order iff the cells of successive runs go up (x up,
    or x equal and z up). A large array is scanned in a few parts at once (numpy and the CRC
    release the GIL), their CRCs joined with `crc32_combine`.
    """
    n = len(records)
    if n == 0:
        return True, np.zeros(1, np.int64), [], 0
    k = max(1, min(_SCAN_PARTS, n // _SCAN_ROWS)) if n * RECORD_BYTES >= _THREAD_BYTES else 1
    cuts = [i * n // k // _SCAN_ROWS * _SCAN_ROWS for i in range(k)] + [n]
    helpers = []
    for lo, hi in zip(cuts[1:-1], cuts[2:], strict=True):  # each part knows the cell before it
        prev = np.floor(np.divide(records[lo - 1, 0:3:2], cell_size, dtype=np.float64))
        helpers.append(_Call(_scan_part, records, cell_size, lo, hi, (float(prev[0]), float(prev[1]))))
    parts = [_scan_part(records, cell_size, 0, cuts[1], None)] + [h.result() for h in helpers]
    if not all(p[0] for p in parts):
        return False, None, None, 0
    crc = 0
    for part, lo, hi in zip(parts, cuts[:-1], cuts[1:], strict=True):
        crc = crc32_combine(crc, part[3], (hi - lo) * RECORD_BYTES)
    hx, hz = np.concatenate([h for p in parts for h in p[2]], axis=1)
    if not ((hx[1:] > hx[:-1]) | ((hx[1:] == hx[:-1]) & (hz[1:] > hz[:-1]))).all():
        return True, None, None, crc
    bounds = np.concatenate([*(s for p in parts for s in p[1]), [n]])
    with np.errstate(invalid="ignore"):  # as cell_of: beyond int64 is no real position
        cells = list(zip(hx.astype(np.int64).tolist(), hz.astype(np.int64).tolist(), strict=True))
    return True, bounds, cells, crc


def cell_runs(records: np.ndarray, cell_size: float) -> tuple[np.ndarray | None, np.ndarray, list[Cell]]:
    """Split finite `records` into runs of one cell of `cell_size`.

    Returns (order, bounds, cells): run g is `records[order][bounds[g]:bounds[g + 1]]` (order None:
    no reordering), in cell `cells[g]`, runs in ascending cell order and records in file order
    within a run. Cells are `FoliageVolume.cell_of`'s. A file written with the same cell size is
    in that order already: then one blocked pass compares neighbours. Otherwise one stable
    argsort of a cell key orders the records.
    """
    bounds, cells = _scan(np.ascontiguousarray(records), cell_size)[1:3]
    if bounds is not None:
        return None, bounds, cells  # type: ignore[return-value]
    return _sorted_runs(records, cell_size)


def _sorted_runs(records: np.ndarray, cell_size: float) -> tuple[np.ndarray, np.ndarray, list[Cell]]:
    """`cell_runs` for records not in cell order: one stable sort on a cell key."""
    cx = np.floor(np.divide(records[:, 0], cell_size, dtype=np.float64))
    cz = np.floor(np.divide(records[:, 2], cell_size, dtype=np.float64))
    x0, z0 = cx.min(), cz.min()
    width = cz.max() - z0 + 1
    if (cx.max() - x0 + 1) * width < 2.0 ** 52:  # the key is exact in float64
        order = np.argsort((cx - x0) * width + (cz - z0), kind="stable")
    else:
        order = np.lexsort((cz, cx))
    cx, cz = cx[order], cz[order]
    change = cx[1:] != cx[:-1]
    change |= cz[1:] != cz[:-1]
    heads = np.concatenate([[0], np.flatnonzero(change) + 1])
    with np.errstate(invalid="ignore"):
        cells = list(zip(cx[heads].astype(np.int64).tolist(), cz[heads].astype(np.int64).tolist(),
                         strict=True))
    return order, np.concatenate([heads, [len(records)]]), cells


def _decode(buf: memoryview, volume: FoliageVolume, path) -> dict[str, int]:
    """Check, checksum and re-cell; the volume is touched only once everything passed."""
    with collector_paused():  # a cell per run, a chunk per cell: 100,000s of small objects
        return _decode_runs(buf, volume, path)


def _decode_runs(buf: memoryview, volume: FoliageVolume, path) -> dict[str, int]:
    parts = _parse(buf, path)
    end = len(buf) - _CRC.size
    runs = []
    crc = pos = 0
    for name, rec, offset in parts:
        finite, bounds, cells, rec_crc = _scan(rec, volume.cell_size)
        if not finite:
            raise FormatError(path, None, f"type {name!r} has a record with NaN or infinity")
        # the CRC so far, the bytes before these records, then the records' own CRC from the scan
        crc = crc32_combine(_crc32(buf[pos:offset], crc), rec_crc, rec.nbytes)
        pos = offset + rec.nbytes
        if bounds is None:  # written with other cells: one sort
            order, bounds, cells = _sorted_runs(rec, volume.cell_size)
            rec = rec[order]
        elif not rec.flags.writeable:  # chunks must own writable records
            rec = rec.copy()
        runs.append((name, rec, bounds, cells))
    if _crc32(buf[pos:end], crc) != _CRC.unpack_from(buf, end)[0]:
        raise FormatError(path, end, "checksum mismatch (file damaged)")
    volume.add_runs(runs, copy=False)  # the chunks are views of the buffer read
    return {name: len(rec) for name, rec, _ in parts}


def decode_store(data: bytes | bytearray | memoryview | np.ndarray, volume: FoliageVolume,
                 path: str | Path | None = None) -> dict[str, int]:
    """Parse an instance file into `volume` (re-celled to its cell size); returns counts per type.

    Everything is checked before the volume is touched, so a bad file leaves it as it was.
    """
    return _decode(memoryview(data).cast("B"), volume, path)


def _first_records_offset(f) -> int:
    """Where the first type's records start in the file (0 if the header says nothing sensible)."""
    head = f.read(_HEADER.size + _NAME_LEN.size)
    f.seek(0)
    if len(head) < _HEADER.size + _NAME_LEN.size:
        return 0
    (nlen,) = _NAME_LEN.unpack_from(head, _HEADER.size)
    return _HEADER.size + _NAME_LEN.size + nlen + _COUNT.size


def _aligned_buffer(size: int, offset: int) -> np.ndarray:
    """A writable uint8 buffer of `size` bytes whose byte `offset` sits on a 64-byte boundary:
    the first type's records are then aligned, which numpy's vector loops need."""
    raw = np.empty(size + 64, np.uint8)
    shift = (-(raw.ctypes.data + offset)) % 64
    return raw[shift:shift + size]


def _read(path: Path) -> np.ndarray:
    """The whole file in one writable uint8 array: chunks can be views of it, no copy.

    A numpy buffer rather than a bytearray: large numpy allocations get huge pages, which saves
    most of the page faults of filling tens of megabytes.
    """
    try:
        with open(path, "rb", buffering=0) as f:
            size = os.fstat(f.fileno()).st_size
            data = _aligned_buffer(size, _first_records_offset(f))
            view = memoryview(data)
            got = 0
            while got < size and (n := f.readinto(view[got:])):
                got += n
            grew = got == size and f.read(1)
    except FileNotFoundError:
        raise FormatError(path, None, "file not found") from None
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    if got != size or grew:
        raise FormatError(path, got, "file changed while it was read")
    return data


def read_bytes(path: str | Path) -> np.ndarray:
    """The whole file in a writable uint8 array."""
    return _read(Path(path))


def load_store(path: str | Path, volume: FoliageVolume, expect_crc: int | None = None) -> dict[str, int]:
    """Read an instance file into `volume`; one FormatError names the file and offset on any fault.

    `expect_crc`: the CRC-32 the file must end with (its scene names it), checked before parsing.
    """
    path = Path(path)
    data = _read(path)
    if expect_crc is not None and (len(data) < _CRC.size
                                   or _CRC.unpack_from(data, len(data) - _CRC.size)[0] != expect_crc):
        raise FormatError(path, None, "foliage instance file does not match the scene that names it "
                          "(checksum)")
    return _decode(memoryview(data), volume, path)
