"""Ray picking of stored foliage instances: chunk boxes first, then each instance's box."""

from __future__ import annotations

import math

import numpy as np

from model.foliage.volume import FoliageAddress, FoliageVolume

MIN_PICK_RADIUS = 0.3  # metres: thin things stay clickable


def ray_boxes(origin, direction, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Entry parameter of the ray into each box (n,), inf where it misses; 0 if it starts inside."""
    o = np.asarray(origin, np.float64).reshape(1, 3)
    d = np.asarray(direction, np.float64).reshape(1, 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
        a = (np.asarray(lo, np.float64) - o) * inv
        b = (np.asarray(hi, np.float64) - o) * inv
    # a zero direction component: inside the slab for all t, or never
    parallel = d == 0
    inside_slab = (o >= lo) & (o <= hi)
    a = np.where(parallel, np.where(inside_slab, -np.inf, np.inf), a)
    b = np.where(parallel, np.where(inside_slab, np.inf, -np.inf), b)
    t_in = np.max(np.minimum(a, b), axis=1)
    t_out = np.min(np.maximum(a, b), axis=1)
    hit = (t_out >= np.maximum(t_in, 0.0))
    return np.where(hit, np.maximum(t_in, 0.0), np.inf)


def instance_boxes(volume: FoliageVolume, key, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r, h = volume.extent_of(key[1])
    rec = records.astype(np.float64)
    s = np.abs(rec[:, 6])
    rad = np.maximum(r * s, MIN_PICK_RADIUS)
    top = np.maximum(h * s, MIN_PICK_RADIUS)
    lo = np.stack([rec[:, 0] - rad, rec[:, 1], rec[:, 2] - rad], axis=1)
    hi = np.stack([rec[:, 0] + rad, rec[:, 1] + top, rec[:, 2] + rad], axis=1)
    return lo, hi


def pick_instance(volume: FoliageVolume, origin, direction, max_t: float = math.inf,
                  types=None) -> tuple[FoliageAddress, float] | None:
    """The instance whose box the ray enters first (before `max_t`), with that distance."""
    d = np.asarray(direction, np.float64)
    d = d / np.linalg.norm(d)
    keys = [k for k in volume.keys() if types is None or k[1] in types]
    if not keys:
        return None
    boxes = np.stack([volume.bounds(*k) for k in keys])
    # chunk bounds hold positions grown by extent; the pick radius floor may reach a little further
    t_chunk = ray_boxes(origin, d, boxes[:, 0] - MIN_PICK_RADIUS, boxes[:, 1] + MIN_PICK_RADIUS)
    best: tuple[FoliageAddress, float] | None = None
    for k in np.argsort(t_chunk, kind="stable"):
        tc = float(t_chunk[k])
        if not tc <= max_t or (best is not None and tc > best[1]):
            break
        key = keys[int(k)]
        records = volume.records(*key)
        lo, hi = instance_boxes(volume, key, records)
        t = ray_boxes(origin, d, lo, hi)
        i = int(np.argmin(t))
        if t[i] <= max_t and (best is None or t[i] < best[1]):
            best = (FoliageAddress(key[0], key[1], i), float(t[i]))
    return best
