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

import hashlib
import json
import math
from pathlib import Path

import numpy as np

from model.batch import MAX_TASKS, Task, TileStore, parameters_of, run_tasks
from model.checksum import crc32
from model.foliage.palette import palette_from_list, palette_to_list
from model.foliage.section import foliage_of
from model.foliage.spawn_conditions import reach_of
from model.foliage.spawn_run import (
    PLACED,
    SpawnError,
    SpawnResult,
    SpeciesOutcome,
    area_box,
    check_runnable,
    dependency_margins,
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
from model.formats import tiles as tiling
from model.layer_material import LayerMaterial, material_entry
from model.paged import PagedGrid, PagedPlane
from model.scene import Scene
from model.terrain import Terrain, TerrainLayer

DEFAULT_TILE = 256.0  # metres


WINDOW_ALIGN = 64  # samples: a task's window of the terrain starts and ends on this grid


class _Window(PagedGrid):
    """The part of a grid a tile task needs (`values`, from row `r0`, column `c0`), answering in the
    whole grid's coordinates, so a worker's terrain samples with the arithmetic of the whole one
    (a terrain cut out with a shifted origin would round its cell positions otherwise). Reading
    outside the window is an error, never a guess."""

    def __init__(self, values: np.ndarray, rows: int, columns: int, r0: int, c0: int) -> None:
        super().__init__(values.shape[0], rows, columns, values.dtype, WINDOW_ALIGN, files=[])
        self.values, self.r0, self.c0 = values, r0, c0

    def _local(self, r, c):
        r, c = np.asarray(r, np.int64) - self.r0, np.asarray(c, np.int64) - self.c0
        h, w = self.values.shape[1:]
        if r.size and (r.min() < 0 or c.min() < 0 or r.max() >= h or c.max() >= w):
            raise IndexError("a tile task read the terrain outside its window")
        return r, c

    def tile_array(self, i: int, j: int) -> np.ndarray:
        rs, cs = tiling.tile_slices(i, j, self.rows, self.columns, self.tile)
        (a0, a1), (b0, b1) = self._local([rs.start, rs.stop - 1], [cs.start, cs.stop - 1])
        return self.values[:, a0:a1 + 1, b0:b1 + 1]

    def gather(self, plane: int, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        r, c = self._local(*np.broadcast_arrays(r, c))
        return self.values[plane][r, c]


def _world(scene: Scene, spawner: Spawner) -> dict:
    """What every tile needs, as plain values: the terrain's shape and place, the layers' names,
    the palette and the spawner. Each tile's own window of the grids and the stored foliage near
    it come with the tile (`_tile_inputs`): a worker never receives the whole terrain."""
    t = scene.terrain
    foliage = foliage_of(scene)
    return {
        "shape": (t.rows, t.columns), "spacing": t.spacing, "origin": t.origin,
        "layers": [(layer.name, layer.color, layer.weight_blend, material_entry(layer.material))
                   for layer in t.layers],
        "palette": palette_to_list(foliage.palette), "spawner": spawner_to_toml(spawner),
    }


def _reach(spawner: Spawner, palette) -> float:
    """How far beyond a tile's work box a run reads stored foliage (spacing, near/far)."""
    out = 0.0
    for _, species in spawner.ordered_species():
        ftype = palette.get(species.type)
        out = max(out, ftype.spacing if ftype is not None else 0.0,
                  *(reach_of(c) for c in species.conditions))
    return out


def _tile_inputs(scene: Scene, spawner: Spawner, owned: bool):
    """`prepare(task)` for `run_tasks`: a tile's window of heights and layer weights (the box its
    decisions read, plus the cells around it, read window by window: a paged terrain is never
    assembled) and the stored positions within reach of it."""
    t = scene.terrain
    foliage = foliage_of(scene)
    section = spawners_of(scene)
    own = section.owned.get(spawner.name, {}) if owned else {}
    stored = stored_positions(foliage.volume, {spawner.name: own})
    names = foliage.volume.type_names()
    full = area_box(spawner, t)
    width = max(dependency_margins(spawner, foliage.palette).values(), default=0.0)
    reach = _reach(spawner, foliage.palette) + 1.0
    (ox, oz), s = t.origin, t.spacing

    def span(lo: float, hi: float, origin: float, n: int) -> slice:
        a = max(0, math.floor((lo - origin) / s) - 1)  # a cell's corners, and one sample for rounding
        b = min(n, math.floor((hi - origin) / s) + 3)
        a = a // WINDOW_ALIGN * WINDOW_ALIGN
        return slice(a, min(n, -(-b // WINDOW_ALIGN) * WINDOW_ALIGN))

    def prepare(task: Task) -> tuple:
        (box,) = task.args
        inner = (max(full[0], box[0]), max(full[1], box[1]), min(full[2], box[2]), min(full[3], box[3]))
        work = (max(full[0], inner[0] - width), max(full[1], inner[1] - width),
                min(full[2], inner[2] + width), min(full[3], inner[3] + width))
        rows, cols = span(work[1], work[3], oz, t.rows), span(work[0], work[2], ox, t.columns)
        heights = t.read_heights(rows, cols)[None]
        weights = np.stack([layer.read(rows, cols) for layer in t.layers]) if t.layers else None
        near = (work[0] - reach, work[1] - reach, work[2] + reach, work[3] + reach)
        positions = {name: stored([name], near) for name in names}
        return box, {"r0": rows.start, "c0": cols.start, "heights": heights, "weights": weights,
                     "positions": positions}

    return prepare


def spawn_tile(world: dict, tile: tuple[float, float, float, float], window: dict) -> dict[str, np.ndarray]:
    """One tile of a spawner's run as arrays (a batch task: runs in a worker process), from the
    terrain's window around it and the stored positions near it."""
    rows, cols = world["shape"]
    r0, c0 = window["r0"], window["c0"]
    heights = _Window(window["heights"], rows, cols, r0, c0)
    layers = []
    if world["layers"]:
        weights = _Window(window["weights"], rows, cols, r0, c0)
        layers = [TerrainLayer(n, tuple(c), PagedPlane(weights, k), blend, LayerMaterial(**material))
                  for k, (n, c, blend, material) in enumerate(world["layers"])]
    terrain = Terrain(PagedPlane(heights, 0), world["spacing"], tuple(world["origin"]), layers)
    palette = palette_from_list(world["palette"])
    spawner = spawner_from_toml(world["spawner"])
    positions = window["positions"]

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
    if not (math.isfinite(tile) and tile > 0):
        raise SpawnError(f"tile size must be a positive number of metres, got {tile}")
    tasks = max(1.0, (full[2] - full[0]) / tile) * max(1.0, (full[3] - full[1]) / tile)  # float: no overflow
    if tasks > MAX_TASKS:
        raise SpawnError(f"a {tile:g} m tile makes {tasks:,.0f} tiles of this area (at most {MAX_TASKS:,}); "
                         "use a larger tile")
    boxes = tile_boxes(full, tile)
    tasks = [Task(f"tile_{n:05d}", (b,)) for n, b in enumerate(boxes)]
    store = None
    if store_folder is not None:
        store = TileStore(store_folder, job, parameters_of(spawner=spawner_to_toml(spawner), tile=tile,
                                                           scene=scene.name), scene_inputs(scene))
        store.open(resume)
    results = run_tasks(spawn_tile, tasks, shared=(_world(scene, spawner),), workers=workers,
                        scheduler=scheduler, store=store, progress=progress,
                        prepare=_tile_inputs(scene, spawner, owned))
    parts = [SpawnResult(spawner.name, b, _outcomes(results[t.key], spawner))
             for t, b in zip(tasks, boxes, strict=True)]
    merged = merge_results(parts, full)
    if store is not None:
        store.clear()  # finished: nothing is left to resume
    return merged


# ---- what a resume must find unchanged ---------------------------------------------------------
def _digest(values) -> str:
    return hashlib.sha256(json.dumps(values, default=str).encode()).hexdigest()[:16]


def _tile_crcs(planes: list, dtype: str) -> list[str]:
    """The CRC-32 of each `tiling.TILE` tile of `planes` stacked, as a saved scene names its tile
    files: taken from those names where the planes are a scene's tiles still as opened (nothing
    read), else computed tile by tile (a paged grid is never assembled)."""
    rows, cols = planes[0].shape
    grid = planes[0].grid if isinstance(planes[0], PagedPlane) else None
    intact = (grid is not None and not grid.is_full and grid.tile == tiling.TILE
              and grid.planes == len(planes)
              and all(isinstance(p, PagedPlane) and p.grid is grid and p.plane == k
                      for k, p in enumerate(planes)))
    out = []
    for i, j, rs, cs in tiling.tiles_of(rows, cols, tiling.TILE):
        same = grid.unchanged_file(i, j) if intact else None
        crc = tiling.crc_in_name(same.name) if same is not None else None
        if crc is None:
            crc = 0
            for p in planes:
                crc = crc32(np.ascontiguousarray(p[rs, cs], dtype).tobytes(), crc)
        out.append(f"{crc & 0xFFFFFFFF:08x}")
    return out


def scene_inputs(scene: Scene) -> dict[str, str]:
    """A digest of each part of a scene a spawn or scatter reads, from its content (the CRC-32s its
    saved side files carry, as the scene holds them now): what a resume compares with the stopped
    run's, naming the part that differs."""
    from model.foliage.spawner_section import encode_owned
    from model.foliage.store import encode_with_crc

    t = scene.terrain
    foliage = foliage_of(scene)
    section = spawners_of(scene)
    out = {"the terrain's heights": _digest([t.rows, t.columns, t.spacing, list(t.origin),
                                             _tile_crcs([t.heights_grid()], "<f4")])}
    weights = _tile_crcs([la.grid() for la in t.layers], "u1") if t.layers else []
    out["the terrain's layers"] = _digest([[la.name, list(la.color), la.weight_blend] for la in t.layers]
                                          + [weights])
    instances = encode_with_crc(foliage.volume)[1]
    out["the foliage"] = _digest([palette_to_list(foliage.palette), f"{instances:08x}"])
    out["the spawners"] = _digest([[spawner_to_toml(sp) for sp in section.spawners],
                                   crc32(encode_owned(section.owned, section.removed)) & 0xFFFFFFFF])
    return out


__all__ = ["DEFAULT_TILE", "PLACED", "scatter_in_tiles", "scatter_spawner", "scene_inputs", "spawn_in_tiles",
           "spawn_tile", "tile_boxes"]
