"""PlantRule: one species' merged settings read with the game's defaults, clamps and consistency check."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model.errors import FormatError
from model.plants.genxy import Value
from model.plants.types import plant_type_name


@dataclass(frozen=True)
class FieldSpec:
    """A known key: the value kinds it accepts, its default, and what it does."""

    key: str
    kinds: tuple[str, ...]
    default: Any
    help: str


_INT, _INTS, _DBL, _STR = ("int",), ("int[]",), ("double", "float"), ("string",)

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("index", _INT, 0, "PlantType byte of this species"),
    FieldSpec("name", _STR, "", "display name"),
    FieldSpec("fertility", _INT, 0, "weight in the no-neighbour spawn draw (0 = never)"),
    FieldSpec("spreading", _INT, 0, "weight multiplier per neighbour in the spreading draw"),
    FieldSpec("killDistance", _INT, 0, "minimum distance to a plant of the same type (0 = none)"),
    FieldSpec("growRate", _INT, 0, "visits between state rolls (a roll every growRate + 1)"),
    FieldSpec("slope", _INT, 0, "highest allowed slope"),
    FieldSpec("minSlope", _INT, 0, "lowest allowed slope"),
    FieldSpec("allowedAltitudeLow", _INT, 0, "lowest altitude (raw >> 7)"),
    FieldSpec("allowedAltitudeHigh", _INT, 0, "highest altitude (raw >> 7)"),
    FieldSpec("allowedWaterLevelLow", _INT, 0, "lowest height above water ((raw >> 7) - 13)"),
    FieldSpec("allowedWaterLevelHigh", _INT, 0, "highest height above water ((raw >> 7) - 13)"),
    FieldSpec("allowedTerrainTypes", _INTS, (), "allowed ground types (empty = nowhere)"),
    FieldSpec("fruitingState", _INT, -1, "first fruiting state (< 0 = never fruits)"),
    FieldSpec("fruitDefinition", _INT, -1, "item definition of the fruit"),
    FieldSpec("fruitMaterialName", _STR, "", "fruit name"),
    FieldSpec("fruitAmount", _INT, 0, "most fruit per plant, 0-255"),
    FieldSpec("health", _INTS, (), "hit points per state, each 0-255"),
    FieldSpec("blockingHeight", _INTS, (), "blocking height per state (> 0 blocks)"),
    FieldSpec("maxAmount", _INT, -1, "per-cube cap on this species (<= 0 = none)"),
    FieldSpec("playerSeeded", _INT, 0, "never spawns naturally"),
    FieldSpec("damageScale", _DBL, 1.0, "incoming damage multiplier"),
    FieldSpec("onlyOnUnprotectedZone", _INT, 0, "only planted in unprotected zones"),
    FieldSpec("allowedOnNonNatural", _INT, 0, "skips control, terrain type and slope checks"),
    FieldSpec("placesConcrete", _INT, 0, "clears ConcreteA/B under the tile when it dies"),
    FieldSpec("source", _STR, "", "rule file this one inherits from"),
)
FIELD_BY_KEY: dict[str, FieldSpec] = {f.key: f for f in FIELDS}
STATE_KEY = re.compile(r"(state|action)_(\d+)")


def field_spec(key: str) -> FieldSpec | None:
    """The spec of `key`, including `state_N` / `action_N`."""
    if key in FIELD_BY_KEY:
        return FIELD_BY_KEY[key]
    m = STATE_KEY.fullmatch(key)
    if m:
        what = "next-state choices" if m.group(1) == "state" else "next plant-type choices (0 = death)"
        return FieldSpec(key, _INTS, None, f"{what} for state {m.group(2)}")
    return None


@dataclass(frozen=True)
class Setting:
    """A merged key: its value and the file and line it came from."""

    value: Value
    path: Path
    line: int


@dataclass(frozen=True)
class PlantRule:
    """A species' behaviour, read from merged settings (see FIELDS for keys and defaults)."""

    index: int = 0
    name: str = ""
    fertility: int = 0
    spreading: int = 0
    kill_distance: int = 0
    grow_rate: int = 0
    slope: int = 0
    min_slope: int = 0
    altitude_low: int = 0
    altitude_high: int = 0
    water_low: int = 0
    water_high: int = 0
    allowed_terrain_types: tuple[int, ...] = ()
    fruiting_state: int = -1
    fruit_definition: int = -1
    fruit_material_name: str = ""
    fruit_amount: int = 0
    health: tuple[int, ...] = ()
    blocking_height: tuple[int, ...] = ()
    max_amount: int = -1
    player_seeded: bool = False
    damage_scale: float = 1.0
    only_on_unprotected_zone: bool = False
    allowed_on_non_natural: bool = False
    places_concrete: bool = False
    states: tuple[tuple[int, ...], ...] = ()
    actions: tuple[tuple[int, ...], ...] = ()
    rule_name: str = ""  # file stem, e.g. "grass_a"
    path: Path | None = None
    origins: dict[str, Path] = field(default_factory=dict, compare=False, hash=False)

    @property
    def state_count(self) -> int:
        return len(self.states)

    @property
    def type_name(self) -> str:
        return plant_type_name(self.index)

    @property
    def fruits(self) -> bool:
        return self.fruiting_state >= 0

    @property
    def blocks(self) -> bool:
        """Any blocking state: such plants count toward a cube's fertility target."""
        return any(h > 0 for h in self.blocking_height)

    def choices(self, state: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The next-state and next-type lists a roll in `state` draws from. An empty list (the game
        cannot draw from it) is read as "no change": the same state, or this plant's own type."""
        return self.states[state] or (state,), self.actions[state] or (self.index,)

    def blocking_height_at(self, state: int) -> int:
        """A missing index counts as 0."""
        return self.blocking_height[state] if 0 <= state < len(self.blocking_height) else 0


def _get(settings: dict[str, Setting], key: str, path: Path | None) -> Any:
    spec = field_spec(key)
    assert spec is not None
    s = settings.get(key)
    if s is None:
        return spec.default
    if s.value.kind not in spec.kinds:
        raise FormatError(s.path, f"line {s.line}",
                          f"{key} must be {' or '.join(spec.kinds)}, got {s.value.kind} ({s.value.raw!r})")
    return s.value.data


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, int(v)))


