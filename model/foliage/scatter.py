"""FoliageScatter: a brush stamp (or a fill region) becomes instances, and every refusal is named.

Candidate *i* of a type in a stamp draws its position and randomness from
`hashing.candidate_hashes(seed, type, stamp index, i)`, never from iteration order, so an
undone-and-redone stroke yields the same forest. A region has `density × strength × area / 100 m²`
candidates (the fraction rounded up or down by a hash, so density holds on average) spread
uniformly over it: a stamp's disc of `π r²`, a lasso's polygon, a layer's painted samples. The
brush's falloff then thins them (`BRUSH`), so the density at the centre is exactly the type's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from model import portable_math as pmath
from model.brush import Brush
from model.foliage import hashing
from model.foliage.foliage_type import FoliageType
from model.foliage.hashing import Channel
from model.foliage.neighbours import PAIR_BLOCK, any_within, count_candidate_pairs, pairs_within
from model.foliage.volume import FoliageVolume, Removed, Selection, points_in_polygon
from model.formats.tiles import TILE, tiles_of
from model.formats.tiles import tile_slices as tiles_slices
from model.holes import hole_at
from model.terrain import Terrain

PLACED = 0
POLYGON_TRIES = 8  # hashed tries for a lasso candidate to land inside its polygon
MAX_CANDIDATES = 2_000_000  # per type per stamp; beyond this the count is clamped (and says so)
WINDOW = TILE  # a layer fill reads the layer in windows this many samples a side (a scene's tiles)


class Refusal(IntEnum):
    """Why a candidate was not placed, in the order the rules are applied."""

    NO_GROUND = 1
    SLOPE = 2
    ALTITUDE = 3
    LAYER = 4
    SPACING = 5
    BRUSH = 6
    HOLE = 7  # numbered last (codes are stored), applied right after NO_GROUND


REFUSAL_WORDS = {
    Refusal.NO_GROUND: "no ground",
    Refusal.SLOPE: "on the wrong slope",
    Refusal.ALTITUDE: "outside the altitude band",
    Refusal.LAYER: "not on the layer",
    Refusal.SPACING: "too close",
    Refusal.BRUSH: "outside the brush",
    Refusal.HOLE: "in a hole",
}


# ---- regions: where candidates may land --------------------------------------------------------
@dataclass(frozen=True)
class Stamp:
    """One brush dab: centre (x, z), radius, falloff fraction, strength, stroke seed, stamp index."""

    center: tuple[float, float]
    radius: float
    falloff: float = 0.5
    strength: float = 1.0
    seed: int = 0
    index: int = 0
    brush: Brush | None = None  # its falloff curve, when the stamp comes from the shared brush

    @classmethod
    def from_brush(cls, brush: Brush, center: tuple[float, float], seed: int = 0, index: int = 0) -> Stamp:
        """A stamp with the shared brush's radius, falloff, strength and curve."""
        return cls((float(center[0]), float(center[1])), brush.radius, brush.falloff, brush.strength,
                   seed, index, brush)

    def box(self, terrain: Terrain | None = None) -> tuple[float, float, float, float]:
        x, z = self.center
        r = self.radius
        return (x - r, z - r, x + r, z + r)

    def area(self, terrain: Terrain | None = None) -> float:
        """The brush's disc, π r² (m²)."""
        return math.pi * self.radius * self.radius

    def positions(self, hashes: np.ndarray, terrain: Terrain | None = None) -> np.ndarray:
        """(n, 2) uniform points in the disc from each candidate's X (radius²) and Z (angle) draws."""
        d = self.radius * np.sqrt(hashing.draw(hashes, Channel.X))
        a = 2.0 * np.pi * hashing.draw(hashes, Channel.Z)
        return np.stack([self.center[0] + d * pmath.cos(a), self.center[1] + d * pmath.sin(a)], axis=-1)

    def weight(self, x, z) -> np.ndarray:
        """Falloff weight 0..1: 1 inside the inner radius, smoothstep to 0 at the rim."""
        dx = np.asarray(x, np.float64) - self.center[0]
        dz = np.asarray(z, np.float64) - self.center[1]
        d = np.sqrt(dx * dx + dz * dz)
        if self.brush is not None:
            return np.where(d <= self.radius, self.brush.weight(d), 0.0)
        return falloff_weight(d, self.radius, self.falloff)

    def reach(self, x, z, thin, terrain: Terrain | None = None) -> np.ndarray:
        """True where the brush reaches: inside the radius and not thinned by the falloff."""
        return np.asarray(thin) < self.weight(x, z)


