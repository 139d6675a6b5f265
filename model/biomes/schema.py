"""The known fields of WorldGen biome assets, per type and per nested object."""

from __future__ import annotations

COMMON_KEYS = ("Type", "Parent", "SeedName", "Zones", "Interpolation", "TerrainHeightThreshold",
               "Layers", "Tint", "Environment", "Water", "Fade", "HeightmapNoise", "MapColor",
               "Tags")
TYPE_KEYS = {"Custom": ("CustomBiomeGenerator",), "Tile": ("Weight", "SizeModifier")}
TOP_LEVEL_KEYS = {kind: frozenset(COMMON_KEYS + keys) for kind, keys in TYPE_KEYS.items()}

# Fields of the nested objects; unknown ones are reported as warnings.
ZONE_KEYS = frozenset(("Zone", "Order", "ConvertedPin"))
WATER_KEYS = frozenset(("SeedIndex", "DirectEntry", "Block", "Fluid", "Min", "MinNoise", "Max",
                        "MaxNoise", "NoiseMask"))
OBJECT_KEYS = {
    "Interpolation": frozenset(("DefaultRadius", "Biomes")),
    "Layers": frozenset(("Default", "Environment")),
    "Tint": frozenset(("Default", "Entries")),
    "Environment": frozenset(("Default", "Entries")),
    "Fade": frozenset(("FadeStart", "FadeLength", "TerrainStart", "TerrainLength", "FadeHeightmap")),
    "CustomBiomeGenerator": frozenset(("Noise", "Threshold", "BiomeMask", "Priority")),
}
THRESHOLD_KEYS = {
    "Basic": frozenset(("Type", "Positions", "Values")),
    "Noise": frozenset(("Type", "Noise", "Keys", "Thresholds")),
}
THRESHOLD_TYPES = tuple(THRESHOLD_KEYS)
FADE_NUMBERS = ("FadeStart", "FadeLength", "TerrainStart", "TerrainLength", "FadeHeightmap")
DEFAULTS = {"Tile": {"Weight": 1.0, "SizeModifier": 1.0, "MapColor": "#FF0000", "SeedName": ""},
            "Custom": {"MapColor": "#FF0000", "SeedName": ""}}
DEFAULT_PRIORITY = 0
