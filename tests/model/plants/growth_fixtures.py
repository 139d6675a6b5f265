"""Growth fields built in the tests: flat ground every sample species but pine and reed accepts."""

from __future__ import annotations

import numpy as np

from model.plants.growth import GrowthField


def flat_field(size: int = 64, altitude_units: int = 400, ground: int = 1, spawn: int = 131) -> GrowthField:
    """An empty field; raw altitude = units × 32, so `raw >> 7` is units / 4."""
    z = np.zeros((size, size), np.uint8)
    return GrowthField(type=z.copy(), state=z.copy(), time=z.copy(), spawn=np.full_like(z, spawn),
                       health=z.copy(), material=z.copy(), ground=np.full_like(z, ground),
                       flags=z.copy(), height=z.copy(), control=np.zeros((size, size), np.uint16),
                       altitude=np.full((size, size), altitude_units * 32, np.uint16),
                       slope=z.copy())


def fill(f: GrowthField, plant_type: int, health: int, states: np.ndarray, time: int) -> GrowthField:
    f.type[...] = plant_type
    f.state[...] = states
    f.health[...] = health
    f.time[...] = time
    return f
