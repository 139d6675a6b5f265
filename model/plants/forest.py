"""Growing a forest on a scene's terrain: the terrain as a zone, growth passes, the plants as foliage.

Blocking species become stored instances (one per plant tile, scaled by its blocking height); species
that never block become derived types growing on a paint layer of their tiles. The result is a new
scene: the input scene is never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from model.foliage import FoliageType, LayerFilter, SceneFoliage
from model.plants.growth import GrowthOptions, Progress, RuleTables
from model.plants.rule import PlantRule
from model.plants.types import GROUND_TYPES, plant_type_name
from model.plants.zone_growth import grow_zone
from model.scene import Scene
from model.terrain import Terrain, TerrainLayer
from model.zones.layers import LAYERS
from model.zones.scene_import import GRASS_DENSITY, SPECIES_MESH, plant_records
from model.zones.zone import Zone

WATER_UNITS = 55  # the game's water line, in altitude units
SEED = 0x0F0E57


# Common paint-layer names for ground types (the exact GroundType names match too, in any case).
GROUND_ALIASES = {"grass": 1, "meadow": 1, "forest_floor": 3, "forest": 3, "rock": 7, "rocks": 7,
                  "sand": 8, "beach": 8}


def ground_of_layer(name: str) -> int | None:
    """The ground type a paint layer stands for, by name; None when it names none."""
    lowered = name.strip().lower()
    for i, ground in enumerate(GROUND_TYPES):
        if ground.lower() == lowered:
            return i
    return GROUND_ALIASES.get(lowered)


def zone_from_terrain(terrain: Terrain, zone_id: int = 0, lowest_units: float = WATER_UNITS + 5.0,
                      default_ground: int = 1, spawn: int = 131) -> Zone:
    """One tile per height sample. Altitude: metres as units, shifted so the lowest point sits at
    `lowest_units` (the water line is at 55). Ground type: the heaviest paint layer named after a
    ground type (e.g. "LowlandA", or "sand"), else `default_ground`. Every tile gets spawn byte `spawn`."""
    h, w = terrain.rows, terrain.columns
    units = terrain.heights.astype(np.float64) - float(np.nanmin(terrain.heights)) + lowest_units
    altitude = np.clip(np.round(units * 32), 0, 2047 * 32).astype("<u2")
    ground = np.full((h, w), np.uint8(default_ground))
    best = np.zeros((h, w), np.uint8)
    for layer in terrain.layers:
        kind = ground_of_layer(layer.name)
        if kind is not None:
            heavier = layer.weights > best
            ground[heavier] = kind
            best = np.maximum(best, layer.weights)
    zone = Zone.blank(zone_id, w, h)
    zone.set_layer("altitude", altitude)
    plants = np.zeros((h, w), LAYERS["plants"].dtype)
    plants["spawn"] = spawn
    plants["groundType"] = ground
    zone.set_layer("plants", plants)
    return zone


def forest_foliage(zone: Zone, terrain: Terrain, rules: Mapping[int, PlantRule]) -> SceneFoliage:
    """The zone's plant tiles as foliage on `terrain` (same grid); grass layers are added to `terrain`."""
    foliage = SceneFoliage()
    kinds = zone.plants["type"]
    heights = zone.blocks["height"] if zone.has("blocks") else np.zeros_like(kinds)
    x0, z0 = terrain.origin
    present = np.flatnonzero(np.bincount(kinds.reshape(-1), minlength=256))
    for kind in (int(k) for k in present if k):
        rule = rules.get(kind)
        label = (rule.name if rule and rule.name else plant_type_name(kind))
        blocks = bool(rule.blocks) if rule else bool(heights[kinds == kind].any())
        mesh = "builtin:" + SPECIES_MESH.get(plant_type_name(kind), "bush" if blocks else "grass")
        tiles = kinds == kind
        if not blocks:
            layer = f"plants: {label}"
            if terrain.layer_index(layer) is None:
                terrain.add_layer(layer, (80, 170, 70), np.where(tiles, np.uint8(255), np.uint8(0)))
            foliage.palette.add(FoliageType(label, mesh=mesh, storage="derived", density=GRASS_DENSITY,
                                            layer=LayerFilter(layer, 0.5)))
            continue
        foliage.palette.add(FoliageType(label, mesh=mesh))
        ys, xs = np.nonzero(tiles)
        index = ys.astype(np.int64) * zone.width + xs
        x = x0 + xs * terrain.spacing
        z = z0 + ys * terrain.spacing
        top = max(rule.blocking_height) if rule and rule.blocking_height else int(heights.max() or 1)
        growth = np.clip(heights[ys, xs] / max(top, 1), 0.3, 1.0)
        foliage.volume.add(label, plant_records(terrain, x, z, index, growth, SEED), copy=False)
    return foliage


def grow_forest(scene: Scene, rules: Mapping[int, PlantRule], passes: int, seed: int,
                options: GrowthOptions | None = None, progress: Progress | None = None,
                cancelled: Callable[[], bool] | None = None, lowest_units: float = WATER_UNITS + 5.0,
                default_ground: int = 1) -> Scene:
    """A new scene: `scene`'s terrain (copied) with a forest grown on it by the rules."""
    src = scene.terrain
    zone = zone_from_terrain(src, lowest_units=lowest_units, default_ground=default_ground)
    tables = RuleTables(dict(rules))
    grown = grow_zone(zone, tables, passes, seed, options, progress, cancelled)
    terrain = Terrain(src.heights.copy(), src.spacing, src.origin,
                      [TerrainLayer(layer.name, layer.color, layer.weights.copy(), layer.weight_blend,
                                    layer.material) for layer in src.layers])
    # the layers' texture paths still start at the source scene's folder (a save elsewhere copies them)
    out = Scene(terrain=terrain, name=f"{scene.name} forest", asset_folder=scene.textures_folder())
    out.sections["foliage"] = forest_foliage(grown, terrain, rules)
    return out
