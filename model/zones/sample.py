"""A seeded, plausible zone (hills, roads, forests) for tests, benchmarks and demonstrations."""

from __future__ import annotations

import math

import numpy as np

from model import portable_math as pmath
from model.zones.names import BLOCK_FLAGS, CONTROL_BITS
from model.zones.zone import Zone

# Which species stand where, and the block height each leaves (trees and bushes block; grass does not).
_SPECIES_HEIGHT = {1: 0, 2: 0, 3: 12, 5: 4, 6: 5, 7: 14, 9: 0, 18: 10}


def _bumps(rng: np.random.Generator, shape: tuple[int, ...], sd: float) -> np.ndarray:
    """Bell-shaped noise of standard deviation `sd` from four uniforms (a normal draw's tail calls
    libm's exp and log, whose last bit differs between systems)."""
    u = rng.random((4, *shape))
    return ((((u[0] + u[1]) + (u[2] + u[3])) - 2.0) * (sd * math.sqrt(3.0))).astype(np.float32)


def sample_zone(zone_id: int = 1, width: int = 256, height: int | None = None, seed: int = 0,
                terraforming: bool = False) -> Zone:
    """Same arguments → the same bytes on every machine."""
    height = width if height is None else height
    rng = np.random.default_rng([seed, zone_id, width, height])
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    s = max(width, height)
    hills = (pmath.sin(x * (6.3 / s) * 3) * pmath.cos(y * (6.3 / s) * 2) * 0.25
             + pmath.sin((x + y) * (6.3 / s) * 5) * 0.1 + 0.45).astype(np.float32)
    # Relief grows with the zone so slopes stay in the range real zones have.
    relief = min(1200.0, s * 0.6)
    units = 600.0 + (hills - 0.45) * relief + _bumps(rng, hills.shape, 0.3)
    altitude = np.clip(units * 32.0, 0, 2047 * 32).astype("<u2")

    zone = Zone.blank(zone_id, width, height)
    zone.set_layer("altitude", altitude)
    if terraforming:
        zone.set_layer("altitude_original", altitude.copy())
        zone.set_layer("altitude_blend", np.zeros_like(altitude))

    control = np.zeros((height, width), "<u2")
    road = (np.abs(x - width * 0.5) < max(1, width // 64)) | (np.abs(y - height * 0.3) < max(1, height // 96))
    control[road] |= CONTROL_BITS["Highway"]
    control[(x < width * 0.2) & (y < height * 0.2)] |= CONTROL_BITS["TerraformProtected"]
    control[(x > width * 0.85) & (y > height * 0.85)] |= CONTROL_BITS["AntiPlant"]
    control[road & (x > width * 0.7)] |= CONTROL_BITS["ConcreteA"]
    zone.set_layer("control", control)

    units = altitude >> 5  # whole units, as plant rules compare them
    ground = np.select([units < 530, units < 590, units < 640, units < 690], [8, 1, 3, 5], 7).astype(np.uint8)
    plants = zone.plants
    plants["groundType"] = ground
    plants["spawn"] = np.where(rng.random((height, width)) < 0.9, 131, rng.integers(0, 256, (height, width)))
    species = np.array(sorted(_SPECIES_HEIGHT), np.uint8)
    kinds = species[rng.integers(0, species.size, (height, width))]
    occupied = (rng.random((height, width)) < 0.25) & ((control & CONTROL_BITS["Highway"]) == 0)
    occupied &= plants["spawn"] != 0
    plants["type"] = np.where(occupied, kinds, 0)
    plants["state"] = np.where(occupied, rng.integers(0, 4, (height, width)), 0)
    plants["time"] = np.where(occupied, rng.integers(0, 3, (height, width)), 0)
    plants["health"] = np.where(occupied, rng.integers(5, 256, (height, width)), 0)
    plants["material"] = np.where(occupied & (kinds >= 7), rng.integers(0, 126, (height, width)), 0)

    blocks = zone.blocks
    block_height = np.zeros(256, np.uint8)
    block_height[list(_SPECIES_HEIGHT)] = list(_SPECIES_HEIGHT.values())
    heights = block_height[plants["type"]]
    blocks["height"] = heights
    flags = np.where(heights > 0, BLOCK_FLAGS["Plant"], 0).astype(np.uint8)
    rocks = (rng.random((height, width)) < 0.01) & ~occupied
    flags[rocks] |= BLOCK_FLAGS["Obstacle"]
    blocks["height"][rocks] = 6
    flags[(x > width * 0.9) & (y < height * 0.1)] |= BLOCK_FLAGS["Island"]
    blocks["flags"] = flags
    zone.invalidate()
    return zone
