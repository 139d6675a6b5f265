"""A zone as an editable scene: altitude → terrain, ground types → paint layers, plants → foliage.

Plant types that block (trees, bushes, walls) become stored instances, one per plant tile; types that
never block (grass, reeds) become derived foliage growing on a paint layer of their tiles. Each plant
type present gets one palette entry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from model import portable_math as pmath
from model.foliage.section import SceneFoliage
from model.scene import Scene
from model.terrain import Terrain
from model.zones.names import BLOCK_FLAGS, GROUND_TYPES, PLANT_TYPES, type_name
from model.zones.zone import Zone

Progress = Callable[[float, str], bool]  # (fraction done, what) → False to cancel

GROUND_COLORS: dict[str, tuple[int, int, int]] = {
    "Darkrocks": (70, 66, 62), "LowlandA": (96, 140, 60), "LowlandB": (120, 150, 70),
    "MidlandA": (110, 120, 60), "MidlandB": (130, 125, 75), "HighlandA": (125, 105, 80),
    "HighlandB": (145, 120, 95), "Lightrocks": (170, 165, 155), "Sand": (210, 190, 130),
    "undefined": (128, 128, 128),
}
# Built-in mesh per known species; unknown species get a bush (blocking) or grass (never blocking).
SPECIES_MESH: dict[str, str] = {
    "PineTree": "conifer", "TreeIron": "broadleaf", "TreeCopper": "broadleaf", "TitanPlant": "broadleaf",
    "Bonsai": "broadleaf", "Poffeteg": "broadleaf", "BushA": "bush", "BushB": "bush", "RustBush": "bush",
    "SlimeRoot": "bush", "Quag": "bush", "ElectroPlant": "bush", "Rango": "bush", "Devrinol": "bush",
    "Wall": "rock", "GrassA": "grass", "GrassB": "grass", "Reed": "grass", "NanoWheat": "grass",
}
GRASS_DENSITY = 200.0  # derived instances per 100 m² where a grass type's layer is fully painted
SEED = 0x5A0E  # instance yaw and scale jitter: hashed per tile, the same on every import


class ImportCancelled(Exception):
    """The progress callback asked to stop; nothing was changed."""


def blocking_types(zone: Zone, rules: Mapping[int, Any] | None = None) -> dict[int, bool]:
    """Plant type → whether it ever blocks: from rules (any blockingHeight > 0) when given, else from
    the zone's blocks layer (a tile of that type with the Plant flag and a height), else by species."""
    present = [int(v) for v in np.flatnonzero(_counts(zone.plants["type"])) if v]
    out: dict[int, bool] = {}
    blocks = zone.blocks if zone.has("blocks") else None
    for kind in present:
        if rules is not None and kind in rules:
            out[kind] = bool(rules[kind].blocks)
        elif blocks is not None:
            tiles = zone.plants["type"] == kind
            standing = (blocks["flags"][tiles] & BLOCK_FLAGS["Plant"]) != 0
            out[kind] = bool(np.any(standing & (blocks["height"][tiles] > 0)))
        else:
            out[kind] = SPECIES_MESH.get(PLANT_TYPES.get(kind, "")) != "grass"
    return out


def _counts(values: np.ndarray, rows: int = 256) -> np.ndarray:
    """How often each byte value occurs, counted a band of rows at a time (a bincount of the whole
    layer would hold 8 bytes per tile)."""
    counts = np.zeros(256, np.int64)
    for r0 in range(0, values.shape[0], rows):
        counts += np.bincount(values[r0:r0 + rows].ravel(), minlength=256)
    return counts


def _names(zone: Zone, rules: Mapping[int, Any] | None) -> dict[int, str]:
    names = dict(zone.plant_names)
    for kind, rule in (rules or {}).items():
        label = getattr(rule, "name", "") or getattr(rule, "type_name", "")
        if label:
            names[int(kind)] = str(label)
    return names


def _hash01(values: np.ndarray, channel: int, seed: int = SEED) -> np.ndarray:
    from model.foliage.hashing import pcg

    return (pcg(pcg(np.uint32(seed) ^ np.uint32(channel)) ^ values.astype(np.uint32)) >> np.uint32(8)
            ).astype(np.float64) / 16777216.0


