"""Growth on a zone's layers: adapts `model.zones.Zone` to the simulator's arrays and back."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from model.plants.growth import GrowthField, GrowthOptions, Progress, RuleTables, run_growth
from model.plants.rule import PlantRule
from model.zones.layers import LAYERS
from model.zones.zone import Zone

NEEDED = ("altitude", "plants")


def field_of_zone(zone: Zone) -> GrowthField:
    """The zone's layers as a growth field (copies); missing blocks or control layers read as zero."""
    missing = [n for n in NEEDED if not zone.has(n)]
    if missing:
        raise ValueError(f"zone {zone.zone_id} has no {' or '.join(missing)} layer to grow on")
    shape = (zone.height, zone.width)
    blocks = zone.blocks if zone.has("blocks") else np.zeros(shape, LAYERS["blocks"].dtype)
    control = zone.control if zone.has("control") else np.zeros(shape, LAYERS["control"].dtype)
    return GrowthField.from_arrays(zone.plants, blocks, control, zone.altitude, zone.slope())


def zone_with_field(zone: Zone, field: GrowthField) -> Zone:
    """A new Zone: `zone`'s layers with the plant, block and control layers taken from `field`."""
    layers = {name: array.copy() for name, array in zone.layers.items()}
    shape = (zone.height, zone.width)
    layers.setdefault("blocks", np.zeros(shape, LAYERS["blocks"].dtype))
    layers.setdefault("control", np.zeros(shape, LAYERS["control"].dtype))
    field.plants_into(layers["plants"])
    field.blocks_into(layers["blocks"])
    layers["control"][...] = field.control
    return Zone(zone.zone_id, zone.width, zone.height, layers, dict(zone.plant_names),
                folder=zone.folder, warnings=list(zone.warnings))


def missing_rules(zone: Zone, rules: Mapping[int, PlantRule] | RuleTables) -> dict[int, int]:
    """Plant types standing on the zone's tiles that have no rule in `rules` → their tile counts
    (growth keeps them as they are unless `GrowthOptions.drop_unknown`)."""
    if not zone.has("plants"):
        return {}
    counts = np.bincount(zone.plants["type"].reshape(-1), minlength=256)
    known = {int(i) for i in np.flatnonzero(rules.known)} if isinstance(rules, RuleTables) else set(rules)
    return {int(k): int(counts[k]) for k in np.flatnonzero(counts) if k and int(k) not in known}


def missing_rules_text(missing: Mapping[str, int]) -> str:
    """'GrassB 1,200 tiles, Reed 40 tiles': the most common first."""
    return ", ".join(f"{name} {count:,} tile{'s' if count != 1 else ''}"
                     for name, count in sorted(missing.items(), key=lambda kv: (-kv[1], kv[0])))


def grow_zone(zone: Zone, rules: Mapping[int, PlantRule] | RuleTables, passes: int, seed: int,
              options: GrowthOptions | None = None, progress: Progress | None = None,
              cancelled: Callable[[], bool] | None = None) -> Zone:
    """`passes` nature passes over `zone`; returns a new Zone and leaves `zone` untouched."""
    grown = run_growth(field_of_zone(zone), rules, passes, seed, options, progress, cancelled)
    return zone_with_field(zone, grown)
