"""Texture maps for the demo scene's layers, made by code: tileable hashed value noise, blended with
+, -, *, / and sqrt only (no sin/exp), so every machine makes the same pixels.

`demo_textures()` gives each layer's albedo, normal and height maps (and roughness where it varies);
`write_demo_textures(folder)` writes them as PNG under `textures/`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from model.layer_material import LayerMaterial

SIZE = 256  # texels a side
SEED = 20240611

# layer → (tiling in metres, triplanar): rock covers the cliffs, so it is projected from the sides
DEMO_TILING = {"grass": (5.0, False), "forest_floor": (4.0, False), "rock": (9.0, True), "sand": (4.0, False)}


def _hash01(i: np.ndarray, j: np.ndarray, seed: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        h = (i.astype(np.uint32) * np.uint32(0x8DA6B343)) ^ (j.astype(np.uint32) * np.uint32(0xD8163841))
        h ^= np.uint32(seed & 0xFFFFFFFF)
        h ^= h >> np.uint32(15)
        h *= np.uint32(0x2C1B3C6D)
        h ^= h >> np.uint32(12)
        h *= np.uint32(0x297A2D39)
        h ^= h >> np.uint32(15)
    return h.astype(np.float64) / 4294967296.0


def tile_noise(cells: int, seed: int, stretch: tuple[int, int] = (1, 1), size: int = SIZE) -> np.ndarray:
    """Smooth value noise in [0, 1) on size x size texels that wraps at the edges: `cells` lattice
    cells across (times `stretch` (rows, columns) for streaky noise)."""
    cy, cx = cells * stretch[0], cells * stretch[1]
    v = (np.arange(size, dtype=np.float64) * cy / size)[:, None]
    u = (np.arange(size, dtype=np.float64) * cx / size)[None, :]
    i, j = np.floor(u), np.floor(v)
    fu, fv = u - i, v - j
    fu, fv = fu * fu * (3.0 - 2.0 * fu), fv * fv * (3.0 - 2.0 * fv)
    i0, j0 = i.astype(np.int64) % cx, j.astype(np.int64) % cy
    i1, j1 = (i0 + 1) % cx, (j0 + 1) % cy
    a, b = _hash01(i0, j0, seed), _hash01(i1, j0, seed)
    c, d = _hash01(i0, j1, seed), _hash01(i1, j1, seed)
    return a + (b - a) * fu + (c - a) * fv + (a - b - c + d) * fu * fv


def tile_fbm(cells: int, octaves: int, seed: int, stretch: tuple[int, int] = (1, 1)) -> np.ndarray:
    """Octaves of `tile_noise`, each twice the cells at half the amplitude; in [0, 1)."""
    total = np.zeros((SIZE, SIZE))
    amp = norm = 1.0
    norm = 0.0
    for k in range(octaves):
        total += amp * tile_noise(cells << k, seed + 131 * k, stretch)
        norm += amp
        amp *= 0.5
    return total / norm


def _smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    t = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _mix(a, b, t: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, np.float64) / 255.0, np.asarray(b, np.float64) / 255.0
    return a + (b - a) * t[..., None]


def _over(base: np.ndarray, top: np.ndarray, amount: np.ndarray) -> np.ndarray:
    """`top` laid over `base` by `amount` (0..1 per texel)."""
    return base * (1.0 - amount[..., None]) + top * amount[..., None]


def normal_map(height: np.ndarray, strength: float) -> np.ndarray:
    """Tangent-space normals (x along columns, y along rows) from a wrapping height map, 0..1 RGB."""
    dx = (np.roll(height, -1, axis=1) - np.roll(height, 1, axis=1)) * (0.5 * strength)
    dy = (np.roll(height, -1, axis=0) - np.roll(height, 1, axis=0)) * (0.5 * strength)
    n = np.stack([-dx, -dy, np.ones_like(dx)], axis=-1)
    n /= np.sqrt((n * n).sum(axis=-1, keepdims=True))
    return n * 0.5 + 0.5


def _grass() -> dict[str, np.ndarray]:
    blades = tile_fbm(32, 3, SEED + 1, (1, 1))
    fine = tile_noise(128, SEED + 2)
    clumps = tile_fbm(8, 3, SEED + 3)
    t = np.clip(blades * 0.5 + fine * 0.5, 0.0, 1.0)
    albedo = _mix((52, 92, 30), (136, 184, 76), t)
    albedo *= (0.85 + 0.25 * clumps)[..., None]  # large-scale variation is the shader's macro noise
    height = np.clip(fine * 0.5 + blades * 0.5, 0.0, 1.0)
    return {"albedo": albedo, "height": height, "normal": normal_map(height, 6.0)}


def _forest_floor() -> dict[str, np.ndarray]:
    litter = tile_fbm(24, 3, SEED + 11)
    leaves = _smoothstep(0.55, 0.62, tile_noise(48, SEED + 12))
    moss = _smoothstep(0.5, 0.7, tile_fbm(6, 2, SEED + 13))
    albedo = _mix((52, 40, 24), (118, 92, 56), litter)
    albedo = _over(albedo, _mix((130, 88, 40), (160, 112, 52), litter), leaves)
    albedo = _over(albedo, _mix((60, 74, 30), (84, 98, 40), litter), 0.6 * moss)
    height = np.clip(litter * 0.6 + leaves * 0.4, 0.0, 1.0)
    return {"albedo": albedo, "height": height, "normal": normal_map(height, 5.0)}


def _rock() -> dict[str, np.ndarray]:
    strata = tile_fbm(3, 4, SEED + 21, (4, 1))  # bands along the rows
    grain = tile_fbm(16, 4, SEED + 22)
    cracks = 1.0 - _smoothstep(0.0, 0.04, np.abs(tile_fbm(6, 3, SEED + 23) - 0.5))
    t = np.clip(strata * 0.55 + grain * 0.45, 0.0, 1.0)
    albedo = _mix((88, 84, 80), (172, 166, 156), t)
    albedo *= (1.0 - 0.45 * cracks)[..., None]
    lichen = _smoothstep(0.68, 0.78, tile_fbm(8, 2, SEED + 24))
    albedo = _over(albedo, _mix((120, 126, 80), (150, 150, 96), t), 0.5 * lichen)
    height = np.clip(t * (1.0 - 0.7 * cracks), 0.0, 1.0)
    roughness = np.clip(0.55 + 0.35 * grain - 0.2 * cracks, 0.0, 1.0)
    return {"albedo": albedo, "height": height, "normal": normal_map(height, 10.0), "roughness": roughness}


def _sand() -> dict[str, np.ndarray]:
    warp = tile_fbm(4, 2, SEED + 31)
    # ripples: a triangle wave across the rows, bent by the warp (no sin needed)
    rows = np.arange(SIZE, dtype=np.float64)[:, None] / SIZE * 12.0 + warp * 2.0
    ripple = np.abs(rows - np.floor(rows) - 0.5) * 2.0
    grain = tile_noise(128, SEED + 32)
    albedo = _mix((190, 172, 122), (236, 222, 176), np.clip(ripple * 0.5 + grain * 0.5, 0.0, 1.0))
    height = np.clip(ripple * 0.7 + grain * 0.3, 0.0, 1.0)
    return {"albedo": albedo, "height": height, "normal": normal_map(height, 3.0)}


_MAKERS = {"grass": _grass, "forest_floor": _forest_floor, "rock": _rock, "sand": _sand}
MAP_KINDS = {"grass": ("albedo", "normal", "height"), "forest_floor": ("albedo", "normal", "height"),
             "rock": ("albedo", "normal", "roughness", "height"), "sand": ("albedo", "normal", "height")}


def _bytes(image: np.ndarray) -> np.ndarray:
    return np.clip(np.floor(image * 255.0 + 0.5), 0, 255).astype(np.uint8)


def demo_textures() -> dict[str, dict[str, np.ndarray]]:
    """Layer → map kind → uint8 pixels (rows, columns[, 3])."""
    return {layer: {kind: _bytes(img) for kind, img in make().items()} for layer, make in _MAKERS.items()}


def texture_name(layer: str, kind: str) -> str:
    return f"textures/{layer}_{kind}.png"


def demo_materials() -> dict[str, LayerMaterial]:
    """The material each demo layer gets (paths relative to the demo scene's folder)."""
    out = {}
    for layer, (tiling, triplanar) in DEMO_TILING.items():
        maps = {k: texture_name(layer, k) for k in MAP_KINDS[layer]}
        out[layer] = LayerMaterial(**maps, tiling=tiling, triplanar=triplanar)
    return out


def write_demo_textures(folder: Path) -> list[Path]:
    """Write every demo texture as PNG under `folder`/textures (atomically); the paths written."""
    from model.formats.png import write_png

    written = []
    for layer, maps in demo_textures().items():
        for kind, pixels in maps.items():
            path = Path(folder) / texture_name(layer, kind)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_png(path, pixels)
            written.append(path)
    return written
