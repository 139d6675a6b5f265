"""Per-layer statistics of a zone, as one JSON-ready dictionary."""

from __future__ import annotations

import numpy as np

from model.zones.masks import devrinol_allowed, plant_allowed
from model.zones.names import BLOCK_FLAGS, CONTROL_BITS, flag_names, ground_name, type_name
from model.zones.zone import Zone

UNITS_PER_RAW = 1 / 32  # altitude raw value → units


def _byte_counts(values: np.ndarray) -> np.ndarray:
    return np.bincount(np.asarray(values, np.uint8).ravel(), minlength=256)


def _nonzero(counts: np.ndarray) -> dict[int, int]:
    return {int(v): int(counts[v]) for v in np.flatnonzero(counts)}


def _bit_counts(values: np.ndarray, bits: dict[str, int], width: int) -> dict[str, int]:
    # One histogram of whole values, then each bit's count is a sum over it: one pass over the layer.
    counts = np.bincount(values.ravel(), minlength=1 << width)
    index = np.arange(counts.size)
    out = {name: int(counts[(index & bit) != 0].sum()) for name, bit in bits.items()}
    unnamed = (1 << width) - 1 & ~sum(bits.values())
    for i in range(width):
        if unnamed >> i & 1 and counts[(index >> i & 1) != 0].sum():
            out[f"bit {i}"] = int(counts[(index >> i & 1) != 0].sum())
    return out


def altitude_stats(raw: np.ndarray) -> dict:
    lo, hi = int(raw.min()), int(raw.max())
    return {"raw_min": lo, "raw_max": hi, "min_units": lo * UNITS_PER_RAW, "max_units": hi * UNITS_PER_RAW,
            "mean_units": float(raw.mean(dtype=np.float64)) * UNITS_PER_RAW}


def zone_statistics(zone: Zone, plant_names: dict[int, str] | None = None) -> dict:
    """Dimensions, altitude and slope ranges, block and control counts, plant and ground counts."""
    names = plant_names or zone.plant_names
    doc: dict = {"zone_id": zone.zone_id, "width": zone.width, "height": zone.height,
                 "tiles": zone.width * zone.height, "layers": sorted(zone.layers)}
    for layer in ("altitude", "altitude_original", "altitude_blend"):
        if zone.has(layer):
            doc[layer] = altitude_stats(zone.layer(layer))
    if zone.has("altitude"):
        slope = zone.slope()
        counts = np.bincount(slope.ravel(), minlength=256)
        doc["slope"] = {"min": int(slope.min()), "max": int(slope.max()),
                        "mean": float(slope.mean(dtype=np.float64)),
                        "histogram": _nonzero(counts)}
    if zone.has("blocks"):
        blocks = zone.blocks
        flags = _byte_counts(blocks["flags"])
        heights = _byte_counts(blocks["height"])
        doc["blocks"] = {
            "flag_counts": _bit_counts(blocks["flags"], BLOCK_FLAGS, 8),
            "flag_combinations": {"|".join(flag_names(v, BLOCK_FLAGS)) or "none": c
                                  for v, c in _nonzero(flags).items()},
            "height_min": int(blocks["height"].min()), "height_max": int(blocks["height"].max()),
            "height_histogram": _nonzero(heights),
        }
    if zone.has("control"):
        control = zone.control
        doc["control"] = {
            "bit_counts": _bit_counts(control, CONTROL_BITS, 16),
            "plant_allowed": int(np.count_nonzero(plant_allowed(control))),
            "devrinol_allowed": int(np.count_nonzero(devrinol_allowed(control))),
        }
    if zone.has("plants"):
        plants = zone.plants
        types = _byte_counts(plants["type"])
        occupied = plants["type"] != 0
        doc["plants"] = {
            "plant_tiles": int(np.count_nonzero(occupied)),
            "type_counts": {type_name(v, names): c for v, c in _nonzero(types).items() if v != 0},
            "state_histogram": _nonzero(_byte_counts(plants["state"][occupied])),
            "spawn_histogram": _nonzero(_byte_counts(plants["spawn"])),
            "sterile_tiles": int(np.count_nonzero(plants["spawn"] == 0)),
            "ground_type_counts": {ground_name(v): c
                                   for v, c in _nonzero(_byte_counts(plants["groundType"])).items()},
        }
    return doc
