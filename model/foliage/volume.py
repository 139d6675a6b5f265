"""FoliageVolume: every instance of a scene, in chunks of one grid cell × one type.

A record is seven float32 `x, y, z, yaw, pitch, roll, scale` (rotation intrinsic Y→X→Z,
radians). Chunks are numpy arrays of shape (n, 7); each carries a change counter the renderer
compares to decide whether to re-upload it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, KeysView, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from model.events import Event
from model.foliage.palette import Palette

RECORD_FIELDS = ("x", "y", "z", "yaw", "pitch", "roll", "scale")
RECORD_SIZE = 7
RECORD_BYTES = RECORD_SIZE * 4
DEFAULT_CELL_SIZE = 32.0
# metres from the origin, as far as a terrain reaches (scene_file.MAX_EXTENT): beyond it a cell key
# (floor(x / cell size) as int64) would overflow, and float32 positions are metres apart anyway
MAX_COORDINATE = 1.0e7


def first_bad_instance(records: np.ndarray) -> tuple[int, str] | None:
    """(row, reason) of the first record that cannot be stored, else None: every value finite,
    x, y and z within ±MAX_COORDINATE, the scale above 0."""
    r = np.asarray(records, np.float32).reshape(-1, RECORD_SIZE)
    finite = np.isfinite(r).all(axis=1)
    near = (np.abs(r[:, :3]) <= MAX_COORDINATE).all(axis=1)
    bad = ~(finite & near & (r[:, 6] > 0))
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    if not finite[i]:
        which = [RECORD_FIELDS[k] for k in range(RECORD_SIZE) if not np.isfinite(r[i, k])]
        return i, f"{', '.join(which)} not a finite number"
    if not near[i]:
        return i, (f"position ({r[i, 0]:g}, {r[i, 1]:g}, {r[i, 2]:g}) lies beyond "
                   f"±{MAX_COORDINATE:g} m")
    return i, f"scale {r[i, 6]:g} is not above 0"

Cell = tuple[int, int]
ChunkKey = tuple[Cell, str]
# A selection: chunk → ascending, unique instance indices in it.
Selection = dict[ChunkKey, np.ndarray]


class FoliageAddress(NamedTuple):
    """(cell, type, index): valid only until that chunk changes."""

    cell: Cell
    type: str
    index: int


@dataclass(slots=True)
class Chunk:
    """One cell × one type: records (n, 7) float32 and a change counter."""

    records: np.ndarray
    version: int = 0
    _bounds: tuple[int, np.ndarray] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return int(self.records.shape[0])


@dataclass
class Removed:
    """What `remove` took out, per chunk: original ascending indices and their records."""

    parts: dict[ChunkKey, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __len__(self) -> int:
        return sum(len(i) for i, _ in self.parts.values())

    def addresses(self) -> list[FoliageAddress]:
        return [FoliageAddress(cell, t, int(i)) for (cell, t), (idx, _) in self.parts.items() for i in idx]

    def records(self) -> np.ndarray:
        if not self.parts:
            return np.empty((0, RECORD_SIZE), np.float32)
        return np.concatenate([r for _, r in self.parts.values()])


def empty_records(n: int = 0) -> np.ndarray:
    return np.empty((n, RECORD_SIZE), np.float32)


def as_records(records) -> np.ndarray:
    """Validate and convert to a C-contiguous (n, 7) float32 array."""
    arr = np.ascontiguousarray(records, dtype=np.float32)
    if arr.ndim == 1 and arr.size == RECORD_SIZE:
        arr = arr.reshape(1, RECORD_SIZE)
    if arr.ndim != 2 or arr.shape[1] != RECORD_SIZE:
        raise ValueError(f"records must have shape (n, {RECORD_SIZE}), got {arr.shape}")
    return arr


def group_addresses(addresses: Iterable[FoliageAddress] | Mapping[ChunkKey, object]) -> Selection:
    """Group addresses by chunk into sorted unique index arrays."""
    if isinstance(addresses, Mapping):
        return {key: np.unique(np.asarray(idx, dtype=np.int64)) for key, idx in addresses.items()}
    grouped: dict[ChunkKey, list[int]] = {}
    for cell, type_name, index in addresses:
        grouped.setdefault((tuple(cell), type_name), []).append(index)
    return {key: np.unique(np.asarray(idx, dtype=np.int64)) for key, idx in grouped.items()}


def addresses_of(selection: Mapping[ChunkKey, np.ndarray]) -> list[FoliageAddress]:
    return [FoliageAddress(cell, t, int(i)) for (cell, t), idx in selection.items() for i in idx]


class FoliageVolume:
    """Instances in square cells of `cell_size` metres, one chunk per (cell, type name)."""

    def __init__(self, palette: Palette | None = None, cell_size: float = DEFAULT_CELL_SIZE) -> None:
        if not cell_size > 0:
            raise ValueError("cell size must be positive")
        self.palette = palette if palette is not None else Palette()
        self.cell_size = float(cell_size)
        self._chunks: dict[ChunkKey, Chunk] = {}
        self._per_type: dict[str, int] = {}  # chunks per type name, so type_names() is cheap
        self._clock = 0  # versions come from one counter, so a re-created chunk never repeats one
        self._counts: dict[str, int] | None = None  # instances per type, until the next change
        self.changed = Event()  # (list of chunk keys whose records changed)
        self.mesh_folder = None  # where mesh file paths of the palette resolve (the scene's folder)

    # ---- cells ------------------------------------------------------------------------------
    def cell_of(self, x, z):
        """The cell holding (x, z): floors, so -0.5 is in cell -1 and +0.5 in cell 0."""
        cx = np.floor(np.asarray(x, np.float64) / self.cell_size).astype(np.int64)
        cz = np.floor(np.asarray(z, np.float64) / self.cell_size).astype(np.int64)
        if cx.ndim == 0:
            return (int(cx), int(cz))
        return cx, cz

    def cell_box(self, cell: Cell) -> tuple[float, float, float, float]:
        s = self.cell_size
        return (cell[0] * s, cell[1] * s, (cell[0] + 1) * s, (cell[1] + 1) * s)

    # ---- reading ----------------------------------------------------------------------------
    def __len__(self) -> int:
        # the records' lengths read directly: a call per chunk cost 0.1 s over a big import's 38,000
        return sum(c.records.shape[0] for c in self._chunks.values())

    def keys(self) -> list[ChunkKey]:
        return list(self._chunks)

    def chunk(self, cell: Cell, type_name: str) -> Chunk | None:
        return self._chunks.get((tuple(cell), type_name))

    def chunk_list(self, keys: Iterable[ChunkKey]) -> list[Chunk | None]:
        """The chunks of `keys` (as `keys()` names them: cells as tuples), None where absent, in one
        C-level pass (a call per chunk costs a quarter of a second on 216,000 chunks)."""
        return list(map(self._chunks.get, keys))

    def key_set(self) -> KeysView[ChunkKey]:
        """The chunk keys as a live, read-only set view (set operations without a copy)."""
        return self._chunks.keys()

    def key_cells(self, keys: list[ChunkKey]) -> np.ndarray:
        """(n, 2) int64 cells of `keys`, read without a Python call per key."""
        flat = chain.from_iterable(map(itemgetter(0), keys))
        return np.fromiter(flat, np.int64, 2 * len(keys)).reshape(-1, 2)

    def records(self, cell: Cell, type_name: str) -> np.ndarray:
        c = self._chunks.get((tuple(cell), type_name))
        return c.records if c is not None else empty_records()

    def chunks(self, type_name: str | None = None) -> Iterator[tuple[ChunkKey, Chunk]]:
        """Every non-empty chunk (optionally of one type), in a stable sorted order."""
        for key in sorted(self._chunks, key=lambda k: (k[1], k[0])):
            if type_name is None or key[1] == type_name:
                yield key, self._chunks[key]

    def cell_counts(self) -> dict[Cell, int]:
        """Instances per cell, all types together (no order: nothing sorted, for big volumes)."""
        counts: dict[Cell, int] = {}
        get = counts.get  # (a Python pass over every chunk: kept lean)
        for (cell, _), chunk in self._chunks.items():
            counts[cell] = get(cell, 0) + len(chunk.records)
        return counts

    def type_names(self) -> list[str]:
        """Names of types with at least one instance, sorted."""
        return sorted(self._per_type)

    def _new_chunk(self, key: ChunkKey, records: np.ndarray) -> Chunk:
        self._counts = None
        chunk = self._chunks[key] = Chunk(records)
        self._per_type[key[1]] = self._per_type.get(key[1], 0) + 1
        return chunk

    def _drop_chunk(self, key: ChunkKey) -> None:
        self._counts = None
        del self._chunks[key]
        self._per_type[key[1]] -= 1
        if not self._per_type[key[1]]:
            del self._per_type[key[1]]

    def counts(self) -> dict[str, int]:
        """Instances per type name (summed once per change: panels ask for them several times as a
        scene opens, and on 216,000 chunks each sum is a Python pass)."""
        if self._counts is None:
            out: dict[str, int] = {}
            for (_, t), c in self._chunks.items():
                out[t] = out.get(t, 0) + c.records.shape[0]
            self._counts = out
        return dict(self._counts)

    def count(self, type_name: str | None = None) -> int:
        if type_name is None:
            return len(self)
        return self.counts().get(type_name, 0)

    def records_by_type(self) -> dict[str, list[np.ndarray]]:
        """Every type's chunk records, chunks in sorted cell order (one pass, for saving)."""
        per_type: dict[str, list[tuple[Cell, np.ndarray]]] = {}
        for (cell, type_name), chunk in self._chunks.items():
            per_type.setdefault(type_name, []).append((cell, chunk.records))
        out = {}
        for type_name in sorted(per_type):
            runs = per_type[type_name]
            runs.sort(key=itemgetter(0))  # by cell (each once): no second lookup per chunk
            out[type_name] = [rec for _, rec in runs]
        return out

    def all_records(self, type_name: str) -> np.ndarray:
        """Every record of one type, chunks in sorted cell order."""
        parts = [c.records for _, c in self.chunks(type_name)]
        return np.concatenate(parts) if parts else empty_records()

    def at(self, addresses: Iterable[FoliageAddress] | Mapping[ChunkKey, object]) -> np.ndarray:
        """Records of the given addresses, grouped by chunk in sorted index order."""
        sel = group_addresses(addresses)
        parts = [self._chunks[key].records[idx] for key, idx in sel.items()]
        return np.concatenate(parts) if parts else empty_records()

    def extent_of(self, type_name: str) -> tuple[float, float]:
        ftype = self.palette.get(type_name)
        if ftype is None:
            return (0.0, 0.0)
        e = ftype.resolved_extent(self.mesh_folder)
        return (e.radius, e.height)

    def bounds(self, cell: Cell, type_name: str) -> np.ndarray:
        """(2, 3) min/max box of a chunk, grown by each instance's extent × scale."""
        chunk = self._chunks[(tuple(cell), type_name)]
        if chunk._bounds is not None and chunk._bounds[0] == chunk.version:
            return chunk._bounds[1]
        r, h = self.extent_of(type_name)
        rec = chunk.records.astype(np.float64)
        s = np.abs(rec[:, 6])
        lo = np.array([(rec[:, 0] - r * s).min(), rec[:, 1].min(), (rec[:, 2] - r * s).min()])
        hi = np.array([(rec[:, 0] + r * s).max(), (rec[:, 1] + h * s).max(), (rec[:, 2] + r * s).max()])
        box = np.stack([lo, hi])
        chunk._bounds = (chunk.version, box)
        return box

    # ---- queries (cells first, then instances) ---------------------------------------------
    def _keys_in_box(self, x0: float, z0: float, x1: float, z1: float,
                     types: Iterable[str] | None) -> list[ChunkKey]:
        wanted = None if types is None else set(types)
        c0 = self.cell_of(x0, z0)
        c1 = self.cell_of(x1, z1)
        ncells = (c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1)
        keys = []
        if ncells > len(self._chunks):
            for key in self._chunks:
                (cx, cz), t = key
                if c0[0] <= cx <= c1[0] and c0[1] <= cz <= c1[1] and (wanted is None or t in wanted):
                    keys.append(key)
            return sorted(keys, key=lambda k: (k[1], k[0]))
        names = self.type_names() if wanted is None else sorted(wanted)
        for t in names:
            for cx in range(c0[0], c1[0] + 1):
                for cz in range(c0[1], c1[1] + 1):
                    if ((cx, cz), t) in self._chunks:
                        keys.append(((cx, cz), t))
        return keys

    def _select(self, keys: Iterable[ChunkKey], test) -> Selection:
        out: Selection = {}
        for key in keys:
            rec = self._chunks[key].records
            idx = np.flatnonzero(test(rec[:, 0].astype(np.float64), rec[:, 2].astype(np.float64)))
            if idx.size:
                out[key] = idx
        return out

    def query_radius(self, x: float, z: float, radius: float,
                     types: Iterable[str] | None = None) -> Selection:
        """Instances whose position is within `radius` of (x, z) on the ground plane."""
        keys = self._keys_in_box(x - radius, z - radius, x + radius, z + radius, types)
        r2 = float(radius) ** 2
        return self._select(keys, lambda px, pz: (px - x) ** 2 + (pz - z) ** 2 <= r2)

    def query_box(self, lo, hi, types: Iterable[str] | None = None) -> Selection:
        """Instances inside an axis-aligned box: `lo`/`hi` are (x, z) or (x, y, z)."""
        lo = [float(v) for v in lo]
        hi = [float(v) for v in hi]
        if len(lo) == 2:
            lo, hi = [lo[0], -np.inf, lo[1]], [hi[0], np.inf, hi[1]]
        keys = list(self._keys_in_box(lo[0], lo[2], hi[0], hi[2], types))
        if not keys:
            return {}
        # every chunk's records tested at once: per chunk, numpy's call overhead is most of the cost
        recs = [self._chunks[key].records for key in keys]
        rec = np.concatenate(recs)[:, :3]
        inside = np.ones(len(rec), bool)
        for axis in range(3):
            inside &= (rec[:, axis] >= lo[axis]) & (rec[:, axis] <= hi[axis])
        ends = np.cumsum([len(r) for r in recs])
        hits = np.flatnonzero(inside)
        cut = np.searchsorted(hits, ends)
        out: Selection = {}
        start = 0
        for key, end, stop in zip(keys, ends.tolist(), cut.tolist(), strict=True):
            if stop > start:
                out[key] = hits[start:stop] - (end - len(self._chunks[key].records))
            start = stop
        return out

    def query_polygon(self, polygon, types: Iterable[str] | None = None) -> Selection:
        """Instances inside a closed (x, z) polygon (lasso), even-odd rule."""
        poly = np.asarray(polygon, np.float64).reshape(-1, 2)
        if len(poly) < 3:
            return {}
        keys = self._keys_in_box(poly[:, 0].min(), poly[:, 1].min(), poly[:, 0].max(),
                                 poly[:, 1].max(), types)
        return self._select(keys, lambda px, pz: points_in_polygon(px, pz, poly))

    def chunks_in_frustum(self, planes, types: Iterable[str] | None = None) -> list[ChunkKey]:
        """Chunks whose grown bounds are not wholly outside any plane (a, b, c, d): inside is ≥ 0.

        The renderer's cell-level cull; instances within a visible chunk are culled after.
        """
        planes = np.asarray(planes, np.float64).reshape(-1, 4)
        wanted = None if types is None else set(types)
        keys = [k for k in self._chunks if wanted is None or k[1] in wanted]
        if not keys:
            return []
        boxes = np.stack([self.bounds(*k) for k in keys])  # (n, 2, 3)
        inside = np.ones(len(keys), bool)
        for a, b, c, d in planes:
            # the box corner furthest along the plane normal decides
            px = np.where(a >= 0, boxes[:, 1, 0], boxes[:, 0, 0])
            py = np.where(b >= 0, boxes[:, 1, 1], boxes[:, 0, 1])
            pz = np.where(c >= 0, boxes[:, 1, 2], boxes[:, 0, 2])
            inside &= a * px + b * py + c * pz + d >= 0
        return sorted((k for k, ok in zip(keys, inside, strict=True) if ok), key=lambda k: (k[1], k[0]))

    def query_frustum(self, planes, types: Iterable[str] | None = None) -> Selection:
        """Instances whose position is inside every plane: cells first, then instances."""
        planes = np.asarray(planes, np.float64).reshape(-1, 4)
        out: Selection = {}
        for key in self.chunks_in_frustum(planes, types):
            rec = self._chunks[key].records.astype(np.float64)
            inside = np.ones(len(rec), bool)
            for a, b, c, d in planes:
                inside &= a * rec[:, 0] + b * rec[:, 1] + c * rec[:, 2] + d >= 0
            idx = np.flatnonzero(inside)
            if idx.size:
                out[key] = idx
        return out

    def positions_near(self, x0: float, z0: float, x1: float, z1: float,
                       types: Iterable[str] | None = None) -> np.ndarray:
        """(n, 2) x, z of instances in chunks overlapping a box, for spacing checks."""
        keys = self._keys_in_box(x0, z0, x1, z1, types)
        if not keys:
            return np.empty((0, 2), np.float64)
        parts = [self._chunks[k].records[:, (0, 2)] for k in keys]
        return np.concatenate(parts).astype(np.float64)

    # ---- editing ----------------------------------------------------------------------------
    def _touch(self, chunk: Chunk) -> None:
        self._counts = None  # (every change of a chunk's records touches it)
        self._clock += 1
        chunk.version = self._clock

    def add(self, type_name: str, records, copy: bool = True) -> Selection:
        """Append records, each to the chunk of its cell; returns the addresses they got.

        With `copy=False` a new chunk may keep a view of `records` (the caller gives it up).
        """
        rec = as_records(records)
        return self.add_grouped(type_name, rec, self.group(rec), copy)

    def group(self, records: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, list[Cell]]:
        """How `add` will split records into cells (computable before committing to the add)."""
        if len(records) == 0:
            return None, np.zeros(1, np.int64), []
        cx, cz = self.cell_of(records[:, 0], records[:, 2])
        return _group_by_cell(cx, cz)

    def add_grouped(self, type_name: str, rec: np.ndarray, grouping, copy: bool = True,
                    addresses: bool = True) -> Selection:
        """`add` with a grouping from `group(rec)`; `addresses=False` skips building the result."""
        order, starts, cells = grouping
        added: Selection = {}
        bounds = starts.tolist()
        for g, cell in enumerate(cells):
            a, b = bounds[g], bounds[g + 1]
            if order is None:  # already grouped: slices are views, no gather
                part = rec[a:b]
                owned = not copy
            else:
                part = rec[order[a:b]]
                owned = True
            key = (cell, type_name)
            chunk = self._chunks.get(key)
            if chunk is None:
                chunk = self._new_chunk(key, part if owned else part.copy())
                first = 0
            else:
                first = len(chunk)
                chunk.records = np.concatenate([chunk.records, part])
            self._touch(chunk)
            added[key] = np.arange(first, first + b - a, dtype=np.int64) if addresses else None
        if added:
            self.changed.emit(list(added))
        return added if addresses else {}

    def remove(self, addresses: Iterable[FoliageAddress] | Mapping[ChunkKey, object]) -> Removed:
        """Delete addresses: grouped by chunk, descending, one O(n) pass each; returns them."""
        sel = group_addresses(addresses)
        removed = Removed()
        for key, idx in sel.items():
            chunk = self._chunks.get(key)
            if chunk is None:
                raise IndexError(f"no chunk {key}")
            if idx.size == 0:
                continue
            if idx[0] < 0 or idx[-1] >= len(chunk):
                raise IndexError(f"address index out of range for chunk {key} of {len(chunk)}")
        for key, idx in sel.items():
            if idx.size == 0:
                continue
            chunk = self._chunks[key]
            keep = np.ones(len(chunk), bool)
            keep[idx[::-1]] = False  # descending: indices refer to the chunk before any deletion
            removed.parts[key] = (idx, chunk.records[idx].copy())
            if keep.any():
                chunk.records = chunk.records[keep]
                self._touch(chunk)
            else:
                self._drop_chunk(key)
        if removed.parts:
            self.changed.emit(list(removed.parts))
        return removed

    def restore(self, removed: Removed) -> None:
        """Exact inverse of `remove`: the records go back to the indices they had."""
        for key, (idx, rec) in removed.parts.items():
            chunk = self._chunks.get(key)
            old = chunk.records if chunk is not None else empty_records()
            total = len(old) + len(idx)
            out = np.empty((total, RECORD_SIZE), np.float32)
            mask = np.zeros(total, bool)
            mask[idx] = True
            out[mask] = rec
            out[~mask] = old
            if chunk is None:
                chunk = self._new_chunk(key, out)
            else:
                chunk.records = out
            self._touch(chunk)
        if removed.parts:
            self.changed.emit(list(removed.parts))

    def replace(self, selection: Mapping[ChunkKey, np.ndarray], records) -> np.ndarray:
        """Overwrite records in place (positions must stay in their cells); returns the old ones."""
        rec = as_records(records)
        sel = {k: np.asarray(v, np.int64) for k, v in selection.items()}
        n = sum(len(v) for v in sel.values())
        if len(rec) != n:
            raise ValueError(f"{n} addresses but {len(rec)} records")
        old_parts = []
        start = 0
        for key, idx in sel.items():
            part = rec[start:start + len(idx)]
            start += len(idx)
            cx, cz = self.cell_of(part[:, 0], part[:, 2])
            if len(part) and ((cx != key[0][0]) | (cz != key[0][1])).any():
                raise ValueError("a replaced record would leave its cell; remove and add instead")
            chunk = self._chunks[key]
            old_parts.append(chunk.records[idx].copy())
            chunk.records[idx] = part
            self._touch(chunk)
        if sel:
            self.changed.emit(list(sel))
        return np.concatenate(old_parts) if old_parts else empty_records()

    def add_runs(self, parts: Iterable[tuple[str, np.ndarray, np.ndarray, list[Cell]]],
                 copy: bool = True) -> None:
        """Bulk add of records already in runs of one cell, announced as one change.

        Per (type name, records, bounds, cells): run g is `records[bounds[g]:bounds[g + 1]]`, all
        in cell `cells[g]` (the caller guarantees it). With `copy=False` new chunks keep views of
        `records`. No addresses are built: loading uses it, one lean pass per chunk.
        """
        with collector_paused():
            keys = self._add_runs(parts, copy)
        if keys:
            self.changed.emit(list(keys))

    def _add_runs(self, parts, copy: bool) -> dict[ChunkKey, None]:
        chunks = self._chunks
        keys: dict[ChunkKey, None] = {}
        for type_name, rec, bounds, cells in parts:
            b = bounds.tolist() if isinstance(bounds, np.ndarray) else list(bounds)
            views = [rec[a:z] for a, z in zip(b[:-1], b[1:], strict=True)]
            if copy:
                views = [v.copy() for v in views]
            run_keys = list(zip(cells, repeat(type_name)))  # noqa: B905 (repeat is endless)
            if len(run_keys) != len(views):
                raise ValueError(f"{len(views)} runs but {len(run_keys)} cells")
            clock = self._clock
            # usually every chunk is new: built and added by C-level loops
            versions = range(clock + 1, clock + 1 + len(views))
            new = dict(zip(run_keys, map(Chunk, views, versions), strict=True))
            if len(new) == len(run_keys) and chunks.keys().isdisjoint(new):
                self._counts = None
                chunks.update(new)
                self._per_type[type_name] = self._per_type.get(type_name, 0) + len(new)
                self._clock = clock + len(new)
                keys.update(dict.fromkeys(new))
                continue
            for key, part in zip(run_keys, views, strict=True):
                chunk = chunks.get(key)
                if chunk is None:
                    chunk = self._new_chunk(key, part)
                else:
                    chunk.records = np.concatenate([chunk.records, part])
                self._touch(chunk)
                keys[key] = None
        return keys

    def absorb(self, other: FoliageVolume) -> None:
        """Take every instance of `other` (same cell size), which is left empty; chunks move, not copy."""
        if other.cell_size != self.cell_size:
            raise ValueError("absorb needs volumes with the same cell size")
        keys = list(other._chunks)
        for key in keys:
            theirs = other._chunks.pop(key)
            mine = self._chunks.get(key)
            if mine is None:
                mine = self._new_chunk(key, theirs.records)
            else:
                mine.records = np.concatenate([mine.records, theirs.records])
            self._touch(mine)
        other._per_type.clear()
        other._counts = None
        if keys:
            self.changed.emit(keys)

    def clear(self) -> None:
        keys = list(self._chunks)
        self._counts = None
        self._chunks.clear()
        self._per_type.clear()
        if keys:
            self.changed.emit(keys)

    def recelled(self, cell_size: float) -> FoliageVolume:
        """A new volume with the same instances indexed by cells of another size."""
        out = FoliageVolume(self.palette, cell_size)
        out.mesh_folder = self.mesh_folder
        for t in self.type_names():
            out.add(t, self.all_records(t))
        return out


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a bulk build of acyclic objects: a scene's load makes
    hundreds of thousands of chunks, and the collector would rescan every one of them several
    times as they come (a quarter of the load's time at 216,000 chunks)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _group_by_cell(cx: np.ndarray, cz: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, list[Cell]]:
    """Stable order grouping equal cells; group g is order[starts[g]:starts[g+1]].

    `order` is None when the input is already grouped in cell order (a file written cell by
    cell), so callers can slice instead of gathering.
    """
    n = len(cx)
    if n and cx.min() == cx.max() and cz.min() == cz.max():
        return None, np.array([0, n]), [(int(cx[0]), int(cz[0]))]
    key = (cx - cx.min()) * (int(cz.max() - cz.min()) + 1) + (cz - cz.min())
    if np.all(key[1:] >= key[:-1]):
        order, sk = None, key
    else:
        order = np.argsort(key, kind="stable")
        sk = key[order]
    starts = np.concatenate([[0], np.flatnonzero(sk[1:] != sk[:-1]) + 1, [n]])
    first = starts[:-1] if order is None else order[starts[:-1]]
    cells = list(zip(cx[first].tolist(), cz[first].tolist(), strict=True))
    return order, starts, cells


def points_in_polygon(px: np.ndarray, pz: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Even-odd point-in-polygon test, vectorised over points."""
    inside = np.zeros(np.shape(px), bool)
    n = len(poly)
    for i in range(n):
        ax, az = poly[i]
        bx, bz = poly[(i + 1) % n]
        crosses = (az > pz) != (bz > pz)
        with np.errstate(divide="ignore", invalid="ignore"):
            xcross = ax + (pz - az) * (bx - ax) / (bz - az)
        inside ^= crosses & (px < xcross)
    return inside
