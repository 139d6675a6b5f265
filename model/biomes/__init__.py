"""WorldGen biome assets: folders with overlays, Parent inheritance, provenance and validation."""

from model.biomes.asset import ASSET_TYPES, BiomeAsset
from model.biomes.colors import DEFAULT_MAP_COLOR, map_color, parse_map_color
from model.biomes.export import export_flattened, flatten, flattened_json
from model.biomes.issues import ERROR, WARNING, Issue
from model.biomes.layers import add_biome_layers
from model.biomes.paths import format_path
from model.biomes.reader import AssetFile
from model.biomes.resolve import BiomeSet, load_biome_set
from model.biomes.tags import expand_tags
from model.biomes.zone_order import ZoneRow, zone_order_table

__all__ = [
    "ASSET_TYPES", "DEFAULT_MAP_COLOR", "ERROR", "WARNING", "AssetFile", "BiomeAsset", "BiomeSet",
    "Issue", "ZoneRow", "add_biome_layers", "expand_tags", "export_flattened", "flatten",
    "flattened_json", "format_path", "load_biome_set", "map_color", "parse_map_color",
    "zone_order_table",
]