def falloff_weight(d, radius: float, falloff: float) -> np.ndarray:
    d = np.asarray(d, np.float64)
    if not radius > 0:
        return np.zeros_like(d)
    f = min(max(float(falloff), 0.0), 1.0)
    inner = radius * (1.0 - f)
    if f > 0:
        with np.errstate(over="ignore"):  # a vanishing falloff band is a hard edge
            t = np.clip((radius - d) / (radius * f), 0.0, 1.0)
        w = t * t * (3.0 - 2.0 * t)
    else:
        w = np.ones_like(d)
    w = np.where(d <= inner, 1.0, w)
    return np.where(d <= radius, w, 0.0)


@dataclass(frozen=True)
class PolygonRegion:
    """A lasso: a closed (x, z) polygon; everything inside is reached."""

    polygon: tuple[tuple[float, float], ...]
    seed: int = 0
    index: int = 0
    strength: float = 1.0

    def box(self, terrain: Terrain | None = None) -> tuple[float, float, float, float]:
        p = np.asarray(self.polygon, np.float64)
        return (p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max())

    def area(self, terrain: Terrain | None = None) -> float:
        """The polygon's area (shoelace), m²."""
        p = np.asarray(self.polygon, np.float64)
        if len(p) < 3:
            return 0.0
        x, z = p[:, 0], p[:, 1]
        # fsum: correctly rounded in any order (BLAS's dot accumulates differently per CPU)
        return abs(math.fsum(x * np.roll(z, -1)) - math.fsum(z * np.roll(x, -1))) / 2.0

    def positions(self, hashes: np.ndarray, terrain: Terrain | None = None) -> np.ndarray:
        """(n, 2) uniform points in the polygon: the first of a few hashed tries in its box that
        lands inside (a candidate whose every try misses keeps its last and is refused `BRUSH`)."""
        x0, z0, x1, z1 = self.box()
        poly = np.asarray(self.polygon, np.float64)
        hashes = np.asarray(hashes, np.uint32)
        x = x0 + (x1 - x0) * hashing.draw(hashes, Channel.X)
        z = z0 + (z1 - z0) * hashing.draw(hashes, Channel.Z)
        todo = np.flatnonzero(~points_in_polygon(x, z, poly))
        for attempt in range(1, POLYGON_TRIES):
            if not todo.size:
                break
            h = hashes[todo]
            tx = x0 + (x1 - x0) * hashing.draw(h, Channel.RETRY + 2 * attempt)
            tz = z0 + (z1 - z0) * hashing.draw(h, Channel.RETRY + 2 * attempt + 1)
            x[todo], z[todo] = tx, tz
            todo = todo[~points_in_polygon(tx, tz, poly)]
        return np.stack([x, z], axis=-1)

    def reach(self, x, z, thin, terrain: Terrain | None = None) -> np.ndarray:
        poly = np.asarray(self.polygon, np.float64)
        return points_in_polygon(np.asarray(x, np.float64), np.asarray(z, np.float64), poly)