def plant_records(terrain: Terrain, x: np.ndarray, z: np.ndarray, tiles: np.ndarray,
                  growth: np.ndarray, seed: int = SEED) -> np.ndarray:
    """Stored-foliage records for plants: on the ground, yaw and ±10 % scale hashed per tile."""
    records = np.zeros((x.size, 7), np.float32)
    records[:, 0] = x
    records[:, 1] = terrain.height_at(x, z)
    records[:, 2] = z
    records[:, 3] = _hash01(tiles, 0, seed) * (2 * math.pi)
    records[:, 6] = growth * (0.9 + 0.2 * _hash01(tiles, 1, seed))
    return records


def terrain_of(zone: Zone, tile_size: float = 1.0) -> Terrain:
    """Heights in metres (= altitude units, raw / 32), one sample per tile; ground types as layers."""
    heights = zone.altitude.astype(np.float32) * np.float32(1 / 32)
    terrain = Terrain(heights, spacing=float(tile_size))
    if zone.has("plants"):
        ground = zone.plants["groundType"]
        for value in np.flatnonzero(np.bincount(ground.ravel(), minlength=256)):
            name = GROUND_TYPES.get(int(value), f"ground {int(value)}")
            color = GROUND_COLORS.get(name, _palette_color(int(value)))
            terrain.add_layer(name, color, np.where(ground == value, np.uint8(255), np.uint8(0)))
    return terrain


def _palette_color(value: int) -> tuple[int, int, int]:
    h = (value * 0.61803) % 1.0
    return tuple(int(90 + 120 * (0.5 + 0.5 * pmath.cos(2 * math.pi * (h + k / 3)))) for k in range(3))


def zone_to_scene(zone: Zone, tile_size: float = 1.0, rules: Mapping[int, Any] | None = None,
                  progress: Progress | None = None, name: str | None = None) -> Scene:
    """A new scene from `zone`. `rules` (plant type → rule with `.blocks` and `.name`) decides which
    types block and names them; `progress` may cancel (ImportCancelled), leaving nothing behind."""
    if not tile_size > 0:
        raise ValueError("tile size must be positive")

    def step(fraction: float, what: str) -> None:
        if progress is not None and progress(fraction, what) is False:
            raise ImportCancelled(what)

    zone.require("altitude")  # names the folder and the missing file
    step(0.0, "terrain")
    terrain = terrain_of(zone, tile_size)
    scene = Scene(terrain=terrain, name=name or f"zone {zone.zone_id:04d}")
    # The palette is made from the zone's data only: a zone without plants gets an empty one (the
    # editor would otherwise give it the sample types, which name layers the zone does not have).
    scene.sections["foliage"] = SceneFoliage()
    if zone.has("plants"):
        step(0.4, "plants")
        _add_plants(scene, zone, tile_size, rules, step)
    step(1.0, "done")
    return scene


def _add_plants(scene: Scene, zone: Zone, tile_size: float, rules: Mapping[int, Any] | None,
                step: Callable[[float, str], None]) -> None:
    from model.foliage import FoliageType, LayerFilter

    foliage = scene.sections["foliage"]
    names = _names(zone, rules)
    kinds = zone.plants["type"]
    blocking = blocking_types(zone, rules)
    heights = zone.blocks["height"] if zone.has("blocks") else None
    terrain = scene.terrain
    for n, (kind, blocks) in enumerate(sorted(blocking.items())):
        step(0.4 + 0.6 * n / max(1, len(blocking)), f"plants: {names.get(kind, kind)}")
        label = type_name(kind, names)
        # The mesh follows the species (by its built-in type), whatever a rules folder calls it.
        mesh = "builtin:" + SPECIES_MESH.get(PLANT_TYPES.get(kind, ""), "bush" if blocks else "grass")
        ys, xs = np.nonzero(kinds == kind)
        if not blocks:
            layer = f"plants: {label}"
            terrain.add_layer(layer, (80, 170, 70), np.where(kinds == kind, np.uint8(255), np.uint8(0)))
            foliage.palette.add(FoliageType(label, mesh=mesh, storage="derived", density=GRASS_DENSITY,
                                            layer=LayerFilter(layer, 0.5)))
            continue
        foliage.palette.add(FoliageType(label, mesh=mesh))
        x = xs * tile_size
        z = ys * tile_size
        tile = (ys.astype(np.int64) * zone.width + xs).astype(np.uint32)
        scale = np.ones(xs.size)
        if heights is not None:
            # A plant's blocking height follows its growth state: scale young plants down.
            h = heights[ys, xs].astype(np.float64)
            top = h.max() if h.size else 0.0
            scale = np.clip(h / top, 0.3, 1.0) if top > 0 else scale
        foliage.volume.add(label, plant_records(terrain, x, z, tile, scale), copy=False)