def rule_from_settings(settings: dict[str, Setting], path: Path | None = None,
                       rule_name: str = "") -> PlantRule:
    """Build a PlantRule; a wrong-typed value or inconsistent state table raises FormatError."""
    def g(key: str) -> Any:
        return _get(settings, key, path)

    states: list[tuple[int, ...]] = []
    actions: list[tuple[int, ...]] = []
    i = 0
    while f"state_{i}" in settings:
        if f"action_{i}" not in settings:
            s = settings[f"state_{i}"]
            raise FormatError(s.path, f"line {s.line}", f"state_{i} has no action_{i}")
        # An empty list loads (the game only fails if a plant ever rolls it); a lint reports it.
        for key, out in ((f"state_{i}", states), (f"action_{i}", actions)):
            out.append(tuple(int(v) for v in g(key)))
        i += 1
    health = tuple(_clamp(v, 0, 255) for v in g("health"))
    blocking = tuple(int(v) for v in g("blockingHeight"))
    if not (len(health) == len(blocking) == len(states)):
        where = settings.get("health") or settings.get("blockingHeight") or settings.get("state_0")
        raise FormatError(where.path if where else path, f"line {where.line}" if where else None,
                          f"inconsistent rule: {len(health)} health values, {len(blocking)} blocking "
                          f"heights and {len(states)} states (all three must match)")
    return PlantRule(
        index=g("index"), name=g("name"), fertility=g("fertility"), spreading=g("spreading"),
        kill_distance=g("killDistance"), grow_rate=g("growRate"), slope=g("slope"),
        min_slope=g("minSlope"), altitude_low=g("allowedAltitudeLow"),
        altitude_high=g("allowedAltitudeHigh"), water_low=g("allowedWaterLevelLow"),
        water_high=g("allowedWaterLevelHigh"),
        allowed_terrain_types=tuple(sorted(int(v) for v in g("allowedTerrainTypes"))),
        fruiting_state=g("fruitingState"), fruit_definition=g("fruitDefinition"),
        fruit_material_name=g("fruitMaterialName"), fruit_amount=_clamp(g("fruitAmount"), 0, 255),
        health=health, blocking_height=blocking, max_amount=g("maxAmount"),
        player_seeded=bool(g("playerSeeded")), damage_scale=float(g("damageScale")),
        only_on_unprotected_zone=bool(g("onlyOnUnprotectedZone")),
        allowed_on_non_natural=bool(g("allowedOnNonNatural")),
        places_concrete=bool(g("placesConcrete")),
        states=tuple(states), actions=tuple(actions), rule_name=rule_name, path=path,
        origins={k: s.path for k, s in settings.items()},
    )
