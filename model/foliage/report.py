"""Plain-language account of a stroke: per refusal reason, a count and the numbers behind it.

"40 candidates: 31 too steep (slope 38° > 30°), 4 too close, 5 placed" — the answer to
"the brush places nothing and does not say why".
"""

from __future__ import annotations

from dataclasses import dataclass

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
}
PLACED_COLOUR = (0.30, 0.65, 0.30, 1.0)
REASON_TITLES = {
    Refusal.NO_GROUND: "No ground", Refusal.SLOPE: "Slope", Refusal.ALTITUDE: "Altitude",
    Refusal.LAYER: "Layer", Refusal.SPACING: "Spacing", Refusal.BRUSH: "Brush",
}

GENERIC = {Refusal.NO_GROUND: "off the terrain", Refusal.SLOPE: "on the wrong slope",
           Refusal.ALTITUDE: "outside the altitude band", Refusal.LAYER: "not on the layer",
           Refusal.SPACING: "too close", Refusal.BRUSH: "outside the brush"}


def _phrase(reason: Refusal, result: StrokeResult, terrain: Terrain, palette: Palette | None) -> str:
    """The phrase after a reason's count; when several types of a stroke were refused for it,
    each type's own numbers: '(moss: 120 layer 'wet' missing; bush: 19 off layer 'grass' ...)'."""
    parts = [(name, o.xz[o.refusals == reason]) for name, o in result.outcomes.items()]
    parts = [(name, xz) for name, xz in parts if len(xz)]
    if len(parts) == 1 or reason in (Refusal.NO_GROUND, Refusal.BRUSH):  # the same words for every type
        return _type_phrase(reason, parts[0][0], parts[0][1], terrain, palette)
    own = [f"{name}: {len(xz)} {_type_phrase(reason, name, xz, terrain, palette)}" for name, xz in parts]
    return f"{GENERIC[reason]} ({'; '.join(own)})"


def _type_phrase(reason: Refusal, name: str, xz: np.ndarray, terrain: Terrain,
                 palette: Palette | None) -> str:
    ftype = palette.get(name) if palette is not None else None
    if ftype is None:
        return GENERIC[reason]
    x, z = xz[:, 0], xz[:, 1]
    if reason == Refusal.NO_GROUND:
        return "off the terrain"
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


def stroke_sentence(result: StrokeResult, terrain: Terrain, palette: Palette | None = None) -> str:
    """'40 candidates: 31 too steep (slope 38° > 30°), 4 too close, 5 placed'."""
    lines = reason_lines(result, terrain, palette)
    parts = [f"{line.count} {line.phrase}" for line in lines if line.count]
    parts.append(f"{result.placed} placed")
    text = f"{result.candidates} candidates: " + ", ".join(parts)
    missing = result.missing_layers
    if missing:
        text += ". Missing layer: " + "; ".join(f"'{layer}' (needed by {name})"
                                                  for name, layer in missing.items())
    return text