# ---- big zones: written tile by tile ----------------------------------------------------------
TileProgress = Callable[[int, int, str], Any]  # (tiles done, tiles in all, what) → False stops


def write_zone_scene(zone: Zone, out, tile_size: float = 1.0, rules: Mapping[int, Any] | None = None,
                     progress: TileProgress | None = None, name: str | None = None) -> Scene:
    """`save_scene(zone_to_scene(...), out)` one band of 512 tile rows at a time: heights and
    layer weights are made and written per band (`SceneWriter`), never for the whole zone, and
    the plants' ground heights are read back from the written tiles. The same bytes; the written
    scene, paged. `progress(done, total, what)` hears every tile; False stops (ImportCancelled)
    and removes what was written."""
    from model.foliage import FoliageType, LayerFilter
    from model.formats.scene_writer import SceneWriter

    if not tile_size > 0:
        raise ValueError("tile size must be positive")
    zone.require("altitude")
    plants = zone.plants if zone.has("plants") else None
    layers: list[tuple[str, tuple[int, int, int], bool]] = []
    masks: list[tuple[str, int]] = []  # per layer: which plant field, equal to what
    blocking: dict[int, bool] = {}
    names = _names(zone, rules)
    if plants is not None:
        for value in np.flatnonzero(_counts(plants["groundType"])):
            gname = GROUND_TYPES.get(int(value), f"ground {int(value)}")
            layers.append((gname, GROUND_COLORS.get(gname, _palette_color(int(value))), True))
            masks.append(("groundType", int(value)))
        blocking = blocking_types(zone, rules)
        for kind, blocks in sorted(blocking.items()):
            if not blocks:
                layers.append((f"plants: {type_name(kind, names)}", (80, 170, 70), True))
                masks.append(("type", kind))
    found: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {k: [] for k, b in blocking.items() if b}
    with SceneWriter(out, zone.height, zone.width, float(tile_size)) as writer:
        writer.set_layers(layers)
        n_i, n_j = writer.tile_counts
        total = n_i * n_j
        if progress is not None and progress(0, total, "terrain") is False:
            raise ImportCancelled("terrain")
        for i in range(n_i):
            rs = writer.band(i)
            heights = zone.altitude[rs].astype(np.float32) * np.float32(1 / 32)
            weights = np.empty((len(layers), rs.stop - rs.start, zone.width), np.uint8)
            for k, (field_name, value) in enumerate(masks):
                weights[k] = np.where(plants[field_name][rs] == value, np.uint8(255), np.uint8(0))
            for kind, parts in found.items():
                ys, xs = np.nonzero(plants["type"][rs] == kind)
                parts.append((ys + rs.start, xs))
            for j in range(n_j):
                cs = slice(j * writer.tile, min(zone.width, (j + 1) * writer.tile))
                writer.put_heights(i, j, heights[:, cs])
                writer.put_layers(i, j, weights[:, :, cs])
                if progress is not None and progress(i * n_j + j + 1, total, "terrain") is False:
                    raise ImportCancelled("terrain")
        foliage = SceneFoliage()
        ground = writer.heights_terrain()
        block_heights = zone.blocks["height"] if zone.has("blocks") else None
        for kind, blocks in sorted(blocking.items()):
            label = type_name(kind, names)
            mesh = "builtin:" + SPECIES_MESH.get(PLANT_TYPES.get(kind, ""), "bush" if blocks else "grass")
            if not blocks:
                foliage.palette.add(FoliageType(label, mesh=mesh, storage="derived", density=GRASS_DENSITY,
                                                layer=LayerFilter(f"plants: {label}", 0.5)))
                continue
            foliage.palette.add(FoliageType(label, mesh=mesh))
            ys = np.concatenate([p[0] for p in found[kind]])
            xs = np.concatenate([p[1] for p in found[kind]])
            tile = (ys.astype(np.int64) * zone.width + xs).astype(np.uint32)
            scale = np.ones(xs.size)
            if block_heights is not None:
                h = block_heights[ys, xs].astype(np.float64)
                top = h.max() if h.size else 0.0
                scale = np.clip(h / top, 0.3, 1.0) if top > 0 else scale
            foliage.volume.add(label, plant_records(ground, xs * tile_size, ys * tile_size, tile, scale),
                               copy=False)
        return writer.finish(name or f"zone {zone.zone_id:04d}", {"foliage": foliage})
