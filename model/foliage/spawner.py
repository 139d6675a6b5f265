"""Spawners: named, seeded recipes that fill an area with species, stored in the scene manifest.

A spawner is what an artist writes once and re-runs when the ground changes:

    [[spawners]]
    name = "forest"
    seed = 7
    area = { layer = "forest_floor", min_weight = 0.3 }   # or { polygon = [[x, z], …] } or "all"
    [[spawners.species]]
    type = "conifer"
    density = 1.2        # per 100 m², before conditions
    order = 0            # lower runs first; later species respect earlier ones
    exclusion = 3.0      # metres around each instance later species may not enter
    conditions = [{ slope = [0, 30] }, { not = { layer = "rock", min_weight = 0.2 } }]

Conditions combine with AND; `any = [ … ]` is OR and `not = { … }` is NOT. This module holds
the recipe and its TOML form; `model.foliage.spawn_run` runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from model.errors import FormatError
from model.foliage.spawn_conditions import (
    Condition,
    NodeBudget,
    condition_from_toml,
    condition_to_toml,
    number,
    table,
)

MAX_SPAWNERS = 256
MAX_SPECIES = 64
MAX_CONDITIONS = 64
MAX_POLYGON = 10_000
MAX_DENSITY = 10_000.0  # per 100 m²: one instance per 1 cm²; beyond is a typo


@dataclass(frozen=True)
class Area:
    """Where a spawner may place: everywhere, where a layer is painted enough, or in a polygon."""

    layer: str | None = None
    min_weight: float = 0.5
    polygon: tuple[tuple[float, float], ...] | None = None

    @property
    def everywhere(self) -> bool:
        return self.layer is None and self.polygon is None

    @property
    def text(self) -> str:
        if self.layer is not None:
            return f"layer '{self.layer}' ≥ {self.min_weight:g}"
        if self.polygon is not None:
            return f"polygon of {len(self.polygon)} points"
        return "all"


@dataclass(frozen=True)
class Species:
    """One palette type a spawner places, with its density, order, exclusion and conditions."""

    type: str
    density: float = 1.0
    order: int = 0
    exclusion: float = 0.0
    conditions: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class Spawner:
    name: str
    seed: int = 0
    area: Area = field(default_factory=Area)
    species: tuple[Species, ...] = ()

    def ordered_species(self) -> list[tuple[int, Species]]:
        """(listing index, species) by `order`, listing order breaking ties."""
        return sorted(enumerate(self.species), key=lambda item: (item[1].order, item[0]))


# ---- TOML form -------------------------------------------------------------------------------
def _integer(path, where: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(path, where, f"expected an integer, got {value!r}")
    if not lo <= value <= hi:
        raise FormatError(path, where, f"must be within {lo}..{hi}, got {value}")
    return int(value)


def area_from_toml(value: Any, path=None, where: str = "area") -> Area:
    if value == "all":
        return Area()
    if not isinstance(value, dict):
        raise FormatError(path, where,
                          f"expected \"all\", {{ layer = … }} or {{ polygon = … }}, got {value!r}")
    table(path, where, value, ("layer", "min_weight", "polygon"))
    if "layer" in value and "polygon" in value:
        raise FormatError(path, where, "an area is a layer or a polygon, not both")
    if "layer" in value:
        name = value["layer"]
        if not isinstance(name, str) or not name:
            raise FormatError(path, f"{where}.layer", f"expected a layer name, got {name!r}")
        weight = number(path, f"{where}.min_weight", value.get("min_weight", 0.5), 0.0, 1.0)
        return Area(layer=name, min_weight=weight)
    if "polygon" in value:
        pts = value["polygon"]
        if not isinstance(pts, list) or not 3 <= len(pts) <= MAX_POLYGON:
            raise FormatError(path, f"{where}.polygon", f"expected 3 to {MAX_POLYGON} [x, z] points")
        out = []
        for i, p in enumerate(pts):
            if not isinstance(p, list) or len(p) != 2:
                raise FormatError(path, f"{where}.polygon[{i}]", f"expected [x, z], got {p!r}")
            out.append(tuple(number(path, f"{where}.polygon[{i}]", v, -1e7, 1e7) for v in p))
        return Area(polygon=tuple(out))
    raise FormatError(path, where, "an area needs 'layer' or 'polygon' (or write \"all\")")


def area_to_toml(area: Area) -> Any:
    if area.layer is not None:
        return {"layer": area.layer, "min_weight": area.min_weight}
    if area.polygon is not None:
        return {"polygon": [list(p) for p in area.polygon]}
    return "all"


def species_from_toml(value: Any, path=None, where: str = "species") -> Species:
    if not isinstance(value, dict):
        raise FormatError(path, where, f"expected a table, got {value!r}")
    table(path, where, value, ("type", "density", "order", "exclusion", "conditions"))
    name = value.get("type")
    if not isinstance(name, str) or not name:
        raise FormatError(path, f"{where}.type", f"expected a foliage type name, got {name!r}")
    conditions = value.get("conditions", [])
    if not isinstance(conditions, list) or len(conditions) > MAX_CONDITIONS:
        raise FormatError(path, f"{where}.conditions", f"expected a list of at most {MAX_CONDITIONS}")
    budget = NodeBudget()  # nested any/not items count towards one cap per species
    return Species(
        type=name,
        density=number(path, f"{where}.density", value.get("density", 1.0), 0.0, MAX_DENSITY),
        order=_integer(path, f"{where}.order", value.get("order", 0), -(1 << 31), (1 << 31) - 1),
        exclusion=number(path, f"{where}.exclusion", value.get("exclusion", 0.0), 0.0, 10_000.0),
        conditions=tuple(condition_from_toml(c, path, f"{where}.conditions[{i}]", budget=budget)
                         for i, c in enumerate(conditions)),
    )


def species_to_toml(species: Species) -> dict:
    out: dict[str, Any] = {"type": species.type, "density": species.density, "order": species.order,
                           "exclusion": species.exclusion}
    if species.conditions:
        out["conditions"] = [condition_to_toml(c) for c in species.conditions]
    return out


def spawner_from_toml(value: Any, path=None, where: str = "spawners[0]") -> Spawner:
    if not isinstance(value, dict):
        raise FormatError(path, where, f"expected a table, got {value!r}")
    table(path, where, value, ("name", "seed", "area", "species"))
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise FormatError(path, f"{where}.name", f"expected a spawner name, got {name!r}")
    species = value.get("species", [])
    if not isinstance(species, list) or len(species) > MAX_SPECIES:
        raise FormatError(path, f"{where}.species", f"expected a list of at most {MAX_SPECIES} species")
    return Spawner(
        name=name,
        seed=_integer(path, f"{where}.seed", value.get("seed", 0), 0, 0xFFFFFFFF),
        area=area_from_toml(value.get("area", "all"), path, f"{where}.area"),
        species=tuple(species_from_toml(s, path, f"{where}.species[{i}]") for i, s in enumerate(species)),
    )


def spawner_to_toml(spawner: Spawner) -> dict:
    return {"name": spawner.name, "seed": spawner.seed, "area": area_to_toml(spawner.area),
            "species": [species_to_toml(s) for s in spawner.species]}


def spawners_from_toml(value: Any, path=None, where: str = "spawners") -> list[Spawner]:
    """The manifest's `[[spawners]]` array; names must be unique."""
    if not isinstance(value, list) or len(value) > MAX_SPAWNERS:
        raise FormatError(path, where, f"expected an array of at most {MAX_SPAWNERS} spawner tables")
    out: list[Spawner] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        spawner = spawner_from_toml(item, path, f"{where}[{i}]")
        if spawner.name in seen:
            raise FormatError(path, f"{where}[{i}].name", f"duplicate spawner name {spawner.name!r}")
        seen.add(spawner.name)
        out.append(spawner)
    return out
