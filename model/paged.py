"""A grid held as tiles paged in from their files: the heights or weights of a scene that was
opened without reading its side files.

Each tile starts as a read-only `numpy.memmap` of its file (the OS reads its pages when first
touched) and becomes a private in-memory copy the first time it is written: copy-on-write per
tile. Window reads and writes, point gathers and per-tile min/max work on the tiles; a caller that
needs the whole grid as one array gets it from `full` (one copy of every tile, kept from then
on: the planes' owners switch to it, see `Terrain.heights_grid`). `assemblies` counts those
assemblies over every grid, so a test can tell that an editor path never made one.

A tile without a file (`PagedGrid.zeros`: a new layer) reads as zeros and takes memory only once
it is written.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

import numpy as np

from model.errors import FormatError
from model.formats import tiles as tiling

MAX_MAPS = 32  # tiles mapped at once per grid: 32 MiB of heights at most (a 16k² terrain has 1,089)
assemblies = 0  # whole grids assembled by `PagedGrid.full` in this process


def file_identity(st: os.stat_result) -> tuple[int, ...]:
    """What tells one file from another put in its place: device, inode, size, modification time."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class TileState(NamedTuple):
    """A tile as `PagedGrid.swap_tiles` moves it: its own values (None: what its file holds) and
    what is known of them per plane (None: not known)."""

    values: np.ndarray | None
    ranges: list | None = None
    sums: list | None = None
    counts: list | None = None


