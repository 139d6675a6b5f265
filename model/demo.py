"""The bundled demo scene: about 1 km² of procedural terrain with grass, rock, forest floor and sand,
the sample foliage palette (`resources/foliage/`) and a deterministic sample of stored foliage.

Only +, -, *, / and sqrt are used (no sin/exp), so every machine computes the same bits.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from model.scene import Scene
from model.terrain import Terrain

DEMO_SIZE = 513  # samples per side
DEMO_SPACING = 2.0  # metres: 1024 m x 1024 m
DEMO_SEED = 20240611
DEMO_NAME = "Demo"

# Layer name -> display colour, in paint order.
DEMO_LAYERS: dict[str, tuple[int, int, int]] = {
    "grass": (104, 146, 62),
    "forest_floor": (86, 72, 44),
    "rock": (128, 124, 118),
    "sand": (214, 198, 150),
}

# tan() of the slope thresholds, written out so no libm call is involved.
TAN_20 = 0.36397023426620234
TAN_30 = 0.5773502691896257
TAN_42 = 0.9004040442978399

SEA_LEVEL = 4.0  # metres: the valley floor is sand below about this height

# Stored sample foliage: type → brush strength of one fill over the type's own layer. Kept light
# so the committed instance file stays small.
DEMO_FOLIAGE: dict[str, float] = {"conifer": 0.45, "broadleaf": 0.3, "bush": 0.12, "rock": 1.0}


def demo_resource_path() -> Path:
    """Where the committed demo scene lives."""
    return Path(__file__).resolve().parents[1] / "resources" / "demo" / "demo.boscage"


def _hash01(i: np.ndarray, j: np.ndarray, seed: int) -> np.ndarray:
    """A float64 in [0, 1) from integer lattice coordinates (wrapping uint32 arithmetic)."""
    with np.errstate(over="ignore"):
        h = (i.astype(np.uint32) * np.uint32(0x8DA6B343)) ^ (j.astype(np.uint32) * np.uint32(0xD8163841))
        h ^= np.uint32(seed & 0xFFFFFFFF)
        h ^= h >> np.uint32(15)
        h *= np.uint32(0x2C1B3C6D)
        h ^= h >> np.uint32(12)
        h *= np.uint32(0x297A2D39)
        h ^= h >> np.uint32(15)
    return h.astype(np.float64) / 4294967296.0


def _smooth(t: np.ndarray) -> np.ndarray:
    return t * t * (3.0 - 2.0 * t)


def value_noise(x: np.ndarray, z: np.ndarray, wavelength: float, seed: int) -> np.ndarray:
    """Smooth lattice noise in [0, 1) with the given wavelength in metres."""
    u = x / wavelength
    v = z / wavelength
    i = np.floor(u)
    j = np.floor(v)
    fu = _smooth(u - i)
    fv = _smooth(v - j)
    ii = i.astype(np.int64)
    jj = j.astype(np.int64)
    a = _hash01(ii, jj, seed)
    b = _hash01(ii + 1, jj, seed)
    c = _hash01(ii, jj + 1, seed)
    d = _hash01(ii + 1, jj + 1, seed)
    return a + (b - a) * fu + (c - a) * fv + (a - b - c + d) * fu * fv


def fbm(x: np.ndarray, z: np.ndarray, wavelength: float, octaves: int, seed: int) -> np.ndarray:
    """Sum of noise octaves, each half the wavelength and amplitude; roughly in [-1, 1]."""
    total = np.zeros_like(x)
    amp, norm = 1.0, 0.0
    for k in range(octaves):
        total += amp * (value_noise(x, z, wavelength, seed + 101 * k) * 2.0 - 1.0)
        norm += amp
        amp *= 0.5
        wavelength *= 0.5
    return total / norm


def _bump(d2: np.ndarray, radius: float) -> np.ndarray:
    """Compact smooth bump: 1 at the centre, 0 beyond `radius` (d2 is squared distance)."""
    r2 = np.minimum(d2 / (radius * radius), 1.0)
    s = 1.0 - r2
    return s * s * s


def _smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    return _smooth(np.clip((x - e0) / (e1 - e0), 0.0, 1.0))


def demo_heights(size: int = DEMO_SIZE, spacing: float = DEMO_SPACING, seed: int = DEMO_SEED) -> np.ndarray:
    """Hills, a winding valley, a cliff-edged plateau and rolling noise, as float32 (rows = Z)."""
    extent = (size - 1) * spacing
    coords = np.arange(size, dtype=np.float64) * spacing
    x, z = np.meshgrid(coords, coords)  # local metres, 0..extent
    sx, sz = x / extent, z / extent  # 0..1

    h = 22.0 + 10.0 * fbm(x, z, 320.0, 5, seed)
    # Hills.
    for cx, cz, r, height in ((0.22, 0.25, 0.20, 48.0), (0.45, 0.12, 0.14, 30.0),
                              (0.15, 0.70, 0.17, 55.0), (0.55, 0.45, 0.12, 26.0)):
        h += height * _bump((sx - cx) ** 2 + (sz - cz) ** 2, r)
    # A steep ridge: narrow and tall, so its flanks pass 45 degrees.
    ridge = _bump(((sx - 0.33) * 5.0) ** 2 + ((sz - 0.88) * 0.9) ** 2, 0.5)
    h += 60.0 * ridge
    # The plateau: flat top at 92 m, ringed by cliffs a few metres wide.
    pd2 = ((sx - 0.76) / 1.0) ** 2 + ((sz - 0.70) / 0.8) ** 2
    pd = np.sqrt(pd2)
    top = 92.0 + 1.5 * fbm(x, z, 60.0, 2, seed + 7)
    rim = _smoothstep(0.205, 0.19, pd)  # 1 inside, 0 outside; a ~15 m band
    h = h * (1.0 - rim) + top * rim
    # The valley: a winding channel from south to north, carved down towards sea level.
    wind = fbm(np.zeros_like(z), z, 500.0, 3, seed + 13)  # varies with z only
    centre = 0.50 + 0.16 * wind - 0.12 * (sz - 0.5)
    d = np.abs(sx - centre) * extent  # metres across the valley
    floor_depth = 1.0 - _smoothstep(18.0, 95.0, d)  # 1 on the floor, 0 on the shoulders
    floor = 1.0 + 1.5 * value_noise(x, z, 40.0, seed + 29)
    keep = 1.0 - floor_depth * (1.0 - rim)  # the plateau is not cut by the valley
    h = floor + (h - floor) * keep
    return h.astype(np.float32)


def demo_layer_weights(heights: np.ndarray, spacing: float = DEMO_SPACING,
                       seed: int = DEMO_SEED) -> dict[str, np.ndarray]:
    """Layer weights (uint8, summing to about 255) from height and slope."""
    h = heights.astype(np.float64)
    dz, dx = np.gradient(h, spacing)
    grad = np.sqrt(dx * dx + dz * dz)  # tan(slope)
    size = h.shape[0]
    coords = np.arange(size, dtype=np.float64) * spacing
    x, z = np.meshgrid(coords, coords)

    rock = _smoothstep(TAN_30, TAN_42, grad)
    sand = _smoothstep(SEA_LEVEL + 3.0, SEA_LEVEL, h) * (1.0 - _smoothstep(TAN_20 * 0.5, TAN_20, grad))
    patches = _smoothstep(0.0, 0.2, fbm(x, z, 160.0, 3, seed + 41))
    band = _smoothstep(12.0, 18.0, h) * _smoothstep(75.0, 65.0, h)
    forest = patches * band * (1.0 - _smoothstep(TAN_20, TAN_30, grad))
    forest *= 1.0 - rock
    sand *= 1.0 - rock
    grass = np.maximum(0.0, 1.0 - rock - sand - forest)
    raw = {"grass": grass, "forest_floor": forest, "rock": rock, "sand": sand}
    total = sum(raw.values())
    total = np.where(total > 0, total, 1.0)
    return {name: np.rint(w / total * 255.0).astype(np.uint8) for name, w in raw.items()}


def add_demo_foliage(scene: Scene, seed: int = DEMO_SEED):
    """Give `scene` the sample palette and fill each stored type over its own layer (deterministic)."""
    from model.foliage import FoliageScatter, builtin_palette, foliage_of

    foliage = foliage_of(scene, builtin_palette())
    scatter = FoliageScatter(scene.terrain, foliage.volume)
    for i, (name, strength) in enumerate(DEMO_FOLIAGE.items()):
        ftype = foliage.palette[name]
        layer = ftype.layer.name if ftype.layer is not None else "grass"
        min_weight = ftype.layer.min_weight if ftype.layer is not None else 0.0
        scatter.fill_layer([name], layer, min_weight, seed=seed + 1000 * (i + 1), strength=strength)
    return foliage


def build_demo_scene(size: int = DEMO_SIZE, spacing: float = DEMO_SPACING, seed: int = DEMO_SEED,
                     foliage: bool = False) -> Scene:
    """The demo scene, centred on the world origin, computed from scratch (same arguments, same bits).

    With `foliage`, also the sample palette and stored foliage (what the committed copy holds).
    """
    heights = demo_heights(size, spacing, seed)
    half = (size - 1) * spacing / 2.0
    terrain = Terrain(heights, spacing, (-half, -half))
    from model.demo_textures import demo_materials

    materials = demo_materials()
    for name, weights in demo_layer_weights(heights, spacing, seed).items():
        terrain.add_layer(name, DEMO_LAYERS[name], weights).material = materials[name]
    scene = Scene(terrain=terrain, name=DEMO_NAME)
    if foliage:
        add_demo_foliage(scene, seed)
    return scene
