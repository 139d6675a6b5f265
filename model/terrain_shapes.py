"""Terrace and stamp: procedural edit layers, computed over the heights beneath them as float32
deltas (`model.edit_layers`). Portable arithmetic only (+, -, *, /, floor and
`model.portable_math`'s sin and cos), so the bytes are the same on every machine."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model import portable_math as pmath
from model.edit_layers import delta_grid
from model.formats import tiles as tiling
from model.paged import PagedGrid

Reader = Callable[[slice, slice], np.ndarray]
MODES = ("add", "max", "min", "replace")


def _write(grid: PagedGrid, rows: slice, cols: slice, values: np.ndarray) -> None:
    if np.any(values != 0):
        grid.write(rows, cols, values, 0)


def _windows(area: tuple[slice, slice], shape: tuple[int, int], tile: int):
    """The area cut along the grid's tiles: (rows, cols) windows, each within one tile."""
    rows, cols = area
    for i, j in tiling.tiles_meeting(rows, cols, tile):
        rs, cs = tiling.tile_slices(i, j, *shape, tile)
        yield (slice(max(rows.start, rs.start), min(rows.stop, rs.stop)),
               slice(max(cols.start, cs.start), min(cols.stop, cs.stop)))


# ---- terrace ---------------------------------------------------------------------------------
def terraced(h: np.ndarray, step: float, sharpness: float) -> np.ndarray:
    """Heights cut into steps `step` metres high: within each step the ground stays flat for the
    `sharpness` share of it (0: unchanged, 1: hard steps) and rises over the rest."""
    t = np.asarray(h, np.float64) / step
    n = np.floor(t)
    f = t - n
    if sharpness >= 1.0:
        g = np.zeros_like(f)
    else:
        g = np.clip((f - sharpness) / (1.0 - sharpness), 0.0, 1.0)
    return (n + g) * step


def terrace_deltas(beneath: Reader, shape: tuple[int, int], step: float, sharpness: float,
                   area: tuple[slice, slice] | None = None, mask: Reader | None = None) -> PagedGrid:
    """The deltas that terrace the heights beneath over `area` (weighted by `mask`, 0..255)."""
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"the terrace step must be a positive number of metres, got {step:g}")
    if not 0.0 <= sharpness <= 1.0:
        raise ValueError(f"the terrace sharpness must be from 0 to 1, got {sharpness:g}")
    area = area or (slice(0, shape[0]), slice(0, shape[1]))
    grid = delta_grid(*shape)
    for rows, cols in _windows(area, shape, grid.tile):
        below = beneath(rows, cols).astype(np.float64)
        change = terraced(below, step, sharpness) - below
        if mask is not None:
            change *= mask(rows, cols).astype(np.float64) / 255.0
        _write(grid, rows, cols, change.astype(np.float32))
    return grid