@dataclass(frozen=True)
class LayerRegion:
    """A whole painted terrain layer: reached where its weight is at least `min_weight`."""

    layer: str
    min_weight: float = 0.5
    seed: int = 0
    index: int = 0
    strength: float = 1.0

    def box(self, terrain: Terrain | None = None) -> tuple[float, float, float, float]:
        return terrain.bounds()

    def _painted_rows(self, terrain: Terrain) -> np.ndarray | None:
        """Per row and tile column (`WINDOW` samples wide), how many samples reach `min_weight`:
        read window by window (a paged layer's tiles), never the whole layer at once."""
        layer = terrain.layer(self.layer)
        if layer is None:
            return None
        threshold = self.min_weight * 255.0
        n_j = -(-terrain.columns // WINDOW)
        per = np.zeros((terrain.rows, n_j), np.int64)
        for _, j, rs, cs in tiles_of(terrain.rows, terrain.columns, WINDOW):
            per[rs, j] = np.count_nonzero(layer.read(rs, cs) >= threshold, axis=1)
        return per

    def area(self, terrain: Terrain | None = None) -> float:
        """The painted area: one sample spacing squared per sample painted enough (m²)."""
        per = self._painted_rows(terrain)
        return (0.0 if per is None else float(per.sum())) * terrain.spacing * terrain.spacing

    def _samples(self, terrain: Terrain, per: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) of the k-th painted sample in row-major order (as `flatnonzero` of the
        whole layer numbers them), reading only the windows the k fall in, each once."""
        n_j = per.shape[1]
        ends = np.cumsum(per.ravel())  # row-major over (row, window column): k's row and window
        at = np.searchsorted(ends, k, side="right")
        rank = k - (ends[at] - per.ravel()[at])  # among that row's painted samples in the window
        row, j = np.divmod(at, n_j)
        col = np.empty_like(k)
        threshold = self.min_weight * 255.0
        layer = terrain.layer(self.layer)
        key = (row // WINDOW) * n_j + j
        order = np.argsort(key, kind="stable")
        keys, first = np.unique(key[order], return_index=True)
        for w, a, b in zip(keys, first, np.append(first[1:], len(order)), strict=True):
            sel = order[a:b]
            rs, cs = tiles_slices(*divmod(int(w), n_j), terrain.rows, terrain.columns, WINDOW)
            flat = np.flatnonzero(layer.read(rs, cs) >= threshold)
            starts = np.concatenate([[0], np.cumsum(per[rs, w % n_j])])  # each row's first in `flat`
            local = flat[starts[row[sel] - rs.start] + rank[sel]]
            col[sel] = cs.start + local % (cs.stop - cs.start)
        return row, col

    def positions(self, hashes: np.ndarray, terrain: Terrain | None = None) -> np.ndarray:
        """(n, 2) points spread over the painted samples: a sample from the X draw, then a uniform
        offset within its spacing-wide square from the Z and RETRY draws (kept on the terrain)."""
        per = self._painted_rows(terrain)
        total = 0 if per is None else int(per.sum())
        hashes = np.asarray(hashes, np.uint32)
        if not total:
            return np.full((len(hashes), 2), np.nan)
        k = np.minimum((hashing.draw(hashes, Channel.X) * total).astype(np.int64), total - 1)
        row, col = self._samples(terrain, per, k)
        s = terrain.spacing
        x = terrain.origin[0] + (col + hashing.draw(hashes, Channel.Z) - 0.5) * s
        z = terrain.origin[1] + (row + hashing.draw(hashes, Channel.RETRY) - 0.5) * s
        x0, z0, x1, z1 = terrain.bounds()
        return np.stack([np.clip(x, x0, x1), np.clip(z, z0, z1)], axis=-1)

    def reach(self, x, z, thin, terrain: Terrain | None = None) -> np.ndarray:
        w = terrain.layer_weight_at(self.layer, x, z)
        if w is None:
            return np.zeros(np.shape(x), bool)
        return w >= self.min_weight


Region = Stamp | PolygonRegion | LayerRegion


# ---- results -------------------------------------------------------------------------------
@dataclass
class TypeOutcome:
    """Every candidate of one type: position, refusal (0 = placed) and the placed records."""

    type_name: str
    xz: np.ndarray  # (n, 2) float64
    refusals: np.ndarray  # (n,) int8: 0 placed, else a Refusal
    records: np.ndarray  # (placed, 7) float32, in candidate order
    missing_layer: str | None = None  # the filter's layer name when the terrain has no such layer
    clamped: bool = False
    # (n,) bool, meaningful where refused for SLOPE: True steeper than the band, False flatter.
    # None when the producer did not record it (the summary then cannot name the side).
    steep: np.ndarray | None = None

    @property
    def accepted(self) -> np.ndarray:
        return np.flatnonzero(self.refusals == PLACED)


@dataclass
class StrokeResult:
    """What a stamp or fill did: per type outcomes, totals per reason, and the addresses added."""

    outcomes: dict[str, TypeOutcome] = field(default_factory=dict)
    added: Selection = field(default_factory=dict)

    @property
    def candidates(self) -> int:
        return sum(len(o.refusals) for o in self.outcomes.values())

    @property
    def placed(self) -> int:
        return sum(len(o.records) for o in self.outcomes.values())

    @property
    def counts(self) -> dict[Refusal, int]:
        """Candidates refused per reason (every reason present, zero included)."""
        out = {r: 0 for r in Refusal}
        for o in self.outcomes.values():
            bc = np.bincount(o.refusals.astype(np.int64), minlength=len(Refusal) + 1)
            for r in Refusal:
                out[r] += int(bc[r])
        return out

    @property
    def missing_layers(self) -> dict[str, str]:
        """Type name → the layer its filter names that the terrain does not have."""
        return {o.type_name: o.missing_layer for o in self.outcomes.values() if o.missing_layer}

    def records(self, type_name: str) -> np.ndarray:
        return self.outcomes[type_name].records

    def refused(self) -> dict[str, int]:
        return {r.name: n for r, n in self.counts.items()}

    def slope_sides(self) -> tuple[int, int] | None:
        """(too steep, too flat) among the SLOPE refusals; None when an outcome did not record it."""
        steep = flat = 0
        for o in self.outcomes.values():
            on_slope = o.refusals == Refusal.SLOPE
            if not on_slope.any():
                continue
            if o.steep is None or len(o.steep) != len(o.refusals):
                return None
            s = int(np.count_nonzero(o.steep[on_slope]))
            steep += s
            flat += int(np.count_nonzero(on_slope)) - s
        return steep, flat

    def _words(self, reason: Refusal, count: int) -> str:
        if reason != Refusal.SLOPE:
            return REFUSAL_WORDS[reason]
        sides = self.slope_sides()
        if sides is None:
            return REFUSAL_WORDS[reason]
        steep, flat = sides
        if steep == count:
            return "too steep"
        if flat == count:
            return "too flat"
        return f"{REFUSAL_WORDS[reason]} ({steep} too steep, {flat} too flat)"

    def summary(self) -> str:
        """'40 candidates: 31 too steep, 4 too close, 5 placed' (both sides counted when mixed)."""
        parts = [f"{n} {self._words(r, n)}" for r, n in self.counts.items() if n]
        parts.append(f"{self.placed} placed")
        text = f"{self.candidates} candidate{'' if self.candidates == 1 else 's'}: " + ", ".join(parts)
        if self.missing_layers:
            text += "".join(f" (no terrain layer named '{layer}' for {name})"
                            for name, layer in self.missing_layers.items())
        clamped = sorted(o.type_name for o in self.outcomes.values() if o.clamped)
        if clamped:
            text += f" (candidates capped at {MAX_CANDIDATES:,} for: {', '.join(clamped)})"
        return text

    def merge(self, other: StrokeResult) -> None:
        """Fold another stamp of the same stroke into this result (counts add up)."""
        for name, o in other.outcomes.items():
            mine = self.outcomes.get(name)
            if mine is None:
                self.outcomes[name] = o
            else:
                self.outcomes[name] = TypeOutcome(
                    name, np.concatenate([mine.xz, o.xz]), np.concatenate([mine.refusals, o.refusals]),
                    np.concatenate([mine.records, o.records]), mine.missing_layer or o.missing_layer,
                    mine.clamped or o.clamped,
                    None if mine.steep is None or o.steep is None else np.concatenate([mine.steep, o.steep]))
        for key, idx in other.added.items():
            self.added[key] = np.concatenate([self.added[key], idx]) if key in self.added else idx


@dataclass
class ReapplyResult:
    """What reapply changed: records rewritten in place (with the old values) and those removed."""

    replaced: Selection
    old: np.ndarray
    new: np.ndarray
    removed: Removed


# ---- record maths (shared with the single tool and reapply) ---------------------------------
def lerp(range_: tuple[float, float], u) -> np.ndarray:
    return range_[0] + (range_[1] - range_[0]) * np.asarray(u, np.float64)


def make_records(ftype: FoliageType, x, z, height, normal, draws) -> np.ndarray:
    """Records (n, 7) from positions, ground height/normal and per-channel draws (dict)."""
    x = np.asarray(x, np.float64)
    z = np.asarray(z, np.float64)
    yaw = pmath.radians(lerp(ftype.yaw, draws[Channel.YAW]))
    scale = lerp(ftype.scale, draws[Channel.SCALE])
    y = np.asarray(height, np.float64) - lerp(ftype.sink, draws[Channel.SINK])
    up = lean_up(normal, ftype.align, pmath.radians(lerp(ftype.tilt, draws[Channel.TILT])),
                 2.0 * np.pi * np.asarray(draws[Channel.TILT_AZIMUTH], np.float64))
    pitch, roll = pitch_roll_for_up(up, yaw)
    return np.stack([x, y, z, yaw, pitch, roll, scale], axis=-1).astype(np.float32)


def lean_up(normal, align: float, tilt, azimuth) -> np.ndarray:
    """The instance's up vector: `align` of the way from world up to the normal, then tilted."""
    n = np.asarray(normal, np.float64)
    slope = pmath.arccos(np.clip(n[..., 1], -1.0, 1.0))
    hl = np.sqrt(n[..., 0] * n[..., 0] + n[..., 2] * n[..., 2])
    safe = np.where(hl > 1e-12, hl, 1.0)
    dx = np.where(hl > 1e-12, n[..., 0] / safe, 0.0)
    dz = np.where(hl > 1e-12, n[..., 2] / safe, 0.0)
    angle = align * slope
    sa = pmath.sin(angle)
    a = np.stack([sa * dx, pmath.cos(angle), sa * dz], axis=-1)
    # random lean: rotate `a` by `tilt` towards a horizontal direction chosen by `azimuth`
    h = np.stack([pmath.cos(azimuth), np.zeros_like(azimuth), pmath.sin(azimuth)], axis=-1)
    t = h - np.sum(h * a, axis=-1, keepdims=True) * a
    tl = np.sqrt(np.sum(t * t, axis=-1, keepdims=True))
    t = t / np.where(tl > 1e-12, tl, 1.0)
    tilt = np.asarray(tilt, np.float64)[..., None]
    return a * pmath.cos(tilt) + t * pmath.sin(tilt)


def pitch_roll_for_up(up, yaw) -> tuple[np.ndarray, np.ndarray]:
    """Pitch and roll that, with intrinsic Y(yaw)→X(pitch)→Z(roll), carry +Y onto `up`."""
    up = np.asarray(up, np.float64)
    cy, sy = pmath.cos(yaw), pmath.sin(yaw)
    lx = up[..., 0] * cy - up[..., 2] * sy
    lz = up[..., 0] * sy + up[..., 2] * cy
    roll = pmath.arcsin(np.clip(-lx, -1.0, 1.0))
    pitch = pmath.arctan2(lz, up[..., 1])
    return pitch, roll


def up_of(records) -> np.ndarray:
    """The up vector (n, 3) each record's rotation gives its mesh (the inverse of the above)."""
    r = np.asarray(records, np.float64)
    yaw, pitch, roll = r[..., 3], r[..., 4], r[..., 5]
    x = -pmath.sin(roll)
    y = pmath.cos(roll) * pmath.cos(pitch)
    z = pmath.cos(roll) * pmath.sin(pitch)
    cy, sy = pmath.cos(yaw), pmath.sin(yaw)
    return np.stack([x * cy + z * sy, y, -x * sy + z * cy], axis=-1)


def candidate_count(ftype: FoliageType, area: float, strength: float, seed: int, type_name: str,
                    index: int) -> tuple[int, bool]:
    """density × strength × area / 100, the fraction rounded by a hash so density holds on average."""
    expected = max(ftype.density, 0.0) * max(float(strength), 0.0) * max(area, 0.0) / 100.0
    if not math.isfinite(expected):
        return MAX_CANDIDATES, True
    whole = math.floor(expected)
    frac = expected - whole
    h = hashing.candidate_hashes(seed, type_name, index, [0xFFFFFFFF])
    n = whole + (1 if hashing.draw(h, Channel.THIN)[0] < frac else 0)
    return (MAX_CANDIDATES, True) if n > MAX_CANDIDATES else (int(n), False)


# ---- the scatter --------------------------------------------------------------------------
class FoliageScatter:
    """Applies a palette's rules to candidates over a terrain, against a volume."""

    def __init__(self, terrain: Terrain, volume: FoliageVolume) -> None:
        self.terrain = terrain
        self.volume = volume

    @property
    def palette(self):
        return self.volume.palette

    def _type(self, name: str) -> FoliageType:
        ftype = self.palette.get(name)
        if ftype is None:
            raise KeyError(f"no foliage type named {name!r} in the palette")
        return ftype

    def candidates(self, type_name: str, region: Region) -> tuple[np.ndarray, np.ndarray, bool]:
        """(hashes, xz) of every candidate of a type in a region, and whether the count was clamped."""
        ftype = self._type(type_name)
        n, clamped = candidate_count(ftype, region.area(self.terrain), region.strength, region.seed,
                                     type_name, region.index)
        hashes = hashing.candidate_hashes(region.seed, type_name, region.index, np.arange(n))
        return hashes, region.positions(hashes, self.terrain).reshape(-1, 2), clamped

    def stored_positions(self, box, margin: float) -> np.ndarray:
        x0, z0, x1, z1 = box
        names = [n for n in self.volume.type_names()
                 if self.palette.get(n) is None or self.palette[n].stored]
        return self.volume.positions_near(x0 - margin, z0 - margin, x1 + margin, z1 + margin, names)

    def consider(self, type_name: str, region: Region, others: np.ndarray | None = None) -> TypeOutcome:
        """Apply the six rules to every candidate, in spec order; nothing is added.

        `others` are (x, z) of instances this stroke already accepted for earlier types,
        treated as stored for spacing.
        """
        ftype = self._type(type_name)
        hashes, xz, clamped = self.candidates(type_name, region)
        x, z = xz[:, 0], xz[:, 1]
        n = len(hashes)
        refusal = np.zeros(n, np.int8)
        height = self.terrain.height_at(x, z)
        normal = self.terrain.normal_at(x, z)
        slope = pmath.degrees(pmath.arccos(np.clip(normal[..., 1], -1.0, 1.0)))

        def refuse(reason: Refusal, bad: np.ndarray) -> None:
            refusal[(refusal == PLACED) & bad] = reason

        refuse(Refusal.NO_GROUND, np.isnan(height))
        refuse(Refusal.HOLE, hole_at(self.terrain, x, z))
        refuse(Refusal.SLOPE, ~((slope >= ftype.slope[0]) & (slope <= ftype.slope[1])))
        steep = slope > ftype.slope[1]
        refuse(Refusal.ALTITUDE, ~((height >= ftype.altitude[0]) & (height <= ftype.altitude[1])))
        missing = None
        if ftype.layer is not None:
            weight = self.terrain.layer_weight_at(ftype.layer.name, x, z)
            missing = ftype.layer.name if weight is None else None
            refuse(Refusal.LAYER, np.ones(n, bool) if missing else ~(weight >= ftype.layer.min_weight))
        reach = region.reach(x, z, hashing.draw(hashes, Channel.THIN), self.terrain)
        if ftype.spacing > 0:
            alive = np.flatnonzero(refusal == PLACED)
            pts = self.stored_positions(region.box(self.terrain), ftype.spacing)
            if others is not None and len(others):
                pts = np.concatenate([pts, np.asarray(others, np.float64)])
            near = any_within(xz[alive], pts, ftype.spacing)
            refusal[alive[near]] = Refusal.SPACING
            alive = alive[~near]
            blocked = _blocked_by_earlier(xz[alive], reach[alive], ftype.spacing)
            refusal[alive[blocked]] = Refusal.SPACING
        refuse(Refusal.BRUSH, ~reach)
        ok = refusal == PLACED
        draws = {c: hashing.draw(hashes[ok], c) for c in Channel}
        records = make_records(ftype, x[ok], z[ok], height[ok], normal[ok], draws)
        return TypeOutcome(type_name, xz, refusal, records, missing, clamped, steep)

    # ---- operations for the tools (each returns what it changed) ----------------------------
    def scatter(self, types: Sequence[str], region: Region, apply: bool = True) -> StrokeResult:
        """Paint (a stamp) or fill (a polygon or layer region) with each type in turn."""
        result = StrokeResult()
        others: list[np.ndarray] = []
        for name in types:
            outcome = self.consider(name, region, np.concatenate(others) if others else None)
            result.outcomes[name] = outcome
            if self._type(name).stored and len(outcome.records):
                others.append(outcome.records[:, (0, 2)].astype(np.float64))
        if apply:
            for name, outcome in result.outcomes.items():
                result.added.update(self.volume.add(name, outcome.records))
        return result

    def paint(self, types: Sequence[str], stamp: Stamp, apply: bool = True) -> StrokeResult:
        return self.scatter(types, stamp, apply)

    def fill_polygon(self, types: Sequence[str], polygon: Iterable[tuple[float, float]], seed: int = 0,
                     strength: float = 1.0, apply: bool = True) -> StrokeResult:
        region = PolygonRegion(tuple((float(a), float(b)) for a, b in polygon), seed, 0, strength)
        return self.scatter(types, region, apply)

    def fill_layer(self, types: Sequence[str], layer: str, min_weight: float = 0.5, seed: int = 0,
                   strength: float = 1.0, apply: bool = True) -> StrokeResult:
        return self.scatter(types, LayerRegion(layer, min_weight, seed, 0, strength), apply)

    def single(self, type_name: str, x: float, z: float, seed: int = 0, index: int = 0,
               apply: bool = True) -> StrokeResult:
        """Exactly one instance at (x, z), or the refusal saying why not (the brush always reaches)."""
        ftype = self._type(type_name)
        hashes = hashing.candidate_hashes(seed, type_name, index, [0])
        xs, zs = np.array([float(x)]), np.array([float(z)])
        height = self.terrain.height_at(xs, zs)
        normal = self.terrain.normal_at(xs, zs)
        slope = pmath.degrees(pmath.arccos(np.clip(normal[..., 1], -1.0, 1.0)))
        missing = None
        reason = PLACED
        if np.isnan(height[0]):
            reason = Refusal.NO_GROUND
        elif hole_at(self.terrain, xs, zs)[0]:
            reason = Refusal.HOLE
        elif not ftype.slope[0] <= slope[0] <= ftype.slope[1]:
            reason = Refusal.SLOPE
        elif not ftype.altitude[0] <= height[0] <= ftype.altitude[1]:
            reason = Refusal.ALTITUDE
        elif ftype.layer is not None:
            w = self.terrain.layer_weight_at(ftype.layer.name, xs, zs)
            missing = ftype.layer.name if w is None else None
            if missing or not w[0] >= ftype.layer.min_weight:
                reason = Refusal.LAYER
        if reason == PLACED and ftype.spacing > 0:
            pts = self.stored_positions((x, z, x, z), ftype.spacing)
            if any_within(np.array([[x, z]]), pts, ftype.spacing)[0]:
                reason = Refusal.SPACING
        records = np.empty((0, 7), np.float32)
        if reason == PLACED:
            draws = {c: hashing.draw(hashes, c) for c in Channel}
            records = make_records(ftype, xs, zs, height, normal, draws)
        outcome = TypeOutcome(type_name, np.array([[float(x), float(z)]]), np.array([reason], np.int8),
                              records, missing, steep=np.asarray(slope > ftype.slope[1], bool).reshape(1))
        result = StrokeResult({type_name: outcome})
        if apply and len(records):
            result.added = self.volume.add(type_name, records)
        return result

    def erase(self, types: Sequence[str] | None, stamp: Stamp, apply: bool = True) -> Removed | Selection:
        """Remove instances under the brush, thinned by falloff × strength from a position hash.

        Returns what was removed (for undo), or with `apply=False` the selection it would remove.
        """
        sel = self.volume.query_radius(stamp.center[0], stamp.center[1], stamp.radius, types)
        salt = int(hashing.pcg(np.uint32(stamp.seed & 0xFFFFFFFF))) ^ (stamp.index & 0xFFFFFFFF)
        chosen: Selection = {}
        for key, idx in sel.items():
            rec = self.volume.records(*key)[idx]
            u = hashing.draw(hashing.position_hashes(rec[:, 0], rec[:, 2], salt), Channel.THIN)
            w = stamp.weight(rec[:, 0], rec[:, 2]) * min(max(stamp.strength, 0.0), 1.0)
            pick = idx[u < w]
            if pick.size:
                chosen[key] = pick
        return self.volume.remove(chosen) if apply else chosen

    def reapply(self, types: Sequence[str] | None, stamp: Stamp) -> ReapplyResult:
        """Re-run each type's filters and randomisation on instances under the brush.

        Instances the filters now refuse are removed; the rest get fresh height, rotation and
        scale from a hash of their position and the stroke seed (positions never move).
        """
        sel = self.volume.query_radius(stamp.center[0], stamp.center[1], stamp.radius, types)
        salt = int(hashing.pcg(np.uint32(stamp.seed & 0xFFFFFFFF))) ^ (stamp.index & 0xFFFFFFFF)
        keep_sel: Selection = {}
        drop_sel: Selection = {}
        new_parts = []
        for key, idx in sel.items():
            ftype = self._type(key[1])
            rec = self.volume.records(*key)[idx]
            x, z = rec[:, 0].astype(np.float64), rec[:, 2].astype(np.float64)
            height = self.terrain.height_at(x, z)
            normal = self.terrain.normal_at(x, z)
            slope = pmath.degrees(pmath.arccos(np.clip(normal[..., 1], -1.0, 1.0)))
            ok = ~np.isnan(height)
            ok &= (slope >= ftype.slope[0]) & (slope <= ftype.slope[1])
            ok &= (height >= ftype.altitude[0]) & (height <= ftype.altitude[1])
            if ftype.layer is not None:
                w = self.terrain.layer_weight_at(ftype.layer.name, x, z)
                ok &= np.zeros(len(x), bool) if w is None else w >= ftype.layer.min_weight
            h = hashing.position_hashes(rec[:, 0], rec[:, 2], salt)
            draws = {c: hashing.draw(h[ok], c) for c in Channel}
            new = make_records(ftype, x[ok], z[ok], height[ok], normal[ok], draws)
            new[:, 0], new[:, 2] = rec[ok, 0], rec[ok, 2]  # bit-identical positions keep the cell
            if ok.any():
                keep_sel[key] = idx[ok]
                new_parts.append(new)
            if (~ok).any():
                drop_sel[key] = idx[~ok]
        new_all = np.concatenate(new_parts) if new_parts else np.empty((0, 7), np.float32)
        old = self.volume.replace(keep_sel, new_all)
        removed = self.volume.remove(drop_sel)
        return ReapplyResult(keep_sel, old, new_all, removed)

    def undo_reapply(self, result: ReapplyResult) -> None:
        self.volume.restore(result.removed)
        self.volume.replace(result.replaced, result.old)


def _blocked_by_earlier(xz: np.ndarray, reach: np.ndarray, spacing: float) -> np.ndarray:
    """Which candidates (in index order) have an earlier *accepted* candidate within `spacing`.

    Accepted = reached by the brush and not blocked itself; decided greedily in index order.
    The neighbour pairs a dab examines grow with the square of its density: past PAIR_BLOCK
    of them the candidates are decided in index-ordered chunks small enough that each chunk's
    own pairs stay under it, each chunk first checked against the candidates accepted before it
    (as the spawner bounds its pairs): memory linear in the candidates, the answers the same.
    """
    n = len(xz)
    none = np.zeros(n, bool)
    if n < 2:
        return none
    pairs = count_candidate_pairs(xz, xz, spacing)
    if pairs <= PAIR_BLOCK:
        return _blocked_within(xz, reach, spacing, none)
    blocked = np.zeros(n, bool)
    accepted: list[np.ndarray] = []
    chunk = max(1, int(n * math.sqrt(PAIR_BLOCK / pairs)))  # pairs within a chunk: ~ (chunk / n)²
    start = 0
    while start < n:
        end = min(n, start + chunk)
        part = xz[start:end]
        if end - start > 1 and count_candidate_pairs(part, part, spacing) > PAIR_BLOCK:
            chunk = max(1, chunk // 2)  # a denser run of candidates than the average
            continue
        earlier = np.concatenate(accepted) if accepted else np.empty((0, 2))
        pre = any_within(part, earlier, spacing)
        blocked[start:end] = _blocked_within(part, reach[start:end], spacing, pre)
        accepted.append(part[reach[start:end] & ~blocked[start:end]])
        start = end
    return blocked


def _blocked_within(xz: np.ndarray, reach: np.ndarray, spacing: float, pre: np.ndarray) -> np.ndarray:
    """`_blocked_by_earlier` for candidates whose pairs fit at once, those in `pre` already blocked
    (by candidates before them): vectorised rounds, a candidate settled once every earlier
    neighbour is."""
    n = len(xz)
    qi, pi = pairs_within(xz, xz, spacing)
    # only reached candidates can be accepted, so only they block; a blocked one blocks nothing
    earlier = (pi < qi) & reach[pi] & ~pre[pi] & ~pre[qi]
    qi, pi = qi[earlier], pi[earlier]
    if qi.size == 0:
        return pre.copy()
    # status: 0 undecided, 1 accepted (or, if not reached, clear), 2 blocked
    status = np.where(np.bincount(qi, minlength=n) == 0, 1, 0).astype(np.int8)
    status[pre] = 2
    while True:
        undecided = status[qi] == 0
        if not undecided.any():
            break
        q, p = qi[undecided], pi[undecided]
        hit = np.zeros(n, bool)
        hit[q[status[p] == 1]] = True
        wait = np.zeros(n, bool)
        wait[q[status[p] == 0]] = True
        todo = status == 0
        status[todo & hit] = 2
        status[todo & ~hit & ~wait] = 1
    # a non-reached candidate's own status only says whether something earlier blocks it
    return status == 2
