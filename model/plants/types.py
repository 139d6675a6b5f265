"""Plant and ground type names: the byte values stored per tile in a zone's plant layer."""

from __future__ import annotations

PLANT_TYPES: tuple[str, ...] = (
    "NotDefined", "GrassA", "GrassB", "PineTree", "Rango", "BushA", "BushB", "TreeIron",
    "TreeCopper", "Reed", "NanoWheat", "RustBush", "SlimeRoot", "Quag", "ElectroPlant",
    "TitanPlant", "Poffeteg", "Bonsai", "Wall", "Devrinol",
)

GROUND_TYPES: tuple[str, ...] = (
    "Darkrocks", "LowlandA", "LowlandB", "MidlandA", "MidlandB", "HighlandA", "HighlandB",
    "Lightrocks", "Sand", *(f"type{i}" for i in range(1, 12)), "undefined",
)

MAX_PLANT_TYPE = 255  # the type byte


def plant_type_name(index: int) -> str:
    """`GrassA` for 1; `type 42` for values without a name."""
    return PLANT_TYPES[index] if 0 <= index < len(PLANT_TYPES) else f"type {index}"
