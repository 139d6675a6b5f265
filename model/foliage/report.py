"""Plain-language account of a stroke: per refusal reason, a count and the numbers behind it.

"40 candidates: 31 too steep (slope 38° > 30°), 4 too close, 5 placed" — the answer to
"the brush places nothing and does not say why".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.foliage.palette import Palette
from model.foliage.scatter import Refusal, StrokeResult
from model.terrain import Terrain


@dataclass(frozen=True)
class ReasonLine:
    """One refusal reason of a stroke: how many, the short phrase, and where the candidates were."""

    reason: Refusal
    count: int
    phrase: str  # "too steep (slope 38° > 30°)"
    xz: np.ndarray  # (count, 2) positions of the refused candidates


# Reason → colour (RGBA 0..1), the one table the Refusals panel's bars and the viewport's markers
# both draw with. Picked to stay apart on green, brown and grey ground: the alarming rules warm,
# spacing cool, the brush's own thinning (the usual reason) a quiet light grey.
REASON_COLOURS: dict[Refusal, tuple[float, float, float, float]] = {
    Refusal.NO_GROUND: (0.40, 0.40, 0.40, 1.0),
    Refusal.SLOPE: (0.90, 0.30, 0.20, 1.0),
    Refusal.ALTITUDE: (0.65, 0.35, 0.95, 1.0),
    Refusal.LAYER: (0.95, 0.60, 0.10, 1.0),
    Refusal.SPACING: (0.20, 0.60, 0.95, 1.0),
    Refusal.BRUSH: (0.72, 0.72, 0.72, 1.0),
    Refusal.HOLE: (0.10, 0.10, 0.12, 1.0),
}
PLACED_COLOUR = (0.30, 0.65, 0.30, 1.0)
REASON_TITLES = {
    Refusal.NO_GROUND: "No ground", Refusal.SLOPE: "Slope", Refusal.ALTITUDE: "Altitude",
    Refusal.LAYER: "Layer", Refusal.SPACING: "Spacing", Refusal.BRUSH: "Brush",
    Refusal.HOLE: "Hole",
}

GENERIC = {Refusal.NO_GROUND: "off the terrain", Refusal.SLOPE: "on the wrong slope",
           Refusal.ALTITUDE: "outside the altitude band", Refusal.LAYER: "not on the layer",
           Refusal.SPACING: "too close", Refusal.BRUSH: "outside the brush",
           Refusal.HOLE: "in a hole"}


def _phrase(reason: Refusal, result: StrokeResult, terrain: Terrain, palette: Palette | None) -> str:
    """The phrase after a reason's count; when several types of a stroke were refused for it,
    each type's own numbers: '(moss: 120 layer 'wet' missing; bush: 19 off layer 'grass' ...)'."""
    parts = [(name, o.xz[o.refusals == reason]) for name, o in result.outcomes.items()]
    parts = [(name, xz) for name, xz in parts if len(xz)]
    same_words = (Refusal.NO_GROUND, Refusal.BRUSH, Refusal.HOLE)  # the same words for every type
    if len(parts) == 1 or reason in same_words:
        return _type_phrase(reason, parts[0][0], parts[0][1], terrain, palette)
    own = [f"{name}: {len(xz):,} {_type_phrase(reason, name, xz, terrain, palette)}" for name, xz in parts]
    return f"{GENERIC[reason]} ({'; '.join(own)})"


