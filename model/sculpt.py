"""Sculpt and layer-paint stamps: each reads only the brush's window of the grid.

A kernel computes a `Patch` (the window's slices, its old values and its new values) without
writing; `apply_patch` writes it and announces the change. A `TerrainStroke` strings stamps
into one drag and keeps the old and new values of the tiles it touched, for one undo step.
Work is proportional to the brush, never to the terrain.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import NamedTuple

import numpy as np

from model import portable_math as pmath
from model.brush import Brush
from model.reground import FoliageLift
from model.terrain import Terrain

HEIGHTS = None  # the target of a sculpt; a layer name is the target of a paint
TILE = 64  # grid points per side of an undo tile


class Patch(NamedTuple):
    """A rectangle of a grid: its slices, the values it held and the values it gets."""

    rows: slice
    cols: slice
    old: np.ndarray
    new: np.ndarray


# ---- the brush window ---------------------------------------------------------------------
def brush_window(terrain: Terrain, x: float, z: float, radius: float) -> tuple[slice, slice] | None:
    """Row and column slices of the grid points within `radius` of (x, z); None if none."""
    if not (math.isfinite(x) and math.isfinite(z) and radius >= 0):
        return None
    sp = terrain.spacing
    u, v = (x - terrain.origin[0]) / sp, (z - terrain.origin[1]) / sp
    r = radius / sp
    c0, c1 = max(0, math.ceil(u - r)), min(terrain.columns - 1, math.floor(u + r))
    r0, r1 = max(0, math.ceil(v - r)), min(terrain.rows - 1, math.floor(v + r))
    if c0 > c1 or r0 > r1:
        return None
    return slice(r0, r1 + 1), slice(c0, c1 + 1)


def window_influence(terrain: Terrain, brush: Brush, x: float, z: float
                     ) -> tuple[slice, slice, np.ndarray] | None:
    """The window under the brush and brush.influence at each of its grid points."""
    window = brush_window(terrain, x, z, brush.radius)
    if window is None:
        return None
    rows, cols = window
    gx = terrain.origin[0] + np.arange(cols.start, cols.stop) * terrain.spacing
    gz = terrain.origin[1] + np.arange(rows.start, rows.stop) * terrain.spacing
    distance = pmath.hypot(gx[None, :] - x, gz[:, None] - z)
    influence = brush.influence(distance)
    if not influence.any():
        return None
    return rows, cols, influence


def _height_patch(terrain: Terrain, rows: slice, cols: slice, new: np.ndarray) -> Patch:
    old = terrain.read_heights(rows, cols)
    return Patch(rows, cols, old, new.astype(np.float32))


# ---- sculpt kernels -------------------------------------------------------------------------
def raise_lower(terrain: Terrain, brush: Brush, x: float, z: float, amount: float = 1.0) -> Patch | None:
    """Raise by `amount` metres at full influence (negative lowers)."""
    w = window_influence(terrain, brush, x, z)
    if w is None:
        return None
    rows, cols, influence = w
    h = terrain.read_heights(rows, cols).astype(np.float64)
    return _height_patch(terrain, rows, cols, h + amount * influence)


def flatten(terrain: Terrain, brush: Brush, x: float, z: float, target: float) -> Patch | None:
    """Pull heights toward `target` (the height under the press) by the influence."""
    w = window_influence(terrain, brush, x, z)
    if w is None or not math.isfinite(target):
        return None
    rows, cols, influence = w
    h = terrain.read_heights(rows, cols).astype(np.float64)
    return _height_patch(terrain, rows, cols, h + influence * (target - h))


def smooth_radius_cells(terrain: Terrain, brush: Brush) -> int:
    """Half-width of the box blur: grows with the brush so a wide brush smooths visibly."""
    return int(min(8, max(1, round(brush.radius / terrain.spacing / 8))))


def smooth(terrain: Terrain, brush: Brush, x: float, z: float) -> Patch | None:
    """Blend heights toward their box-blurred neighbourhood by the influence."""
    w = window_influence(terrain, brush, x, z)
    if w is None:
        return None
    rows, cols, influence = w
    k = smooth_radius_cells(terrain, brush)
    blurred = _box_blur_window(terrain.heights_grid(), rows, cols, k)
    h = terrain.read_heights(rows, cols).astype(np.float64)
    return _height_patch(terrain, rows, cols, h + influence * (blurred - h))


def _box_blur_window(grid: np.ndarray, rows: slice, cols: slice, k: int) -> np.ndarray:
    """Box blur of half-width k over the window, reading k points beyond it (edges clamped)."""
    n_rows, n_cols = grid.shape
    r0, r1 = rows.start - k, rows.stop + k
    c0, c1 = cols.start - k, cols.stop + k
    block = grid[max(0, r0):min(n_rows, r1), max(0, c0):min(n_cols, c1)].astype(np.float64)
    block = np.pad(block, ((max(0, -r0), max(0, r1 - n_rows)), (max(0, -c0), max(0, c1 - n_cols))),
                   mode="edge")
    return _box1d(_box1d(block, k, 0), k, 1)


def _box1d(a: np.ndarray, k: int, axis: int) -> np.ndarray:
    c = np.cumsum(a, axis=axis)
    zero = np.zeros_like(np.take(c, [0], axis=axis))
    c = np.concatenate([zero, c], axis=axis)
    n = a.shape[axis] - 2 * k
    upper = np.take(c, np.arange(2 * k + 1, 2 * k + 1 + n), axis=axis)
    lower = np.take(c, np.arange(0, n), axis=axis)
    return (upper - lower) / (2 * k + 1)


def noise_scale(terrain: Terrain, brush: Brush) -> float:
    """Default feature size of the noise: a quarter of the brush, at least one grid step."""
    return max(terrain.spacing, brush.radius / 4.0)


def noise(terrain: Terrain, brush: Brush, x: float, z: float, seed: int, amount: float = 1.0,
          scale: float | None = None) -> Patch | None:
    """Add seeded value noise in -amount..amount, tied to world position (same seed, same bumps)."""
    w = window_influence(terrain, brush, x, z)
    if w is None:
        return None
    rows, cols, influence = w
    scale = noise_scale(terrain, brush) if scale is None else float(scale)
    gx = terrain.origin[0] + np.arange(cols.start, cols.stop) * terrain.spacing
    gz = terrain.origin[1] + np.arange(rows.start, rows.stop) * terrain.spacing
    n = value_noise(gx[None, :] / scale, gz[:, None] / scale, seed)
    h = terrain.read_heights(rows, cols).astype(np.float64)
    return _height_patch(terrain, rows, cols, h + amount * influence * n)


def hash_u32(seed: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """A 32-bit integer hash of (seed, i, j): the same on every machine, no global RNG."""
    i = np.asarray(i, np.int64).astype(np.uint32)
    j = np.asarray(j, np.int64).astype(np.uint32)
    s = np.uint32((int(seed) * 0xC2B2AE3D) & 0xFFFFFFFF)
    h = (i * np.uint32(0x9E3779B1)) ^ (j * np.uint32(0x85EBCA77)) ^ s
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x7FEB352D)
    h ^= h >> np.uint32(15)
    h *= np.uint32(0x846CA68B)
    h ^= h >> np.uint32(16)
    return h


def value_noise(u: np.ndarray, v: np.ndarray, seed: int) -> np.ndarray:
    """Smooth value noise in [-1, 1] on a unit lattice (broadcasts u against v)."""
    u, v = np.broadcast_arrays(np.asarray(u, np.float64), np.asarray(v, np.float64))
    i0, j0 = np.floor(u), np.floor(v)
    fu, fv = u - i0, v - j0
    fu, fv = fu * fu * (3 - 2 * fu), fv * fv * (3 - 2 * fv)
    i0, j0 = i0.astype(np.int64), j0.astype(np.int64)

    def corner(di: int, dj: int) -> np.ndarray:
        return (hash_u32(seed, i0 + di, j0 + dj) >> np.uint32(8)) * (2.0 / 2 ** 24) - 1.0

    top = corner(0, 0) * (1 - fu) + corner(1, 0) * fu
    bottom = corner(0, 1) * (1 - fu) + corner(1, 1) * fu
    return top * (1 - fv) + bottom * fv


# ---- layer paint ----------------------------------------------------------------------------
def paint_layer(terrain: Terrain, name: str, brush: Brush, x: float, z: float,
                erase: bool = False) -> Patch | None:
    """Add (or with `erase`, remove) up to 255 × influence of the named layer's weight."""
    layer = terrain.layer(name)
    if layer is None:
        raise KeyError(f"no terrain layer named {name!r}")
    w = window_influence(terrain, brush, x, z)
    if w is None:
        return None
    rows, cols, influence = w
    old = layer.read(rows, cols)
    delta = np.rint(influence * 255.0)
    new = old.astype(np.float64) + (-delta if erase else delta)
    return Patch(rows, cols, old, np.clip(new, 0, 255).astype(np.uint8))


