"""Everything known about one tile, as labelled text: the hover read-out of the zone viewer."""

from __future__ import annotations

from model.zones.masks import DEVRINOL_FORBIDDING, PLANT_FORBIDDING
from model.zones.names import BLOCK_FLAGS, CONTROL_BITS, flag_names, ground_name, type_name
from model.zones.slope import slope_at
from model.zones.zone import Zone


def _altitude(raw: int) -> str:
    return f"{raw / 32:.2f} units (raw {raw})"


def _bits(value: int, bits: dict[str, int]) -> str:
    return f"{'|'.join(flag_names(value, bits)) or 'none'} ({value})"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def tile_report(zone: Zone, x: int, y: int, plant_names: dict[int, str] | None = None
                ) -> list[tuple[str, str]]:
    """(label, value) pairs for tile (x, y): every layer present, the slope and the masks."""
    if not (0 <= x < zone.width and 0 <= y < zone.height):
        raise IndexError(f"tile ({x}, {y}) is outside the {zone.width} x {zone.height} zone")
    rows: list[tuple[str, str]] = [("tile", f"x {x}, y {y}")]
    for layer in ("altitude", "altitude_original", "altitude_blend"):
        if zone.has(layer):
            raw = int(zone.layer(layer)[y, x])
            rows.append((layer, _altitude(raw) if layer != "altitude_blend" else str(raw)))
    if zone.has("altitude"):
        rows.append(("slope", str(slope_at(zone.altitude, x, y))))
    if zone.has("blocks"):
        flags, height = (int(v) for v in zone.blocks[y, x])
        rows.append(("block flags", _bits(flags, BLOCK_FLAGS)))
        rows.append(("block height", str(height)))
    if zone.has("control"):
        control = int(zone.control[y, x])
        rows.append(("control", _bits(control, CONTROL_BITS)))
        rows.append(("PlantAllowed", _yes(not control & PLANT_FORBIDDING)))
        rows.append(("DevrinolAllowed", _yes(not control & DEVRINOL_FORBIDDING)))
    if zone.has("plants"):
        p = zone.plants[y, x]
        kind = int(p["type"])
        spawn = int(p["spawn"])
        rows += [
            ("plant type", f"{type_name(kind, plant_names or zone.plant_names)} ({kind})"),
            ("state", str(int(p["state"]))),
            ("time", str(int(p["time"]))),
            ("spawn", f"{spawn} ({spawn / 256:.0%} chance{', sterile' if spawn == 0 else ''})"),
            ("health", str(int(p["health"]))),
            ("material", str(int(p["material"]))),
            ("ground type", f"{ground_name(int(p['groundType']))} ({int(p['groundType'])})"),
        ]
    return rows
