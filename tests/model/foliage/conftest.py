"""Terrains with known shapes for the foliage tests: a plane, a cone, a layer painted on half."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage.foliage_type import FoliageType, LayerFilter
from model.foliage.palette import Palette
from model.foliage.scatter import FoliageScatter
from model.foliage.volume import FoliageVolume
from model.terrain import Terrain


def plane(size: int = 65, spacing: float = 1.0, height: float = 0.0, origin=(0.0, 0.0)) -> Terrain:
    return Terrain(np.full((size, size), height, np.float32), spacing, origin)


def cone(size: int = 129, slope_per_m: float = 0.8) -> Terrain:
    """Height rises by `slope_per_m` per metre from the centre: slope atan(0.8) ≈ 38.7° everywhere."""
    c = (size - 1) / 2.0
    xs = np.arange(size, dtype=np.float64)
    x, z = np.meshgrid(xs, xs)
    return Terrain((np.hypot(x - c, z - c) * slope_per_m).astype(np.float32), 1.0, (0.0, 0.0))


def ramp(size: int = 65, degrees: float = 30.0) -> Terrain:
    """A plane tilted about Z: height rises along X at `degrees`."""
    xs = np.arange(size, dtype=np.float64)
    x, _ = np.meshgrid(xs, xs)
    return Terrain((x * np.tan(np.radians(degrees))).astype(np.float32), 1.0, (0.0, 0.0))


def paint_half(terrain: Terrain, name: str = "grass") -> None:
    """Layer `name` painted fully on the west half (x < middle)."""
    w = np.zeros(terrain.heights.shape, np.uint8)
    w[:, : terrain.columns // 2] = 255
    terrain.add_layer(name, (0, 200, 0), w)


@pytest.fixture
def half_painted_cone() -> Terrain:
    t = cone()
    paint_half(t)
    return t


def scatter_for(terrain: Terrain, *types: FoliageType, cell_size: float = 32.0) -> FoliageScatter:
    return FoliageScatter(terrain, FoliageVolume(Palette(types), cell_size))


TREE = FoliageType("tree", density=20.0, spacing=2.0, slope=(0.0, 45.0), altitude=(0.0, 40.0),
                   layer=LayerFilter("grass", 0.5), align=0.3, tilt=(0.0, 5.0), scale=(0.8, 1.2),
                   sink=(0.0, 0.3))
