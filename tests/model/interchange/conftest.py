"""Scenes with known foliage for the interchange tests."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType, Palette, foliage_of
from model.scene import Scene
from model.terrain import Terrain


def random_records(n: int, seed: int, extent: float = 120.0) -> np.ndarray:
    """n records spread over [-extent/2, extent/2)² with every rotation and scale in use."""
    rng = np.random.default_rng(seed)
    r = np.empty((n, 7), np.float32)
    r[:, 0] = rng.uniform(-extent / 2, extent / 2, n)
    r[:, 1] = rng.uniform(0.0, 20.0, n)
    r[:, 2] = rng.uniform(-extent / 2, extent / 2, n)
    r[:, 3] = rng.uniform(-np.pi, np.pi, n)
    r[:, 4] = rng.uniform(-0.4, 0.4, n)
    r[:, 5] = rng.uniform(-0.3, 0.3, n)
    r[:, 6] = rng.uniform(0.5, 2.0, n)
    return r


def small_scene(counts: dict[str, int] | None = None, size: int = 41, spacing: float = 3.0,
                seed: int = 7) -> Scene:
    """A bumpy 120 m terrain with two painted layers and foliage of the given types and counts."""
    counts = {"conifer": 40, "rock": 25} if counts is None else counts
    xs = np.arange(size, dtype=np.float64)
    x, z = np.meshgrid(xs, xs)
    heights = (3.0 * np.sin(x / 5.0) + 2.0 * np.cos(z / 7.0) + 0.1 * x).astype(np.float32)
    half = (size - 1) * spacing / 2
    terrain = Terrain(heights, spacing, (-half, -half))
    w = np.zeros(heights.shape, np.uint8)
    w[:, : size // 2] = 255
    terrain.add_layer("grass", (90, 140, 60), w)
    terrain.add_layer("rock", (120, 120, 120), (255 - w) // 2)
    scene = Scene(terrain=terrain, name="small")
    meshes = {"conifer": "builtin:conifer", "rock": "builtin:rock", "bush": "builtin:bush",
              "broadleaf": "builtin:broadleaf"}
    palette = Palette([FoliageType(name, meshes.get(name, "builtin:bush"), spacing=1.5)
                       for name in counts])
    foliage = foliage_of(scene, palette)
    for k, (name, n) in enumerate(counts.items()):
        if n:
            foliage.volume.add(name, random_records(n, seed + k, (size - 1) * spacing))
    return scene


@pytest.fixture
def scene() -> Scene:
    return small_scene()


@pytest.fixture(autouse=True)
def every_gltf_is_valid(tmp_path):
    """After each test: the Khronos glTF Validator finds no error and no warning in any .glb/.gltf
    it left in tmp_path (files named `bad*` are broken on purpose)."""
    yield
    written = sorted(p for p in tmp_path.rglob("*") if p.suffix in (".glb", ".gltf")
                     and not p.name.startswith("bad"))
    if written:
        from tests.gltf_validator import assert_valid

        assert_valid(written)
