"""The per-zone order table: Tile and Custom memberships share one converter order domain."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from model.biomes.asset import BiomeAsset


@dataclass(frozen=True)
class ZoneRow:
    """One membership of one biome in one zone. `converted` rows hold their Order."""

    zone: str
    asset: str
    type: str
    index: int  # position in the biome's Zones array
    order: int | None
    converted: bool
    conflict: bool = False

    def to_json(self) -> dict:
        return {"zone": self.zone, "asset": self.asset, "type": self.type, "index": self.index,
                "order": self.order, "converted": self.converted, "conflict": self.conflict}


def is_order(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def valid_zone_name(value: object) -> bool:
    return isinstance(value, str) and any(not c.isspace() for c in value)


def zone_order_table(assets: Iterable[BiomeAsset]) -> dict[str, list[ZoneRow]]:
    """Zone → rows: converted memberships by Order (conflicts flagged), then the unconverted ones.

    Order is honoured only where ConvertedPin is true; two converted memberships with the same
    Order in one zone conflict, whatever their types.
    """
    rows: dict[str, list[ZoneRow]] = {}
    for asset in assets:
        zones = asset.value.get("Zones") if asset.value else None
        if not isinstance(zones, list):
            continue
        for i, member in enumerate(zones):
            if not isinstance(member, dict) or not valid_zone_name(member.get("Zone")):
                continue
            order = member.get("Order")
            converted = member.get("ConvertedPin") is True and is_order(order)
            rows.setdefault(member["Zone"], []).append(
                ZoneRow(member["Zone"], asset.key, asset.type or "", i,
                        order if is_order(order) else None, converted))
    table = {}
    for zone in sorted(rows):
        converted = sorted((r for r in rows[zone] if r.converted),
                           key=lambda r: (r.order, r.asset, r.index))
        counts: dict[int, int] = {}
        for r in converted:
            counts[r.order] = counts.get(r.order, 0) + 1
        converted = [ZoneRow(r.zone, r.asset, r.type, r.index, r.order, True, counts[r.order] > 1)
                     for r in converted]
        rest = sorted((r for r in rows[zone] if not r.converted), key=lambda r: (r.asset, r.index))
        table[zone] = converted + rest
    return table
