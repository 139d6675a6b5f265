"""Names of the zone data's enumerations and bits: plant types, ground types, block flags, control bits."""

from __future__ import annotations

from pathlib import Path

# PlantInfo.type byte → species (the rule file's `index`). A rules folder may supply its own names.
PLANT_TYPES: dict[int, str] = {
    0: "NotDefined", 1: "GrassA", 2: "GrassB", 3: "PineTree", 4: "Rango", 5: "BushA", 6: "BushB",
    7: "TreeIron", 8: "TreeCopper", 9: "Reed", 10: "NanoWheat", 11: "RustBush", 12: "SlimeRoot",
    13: "Quag", 14: "ElectroPlant", 15: "TitanPlant", 16: "Poffeteg", 17: "Bonsai", 18: "Wall",
    19: "Devrinol",
}

# PlantInfo.groundType byte → terrain type.
GROUND_TYPES: dict[int, str] = {
    0: "Darkrocks", 1: "LowlandA", 2: "LowlandB", 3: "MidlandA", 4: "MidlandB", 5: "HighlandA",
    6: "HighlandB", 7: "Lightrocks", 8: "Sand",
    **{9 + i: f"type{i + 1}" for i in range(11)},
    20: "undefined",
}

# Bits of the first byte of a `blocks` tile.
BLOCK_FLAGS: dict[str, int] = {"Obstacle": 1, "Plant": 2, "Decor": 4, "Island": 8}
# Flags a plant cannot stand on (the rest are natural).
NON_NATURAL_BLOCKS = BLOCK_FLAGS["Obstacle"] | BLOCK_FLAGS["Decor"] | BLOCK_FLAGS["Island"]

# Bits of a `control` tile.
CONTROL_BITS: dict[str, int] = {
    "AntiPlant": 1, "TerraformProtected": 2, "SyndicateArea": 4, "ConcreteA": 8, "ConcreteB": 16,
    "Roaming": 64, "Highway": 128, "PBSHighway": 256, "PBSTerraformProtected": 512,
    "NpcRestricted": 1024,
}
# Control bits that forbid natural plants (`PlantAllowed` is none of them).
PLANT_FORBIDDING = sum(CONTROL_BITS[n] for n in
                       ("AntiPlant", "Roaming", "Highway", "PBSHighway", "ConcreteA", "ConcreteB"))
# `DevrinolAllowed` (plants that place concrete) only needs AntiPlant off.
DEVRINOL_FORBIDDING = CONTROL_BITS["AntiPlant"]


def type_name(value: int, names: dict[int, str] | None = None) -> str:
    """The plant type's name, or `#value` when no name is known."""
    return (names or PLANT_TYPES).get(int(value), f"#{int(value)}")


def ground_name(value: int) -> str:
    return GROUND_TYPES.get(int(value), f"#{int(value)}")


def flag_names(value: int, bits: dict[str, int]) -> list[str]:
    """Names of the bits set in `value`; unnamed bits appear as `bit N`."""
    value = int(value)
    names = [name for name, bit in bits.items() if value & bit]
    known = sum(bits.values())
    rest = value & ~known
    names += [f"bit {i}" for i in range(rest.bit_length()) if rest >> i & 1]
    return names


def plant_names_from_rules(folder: str | Path) -> dict[int, str]:
    """Plant type names from a rules folder: each rule's `name` (or its type's name) by `index`.
    Rule files that do not load are skipped; built-in names fill the rest."""
    from model.plants.loader import load_folder, no_rules_error  # plants use zones too: on demand

    names = dict(PLANT_TYPES)
    load = load_folder(folder)
    if not load.rules:  # naming from a folder that names nothing is a mistake worth saying
        raise next(iter(load.errors.values())) if load.errors else no_rules_error(load.folder)
    for index, rule in load.by_index().items():
        names[int(index)] = rule.name or names.get(int(index), f"#{index}")
    return names