# ---- writing --------------------------------------------------------------------------------
def _edit_stack(terrain: Terrain):
    """The terrain's edit layers when it has any: sculpting then writes into the selected one
    (or the base) and the heights are recomposited (`model.edit_layers`)."""
    stack = terrain.edits
    return stack if stack is not None and stack.active() else None


@contextmanager
def sculpting_into(terrain: Terrain, layer) -> Iterator[None]:
    """The edit layer `layer` (None: the base) as the sculpt target for the block, whatever is
    selected now: a stroke's undo and redo write where the stroke painted."""
    stack = _edit_stack(terrain)
    if stack is None:
        yield
        return
    before = stack.selected
    stack.selected = None if layer is None or stack.get(layer.name) is not layer else layer.name
    try:
        yield
    finally:
        stack.selected = before


def target_grid(terrain: Terrain, target: str | None):
    """The heights (target None) or the weights of the layer named `target`, to read and write
    by windows: an array, or the tiles of a paged terrain (edits copy only the tiles they meet).
    With edit layers, the heights' target is the selected edit layer's deltas or the base."""
    if target is HEIGHTS:
        stack = _edit_stack(terrain)
        return terrain.heights_grid() if stack is None else stack.sculpt_grid()
    layer = terrain.layer(target)
    if layer is None:
        raise KeyError(f"no terrain layer named {target!r}")
    return layer.grid()


