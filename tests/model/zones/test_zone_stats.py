"""Masks and statistics against per-tile loops over a sample zone."""

from __future__ import annotations

from collections import Counter

import numpy as np

from model.formats.png import decode_png, encode_png
from model.zones import (
    BLOCK_FLAGS,
    CONTROL_BITS,
    GROUND_TYPES,
    PLANT_TYPES,
    devrinol_allowed,
    plant_allowed,
    zone_statistics,
)
from model.zones.sample import sample_zone


def test_masks_follow_the_control_bits() -> None:
    control = np.arange(0, 2048, dtype="<u2").reshape(32, 64)
    forbidding = ("AntiPlant", "Roaming", "Highway", "PBSHighway", "ConcreteA", "ConcreteB")
    for value, allowed, devrinol in zip(control.ravel(), plant_allowed(control).ravel(),
                                        devrinol_allowed(control).ravel(), strict=True):
        assert allowed == (not any(value & CONTROL_BITS[n] for n in forbidding))
        assert devrinol == (not value & CONTROL_BITS["AntiPlant"])
    assert plant_allowed(control).sum() == 2**5  # of 11 bits, 6 forbid plants: 5 stay free


def test_statistics_match_per_tile_counts() -> None:
    zone = sample_zone(3, 48, seed=11, terraforming=True)
    doc = zone_statistics(zone)
    assert (doc["width"], doc["height"], doc["tiles"]) == (48, 48, 48 * 48)
    plants = zone.plants
    types = Counter(PLANT_TYPES[int(t)] for t in plants["type"].ravel() if t)
    assert doc["plants"]["type_counts"] == dict(types)
    assert doc["plants"]["plant_tiles"] == sum(types.values())
    states = Counter(int(s) for t, s in zip(plants["type"].ravel(), plants["state"].ravel(),
                                            strict=True) if t)
    assert doc["plants"]["state_histogram"] == dict(sorted(states.items()))
    assert doc["plants"]["spawn_histogram"] == dict(sorted(Counter(plants["spawn"].ravel().tolist()).items()))
    grounds = Counter(GROUND_TYPES[int(g)] for g in plants["groundType"].ravel())
    assert doc["plants"]["ground_type_counts"] == dict(grounds)
    for name, bit in BLOCK_FLAGS.items():
        assert doc["blocks"]["flag_counts"][name] == sum(1 for f in zone.blocks["flags"].ravel() if f & bit)
    for name, bit in CONTROL_BITS.items():
        assert doc["control"]["bit_counts"][name] == sum(1 for c in zone.control.ravel() if c & bit)
    assert doc["control"]["plant_allowed"] == int(plant_allowed(zone.control).sum())
    alt = zone.altitude
    assert doc["altitude"]["raw_min"] == alt.min() and doc["altitude"]["max_units"] == alt.max() / 32
    assert doc["slope"]["max"] == zone.slope().max()
    assert "altitude_original" in doc and doc["blocks"]["flag_counts"]["Island"] > 0


def test_unnamed_bits_and_names_supplied_by_rules() -> None:
    zone = sample_zone(3, 16)
    zone.control[0, 0] |= 32  # bit 5 has no name
    zone.plants["type"][0, 0] = 3
    doc = zone_statistics(zone, plant_names={3: "Pine (rules)"})
    assert doc["control"]["bit_counts"]["bit 5"] == 1
    assert doc["plants"]["type_counts"]["Pine (rules)"] >= 1


def test_png_round_trip() -> None:
    gray = np.random.default_rng(1).integers(0, 256, (17, 33), dtype=np.uint8)
    assert np.array_equal(decode_png(encode_png(gray), all_channels=True).pixels, gray)
    rgb = np.random.default_rng(2).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    assert np.array_equal(decode_png(encode_png(rgb), all_channels=True).pixels, rgb)
    rgba = np.random.default_rng(3).integers(0, 256, (4, 9, 4), dtype=np.uint8)
    assert np.array_equal(decode_png(encode_png(rgba, filters=4), all_channels=True).pixels, rgba)
    assert np.array_equal(decode_png(encode_png(rgba)).pixels, rgba[:, :, 0])


def test_tile_report_names_every_value() -> None:
    from model.zones.readout import tile_report

    zone = sample_zone(3, 32, terraforming=True)
    zone.altitude[5, 6] = 600 * 32 + 16
    zone.blocks[5, 6] = (2 | 8, 12)
    zone.control[5, 6] = 128 | 2
    zone.plants[5, 6] = (3, 2, 1, 131, 200, 7, 5)
    report = dict(tile_report(zone, 6, 5))
    assert report["tile"] == "x 6, y 5"
    assert report["altitude"] == "600.50 units (raw 19216)"
    assert report["slope"] == str(zone.slope()[5, 6])
    assert report["block flags"] == "Plant|Island (10)" and report["block height"] == "12"
    assert report["control"] == "TerraformProtected|Highway (130)"
    assert report["PlantAllowed"] == "no" and report["DevrinolAllowed"] == "yes"
    assert report["plant type"] == "PineTree (3)" and report["spawn"] == "131 (51% chance)"
    assert (report["state"], report["time"], report["health"], report["material"]) == ("2", "1", "200", "7")
    assert report["ground type"] == "HighlandA (5)"
    assert "altitude_original" in report
