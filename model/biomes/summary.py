"""A biome set as one JSON-ready document: resolved assets, provenance, zones, errors, warnings."""

from __future__ import annotations

from model.biomes.asset import BiomeAsset
from model.biomes.colors import parse_map_color
from model.biomes.paths import format_path
from model.biomes.resolve import BiomeSet

CHAIN_LISTED = 64  # links listed per asset; a longer chain is followed through each asset's "parent"


def asset_document(asset: BiomeAsset) -> dict:
    """One asset: what it resolved to, where each field came from, and what is wrong with it."""
    color = "#{:02X}{:02X}{:02X}".format(*asset.color)
    return {
        "key": asset.key,
        "type": asset.type,
        "files": [f.name for f in asset.files],
        "parent": asset.parent,
        "chain": asset.chain_head(CHAIN_LISTED),
        "chain_length": asset.chain_length,
        "chain_end": asset.chain_end,
        "resolved": asset.value,
        "provenance": {format_path(p): (o.name if o else None) for p, _, o in asset.fields()},
        "tags": asset.tags,
        "map_color": color,
        "map_color_default": asset.value is None or parse_map_color(asset.value.get("MapColor")) is None,
        "errors": [i.to_json() for i in asset.errors],
        "warnings": [i.to_json() for i in asset.warnings],
    }


def set_document(biomes: BiomeSet) -> dict:
    assets = list(biomes.assets.values())
    return {
        "folders": [str(f) for f in biomes.folders],
        "counts": {
            "assets": len(assets),
            "tile": sum(a.type == "Tile" for a in assets),
            "custom": sum(a.type == "Custom" for a in assets),
            "resolved": sum(a.resolved for a in assets),
            "valid": sum(a.valid for a in assets),
            "errors": len(biomes.errors),
            "warnings": len(biomes.warnings),
        },
        "assets": [asset_document(a) for a in assets],
        "zones": {zone: [r.to_json() for r in rows] for zone, rows in biomes.zones.items()},
        "errors": [i.to_json() for i in biomes.errors],
        "warnings": [i.to_json() for i in biomes.warnings],
    }
