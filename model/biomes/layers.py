"""Tile biomes as terrain paint layers, so foliage types can filter on biome names."""

from __future__ import annotations

from collections.abc import Iterable

from model.biomes.asset import BiomeAsset
from model.terrain import Terrain


def add_biome_layers(terrain: Terrain, assets: Iterable[BiomeAsset]) -> list[str]:
    """Add an empty layer per resolved Tile biome, coloured by MapColor; return the names added.

    A biome whose name is already a layer is left alone (its painting is kept).
    """
    added = []
    for asset in assets:
        if asset.type != "Tile" or asset.value is None or terrain.layer(asset.key) is not None:
            continue
        terrain.add_layer(asset.key, asset.color)
        added.append(asset.key)
    return added
