"""Running a spawner: hashed candidates per tile, every refusal counted, and local re-runs that agree.

Candidate *i* of a species in tile (tx, tz) (32 m squares on a world-fixed grid) comes from
`hash(seed, species, tile, i)` — the same PCG hash and draw channels as painting — so a spawner
gives the same bytes on every run and machine. Each candidate meets, in order: ground, the
spawner's area, the species' conditions (first failing one named), its palette type's own
slope/altitude/layer bands, the exclusion zones of earlier species, spacing against other stored
foliage, and blue-noise spacing among its own species.

Blue noise is decided by hashed priority in a few rounds (Luby's maximal independent set: a
candidate is accepted where it outranks every undecided neighbour), not by the painting tools'
index-ordered greedy pass: a decision then depends only on candidates within a bounded distance,
so re-running a spawner over a touched region plus that margin gives bit-identical instances to a
full run — which is what lets an edit re-run only the ground it touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from model import portable_math as pmath
from model.foliage import hashing
from model.foliage.hashing import Channel
from model.foliage.neighbours import any_within
from model.foliage.palette import Palette
from model.foliage.scatter import make_records
from model.foliage.spawn_conditions import reach_of
from model.foliage.spawner import Spawner, Species
from model.foliage.volume import points_in_polygon
from model.holes import hole_at
from model.spline_edits import on_splines
from model.terrain import Terrain

TILE = 32.0  # metres: the candidate grid; fixed to the world so edits elsewhere never shift it
SPACING_ROUNDS = 3
MAX_CANDIDATES = 20_000_000  # per species and run; a larger one is refused before allocating
PLACED = 0
PRIORITY_CHANNEL = Channel.RETRY + 1

Box = tuple[float, float, float, float]


class SpawnError(ValueError):
    """A spawner that cannot run as written (an unknown type, a derived type, too many candidates)."""


class SpawnCancelled(Exception):
    """The progress callback asked to stop; nothing was changed."""


@dataclass
class SpeciesOutcome:
    """Every candidate of one species: where it fell, why it was refused, and what was placed."""

    index: int  # the species' position in the spawner's list
    type: str
    labels: list[str]  # refusal code → text; code 0 is "placed"
    xz: np.ndarray  # (n, 2) float64
    refusals: np.ndarray  # (n,) int16
    records: np.ndarray  # (placed, 7) float32, in candidate order
    missing_layers: set[str] = field(default_factory=set)

    @property
    def candidates(self) -> int:
        return len(self.refusals)

    @property
    def placed(self) -> int:
        return len(self.records)

    def counts(self) -> list[tuple[str, int]]:
        """(reason text, candidates refused by it) in rule order, reasons that refused nothing left out."""
        bc = np.bincount(self.refusals.astype(np.int64), minlength=len(self.labels))
        return [(self.labels[c], int(bc[c])) for c in range(1, len(self.labels)) if bc[c]]

    def sentence(self) -> str:
        """'conifer: 1,204 candidates: condition 2 `noise 60 m ≥ 0.45` 41 %, …, 311 placed'."""
        n = self.candidates
        word = "candidate" if n == 1 else "candidates"
        if n == 0:
            return f"{self.type}: no candidates (density × area is zero)"
        parts = [f"{label} {_percent(k, n)}" for label, k in self.counts()]
        parts.append(f"{self.placed:,} placed")
        text = f"{self.type}: {n:,} {word}: " + ", ".join(parts)
        if self.missing_layers:
            names = ", ".join(f"'{m}'" for m in sorted(self.missing_layers))
            text += f" (no terrain layer named {names})"
        return text


def _percent(k: int, n: int) -> str:
    p = 100.0 * k / n
    return f"{p:.0f} %" if p >= 1 else f"{k:,} (<1 %)"


@dataclass
class SpawnResult:
    spawner: str
    box: Box  # the ground this result covers
    species: list[SpeciesOutcome]
    spawn_of: Spawner | None = None  # the recipe, when this is a whole run (its species can be reused)

    @property
    def candidates(self) -> int:
        return sum(s.candidates for s in self.species)

    @property
    def placed(self) -> int:
        return sum(s.placed for s in self.species)

    def records_by_type(self) -> dict[str, np.ndarray]:
        out: dict[str, list[np.ndarray]] = {}
        for s in self.species:
            out.setdefault(s.type, []).append(s.records)
        return {t: np.concatenate(parts) for t, parts in out.items()}


# ---- the run ---------------------------------------------------------------------------------
def area_box(spawner: Spawner, terrain: Terrain) -> Box | None:
    """The box a full run covers: the area's bounds on the terrain, or None when they miss it."""
    x0, z0, x1, z1 = terrain.bounds()
    if spawner.area.polygon is not None:
        p = np.asarray(spawner.area.polygon, np.float64)
        x0, z0 = max(x0, p[:, 0].min()), max(z0, p[:, 1].min())
        x1, z1 = min(x1, p[:, 0].max()), min(z1, p[:, 1].max())
    if x0 >= x1 or z0 >= z1:
        return None
    return (x0, z0, x1, z1)