# ---- stamps ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stamp:
    """A heightmap placed at (x, z): `radius` metres from the centre to its longer side's edge,
    turned `rotation` degrees (counter-clockwise seen from above), its range mapped to 0..`height`
    metres. `mode`: add to the ground, keep the higher (max) or lower (min) of the ground and the
    stamp standing on the ground's height at its centre, or replace the ground with it."""

    x: float
    z: float
    radius: float
    rotation: float = 0.0
    height: float = 10.0
    mode: str = "add"

    def check(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown stamp mode {self.mode!r} (expected one of {', '.join(MODES)})")
        if not (math.isfinite(self.radius) and self.radius > 0):
            raise ValueError(f"the stamp radius must be a positive number of metres, got {self.radius:g}")
        if not all(math.isfinite(v) for v in (self.x, self.z, self.rotation, self.height)):
            raise ValueError("the stamp's place, rotation and height must be finite numbers")


def stamp_image(path: str | Path) -> np.ndarray:
    """A stamp's heightmap (PNG16, R16, NPY, EXR, TIFF, R32) as 0..1 float64 over its range."""
    from model.formats.heightmap import read_heightmap

    values = read_heightmap(path).heights.astype(np.float64)
    lo, hi = float(values.min()), float(values.max())
    return (values - lo) / (hi - lo) if hi > lo else np.ones_like(values)


def _sample(image: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Bilinear image values at column u, row v (inside the image)."""
    rows, cols = image.shape
    j0 = np.clip(np.floor(u).astype(np.int64), 0, max(cols - 2, 0))
    i0 = np.clip(np.floor(v).astype(np.int64), 0, max(rows - 2, 0))
    fu, fv = u - j0, v - i0
    j1, i1 = np.minimum(j0 + 1, cols - 1), np.minimum(i0 + 1, rows - 1)
    return (image[i0, j0] * (1 - fu) * (1 - fv) + image[i0, j1] * fu * (1 - fv)
            + image[i1, j0] * (1 - fu) * fv + image[i1, j1] * fu * fv)


def stamp_window(shape: tuple[int, int], spacing: float, origin: tuple[float, float],
                 stamp: Stamp) -> tuple[slice, slice] | None:
    """The grid window the stamp can cover (its rotated square's bounding circle)."""
    reach = stamp.radius * math.sqrt(2.0)
    u, v = (stamp.x - origin[0]) / spacing, (stamp.z - origin[1]) / spacing
    r = reach / spacing
    c0, c1 = max(0, math.floor(u - r)), min(shape[1], math.ceil(u + r) + 1)
    r0, r1 = max(0, math.floor(v - r)), min(shape[0], math.ceil(v + r) + 1)
    if c0 >= c1 or r0 >= r1:
        return None
    return slice(r0, r1), slice(c0, c1)


def stamp_deltas(beneath: Reader, shape: tuple[int, int], spacing: float, origin: tuple[float, float],
                 image: np.ndarray, stamp: Stamp) -> PagedGrid:
    """The deltas that put the stamp on the heights beneath."""
    stamp.check()
    grid = delta_grid(*shape)
    window = stamp_window(shape, spacing, origin, stamp)
    if window is None:
        return grid
    rows, cols = window
    below = beneath(rows, cols).astype(np.float64)
    gx = origin[0] + np.arange(cols.start, cols.stop, dtype=np.float64) * spacing - stamp.x
    gz = origin[1] + np.arange(rows.start, rows.stop, dtype=np.float64) * spacing - stamp.z
    angle = pmath.radians(np.float64(stamp.rotation))
    c, s = float(pmath.cos(angle)), float(pmath.sin(angle))
    # into the stamp's frame: turned back by the rotation, in units of its half-extent
    a = (c * gx[None, :] + s * gz[:, None])
    b = (-s * gx[None, :] + c * gz[:, None])
    h_img, w_img = image.shape
    longer = max(h_img, w_img)
    half_u, half_v = stamp.radius * w_img / longer, stamp.radius * h_img / longer
    pu, pv = a / half_u, b / half_v
    inside = (np.abs(pu) <= 1.0) & (np.abs(pv) <= 1.0)
    values = _sample(image, (np.clip(pu, -1, 1) + 1.0) * 0.5 * (w_img - 1),
                     (np.clip(pv, -1, 1) + 1.0) * 0.5 * (h_img - 1)) * stamp.height
    if stamp.mode == "add":
        new = below + values
    else:
        ref = _ground_at_centre(below, rows, cols, spacing, origin, stamp)
        if stamp.mode == "max":
            new = np.maximum(below, ref + values)
        elif stamp.mode == "min":
            new = np.minimum(below, ref + values)
        else:
            new = ref + values
    change = np.where(inside, new - below, 0.0)
    for r, cl in _windows(window, shape, grid.tile):
        _write(grid, r, cl, change[r.start - rows.start:r.stop - rows.start,
                                   cl.start - cols.start:cl.stop - cols.start].astype(np.float32))
    return grid


def _ground_at_centre(below: np.ndarray, rows: slice, cols: slice, spacing: float,
                      origin: tuple[float, float], stamp: Stamp) -> float:
    """The bilinear height beneath the stamp's centre (the nearest edge of the window outside)."""
    u = min(max((stamp.x - origin[0]) / spacing - cols.start, 0.0), below.shape[1] - 1.0)
    v = min(max((stamp.z - origin[1]) / spacing - rows.start, 0.0), below.shape[0] - 1.0)
    return float(_sample(below, np.array([u]), np.array([v]))[0])