class PagedGrid:
    """A (planes, rows, columns) grid in `tile`-sample tiles; tile (i, j) first maps its file."""

    def __init__(self, planes: int, rows: int, columns: int, dtype, tile: int,
                 files: list[list[Path | None]], identities: dict | None = None) -> None:
        self.planes, self.rows, self.columns = planes, rows, columns
        self.dtype = np.dtype(dtype)
        self.tile = tile
        # files[i][j]: the file tile (i, j) holds until it is written (None: all zeros, no file)
        self.files = files
        # file_identity of each file when its bytes were checked: a file replaced since is refused
        self.identities = identities or {}
        # the tiles mapped now, least recently used first: a map's touched pages count as the
        # process's memory and it holds a file descriptor, so at most MAX_MAPS stay mapped
        self._maps: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()
        self._own: dict[tuple[int, int], np.ndarray] = {}  # tiles written since opening
        # per tile and plane: (min, max), as far as known (the opening pass fills it for heights)
        self.ranges: dict[tuple[int, int], list[tuple[float, float]]] = {}
        self.sums: dict[tuple[int, int], list[float]] = {}  # per tile and plane: sum of the values
        self.counts: dict[tuple[int, int], list[int]] = {}  # per tile and plane: values not zero
        self._zero: dict[tuple[int, int], np.ndarray] = {}  # a read-only zero tile per shape
        self._full: np.ndarray | None = None

    @classmethod
    def zeros(cls, planes: int, rows: int, columns: int, dtype, tile: int) -> PagedGrid:
        """A grid of zeros that holds no memory: a tile is made when first written (a new layer)."""
        n_i, n_j = tiling.tile_counts(rows, columns, tile)
        grid = cls(planes, rows, columns, dtype, tile, [[None] * n_j for _ in range(n_i)])
        for i, j, _, _ in tiling.tiles_of(rows, columns, tile):
            grid.sums[(i, j)] = [0] * planes
            grid.counts[(i, j)] = [0] * planes
            grid.ranges[(i, j)] = [(0.0, 0.0)] * planes
        return grid

    @property
    def shape(self) -> tuple[int, int]:
        return self.rows, self.columns

    def _slices(self, i: int, j: int) -> tuple[slice, slice]:
        return tiling.tile_slices(i, j, self.rows, self.columns, self.tile)

    def tile_array(self, i: int, j: int) -> np.ndarray:
        """Tile (i, j) as (planes, h, w): the private copy if written, else the read-only map."""
        if self._full is not None:
            rs, cs = self._slices(i, j)
            return self._full[:, rs, cs]
        own = self._own.get((i, j))
        return own if own is not None else self._file_tile(i, j)

    def _file_tile(self, i: int, j: int) -> np.ndarray:
        """What tile (i, j)'s file holds, mapped read-only (zeros where it has no file)."""
        key = (i, j)
        m = self._maps.get(key)
        if m is None:
            rs, cs = self._slices(i, j)
            shape = (self.planes, rs.stop - rs.start, cs.stop - cs.start)
            if self.files[i][j] is None:  # never written: zeros, one shared read-only tile
                zero = self._zero.get(shape[1:])
                if zero is None:
                    zero = np.zeros(shape, self.dtype)
                    zero.flags.writeable = False
                    self._zero[shape[1:]] = zero
                return zero
            try:
                known = self.identities.get(key)
                if known is not None and file_identity(os.stat(self.files[i][j])) != known:
                    raise OSError("another file stands under its name")
                m = np.memmap(self.files[i][j], dtype=self.dtype, mode="r", shape=shape)
            except (OSError, ValueError) as e:  # moved, deleted or cut short since the opening
                why = getattr(e, "strerror", None) or e
                raise FormatError(self.files[i][j], None, "cannot read this tile any more (changed "
                                  f"since the scene was opened): {why}") from None
            self._maps[key] = m
            if len(self._maps) > MAX_MAPS:
                self._maps.popitem(last=False)
        else:
            self._maps.move_to_end(key)
        return m

    def swap_tiles(self, tiles: dict[tuple[int, int], TileState]) -> dict[tuple[int, int], TileState]:
        """Put each tile's state in place and return what it held: a whole-grid replace and its
        undo move tile arrays in and out, copying none (an array is taken as it is, and owned by
        the grid from then on; a state without one reads its file again)."""
        out: dict[tuple[int, int], TileState] = {}
        for key, state in tiles.items():
            stats = (self.ranges.pop(key, None), self.sums.pop(key, None), self.counts.pop(key, None))
            if self._full is not None:  # assembled meanwhile: the values are copied in and out
                rs, cs = self._slices(*key)
                out[key] = TileState(np.array(self._full[:, rs, cs]), *stats)
                self._full[:, rs, cs] = (state.values if state.values is not None
                                         else self._file_tile(*key))
                continue
            out[key] = TileState(self._own.pop(key, None), *stats)
            if state.values is not None:
                self._own[key] = state.values
                self._maps.pop(key, None)
            for known, value in zip((self.ranges, self.sums, self.counts), state[1:], strict=True):
                if value is not None:
                    known[key] = value
        return out

    @property
    def is_full(self) -> bool:
        return self._full is not None

    def held_tiles(self) -> set[tuple[int, int]]:
        """Tiles with values of their own (a file or a private copy; every tile once assembled):
        the others read as zeros in a grid made by `zeros`."""
        if self._full is not None:
            return {(i, j) for i, j, _, _ in tiling.tiles_of(self.rows, self.columns, self.tile)}
        return {(i, j) for i, row in enumerate(self.files) for j, f in enumerate(row)
                if f is not None} | set(self._own)

    def holds(self, i: int, j: int) -> bool:
        """Whether tile (i, j) has values of its own (see `held_tiles`)."""
        return self._full is not None or self.files[i][j] is not None or (i, j) in self._own

    def snapshot(self) -> PagedGrid:
        """A grid holding these values now that later writes to either leave the other as it is:
        it maps the same files and copies only the tiles written since they were opened."""
        if self._full is not None:
            out = PagedGrid(self.planes, self.rows, self.columns, self.dtype, self.tile,
                            [[None] * len(row) for row in self.files])
            out._full = self._full.copy()
            return out
        out = PagedGrid(self.planes, self.rows, self.columns, self.dtype, self.tile,
                        [list(row) for row in self.files], dict(self.identities))
        out._own = {key: tile.copy() for key, tile in self._own.items()}
        for known, mine in ((out.ranges, self.ranges), (out.sums, self.sums), (out.counts, self.counts)):
            known.update({key: list(v) for key, v in mine.items()})
        return out

    def unchanged_file(self, i: int, j: int) -> Path | None:
        """The file tile (i, j) still matches byte for byte (None once it has been written, or
        once the whole grid is assembled and may have been written anywhere, or if it has none)."""
        return None if (i, j) in self._own or self._full is not None else self.files[i][j]

    @property
    def written_tiles(self) -> int:
        return len(self._own)

    def read(self, rows: slice, cols: slice, plane: int | None = None) -> np.ndarray:
        """A copy of the window: (planes, h, w), or (h, w) of one plane."""
        r0, r1, c0, c1 = rows.start, rows.stop, cols.start, cols.stop
        out = np.empty((self.planes if plane is None else 1, r1 - r0, c1 - c0), self.dtype)
        if r1 > r0 and c1 > c0:
            for i, j in tiling.tiles_meeting(rows, cols, self.tile):
                rs, cs = self._slices(i, j)
                a0, a1, b0, b1 = max(r0, rs.start), min(r1, rs.stop), max(c0, cs.start), min(c1, cs.stop)
                src = self.tile_array(i, j)
                block = src[:, a0 - rs.start:a1 - rs.start, b0 - cs.start:b1 - cs.start]
                out[:, a0 - r0:a1 - r0, b0 - c0:b1 - c0] = block if plane is None else block[plane:plane + 1]
        return out if plane is None else out[0]

    def write(self, rows: slice, cols: slice, values: np.ndarray, plane: int | None = None) -> None:
        """Write the window (of one plane, or of all); each tile it meets is copied first."""
        r0, r1, c0, c1 = rows.start, rows.stop, cols.start, cols.stop
        values = np.asarray(values)
        if r1 <= r0 or c1 <= c0:
            return
        if plane is not None:
            values = np.broadcast_to(values, (r1 - r0, c1 - c0))[None]
        else:
            values = np.broadcast_to(values, (self.planes, r1 - r0, c1 - c0))
        if self._full is not None:
            target = self._full[:, rows, cols] if plane is None else self._full[plane:plane + 1, rows, cols]
            target[...] = values
            return
        for i, j in tiling.tiles_meeting(rows, cols, self.tile):
            key = (i, j)
            own = self._own.get(key)
            if own is None:
                own = np.array(self.tile_array(i, j), copy=True)
                self._own[key] = own
                self._maps.pop(key, None)  # the map is no longer needed: its pages can go
            rs, cs = self._slices(i, j)
            a0, a1, b0, b1 = max(r0, rs.start), min(r1, rs.stop), max(c0, cs.start), min(c1, cs.stop)
            target = own[:, a0 - rs.start:a1 - rs.start, b0 - cs.start:b1 - cs.start]
            if plane is not None:
                target = target[plane:plane + 1]
            target[...] = values[:, a0 - r0:a1 - r0, b0 - c0:b1 - c0]
            self.ranges.pop(key, None)
            self.sums.pop(key, None)
            self.counts.pop(key, None)

    def gather(self, plane: int, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Values at integer points (r, c) of one plane (any matching shapes)."""
        r, c = np.broadcast_arrays(np.asarray(r, np.int64), np.asarray(c, np.int64))
        shape = r.shape
        r, c = r.ravel(), c.ravel()
        out = np.empty(r.shape, self.dtype)
        if not r.size:
            return out.reshape(shape)
        n_j = tiling.tile_counts(self.rows, self.columns, self.tile)[1]
        key = (r // self.tile) * n_j + c // self.tile
        # grouped by tile with one sort (a ray's points run through many tiles: a mask per tile
        # would cost points x tiles)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        cuts = np.flatnonzero(ks[1:] != ks[:-1]) + 1
        for a, b in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [len(ks)]]), strict=True):
            i, j = divmod(int(ks[a]), n_j)
            sel = order[a:b]
            tile = self.tile_array(i, j)[plane].view(np.ndarray)  # a plain view: no memmap wrapping
            out[sel] = tile[r[sel] - i * self.tile, c[sel] - j * self.tile]
        return out.reshape(shape)

    def take(self, rows: np.ndarray, cols: np.ndarray, plane: int | None = None) -> np.ndarray:
        """The grid at rows x cols (as `a[np.ix_(rows, cols)]`; index arrays in ascending order,
        repeats allowed): (planes, len(rows), len(cols)), or (len(rows), len(cols)) of one plane.
        Reads only the tiles the indices fall in, each by a slice where the indices are evenly
        spaced (a coarse level's stride), so a strided read of a big grid stays cheap."""
        rows, cols = np.asarray(rows, np.int64).ravel(), np.asarray(cols, np.int64).ravel()
        planes = range(self.planes) if plane is None else range(plane, plane + 1)
        out = np.empty((len(planes), len(rows), len(cols)), self.dtype)
        if len(rows) and len(cols):
            if np.any(np.diff(rows) < 0) or np.any(np.diff(cols) < 0):
                raise ValueError("take: indices must be in ascending order")
            if rows[0] < 0 or cols[0] < 0 or rows[-1] >= self.rows or cols[-1] >= self.columns:
                raise IndexError("take: index outside the grid")
            n_i, n_j = tiling.tile_counts(self.rows, self.columns, self.tile)
            rb = np.searchsorted(rows, np.arange(n_i + 1) * self.tile)
            cb = np.searchsorted(cols, np.arange(n_j + 1) * self.tile)
            row_parts = [(i, rb[i], rb[i + 1], _index(rows[rb[i]:rb[i + 1]] - i * self.tile))
                         for i in range(n_i) if rb[i + 1] > rb[i]]
            col_parts = [(j, cb[j], cb[j + 1], _index(cols[cb[j]:cb[j + 1]] - j * self.tile))
                         for j in range(n_j) if cb[j + 1] > cb[j]]
            ps = slice(planes.start, planes.stop)
            for i, a, b, ri in row_parts:
                for j, c, d, ci in col_parts:
                    src = self.tile_array(i, j)[ps]
                    if isinstance(ri, slice) or isinstance(ci, slice):
                        block = src[:, ri, :][:, :, ci]
                    else:
                        block = src[:, ri[:, None], ci[None, :]]
                    out[:, a:b, c:d] = block
        return out if plane is None else out[0]

    def tile_sum(self, i: int, j: int, plane: int = 0) -> float:
        """Sum of one tile's plane (exact, as an integer for integer grids): kept until written."""
        known = self.sums.get((i, j))
        if known is None:
            a = self.tile_array(i, j)
            known = [int_sum(a[p]) if a.dtype.kind in "ub" else float(a[p].sum(dtype=np.float64))
                     for p in range(self.planes)]
            self.sums[(i, j)] = known
        return known[plane]

    def tile_nonzero(self, i: int, j: int, plane: int = 0) -> int:
        """Values not zero in one tile's plane: kept from the opening pass, or counted once."""
        known = self.counts.get((i, j))
        if known is None:
            a = self.tile_array(i, j)
            known = [int(np.count_nonzero(a[p])) for p in range(self.planes)]
            self.counts[(i, j)] = known
        return known[plane]

    def nonzero(self, plane: int = 0) -> int:
        """Values not zero in a plane over every tile (per tile, each counted once until written)."""
        tiles = tiling.tiles_of(self.rows, self.columns, self.tile)
        return sum(self.tile_nonzero(i, j, plane) for i, j, _, _ in tiles)

    def total(self, plane: int = 0) -> float:
        """Sum of a plane over every tile (each tile's sum computed once, again only once written)."""
        tiles = tiling.tiles_of(self.rows, self.columns, self.tile)
        return sum(self.tile_sum(i, j, plane) for i, j, _, _ in tiles)

    def tile_range(self, i: int, j: int, plane: int = 0) -> tuple[float, float]:
        """(min, max) of one tile's plane: kept from the opening pass, or computed once."""
        known = self.ranges.get((i, j))
        if known is None:
            a = self.tile_array(i, j)
            known = [(float(a[p].min()), float(a[p].max())) for p in range(self.planes)]
            self.ranges[(i, j)] = known
        return known[plane]

    def minmax(self, plane: int = 0) -> tuple[float, float]:
        ranges = [self.tile_range(i, j, plane)
                  for i, j, _, _ in tiling.tiles_of(self.rows, self.columns, self.tile)]
        return min(r[0] for r in ranges), max(r[1] for r in ranges)

    def full(self) -> np.ndarray:
        """The whole grid as one (planes, rows, columns) array, assembled on the first call (one
        copy of every tile) and kept; the maps and private tiles are dropped then."""
        global assemblies
        if self._full is None:
            assemblies += 1
            out = np.empty((self.planes, self.rows, self.columns), self.dtype)
            for i, j, rs, cs in tiling.tiles_of(self.rows, self.columns, self.tile):
                out[:, rs, cs] = self.tile_array(i, j)
                self._maps.pop((i, j), None)  # unmapped at once: the copy is all that stays resident
            self._own.clear()
            self.ranges.clear()  # written through the array from now on: no tile keeps track
            self.sums.clear()
            self.counts.clear()
            self._zero.clear()
            self._full = out
        return self._full


def int_sum(a: np.ndarray) -> int:
    """Exact sum of an unsigned array: in 32 bits where it cannot overflow (numpy's vectorised
    loop, six times the 64-bit one's speed on a tile of weights), else in 64."""
    top = 1 if a.dtype.kind == "b" else int(np.iinfo(a.dtype).max)
    if a.size * top < 2 ** 32:
        return int(a.sum(dtype=np.uint32))
    return int(a.sum(dtype=np.uint64))


def _index(idx: np.ndarray) -> slice | np.ndarray:
    """Sorted indices as a slice where they are evenly spaced and distinct, else as they are."""
    if len(idx) == 1:
        return slice(int(idx[0]), int(idx[0]) + 1)
    step = int(idx[1] - idx[0])
    if step > 0 and np.all(np.diff(idx) == step):
        return slice(int(idx[0]), int(idx[-1]) + 1, step)
    return idx


def take(grid, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """`grid[np.ix_(rows, cols)]` of a 2-D array or a `PagedPlane` (ascending indices): a copy,
    read by slices where the indices are evenly spaced."""
    if isinstance(grid, PagedPlane):
        return grid.grid.take(rows, cols, grid.plane)
    rows, cols = np.asarray(rows, np.int64).ravel(), np.asarray(cols, np.int64).ravel()
    if not len(rows) or not len(cols):
        return np.empty((len(rows), len(cols)), grid.dtype)
    ri, ci = _index(rows), _index(cols)
    if isinstance(ri, slice) and isinstance(ci, slice):
        return np.array(grid[ri, ci], copy=True)
    return grid[ri][:, ci] if isinstance(ri, slice) else grid[ri[:, None], cols[None, :]]


class PagedPlane:
    """One plane of a PagedGrid, sliced like a 2-D array by windows (`grid[rows, cols]`)."""

    def __init__(self, grid: PagedGrid, plane: int) -> None:
        self.grid, self.plane = grid, plane

    @property
    def shape(self) -> tuple[int, int]:
        return self.grid.shape

    @property
    def dtype(self) -> np.dtype:
        return self.grid.dtype

    def _window(self, key) -> tuple[slice, slice]:
        rows, cols = key
        r = slice(*rows.indices(self.grid.rows)[:2])
        c = slice(*cols.indices(self.grid.columns)[:2])
        if rows.step not in (None, 1) or cols.step not in (None, 1):
            raise IndexError("a paged grid is read and written by windows")
        return r, c

    def __getitem__(self, key) -> np.ndarray:
        return self.grid.read(*self._window(key), plane=self.plane)

    def __setitem__(self, key, values) -> None:
        self.grid.write(*self._window(key), values, plane=self.plane)
