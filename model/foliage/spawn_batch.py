"""A spawner (or one type's scatter) over a whole scene in tiles, on any number of workers, with the
bytes of one run.

Each tile is computed from its own box plus the spawner's dependency margin (see `spawn_run`),
so a tile's instances are exactly a full run's there; tiles are merged in tile order, and what is
stored is sorted by position, so tile size, worker count and completion order never show.
Workers receive plain arrays and TOML tables (the terrain, the palette, the stored foliage that
is not the spawner's own), never the live scene.

A type's whole-scene scatter is the same job with a spawner of that one type (its density, area
"all", the seed given): candidates on the hashed 32 m grid, the type's bands, spacing against the
stored foliage and blue-noise spacing among its own. Painting's stamps decide spacing greedily in
candidate order, which no tiling can reproduce; this order-free rule can be split into tiles. Its
instances are painted foliage: no spawner owns them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from model.batch import Task, TileStore, parameters_of, run_tasks
from model.foliage.palette import palette_from_list, palette_to_list
from model.foliage.section import foliage_of
from model.foliage.spawn_run import (
    PLACED,
    SpawnResult,
    SpeciesOutcome,
    area_box,
    check_runnable,
    merge_results,
    run_spawner,
)
from model.foliage.spawner import Area, Spawner, Species, spawner_from_toml, spawner_to_toml
from model.foliage.spawner_section import (
    SpawnChange,
    apply_result,
    position_keys,
    spawners_of,
    stored_positions,
)
from model.foliage.volume import Selection
from model.scene import Scene
from model.terrain import Terrain, TerrainLayer

DEFAULT_TILE = 256.0  # metres


def _world(scene: Scene, spawner: Spawner, owned: bool = True) -> dict:
    """What every tile needs, as plain values: terrain arrays, palette and spawner tables, and the
    stored positions (per type) of everything that is not this spawner's own (`owned=False`: of
    everything stored)."""
    t = scene.terrain
    foliage = foliage_of(scene)
    section = spawners_of(scene)
    own = section.owned.get(spawner.name, {}) if owned else {}
    stored = stored_positions(foliage.volume, {spawner.name: own})
    x0, z0, x1, z1 = t.bounds()
    huge = (x0 - 1e6, z0 - 1e6, x1 + 1e6, z1 + 1e6)
    positions = {name: stored([name], huge) for name in foliage.volume.type_names()}
    return {
        "heights": t.heights, "spacing": t.spacing, "origin": t.origin,
        "layers": [(layer.name, layer.color, layer.weights) for layer in t.layers],
        "palette": palette_to_list(foliage.palette), "spawner": spawner_to_toml(spawner),
        "positions": positions,
    }


def spawn_tile(world: dict, tile: tuple[float, float, float, float]) -> dict[str, np.ndarray]:
    """One tile of a spawner's run as arrays (a batch task: runs in a worker process)."""
    terrain = Terrain(world["heights"], world["spacing"], tuple(world["origin"]),
                      [TerrainLayer(n, tuple(c), w) for n, c, w in world["layers"]])
    palette = palette_from_list(world["palette"])
    spawner = spawner_from_toml(world["spawner"])
    positions = world["positions"]

    def stored(types, box):
        names = types if types is not None else list(positions)
        parts = []
        for name in names:
            p = positions.get(name)
            if p is not None and len(p):
                keep = (p[:, 0] >= box[0]) & (p[:, 0] <= box[2]) & (p[:, 1] >= box[1]) & (p[:, 1] <= box[3])
                parts.append(p[keep])
        return np.concatenate(parts) if parts else np.empty((0, 2))

    result = run_spawner(spawner, terrain, palette, stored, tile=tile)
    out: dict[str, np.ndarray] = {"species": np.array(len(result.species))}
    for i, s in enumerate(result.species):
        out[f"labels_{i}"] = np.array(s.labels)
        out[f"xz_{i}"] = s.xz
        out[f"refusals_{i}"] = s.refusals
        out[f"records_{i}"] = s.records
        out[f"missing_{i}"] = np.array(sorted(s.missing_layers), dtype=str)
    return out


def _outcomes(arrays: dict[str, np.ndarray], spawner: Spawner) -> list[SpeciesOutcome]:
    ordered = spawner.ordered_species()
    return [SpeciesOutcome(ordered[i][0], ordered[i][1].type, [str(v) for v in arrays[f"labels_{i}"]],
                           arrays[f"xz_{i}"].reshape(-1, 2), arrays[f"refusals_{i}"],
                           arrays[f"records_{i}"].reshape(-1, 7), {str(v) for v in arrays[f"missing_{i}"]})
            for i in range(int(arrays["species"]))]


