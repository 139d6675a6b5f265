"""The demo scene: deterministic, about a square kilometre, and varied enough for every refusal."""

from __future__ import annotations

import numpy as np
import pytest

from model.demo import DEMO_LAYERS, build_demo_scene, demo_heights, demo_resource_path, value_noise
from model.formats.scene_file import load_scene


@pytest.fixture(scope="module")
def demo():
    return build_demo_scene()


def slopes(t) -> np.ndarray:
    dz, dx = np.gradient(t.heights.astype(np.float64), t.spacing)
    return np.degrees(np.arctan(np.hypot(dx, dz)))


def test_the_demo_is_deterministic(demo) -> None:
    again = build_demo_scene()
    assert again.terrain.heights.tobytes() == demo.terrain.heights.tobytes()
    for a, b in zip(again.terrain.layers, demo.terrain.layers, strict=True):
        assert a.weights.tobytes() == b.weights.tobytes()


def test_a_different_seed_gives_different_terrain() -> None:
    assert not np.array_equal(demo_heights(65, 16.0, seed=1), demo_heights(65, 16.0, seed=2))


def test_the_committed_resource_is_what_the_generator_makes(demo) -> None:
    committed = load_scene(demo_resource_path())
    assert committed.name == demo.name
    assert committed.terrain.heights.tobytes() == demo.terrain.heights.tobytes()
    assert [la.name for la in committed.terrain.layers] == list(DEMO_LAYERS)
    for a, b in zip(committed.terrain.layers, demo.terrain.layers, strict=True):
        assert np.array_equal(a.weights, b.weights)


def test_about_one_square_kilometre_centred_on_the_origin(demo) -> None:
    t = demo.terrain
    sx, sz = t.size
    assert 900 <= sx <= 1100 and 900 <= sz <= 1100
    x0, z0, x1, z1 = t.bounds()
    assert x0 < 0 < x1 and z0 < 0 < z1


def test_relief_has_lowland_highland_and_steep_ground(demo) -> None:
    t = demo.terrain
    s = slopes(t)
    lo, hi = t.height_range()
    assert lo < 5 and hi > 80  # a valley near sea level, a plateau far above it
    assert (s < 5).mean() > 0.2  # plenty of gentle ground
    assert (s > 45).mean() > 0.005  # and cliffs
    # The plateau: a broad area at nearly one height, high up.
    top = t.heights > 85
    assert top.mean() > 0.05 and s[top].mean() < 10


def test_layers_follow_height_and_slope(demo) -> None:
    t = demo.terrain
    s = slopes(t)
    w = {la.name: la.weights for la in t.layers}
    total = sum(a.astype(np.int32) for a in w.values())
    assert np.abs(total - 255).max() <= 2  # weights share each sample
    for name, weights in w.items():
        assert weights.max() == 255, name  # every layer is fully painted somewhere
    assert w["rock"][s > 50].mean() > 200
    assert w["rock"][s < 15].max() == 0
    assert w["sand"][t.heights < 3].mean() > 150
    assert w["sand"][t.heights > 20].max() == 0
    assert w["forest_floor"][s > 45].max() < 20
    assert w["grass"][t.heights > 85].mean() > 150


def test_value_noise_is_smooth_and_bounded() -> None:
    x = np.linspace(0, 500, 2001)
    n = value_noise(x, np.zeros_like(x), 50.0, 7)
    assert n.min() >= 0 and n.max() < 1
    assert np.abs(np.diff(n)).max() < 0.05


def disc(t, cx: float, cz: float, radius: float, n: int = 4001):
    """Sample points over a brush-sized disc (sunflower pattern)."""
    i = np.arange(n) + 0.5
    r = radius * np.sqrt(i / n)
    a = i * 2.399963229728653
    return cx + r * np.cos(a), cz + r * np.sin(a)


def test_one_brush_can_meet_every_terrain_refusal(demo) -> None:
    """Off the edge, too steep, wrong altitude, wrong layer: each within one brush somewhere."""
    t = demo.terrain
    x0, z0, x1, z1 = t.bounds()
    # A brush hanging over the terrain's edge finds no ground for part of it.
    x, z = disc(t, x0 + 10.0, 0.0, 30.0)
    h = t.height_at(x, z)
    assert np.isnan(h).mean() > 0.2 and (~np.isnan(h)).mean() > 0.2
    # Somewhere a 40 m brush covers gentle and steep ground, low and high ground,
    # grass and rock: the plateau's rim.
    rows, cols = np.nonzero(t.layers[t.layer_index("rock")].weights == 255)
    found = False
    for k in range(0, len(rows), max(1, len(rows) // 60)):
        cx = t.origin[0] + cols[k] * t.spacing
        cz = t.origin[1] + rows[k] * t.spacing
        x, z = disc(t, cx, cz, 40.0)
        slope = t.slope_at(x, z)
        height = t.height_at(x, z)
        grass = t.layer_weight_at("grass", x, z)
        ok = ~np.isnan(height)
        if ((slope[ok] < 15).mean() > 0.2 and (slope[ok] > 45).mean() > 0.1
                and np.nanmax(height) - np.nanmin(height) > 40
                and (grass[ok] > 0.5).mean() > 0.2 and (grass[ok] < 0.1).mean() > 0.1):
            found = True
            break
    assert found


def test_the_demo_layers_carry_textures_made_by_code_and_committed_as_made(demo) -> None:
    from model.demo_textures import demo_textures
    from model.formats.texture_image import read_texture
    from model.layer_material import resolve

    made = demo_textures()
    again = demo_textures()
    committed = load_scene(demo_resource_path())
    folder = demo_resource_path().parent
    for layer, opened in zip(demo.terrain.layers, committed.terrain.layers, strict=True):
        assert layer.material == opened.material and layer.material.albedo is not None
        for kind, path in layer.material.maps().items():
            pixels = made[layer.name][kind]
            assert pixels.tobytes() == again[layer.name][kind].tobytes()  # deterministic
            on_disk = read_texture(resolve(folder, path))
            assert np.array_equal(on_disk.reshape(pixels.shape), pixels), (layer.name, kind)
        # the albedo averages near the layer's colour, so the colour (its tint) changes it little
        mean = made[layer.name]["albedo"].reshape(-1, 3).mean(axis=0)
        assert np.all(np.abs(mean - np.array(layer.color)) < 30), (layer.name, mean)
    rock = demo.terrain.layer("rock").material
    assert rock.triplanar and rock.height is not None
