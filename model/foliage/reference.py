"""The scatter rules one candidate at a time: the plain reference the vectorised scatter must equal.

Deliberately naive (pure-Python hash, one terrain sample per call, a list of accepted points);
tests assert it agrees exactly with `FoliageScatter.consider`, and the bench measures the gap.
"""

from __future__ import annotations

import numpy as np

from model import portable_math as pmath
from model.foliage.hashing import Channel, pcg_scalar, type_key
from model.foliage.scatter import (
    PLACED,
    FoliageScatter,
    Refusal,
    Region,
    TypeOutcome,
    candidate_count,
    make_records,
)
from model.holes import hole_at

_MASK = 0xFFFFFFFF


def candidate_hash(seed: int, type_name: str, stamp: int, index: int) -> int:
    base = pcg_scalar(pcg_scalar(pcg_scalar(seed & _MASK) ^ type_key(type_name)) ^ (stamp & _MASK))
    return pcg_scalar(base ^ (index & _MASK))


def draw(h: int, channel: int) -> float:
    return (pcg_scalar(h ^ channel) >> 8) * (2.0 ** -24)


def consider_reference(scatter: FoliageScatter, type_name: str, region: Region,
                       others: np.ndarray | None = None) -> TypeOutcome:
    """Every candidate through the six rules in order, one at a time."""
    ftype = scatter.palette[type_name]
    terrain = scatter.terrain
    x0, z0, x1, z1 = region.box(terrain)
    n, clamped = candidate_count(ftype, region.area(terrain), region.strength, region.seed,
                                 type_name, region.index)
    stored = scatter.stored_positions((x0, z0, x1, z1), ftype.spacing) if ftype.spacing > 0 else None
    if stored is not None and others is not None and len(others):
        stored = np.concatenate([stored, np.asarray(others, np.float64)])
    spacing2 = ftype.spacing * ftype.spacing
    accepted: list[tuple[float, float]] = []
    refusals = np.zeros(n, np.int8)
    xz = np.zeros((n, 2))
    records = []
    missing = None
    if ftype.layer is not None and terrain.layer(ftype.layer.name) is None:
        missing = ftype.layer.name
    for i in range(n):
        h = candidate_hash(region.seed, type_name, region.index, i)
        x, z = (float(v) for v in region.positions(np.array([h], np.uint32), terrain)[0])
        xz[i] = (x, z)
        height = float(terrain.height_at(x, z))
        normal = terrain.normal_at(x, z)
        reason = PLACED
        if height != height:
            reason = Refusal.NO_GROUND
        elif hole_at(terrain, np.array([x]), np.array([z]))[0]:
            reason = Refusal.HOLE
        else:
            slope = float(pmath.degrees(pmath.arccos(np.clip(normal[1], -1.0, 1.0))))
            if not ftype.slope[0] <= slope <= ftype.slope[1]:
                reason = Refusal.SLOPE
            elif not ftype.altitude[0] <= height <= ftype.altitude[1]:
                reason = Refusal.ALTITUDE
            elif ftype.layer is not None and (missing or not _layer_ok(terrain, ftype, x, z)):
                reason = Refusal.LAYER
            elif ftype.spacing > 0 and _near(x, z, stored, spacing2):
                reason = Refusal.SPACING
            elif ftype.spacing > 0 and any((x - ax) * (x - ax) + (z - az) * (z - az) < spacing2
                                           for ax, az in accepted):
                reason = Refusal.SPACING
            elif not bool(region.reach(np.array([x]), np.array([z]), np.array([draw(h, Channel.THIN)]),
                                       terrain)[0]):
                reason = Refusal.BRUSH
        refusals[i] = reason
        if reason == PLACED:
            accepted.append((x, z))
            draws = {c: np.array([draw(h, c)]) for c in Channel}
            records.append(make_records(ftype, np.array([x]), np.array([z]), np.array([height]),
                                        normal[None, :], draws)[0])
    rec = np.array(records, np.float32).reshape(-1, 7)
    return TypeOutcome(type_name, xz, refusals, rec, missing, clamped)


def _layer_ok(terrain, ftype, x: float, z: float) -> bool:
    return float(terrain.layer_weight_at(ftype.layer.name, x, z)) >= ftype.layer.min_weight


def _near(x: float, z: float, points: np.ndarray, spacing2: float) -> bool:
    dx = x - points[:, 0]
    dz = z - points[:, 1]
    return bool((dx * dx + dz * dz < spacing2).any())
