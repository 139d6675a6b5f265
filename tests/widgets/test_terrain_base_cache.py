"""The baked base colour of textured terrain in the real viewport (Xvfb + Mesa): far ground drawn from
the cache looks like the full per-layer blend, the near ground is the blend itself, and a paint stroke
shows in the far field in the frame after it."""

from __future__ import annotations

from pathlib import Path

import imagecodecs
import numpy as np

from model.brush import Brush
from model.layer_material import LayerMaterial
from model.layer_ops import LayerPaintStroke, paint_layer_stamp
from model.scene import Scene
from model.terrain import Terrain
from rendering.terrain_base_cache import BAND_M, NEAR_M
from tests.widgets.test_viewport_textures import settle

SIDE = 257  # samples: 256 m at 1 m
COLOURS = [(150, 120, 70), (70, 130, 60), (110, 110, 120)]  # dirt, grass, rock
RED = (200, 40, 30)


def noisy_map(colour, seed: int, side: int = 128) -> np.ndarray:
    """A texture of grain around `colour` (each texel ±30%), tileable."""
    grain = np.random.default_rng(seed).uniform(0.7, 1.3, (side, side, 1))
    return np.clip(np.asarray(colour, np.float64) * grain, 0, 255).astype(np.uint8)


def grain_scene(folder: Path) -> Scene:
    """Three textured, height-blended layers in broad overlapping bands, and a red one nowhere yet."""
    rng = np.random.default_rng(3)
    t = Terrain(rng.uniform(0.0, 0.3, (SIDE, SIDE)).astype(np.float32), 1.0, (-128.0, -128.0))
    x = np.arange(SIDE, dtype=np.float64)
    u = (x[None, :] + 0.7 * x[:, None]) / 25.0  # diagonal stripes 25 m apart, the layers in turn
    bands = [np.clip(1.0 - np.abs((u - k) % 3.0 - 1.0), 0.0, 1.0) ** 2 for k in range(3)]
    total = np.sum(bands, axis=0) + 1e-9
    for k, (band, colour) in enumerate(zip(bands, COLOURS, strict=True)):
        name = f"layer{k}"
        (folder / f"{name}.png").write_bytes(imagecodecs.png_encode(noisy_map(colour, k)))
        (folder / f"{name}_h.png").write_bytes(imagecodecs.png_encode(
            np.random.default_rng(10 + k).integers(0, 255, (64, 64), dtype=np.uint8)))
        t.add_layer(name, colour, np.floor(band / total * 255.0).astype(np.uint8))
        t.layers[k].material = LayerMaterial(albedo=f"{name}.png", height=f"{name}_h.png", tiling=3.0 + k)
    (folder / "red.png").write_bytes(imagecodecs.png_encode(noisy_map(RED, 9)))
    t.add_layer("red", RED, np.zeros((SIDE, SIDE), np.uint8))
    t.layers[-1].material = LayerMaterial(albedo="red.png", tiling=4.0)
    return Scene(terrain=t, name="Grain", asset_folder=folder)


EYE, TARGET = (0.0, 14.0, -120.0), (0.0, 0.0, 20.0)  # low over the south edge, looking north


def distances(viewport) -> np.ndarray:
    """Metres from the eye to the ground under each pixel (NaN where no ground point lands)."""
    h, w = viewport.height(), viewport.width()
    xs, zs = np.meshgrid(np.arange(-128.0, 128.0, 0.25), np.arange(-118.0, 128.0, 0.25))
    points = np.stack([xs.ravel(), np.full(xs.size, 0.15), zs.ravel()], 1)
    screen = np.rint(viewport.world_to_screen(points))
    ok = np.isfinite(screen).all(1) & (screen[:, 0] >= 0) & (screen[:, 0] < w) & (screen[:, 1] >= 0) \
        & (screen[:, 1] < h)
    out = np.full((h, w), np.nan)
    out[screen[ok, 1].astype(int), screen[ok, 0].astype(int)] = np.linalg.norm(points[ok] - EYE, axis=1)
    return out


def test_far_ground_from_the_cache_matches_the_blend_and_near_ground_is_the_blend(
        viewport, qtbot, tmp_path) -> None:
    scene = grain_scene(tmp_path)
    viewport.resize(480, 320)
    viewport.set_scene(scene)
    viewport.look_from(EYE, TARGET)
    cached = settle(viewport, qtbot)
    cache = viewport.terrain_renderer.base_cache
    assert cache.bakes > 0 and cache.entries
    viewport.use_terrain_cache(False)
    full = settle(viewport, qtbot)
    d = distances(viewport)
    far = (d > NEAR_M + BAND_M) & (d < 250.0)
    near = d < NEAR_M - 2.0
    assert far.sum() > 40 and near.sum() > 20, (far.sum(), near.sum())
    diff = np.abs(cached - full)
    # far: the same colours, within a few levels on average (the cache's texels are about a pixel)
    mean_far = np.abs(cached[far].reshape(-1, 3).mean(0) - full[far].reshape(-1, 3).mean(0))
    assert mean_far.max() < 3.0, mean_far
    assert diff[far].mean() < 12.0, diff[far].mean()
    assert diff[far].mean() > 0.0  # the far field really was drawn another way
    assert diff[near].max() == 0  # near: the full blend, texel for texel


def test_a_paint_stroke_shows_in_the_far_field_in_the_next_frame(viewport, qtbot, tmp_path) -> None:
    scene = grain_scene(tmp_path)
    viewport.resize(480, 320)
    viewport.set_scene(scene)
    viewport.look_from(EYE, TARGET)
    settle(viewport, qtbot)
    cache = viewport.terrain_renderer.base_cache
    bakes, patches = cache.bakes, cache.patches
    spot = np.array([[0.0, 0.15, 0.0]])  # 120 m from the eye: far field
    (x, y), = viewport.world_to_screen(spot).astype(int)
    from tests.widgets.test_viewport import render

    before = render(viewport, qtbot)[y - 2:y + 3, x - 6:x + 7].reshape(-1, 3).mean(0)
    t = scene.terrain
    LayerPaintStroke(t, "red").apply(paint_layer_stamp(t, "red", Brush(radius=8.0, strength=1.0), 0.0, 0.0))
    after = render(viewport, qtbot)[y - 2:y + 3, x - 6:x + 7].reshape(-1, 3).mean(0)
    assert after[0] > before[0] + 40 and after[1] < before[1] - 20, (before, after)
    assert cache.patches > patches and cache.bakes == bakes  # only the touched texels baked again
    viewport.use_terrain_cache(False)
    full = render(viewport, qtbot)[y - 2:y + 3, x - 6:x + 7].reshape(-1, 3).mean(0)
    assert np.abs(after - full).max() < 12.0, (after, full)