def write_region(terrain: Terrain, target: str | None, rows: slice, cols: slice,
                 values: np.ndarray) -> None:
    """Write `values` into the target's window and announce which window changed."""
    target_grid(terrain, target)[rows, cols] = values
    if target is HEIGHTS:
        stack = _edit_stack(terrain)
        if stack is not None:
            stack.recomposite(rows, cols)  # announces the window
        else:
            terrain.heights_changed.emit(rows, cols)
    else:
        terrain.layer_weights_changed.emit(terrain.layer_index(target), rows, cols)


def target_values(terrain: Terrain, target: str | None, patch: Patch, undo: bool = False) -> np.ndarray:
    """What the target's window takes for the patch: its new values (old ones with `undo`), or,
    through edit layers, the base's or the selected layer's values that give them."""
    stack = _edit_stack(terrain) if target is HEIGHTS else None
    if stack is None or patch.old is None:
        return patch.old if undo else patch.new
    old, new = (patch.new, patch.old) if undo else (patch.old, patch.new)
    return stack.sculpt_values(patch.rows, patch.cols, old, new)


def apply_patch(terrain: Terrain, target: str | None, patch: Patch, undo: bool = False) -> None:
    """Write the patch's new values (or its old ones with `undo`)."""
    write_region(terrain, target, patch.rows, patch.cols, target_values(terrain, target, patch, undo))