def _type_phrase(reason: Refusal, name: str, xz: np.ndarray, terrain: Terrain,
                 palette: Palette | None) -> str:
    ftype = palette.get(name) if palette is not None else None
    if ftype is None:
        return GENERIC[reason]
    x, z = xz[:, 0], xz[:, 1]
    if reason == Refusal.NO_GROUND:
        return "off the terrain"
    if reason == Refusal.HOLE:
        return "in a hole"
    if reason == Refusal.SLOPE:
        return _band(terrain.slope_at(x, z), ftype.slope, "°", ("too steep", "too flat"),
                     ("steeper", "flatter"), "on the wrong slope", "slope ")
    if reason == Refusal.ALTITUDE:
        return _band(terrain.height_at(x, z), ftype.altitude, " m", ("too high", "too low"),
                     ("higher", "lower"), "outside the altitude band", "")
    if reason == Refusal.LAYER:
        layer = ftype.layer
        if layer is None:
            return "not on the layer"
        if terrain.layer(layer.name) is None:
            return f"layer '{layer.name}' missing (no terrain layer has that name)"
        return f"off layer '{layer.name}' (weight < {layer.min_weight:g})"
    if reason == Refusal.SPACING:
        return f"too close (spacing {ftype.spacing:g} m)"
    return "outside the brush (radius or falloff)"


def _band(values: np.ndarray, band: tuple[float, float], unit: str, words: tuple[str, str],
          comparatives: tuple[str, str], mixed: str, label: str) -> str:
    """'too steep (slope 38° > 30°)' when every refused value is on one side of the band (the
    median shown), else both sides counted: 'on the wrong slope (12 steeper than 30°, 3 flatter
    than 5°)'."""
    values = np.asarray(values, np.float64)
    lo, hi = band
    above = values > hi
    below = values < lo
    if above.all():
        return f"{words[0]} ({label}{float(np.median(values)):.0f}{unit} > {hi:g}{unit})"
    if below.all():
        return f"{words[1]} ({label}{float(np.median(values)):.0f}{unit} < {lo:g}{unit})"
    return (f"{mixed} ({int(above.sum())} {comparatives[0]} than {hi:g}{unit}, "
            f"{int(below.sum())} {comparatives[1]} than {lo:g}{unit})")


def reason_lines(result: StrokeResult, terrain: Terrain, palette: Palette | None = None) -> list[ReasonLine]:
    """Every reason with its count (zeros included), in rule order."""
    lines = []
    for reason, count in result.counts.items():
        parts = [o.xz[o.refusals == reason] for o in result.outcomes.values()]
        xz = np.concatenate(parts) if parts else np.empty((0, 2))
        phrase = _phrase(reason, result, terrain, palette) if count else ""
        lines.append(ReasonLine(reason, count, phrase, xz))
    return lines