def tile_boxes(box: tuple[float, float, float, float], size: float) -> list[tuple]:
    """Half-open tiles covering `box`; the last row and column reach past its upper edges."""
    x0, z0, x1, z1 = box
    nx, nz = max(1, math.ceil((x1 - x0) / size)), max(1, math.ceil((z1 - z0) / size))
    out = []
    for j in range(nz):
        for i in range(nx):
            hx = x1 + 1.0 if i == nx - 1 else x0 + (i + 1) * size
            hz = z1 + 1.0 if j == nz - 1 else z0 + (j + 1) * size
            out.append((x0 + i * size, z0 + j * size, hx, hz))
    return out


def spawn_in_tiles(scene: Scene, spawner: Spawner, tile: float = DEFAULT_TILE, workers: int | None = 1,
                   scheduler: str | None = None, store_folder: Path | None = None, resume: bool = False,
                   progress=None) -> tuple[SpawnResult, SpawnChange]:
    """Run a spawner over its whole area in tiles and make the scene's volume hold the result."""
    foliage = foliage_of(scene)
    if area_box(spawner, scene.terrain) is None:
        result = run_spawner(spawner, scene.terrain, foliage.palette, lambda types, box: np.empty((0, 2)))
        return result, apply_result(scene, result, whole=True)
    result = _tiled(scene, spawner, "spawn", True, tile, workers, scheduler, store_folder, resume, progress)
    return result, apply_result(scene, result, whole=True)


def scatter_spawner(type_name: str, density: float, seed: int = 0) -> Spawner:
    """A type's whole-scene scatter as a spawner of that one type (see the module's docstring)."""
    return Spawner(f"scatter {type_name}", int(seed), Area(), (Species(type_name, float(density)),))


def scatter_in_tiles(scene: Scene, type_name: str, seed: int = 0, strength: float = 1.0,
                     tile: float = DEFAULT_TILE, workers: int | None = 1, scheduler: str | None = None,
                     store_folder: Path | None = None, resume: bool = False, progress=None,
                     apply: bool = True) -> tuple[SpawnResult, Selection]:
    """Scatter one palette type over the whole terrain in tiles; with `apply` its placed instances
    are added to the volume as painted foliage, in position-key order (the same bytes for any tile
    size, worker count and completion order). Returns the result and the addresses added."""
    foliage = foliage_of(scene)
    ftype = foliage.palette[type_name]
    spawner = scatter_spawner(type_name, ftype.density * max(float(strength), 0.0), seed)
    result = _tiled(scene, spawner, "scatter", False, tile, workers, scheduler, store_folder, resume,
                    progress)
    added: Selection = {}
    records = result.records_by_type().get(type_name)
    if apply and records is not None and len(records):
        added = foliage.volume.add(type_name, records[np.argsort(position_keys(records), kind="stable")])
    return result, added


def _tiled(scene: Scene, spawner: Spawner, job: str, owned: bool, tile: float, workers: int | None,
           scheduler: str | None, store_folder: Path | None, resume: bool, progress) -> SpawnResult:
    """The spawner's full run, as tiles by any executor, merged in tile order."""
    foliage = foliage_of(scene)
    full = area_box(spawner, scene.terrain)
    check_runnable(spawner, foliage.palette)  # here, before any worker starts
    if full is None:
        return SpawnResult(spawner.name, (0.0, 0.0, 0.0, 0.0), [])
    boxes = tile_boxes(full, tile)
    tasks = [Task(f"tile_{n:05d}", (b,)) for n, b in enumerate(boxes)]
    store = None
    if store_folder is not None:
        store = TileStore(store_folder, job, parameters_of(spawner=spawner_to_toml(spawner), tile=tile,
                                                           scene=scene.name))
        store.open(resume)
    world = _world(scene, spawner, owned)
    results = run_tasks(spawn_tile, tasks, shared=(world,), workers=workers, scheduler=scheduler, store=store,
                        progress=progress)
    parts = [SpawnResult(spawner.name, b, _outcomes(results[t.key], spawner))
             for t, b in zip(tasks, boxes, strict=True)]
    merged = merge_results(parts, full)
    if store is not None:
        store.clear()  # finished: nothing is left to resume
    return merged


__all__ = ["DEFAULT_TILE", "PLACED", "scatter_in_tiles", "scatter_spawner", "spawn_in_tiles", "spawn_tile",
           "tile_boxes"]
