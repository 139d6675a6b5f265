"""Spawner budgets: a three-species forest vs the paint scatter of the same candidate count, and a
local re-run after a brush stroke vs the whole spawner."""

from __future__ import annotations

import dataclasses
import time
import tracemalloc

import numpy as np

from app.bench import BenchCase, best_time
from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.scatter import FoliageScatter, PolygonRegion
from model.foliage.section import foliage_of
from model.foliage.spawn_run import run_spawner
from model.foliage.spawner import spawner_from_toml
from model.foliage.spawner_section import run_and_apply, spawners_of
from model.foliage.volume import FoliageVolume
from model.scene import Scene
from model.terrain import Terrain, TerrainLayer


def _world(side: float) -> tuple[Terrain, Palette]:
    n = int(side / 2.0) + 1
    xs = np.linspace(0.0, side, n)
    x, z = np.meshgrid(xs, xs)
    heights = 20 + 15 * np.sin(x / 97.0) * np.cos(z / 131.0) + 4 * np.sin(x / 13.0 + z / 17.0)
    floor = ((np.sin(x / 50.0) + np.cos(z / 70.0)) > -0.5).astype(np.uint8) * 255
    terrain = Terrain(heights.astype(np.float32), side / (n - 1), (0.0, 0.0),
                      [TerrainLayer("forest_floor", (60, 90, 40), floor)])
    palette = Palette()
    for name, spacing in (("conifer", 3.0), ("bush", 1.5), ("rock", 0.0), ("tree", 3.0)):
        palette.add(FoliageType(name, spacing=spacing, slope=(0.0, 40.0)))
    return terrain, palette


FOREST = {
    "name": "forest", "seed": 7, "area": {"layer": "forest_floor", "min_weight": 0.3},
    "species": [
        {"type": "conifer", "density": 1.0, "exclusion": 2.0,
         "conditions": [{"slope": [0, 30]}, {"noise": {"scale": 60.0, "threshold": 0.35}}]},
        {"type": "bush", "density": 3.0, "order": 1,
         "conditions": [{"near": {"type": "conifer", "within": 8.0}}]},
        {"type": "rock", "density": 0.3, "order": 2, "conditions": [{"slope": [10, 90]}]},
    ],
}


def _no_stored(types, box) -> np.ndarray:
    return np.empty((0, 2))


def forest_vs_paint_scatter(quick: bool) -> float:
    side = 1000.0  # the budget's own size: the whole run takes well under a second
    terrain, palette = _world(side)
    spawner = spawner_from_toml(FOREST)
    result = run_spawner(spawner, terrain, palette, _no_stored)
    spawn_time = best_time(lambda: run_spawner(spawner, terrain, palette, _no_stored), 2 if quick else 4)
    # the paint scatter of as many candidates over the same square, with the same spacing
    tree = dataclasses.replace(palette["tree"], density=result.candidates * 100.0 / (side * side))
    scatter = FoliageScatter(terrain, FoliageVolume(Palette([tree])))
    square = PolygonRegion(((0.0, 0.0), (side, 0.0), (side, side), (0.0, side)), seed=7)
    paint_time = best_time(lambda: scatter.scatter(["tree"], square, apply=False), 2 if quick else 4)
    return spawn_time / paint_time


def region_rerun_vs_whole(quick: bool) -> float:
    side = 1000.0  # the budget's own size: the whole run takes well under a second
    terrain, palette = _world(side)
    spawner = spawner_from_toml(FOREST)
    whole = best_time(lambda: run_spawner(spawner, terrain, palette, _no_stored), 2 if quick else 4)
    c = side / 2
    stroke = (c - 10.0, c - 10.0, c + 10.0, c + 10.0)  # a 20 m brush stroke's touched box
    local = best_time(lambda: run_spawner(spawner, terrain, palette, _no_stored, stroke), 3 if quick else 6)
    return local / whole


def _dense(density: float):
    return spawner_from_toml({"name": "dense", "seed": 3, "area": "all", "species": [
        {"type": "rock", "density": 0.05, "exclusion": 4.0},
        {"type": "tree", "density": density, "order": 1}]})


def peak_memory_4x_candidates(quick: bool) -> float:
    """Peak traced memory of a spawn at 4× the candidates (4× the density: 16× the pairs within
    the spacing) over the same at 1×."""
    terrain, palette = _world(256.0 if quick else 512.0)
    peaks = []
    for density in (20.0, 80.0):
        spawner = _dense(density)
        tracemalloc.start()
        try:
            run_spawner(spawner, terrain, palette, _no_stored)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    return peaks[1] / peaks[0]


def no_change_rerun_vs_first(quick: bool) -> float:
    """A spawner owning ~50,000 instances re-run with nothing changed vs its first run (the run and
    making the volume hold it, both)."""
    terrain, palette = _world(1000.0)  # ~50,000 instances: small ones measure fixed costs
    spawner = _dense(5.0)
    first, again = float("inf"), float("inf")
    for _ in range(3 if quick else 5):  # each first run on a fresh scene; the least noisy of each
        scene = Scene(terrain)
        foliage_of(scene, palette)
        spawners_of(scene).spawners.append(spawner)
        t0 = time.perf_counter()
        run_and_apply(scene, spawner)
        first = min(first, time.perf_counter() - t0)
        again = min(again, best_time(lambda scene=scene: run_and_apply(scene, spawner), 2))
    return again / first


CASES = [
    BenchCase("spawn.forest_vs_paint_scatter", 2.0, forest_vs_paint_scatter,
              description="three-species 1 km² spawner vs the paint scatter of the same candidate count"),
    BenchCase("spawn.region_rerun_vs_whole", 0.1, region_rerun_vs_whole,
              description="re-running a spawner over a 20 m stroke vs over its whole area"),
    BenchCase("spawn.peak_memory_4x_candidates", 4.5, peak_memory_4x_candidates,
              description="spawn peak memory (tracemalloc) at 4x the candidates vs 1x: linear"),
    BenchCase("spawn.no_change_rerun_vs_first", 1.2, no_change_rerun_vs_first,
              description="re-running a spawner that owns its instances, nothing changed, vs its first run"),
]