def region_of_samples(terrain: Terrain, rows: slice, cols: slice) -> Box:
    """The ground whose heights, normals or weights an edit of those samples changed: the
    samples' box grown by one spacing (bilinear sampling reads the neighbouring samples)."""
    s = terrain.spacing
    ox, oz = terrain.origin
    r0, r1, _ = rows.indices(terrain.rows)
    c0, c1, _ = cols.indices(terrain.columns)
    return (ox + (c0 - 1) * s, oz + (r0 - 1) * s, ox + c1 * s, oz + r1 * s)


def check_runnable(spawner: Spawner, palette: Palette) -> None:
    """SpawnError unless every species names a stored type of the palette."""
    for _, species in spawner.ordered_species():
        ftype = palette.get(species.type)
        if ftype is None:
            raise SpawnError(f"spawner '{spawner.name}': no foliage type named '{species.type}' "
                             "in the palette")
        if ftype.derived:
            raise SpawnError(f"spawner '{spawner.name}': '{species.type}' is a derived type (never stored)")


def dependency_margins(spawner: Spawner, palette: Palette) -> dict[int, float]:
    """Per species (listing index): how far from a candidate its decision can look, all chains in."""
    margins: dict[int, float] = {}
    earlier: list[tuple[Species, float]] = []
    for index, species in spawner.ordered_species():
        ftype = palette.get(species.type)
        spacing = ftype.spacing if ftype is not None else 0.0
        reach = max((reach_of(c) for c in species.conditions), default=0.0)
        # stored foliage is read as it is (exact); only this run's own chains need a margin
        upstream = max((max(s.exclusion, reach) + m for s, m in earlier), default=0.0)
        # round r's winners read up to (2r − 1) spacings away (see blue_noise)
        margins[index] = (2.0 * SPACING_ROUNDS - 1.0) * spacing + upstream
        earlier.append((species, margins[index]))
    return margins


