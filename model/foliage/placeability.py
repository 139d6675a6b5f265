"""Why a foliage type cannot grow anywhere on a terrain as it is, said before any stroke."""

from __future__ import annotations

from model.foliage.foliage_type import FoliageType
from model.terrain import Terrain


def growth_obstacles(ftype: FoliageType, terrain: Terrain) -> list[str]:
    """What keeps `ftype` off the whole terrain (a missing or unpainted layer, an altitude band the
    ground never reaches), in words; empty where a stroke may place it. Cheap on a paged terrain:
    per-tile ranges and sums, nothing assembled."""
    reasons: list[str] = []
    if ftype.layer is not None:
        layer = terrain.layer(ftype.layer.name)
        if layer is None:
            have = ", ".join(repr(la.name) for la in terrain.layers) or "none"
            reasons.append(f"it needs the layer {ftype.layer.name!r}, which this terrain does not "
                           f"have (it has {have})")
        elif layer.weight_sum() == 0:
            reasons.append(f"it needs the layer {ftype.layer.name!r}, painted nowhere yet")
    low, high = ftype.altitude
    ground_low, ground_high = terrain.height_range()
    if low > ground_high or high < ground_low:
        ground = (f"{ground_low:g} m" if ground_low == ground_high
                  else f"{ground_low:g}–{ground_high:g} m")
        reasons.append(f"it grows at altitudes {low:g}–{high:g} m and the ground lies at {ground}")
    return reasons


def obstacle_sentence(ftype: FoliageType, terrain: Terrain) -> str:
    """One sentence for the refusal panel, or '' when nothing keeps the type off the terrain."""
    reasons = growth_obstacles(ftype, terrain)
    if not reasons:
        return ""
    return f"{ftype.name} cannot grow on this terrain yet: " + "; ".join(reasons) + "."
