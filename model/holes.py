"""Terrain holes (caves, tunnel mouths): a mask over the height grid, 255 where a sample is a hole.

A grid cell is a hole when any of its four corners is one: its two triangles are neither drawn,
picked nor exported, and no foliage grows on it. The mask is tiled like the paint layers and
takes memory only where painted; a terrain without holes has none (`terrain.holes` is None).
Stored beside the scene by `model.formats.holes_file`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from model import portable_math as pmath
from model.paged import PagedPlane
from model.sculpt import brush_window
from model.terrain import Terrain, blank_weights

HOLE = 255


class HolePatch(NamedTuple):
    """One hole stroke: the window and the mask it held and holds, for undo and redo."""

    rows: slice
    cols: slice
    old: np.ndarray
    new: np.ndarray
    created: bool  # the terrain had no mask before


def mask_of(terrain: Terrain, create: bool = False) -> PagedPlane | None:
    if terrain.holes is None and create:
        terrain.holes = blank_weights(terrain.rows, terrain.columns)
    return terrain.holes


def paint_holes(terrain: Terrain, x: float, z: float, radius: float, erase: bool = False) -> HolePatch | None:
    """Mark (or with `erase` clear) the samples within `radius` metres of (x, z); None when
    nothing changes."""
    if not (math.isfinite(radius) and radius > 0):
        raise ValueError(f"the hole brush radius must be a positive number of metres, got {radius:g}")
    window = brush_window(terrain, x, z, radius)
    if window is None:
        return None
    rows, cols = window
    gx = terrain.origin[0] + np.arange(cols.start, cols.stop) * terrain.spacing
    gz = terrain.origin[1] + np.arange(rows.start, rows.stop) * terrain.spacing
    within = pmath.hypot(gx[None, :] - x, gz[:, None] - z) <= radius
    created = terrain.holes is None
    if created and erase:
        return None
    mask = mask_of(terrain, create=True)
    old = mask[rows, cols]
    new = np.where(within, 0 if erase else HOLE, old).astype(np.uint8)
    if np.array_equal(old, new):
        if created:
            terrain.holes = None
        return None
    patch = HolePatch(rows, cols, old, new, created)
    apply_patch(terrain, patch)
    return patch


def apply_patch(terrain: Terrain, patch: HolePatch, undo: bool = False) -> None:
    mask = mask_of(terrain, create=True)
    mask[patch.rows, patch.cols] = patch.old if undo else patch.new
    if undo and patch.created:
        terrain.holes = None
    terrain.holes_changed.emit(patch.rows, patch.cols)


def has_holes(terrain: Terrain) -> bool:
    return terrain.holes is not None and terrain.holes.grid.nonzero(0) > 0


def sample_mask(terrain: Terrain, rows: slice, cols: slice) -> np.ndarray:
    """The mask's window (zeros for a terrain without holes)."""
    if terrain.holes is None:
        return np.zeros((rows.stop - rows.start, cols.stop - cols.start), np.uint8)
    return terrain.holes[rows, cols]


def cell_holes(terrain: Terrain, rows: slice, cols: slice) -> np.ndarray:
    """Per grid cell of the window (one fewer each way): True where any corner is a hole."""
    m = sample_mask(terrain, rows, cols) > 0
    return m[:-1, :-1] | m[1:, :-1] | m[:-1, 1:] | m[1:, 1:]


def cells_are_holes(terrain: Terrain, ci: np.ndarray, cj: np.ndarray) -> np.ndarray:
    """True for each cell (column ci, row cj) with a hole at any corner."""
    hit = np.zeros(np.shape(ci), bool)
    if terrain.holes is None:
        return hit
    grid, plane = terrain.holes.grid, terrain.holes.plane
    for dj, di in ((0, 0), (0, 1), (1, 0), (1, 1)):
        hit |= grid.gather(plane, cj + dj, ci + di) > 0
    return hit


def instances_in_holes(volume, terrain: Terrain, box: tuple[float, float, float, float]) -> dict:
    """The stored instances (a `FoliageVolume` selection) inside the box standing in a hole."""
    selection = volume.query_box((box[0], box[1]), (box[2], box[3]))
    out = {}
    for key, idx in selection.items():
        rec = volume.records(*key)[idx]
        hit = hole_at(terrain, rec[:, 0].astype(np.float64), rec[:, 2].astype(np.float64))
        if hit.any():
            out[key] = idx[hit]
    return out


def hole_at(terrain: Terrain, x, z) -> np.ndarray:
    """True where (x, z) lies in a hole cell (a corner of its cell is a hole)."""
    x = np.asarray(x, np.float64)
    z = np.asarray(z, np.float64)
    if terrain.holes is None:
        return np.zeros(np.broadcast(x, z).shape, bool)
    inside, i0, j0, _fu, _fv = terrain._grid_coords(x, z)
    return cells_are_holes(terrain, i0, j0) & inside