def run_spawner(spawner: Spawner, terrain: Terrain, palette: Palette,
                stored: Callable[[list[str] | None, Box], np.ndarray],
                region: Box | None = None,
                progress: Callable[[int, int], bool] | None = None,
                tile: Box | None = None, earlier: SpawnResult | None = None) -> SpawnResult:
    """Run a spawner over its whole area, or only where a change of the ground in `region` can
    reach: `region` grown by the dependency margin (what a full run would place there, exactly).

    `stored(types, box)` gives (m, 2) positions of stored foliage that is not this spawner's own
    (`types=None`: every stored type), which the run reads for spacing and `near`/`far`.
    `progress(done, total)` hears after each species (and again between the rules of one);
    returning False stops with SpawnCancelled.
    `tile` instead gives exactly the part of a full run inside that box, lower edges included and
    upper ones not (so tiles that share edges count every candidate once): a batch job's piece.
    `earlier`: a whole run of this spawner before an edit, over the same ground and foliage; the
    species it decided as this run would (`shared_species`) are taken from it, not run again.
    """
    full = area_box(spawner, terrain)
    margins = dependency_margins(spawner, palette)
    width = max(margins.values(), default=0.0) if region is not None else 0.0
    # a change inside `region` moves decisions up to `width` away; those read up to `width` further
    if tile is not None:
        width = max(margins.values(), default=0.0)
        box = _intersect(full, tile)
    else:
        box = full if region is None else _intersect(full, _grow(region, width))
    if box is None:
        return SpawnResult(spawner.name, tile or region or (0.0, 0.0, 0.0, 0.0), [])
    check_runnable(spawner, palette)
    work = _intersect(full, _grow(box, width)) or box
    placed: dict[str, list[np.ndarray]] = {}  # this run's placements by type, for near/far
    zones: list[tuple[str, np.ndarray, float]] = []  # earlier species: type, (m, 2), exclusion
    outcomes = []
    ordered = spawner.ordered_species()
    kept = earlier.species[:shared_species(earlier.spawn_of, spawner)] \
        if earlier is not None and earlier.spawn_of is not None and region is None and tile is None else []
    done = 0

    def check() -> None:  # between species, and between the rules of one: a Cancel is heard soon
        if progress is not None and progress(done, len(ordered)) is False:
            raise SpawnCancelled(f"spawner '{spawner.name}' cancelled")

    for done, (index, species) in enumerate(ordered):  # `check` reads `done`
        check()
        if done < len(kept):  # decided before the edit, exactly as now: its placements feed the rest
            outcome = kept[done]
        else:
            outcome = _run_species(spawner, index, species, terrain, palette, stored, work, placed, zones,
                                   check)
        xz = outcome.records[:, (0, 2)].astype(np.float64)
        if len(xz):
            placed.setdefault(species.type, []).append(xz)
        if species.exclusion > 0:  # named even when empty: every run lists the same reasons
            zones.append((species.type, xz, species.exclusion))
        outcomes.append(_within(outcome, box) if tile is None else _within_tile(outcome, tile))
    return SpawnResult(spawner.name, box, outcomes, spawner if region is None and tile is None else None)


def shared_species(old: Spawner, new: Spawner) -> int:
    """How many species, in growth order, a whole run of `new` decides as a whole run of `old` did
    over the same ground: those before the first that differs (a species reads only the ones
    grown before it), none if the seed or the area changed."""
    if old.seed != new.seed or old.area != new.area:
        return 0
    n = 0
    for a, b in zip(old.ordered_species(), new.ordered_species(), strict=False):
        if a != b:
            break
        n += 1
    return n


class _Context:
    def __init__(self, terrain: Terrain, stored, work: Box, placed: dict[str, list[np.ndarray]]):
        self.terrain = terrain
        self._stored, self._work, self._placed = stored, work, placed
        self.missing: set[str] = set()

    def positions_of(self, type_name: str, reach: float) -> np.ndarray:
        parts = [self._stored([type_name], _grow(self._work, reach))] + self._placed.get(type_name, [])
        return np.concatenate(parts) if parts else np.empty((0, 2))

    def missing_layer(self, name: str) -> None:
        self.missing.add(name)