def plural(count: int, noun: str) -> str:
    """'1 candidate', '2 candidates', '1,200 instances'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def stroke_sentence(result: StrokeResult, terrain: Terrain, palette: Palette | None = None) -> str:
    """'40 candidates: 31 too steep (slope 38° > 30°), 4 too close, 5 placed'."""
    if not result.candidates:
        return EMPTY_STROKE
    lines = reason_lines(result, terrain, palette)
    parts = [f"{line.count:,} {line.phrase}" for line in lines if line.count]
    parts.append(f"{result.placed:,} placed")
    text = plural(result.candidates, "candidate") + ": " + ", ".join(parts)
    missing = result.missing_layers
    if missing:
        text += ". Missing layer: " + "; ".join(f"'{layer}' (needed by {name})"
                                                  for name, layer in missing.items())
    return text


EMPTY_STROKE = ("No candidates: brush area × strength × the type's density rounds to none here "
                "(raise the strength, the radius or the density)")


def _positions(xz) -> np.ndarray:
    """(n,) one value per (x, z) float32 pair, so instances can be told apart by where they stand."""
    return np.ascontiguousarray(np.asarray(xz, np.float32).reshape(-1, 2)).view(np.complex64).ravel()


@dataclass
class BrushTally:
    """What an Erase or Reapply stroke met under its brush, per type; each instance counts once
    however many stamps of the drag covered it (an instance is known by its position)."""

    action: str  # "erase" or "reapply"
    targets: tuple[str, ...] | None = None  # the types the stroke acts on; None: every type
    seen: dict[str, list[np.ndarray]] = field(default_factory=dict)  # under the brush
    taken: dict[str, list[np.ndarray]] = field(default_factory=dict)  # erased, or removed by reapply
    redone: dict[str, list[np.ndarray]] = field(default_factory=dict)  # reapply: rewritten in place

    def saw(self, name: str, xz) -> None:
        self.seen.setdefault(name, []).append(_positions(xz))

    def took(self, name: str, xz) -> None:
        self.taken.setdefault(name, []).append(_positions(xz))

    def rewrote(self, name: str, xz) -> None:
        self.redone.setdefault(name, []).append(_positions(xz))

    @staticmethod
    def _unique(table: dict[str, list[np.ndarray]], name: str) -> np.ndarray:
        parts = table.get(name)
        return np.unique(np.concatenate(parts)) if parts else np.empty(0, np.complex64)

    def targeted(self, name: str) -> bool:
        return self.targets is None or name in self.targets

    def removed(self, name: str) -> int:
        return len(self._unique(self.taken, name))

    def refreshed(self, name: str) -> int:
        """Reapply: instances kept, with fresh height, rotation and scale."""
        return len(np.setdiff1d(self._unique(self.redone, name), self._unique(self.taken, name)))

    def acted_on(self, name: str) -> int:
        """Erased, or (reapply) removed or refreshed."""
        return self.removed(name) + (self.refreshed(name) if self.action == "reapply" else 0)

    def untouched(self, name: str) -> int:
        """Under the brush at some stamp, yet neither removed nor rewritten."""
        done = np.union1d(self._unique(self.taken, name), self._unique(self.redone, name))
        return len(np.setdiff1d(self._unique(self.seen, name), done))

    def names(self) -> list[str]:
        out = list(self.targets or [])
        out += [n for n in (*self.seen, *self.taken, *self.redone) if n not in out]
        return out

    @property
    def total(self) -> int:
        return sum(self.acted_on(n) for n in self.names() if self.targeted(n))


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {n:,}" for name, n in counts.items())


def tally_sentence(tally: BrushTally) -> str:
    """'Erased 0 conifer: none under the brush (broadleaf 12 left alone)', 'Reapplied 24 conifer:
    20 kept with fresh height, rotation and scale, 4 removed (the filters now refuse them)'."""
    names = tally.names()
    mine = [n for n in names if tally.targeted(n)]
    left = {n: tally.untouched(n) for n in names if not tally.targeted(n) and tally.untouched(n)}
    verb = "Erased" if tally.action == "erase" else "Reapplied"
    done = {n: tally.acted_on(n) for n in mine if tally.acted_on(n)}
    total = sum(done.values())
    if tally.targets is not None and len(tally.targets) == 1:
        head = f"{verb} {total:,} {tally.targets[0]}"
    elif tally.targets is None and len(done) == 1:
        head = f"{verb} {total:,} {next(iter(done))}"
    elif tally.targets is not None and not total:
        head = f"{verb} 0 {' or '.join(tally.targets)}"
    else:
        head = f"{verb} {plural(total, 'instance')}" + (f" ({_counts(done)})" if len(done) > 1 else "")
    spared = sum(tally.untouched(n) for n in mine)
    notes = []
    if not total and not spared:
        text = f"{head}: {'nothing' if tally.targets is None else 'none'} under the brush"
    elif tally.action == "erase":
        text = head
        if spared and not total:
            every = "all " if spared > 1 else ""
            text += f": {spared:,} under the brush, {every}spared by its strength and falloff"
        elif spared:
            notes.append(f"{spared:,} more under the brush spared by its strength and falloff")
    else:
        removed = sum(tally.removed(n) for n in mine)
        parts = [f"{total - removed:,} kept with fresh height, rotation and scale"]
        if removed:
            parts.append(f"{removed:,} removed (the filters now refuse {'it' if removed == 1 else 'them'})")
        text = f"{head}: " + ", ".join(parts)
    if left:
        notes.append(f"{_counts(left)} left alone")
    return text + (f" ({'; '.join(notes)})" if notes else "")