# ---- a stroke: stamps merged into one undo step ---------------------------------------------
class TileUndo:
    """Old and new values of the fixed-size tiles an edit touched: undo memory follows the edit.

    `grid` is an array or a paged terrain's tiles (`PagedPlane`): anything sliced by windows."""

    def __init__(self, tile: int = TILE) -> None:
        self.tile = tile
        self._old: dict[tuple[int, int], np.ndarray] = {}
        self._new: dict[tuple[int, int], np.ndarray] = {}

    def _tile_slices(self, key: tuple[int, int], shape: tuple[int, int]) -> tuple[slice, slice]:
        t = self.tile
        return (slice(key[0] * t, min(shape[0], (key[0] + 1) * t)),
                slice(key[1] * t, min(shape[1], (key[1] + 1) * t)))

    def capture(self, grid, rows: slice, cols: slice) -> None:
        """Remember tiles meeting the window, before their first change."""
        t = self.tile
        for ti in range(rows.start // t, (rows.stop - 1) // t + 1):
            for tj in range(cols.start // t, (cols.stop - 1) // t + 1):
                if (ti, tj) not in self._old:
                    self._old[(ti, tj)] = np.array(grid[self._tile_slices((ti, tj), grid.shape)])

    def seal(self, grid) -> None:
        """Remember the current values of every captured tile as the redo state."""
        self._new = {key: np.array(grid[self._tile_slices(key, grid.shape)]) for key in self._old}

    def regions(self, grid_shape: tuple[int, int], new: bool) -> list[tuple[slice, slice, np.ndarray]]:
        values = self._new if new else self._old
        return [(*self._tile_slices(key, grid_shape), values[key]) for key in sorted(values)]

    def changed(self) -> bool:
        return any(not np.array_equal(self._old[k], self._new.get(k)) for k in self._old)

    @property
    def tile_count(self) -> int:
        return len(self._old)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._old.values()) + sum(a.nbytes for a in self._new.values())


class TerrainStroke:
    """One drag of a sculpt or paint tool on one target (heights, or a layer by name).

    Given a foliage volume, a sculpt stroke re-grounds the stored instances standing on the
    ground it reshapes, in the same undo step.
    """

    def __init__(self, terrain: Terrain, target: str | None = HEIGHTS, volume=None, follow=None) -> None:
        self.terrain = terrain
        self.target = target
        self.tiles = TileUndo()
        self.lift = FoliageLift(terrain, volume) if volume is not None and target is HEIGHTS else None
        # follow(target, rows, cols) at the end of the drag: edits that depend on the ground (spawners
        # re-running over it), returned as an object with undo() and redo(), or None; same undo step
        self.follow = follow
        self.followed = None
        self.stamps = 0
        self.touched: tuple[slice, slice] | None = None  # bounding window of every stamp
        self._sealed = True
        # the edit layer (None: the base) a sculpt writes into, kept by identity (renames follow)
        stack = _edit_stack(terrain) if target is HEIGHTS else None
        self.edit_layer = None if stack is None or stack.selected is None else stack.get(stack.selected)

    def _into(self):
        return sculpting_into(self.terrain, self.edit_layer) if self.target is HEIGHTS else nullcontext()

    def apply(self, patch: Patch | None) -> bool:
        """Write one stamp's patch, capturing first the tiles it is about to change."""
        if patch is None:
            return False
        with self._into():
            grid = target_grid(self.terrain, self.target)
            self.tiles.capture(grid, patch.rows, patch.cols)
            pending = self.lift.before(patch.rows, patch.cols) if self.lift else None
            write_region(self.terrain, self.target, patch.rows, patch.cols,
                         target_values(self.terrain, self.target, patch))
        if self.lift:
            self.lift.after(pending)
        self._sealed = False
        self.stamps += 1
        self.touched = union_window(self.touched, (patch.rows, patch.cols))
        return True

    def finish(self) -> None:
        """Fix the redo state; call when the drag ends (and before undo)."""
        with self._into():
            self.tiles.seal(target_grid(self.terrain, self.target))
        if self.lift:
            self.lift.seal()
        if self.follow is not None and self.touched is not None and self.followed is None:
            self.followed = self.follow(self.target, *self.touched)
        self._sealed = True

    def undo(self) -> None:
        if not self._sealed:
            self.finish()
        if self.followed is not None:
            self.followed.undo()
        self._write(new=False)
        if self.lift:
            self.lift.undo()

    def redo(self) -> None:
        self._write(new=True)
        if self.lift:
            self.lift.redo()
        if self.followed is not None:
            self.followed.redo()

    def _write(self, new: bool) -> None:
        with self._into():
            grid = target_grid(self.terrain, self.target)
            for rows, cols, values in self.tiles.regions(grid.shape, new):
                write_region(self.terrain, self.target, rows, cols, values)


def union_window(a: tuple[slice, slice] | None, b: tuple[slice, slice]) -> tuple[slice, slice]:
    """The (rows, cols) window holding both (`a` None: just `b`): what a stroke has touched so far."""
    if a is None:
        return b
    return (slice(min(a[0].start, b[0].start), max(a[0].stop, b[0].stop)),
            slice(min(a[1].start, b[1].start), max(a[1].stop, b[1].stop)))