def _run_species(spawner: Spawner, index: int, species: Species, terrain: Terrain, palette: Palette,
                 stored, work: Box, placed, zones, check: Callable[[], None] | None = None) -> SpeciesOutcome:
    ftype = palette[species.type]
    hashes, xz = candidates(spawner, index, species, work)
    n = len(hashes)
    labels = ["placed"]
    refusal = np.zeros(n, np.int16)

    def rule(label: str, bad: np.ndarray) -> None:
        labels.append(label)
        refusal[(refusal == PLACED) & bad] = len(labels) - 1
        if check is not None:
            check()

    ctx = _Context(terrain, stored, work, placed)
    x, z = xz[:, 0], xz[:, 1]
    height = terrain.height_at(x, z)
    rule("no ground", np.isnan(height))
    rule("hole", hole_at(terrain, x, z))
    for name, on in on_splines(terrain, x, z):  # roads and rivers: nothing grows on their width
        rule(f"on spline '{name}'", on)
    area = spawner.area
    if area.layer is not None:
        w = terrain.layer_weight_at(area.layer, x, z)
        if w is None:
            ctx.missing.add(area.layer)
        rule("outside the area", np.ones(n, bool) if w is None else ~(w >= area.min_weight))
    elif area.polygon is not None:
        rule("outside the area", ~points_in_polygon(x, z, np.asarray(area.polygon, np.float64)))
    for number, condition in enumerate(species.conditions, 1):
        alive = refusal == PLACED  # a condition is only asked about candidates still standing
        bad = np.zeros(n, bool)
        if alive.any():
            bad[alive] = ~condition.passes(ctx, xz[alive])
        rule(f"condition {number} `{condition.text}`", bad)
    normal = terrain.normal_at(x, z)
    slope = pmath.degrees(pmath.arccos(np.clip(normal[..., 1], -1.0, 1.0)))
    rule(f"outside {species.type}'s slope {ftype.slope[0]:g}–{ftype.slope[1]:g}°",
         ~((slope >= ftype.slope[0]) & (slope <= ftype.slope[1])))
    rule(f"outside {species.type}'s altitude band",
         ~((height >= ftype.altitude[0]) & (height <= ftype.altitude[1])))
    if ftype.layer is not None:
        w = terrain.layer_weight_at(ftype.layer.name, x, z)
        if w is None:
            ctx.missing.add(ftype.layer.name)
        rule(f"not on {species.type}'s layer '{ftype.layer.name}'",
             np.ones(n, bool) if w is None else ~(w >= ftype.layer.min_weight))
    for other, pts, radius in zones:
        alive = np.flatnonzero(refusal == PLACED)
        bad = np.zeros(n, bool)
        bad[alive] = any_within(xz[alive], pts, radius)
        rule(f"excluded by {other}", bad)
    if ftype.spacing > 0:
        alive = np.flatnonzero(refusal == PLACED)
        bad = np.zeros(n, bool)
        others = stored(None, _grow(work, ftype.spacing))
        bad[alive] = any_within(xz[alive], others, ftype.spacing)
        rule("too close to other foliage", bad)
        alive = np.flatnonzero(refusal == PLACED)
        bad = np.zeros(n, bool)
        priority = hashing.pcg(hashes[alive] ^ np.uint32(PRIORITY_CHANNEL))
        bad[alive] = ~blue_noise(xz[alive], priority, ftype.spacing)
        rule(f"spacing {ftype.spacing:g} m", bad)
    ok = refusal == PLACED
    draws = {c: hashing.draw(hashes[ok], c) for c in Channel}
    records = make_records(ftype, x[ok], z[ok], height[ok], normal[ok], draws)
    return SpeciesOutcome(index, species.type, labels, xz, refusal, records, ctx.missing)


def candidates(spawner: Spawner, index: int, species: Species, box: Box) -> tuple[np.ndarray, np.ndarray]:
    """(hashes, xz) of a species' candidates whose tiles overlap `box`, kept inside `box`."""
    x0, z0, x1, z1 = box
    tx = np.arange(math.floor(x0 / TILE), math.floor(x1 / TILE) + 1, dtype=np.int64)
    tz = np.arange(math.floor(z0 / TILE), math.floor(z1 / TILE) + 1, dtype=np.int64)
    gx, gz = (a.ravel() for a in np.meshgrid(tx, tz, indexing="ij"))
    base = _tile_bases(spawner, index, species, gx, gz)
    expected = species.density * TILE * TILE / 100.0
    whole = math.floor(expected)
    extra = hashing.draw(hashing.pcg(base ^ np.uint32(0xFFFFFFFF)), Channel.THIN) < expected - whole
    counts = whole + extra.astype(np.int64)
    total = int(counts.sum())
    if total > MAX_CANDIDATES:
        raise SpawnError(f"spawner '{spawner.name}': species '{species.type}' would make {total:,} "
                         f"candidates here (at most {MAX_CANDIDATES:,}); lower its density or split the area")
    tile = np.repeat(np.arange(len(counts)), counts)
    i = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    hashes = hashing.pcg(i.astype(np.uint32) ^ base[tile])
    x = (gx[tile] + hashing.draw(hashes, Channel.X)) * TILE
    z = (gz[tile] + hashing.draw(hashes, Channel.Z)) * TILE
    inside = (x >= x0) & (x <= x1) & (z >= z0) & (z <= z1)
    return hashes[inside], np.stack([x[inside], z[inside]], axis=-1)


