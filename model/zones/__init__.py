"""Zone layers: altitude, blocks, control and plant tiles of one zone, read and written byte for byte.

`read_zone(folder, zone_id)` → `Zone`; `write_zone(zone, folder)`; `derive_slope`, `plant_allowed`,
`devrinol_allowed`, `zone_statistics`.
"""

from model.zones.files import layer_folder, no_zone_with, read_layer, read_zone, write_zone, zone_ids
from model.zones.layers import (
    BLOCK_INFO,
    LAYER_NAMES,
    LAYERS,
    PLANT_INFO,
    layer_filename,
    parse_layer_filename,
    parse_size,
)
from model.zones.masks import devrinol_allowed, plant_allowed
from model.zones.names import BLOCK_FLAGS, CONTROL_BITS, GROUND_TYPES, PLANT_TYPES
from model.zones.slope import derive_slope, slope_at
from model.zones.stats import zone_statistics
from model.zones.zone import Zone

__all__ = [
    "BLOCK_FLAGS", "BLOCK_INFO", "CONTROL_BITS", "GROUND_TYPES", "LAYERS", "LAYER_NAMES", "PLANT_INFO",
    "PLANT_TYPES", "Zone", "derive_slope", "devrinol_allowed", "layer_filename", "layer_folder",
    "parse_layer_filename", "parse_size", "plant_allowed", "read_layer", "read_zone", "slope_at",
    "write_zone", "zone_ids", "zone_statistics", "no_zone_with",
]