def _tile_bases(spawner: Spawner, index: int, species: Species, gx: np.ndarray, gz: np.ndarray) -> np.ndarray:
    """Hash state per tile: spawner seed and name, the species' type and place in the list, the tile."""
    salt = hashing.type_key(f"{spawner.name}\x00{species.type}\x00{index}")
    h = np.uint32(hashing.pcg(np.uint32(hashing.pcg(np.uint32(spawner.seed & 0xFFFFFFFF)) ^ np.uint32(salt))))
    ux = (gx & 0xFFFFFFFF).astype(np.uint32)
    uz = (gz & 0xFFFFFFFF).astype(np.uint32)
    return hashing.pcg(hashing.pcg(ux ^ h) ^ uz)


def blue_noise(xz: np.ndarray, priority: np.ndarray, spacing: float) -> np.ndarray:
    """Which points to keep so that no two kept lie within `spacing`: hashed-priority rounds.

    Each round asks two neighbour questions of the undecided points (is one of higher rank near?
    is a winner near?), each answered in bounded blocks of pairs: memory grows with the points,
    never with the square of their density."""
    n = len(xz)
    keep = np.zeros(n, bool)
    if n == 0:
        return keep
    rank = np.empty(n, np.int64)
    rank[np.lexsort((np.arange(n), priority))] = np.arange(n)  # ties broken by position in the list
    undecided = np.ones(n, bool)
    for _ in range(SPACING_ROUNDS):
        live = np.flatnonzero(undecided)
        pts, r = xz[live], rank[live]
        beaten = any_within(pts, pts, spacing, beats=(r, r))
        winners = live[~beaten]
        keep[winners] = True
        undecided[winners] = False
        rest = np.flatnonzero(undecided)
        undecided[rest[any_within(xz[rest], xz[winners], spacing)]] = False
        if not undecided.any():
            break
    return keep


def _within(outcome: SpeciesOutcome, box: Box) -> SpeciesOutcome:
    """The part of an outcome inside `box` (a local run computes a margin around it too)."""
    x0, z0, x1, z1 = box
    x, z = outcome.xz[:, 0], outcome.xz[:, 1]
    inside = (x >= x0) & (x <= x1) & (z >= z0) & (z <= z1)
    placed = outcome.refusals == PLACED
    keep_records = inside[placed]
    return SpeciesOutcome(outcome.index, outcome.type, outcome.labels, outcome.xz[inside],
                          outcome.refusals[inside], outcome.records[keep_records], outcome.missing_layers)


def _within_tile(outcome: SpeciesOutcome, tile: Box) -> SpeciesOutcome:
    x, z = outcome.xz[:, 0], outcome.xz[:, 1]
    inside = (x >= tile[0]) & (x < tile[2]) & (z >= tile[1]) & (z < tile[3])
    placed = outcome.refusals == PLACED
    return SpeciesOutcome(outcome.index, outcome.type, outcome.labels, outcome.xz[inside],
                          outcome.refusals[inside], outcome.records[inside[placed]], outcome.missing_layers)


def merge_results(parts: list[SpawnResult], box: Box) -> SpawnResult:
    """Tiles' results as one (candidates in tile order; the caller sorts what it stores)."""
    if not parts or not parts[0].species:
        return SpawnResult(parts[0].spawner if parts else "", box, [])
    species = []
    for i, first in enumerate(parts[0].species):
        pieces = [p.species[i] for p in parts]
        species.append(SpeciesOutcome(
            first.index, first.type, first.labels,
            np.concatenate([s.xz for s in pieces]).reshape(-1, 2),
            np.concatenate([s.refusals for s in pieces]),
            np.concatenate([s.records for s in pieces]).reshape(-1, 7),
            set().union(*(s.missing_layers for s in pieces))))
    return SpawnResult(parts[0].spawner, box, species)


def _grow(box: Box, d: float) -> Box:
    return (box[0] - d, box[1] - d, box[2] + d, box[3] + d)


def _intersect(a: Box | None, b: Box | None) -> Box | None:
    if a is None or b is None:
        return None
    out = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return out if out[0] <= out[2] and out[1] <= out[3] else None
