"""Textured terrain layers in the real viewport (Xvfb + Mesa): the albedo shows where the layer is
painted, cliffs are projected sideways instead of stretched, and a missing texture warns and draws
the layer's colour."""

from __future__ import annotations

from pathlib import Path

import imagecodecs
import numpy as np

from model.layer_material import LayerMaterial
from model.layer_textures import TEXTURES
from model.scene import Scene
from model.terrain import Terrain
from tests.widgets.test_viewport import render

RED, BLUE = (230, 60, 40), (40, 60, 230)


def checker(cells: int = 2, side: int = 64) -> np.ndarray:
    """`cells` x `cells` squares of red and blue: one repeat of the texture."""
    k = (np.arange(side) * cells // side)
    odd = (k[:, None] + k[None, :]) % 2 == 1
    img = np.empty((side, side, 3), np.uint8)
    img[~odd], img[odd] = RED, BLUE
    return img


def textured_scene(folder: Path, heights: np.ndarray, spacing: float, material: LayerMaterial,
                   painted: np.ndarray | None = None) -> Scene:
    rows, cols = heights.shape
    t = Terrain(heights.astype(np.float32), spacing, (0.0, 0.0))
    w = np.full((rows, cols), 255, np.uint8) if painted is None else painted
    t.add_layer("ground", (135, 60, 135), w)  # the checker's mean: the tint changes nothing
    t.add_layer("grass", (60, 160, 50), 255 - w)
    t.layers[0].material = material
    return Scene(terrain=t, name="Textured", asset_folder=folder)


def settle(viewport, qtbot) -> np.ndarray:
    """Frames until the layer textures are in; the last frame's pixels."""
    for _ in range(200):
        render(viewport, qtbot)
        if not viewport.textures_pending():
            break
    assert not viewport.textures_pending()
    return render(viewport, qtbot).astype(int)


def red(img: np.ndarray) -> np.ndarray:
    return img[..., 0] > img[..., 2] + 40


def blue(img: np.ndarray) -> np.ndarray:
    return img[..., 2] > img[..., 0] + 40


def test_a_two_colour_albedo_shows_both_colours_where_painted_and_the_colour_elsewhere(
        viewport, qtbot, tmp_path) -> None:
    (tmp_path / "checker.png").write_bytes(imagecodecs.png_encode(checker()))
    painted = np.zeros((65, 65), np.uint8)
    painted[:, :32] = 255  # west half painted with the textured layer, east half grass
    material = LayerMaterial(albedo="checker.png", tiling=8.0)
    scene = textured_scene(tmp_path, np.zeros((65, 65)), 1.0, material, painted)
    viewport.resize(480, 360)
    viewport.set_scene(scene)
    viewport.look_from((32.0, 70.0, 32.5), (32.0, 0.0, 32.0))
    img = settle(viewport, qtbot)
    (x0, _), (x1, _) = viewport.world_to_screen(np.array([[4.0, 0.0, 32.0], [60.0, 0.0, 32.0]]))
    mid = int((x0 + x1) / 2)
    west, east = img[60:300, int(x0) + 10:mid - 20], img[60:300, mid + 20:int(x1) - 10]
    assert red(west).mean() > 0.3 and blue(west).mean() > 0.3  # both colours of the texture
    green = (east[..., 1] > east[..., 0] + 30) & (east[..., 1] > east[..., 2] + 30)
    assert green.mean() > 0.95 and not red(east).any() and not blue(east).any()
    # the flat colour without the texture would be one purple: the checker is the texture's
    scene.terrain.layers[0].material = LayerMaterial()
    scene.terrain.layers_changed.emit()
    flat = settle(viewport, qtbot)[60:300, int(x0) + 10:mid - 20]
    assert red(flat).mean() < 0.02 and blue(flat).mean() < 0.02


def transitions(line: np.ndarray) -> int:
    """Changes between red and blue along a line of pixels (others ignored)."""
    r, b = red(line), blue(line)
    labels = np.where(r, 1, np.where(b, 2, 0))
    labels = labels[labels > 0]
    return int(np.count_nonzero(labels[1:] != labels[:-1]))


def repeat_metres(viewport, img: np.ndarray, a, b) -> float:
    """Metres per texture repeat along the world segment a→b, counted from the pixels between them
    (two red/blue changes per repeat of a 2 x 2 checker)."""
    (xa, ya), (xb, yb) = viewport.world_to_screen(np.array([a, b]))
    n = int(max(abs(xb - xa), abs(yb - ya)))
    xs = np.rint(np.linspace(xa, xb, n)).astype(int)
    ys = np.rint(np.linspace(ya, yb, n)).astype(int)
    changes = transitions(img[ys, xs])
    assert changes >= 4, changes
    return float(np.linalg.norm(np.subtract(b, a))) / (changes / 2.0)


def test_a_triplanar_cliff_shows_the_texture_unstretched(viewport, qtbot, tmp_path) -> None:
    (tmp_path / "checker.png").write_bytes(imagecodecs.png_encode(checker()))
    spacing = 0.5
    heights = np.zeros((161, 161))
    heights[81:] = 24.0  # a 24 m wall across the terrain at z = 40 m, facing -z
    scene = textured_scene(tmp_path, heights, spacing, LayerMaterial(albedo="checker.png", tiling=4.0,
                                                                     triplanar=True))
    viewport.resize(480, 480)
    viewport.set_scene(scene)
    viewport.look_from((40.0, 40.0, 20.0), (40.0, 0.0, 20.01))  # flat ground, from above
    flat = repeat_metres(viewport, settle(viewport, qtbot), (34.0, 0.0, 20.0), (46.0, 0.0, 20.0))
    viewport.look_from((40.0, 12.0, 8.0), (40.0, 12.0, 40.0))  # the wall, face on
    wall = repeat_metres(viewport, settle(viewport, qtbot), (40.0, 3.0, 40.0), (40.0, 21.0, 40.0))
    assert abs(flat - 4.0) < 0.8, flat
    assert abs(wall - flat) <= 0.2 * flat, (wall, flat)


def test_a_missing_texture_warns_once_naming_the_file_and_the_layer_shows_its_colour(
        viewport, qtbot, tmp_path) -> None:
    warnings: list[str] = []
    viewport.warning.connect(warnings.append)
    scene = textured_scene(tmp_path, np.zeros((33, 33)), 1.0, LayerMaterial(albedo="gone/rock.png"))
    viewport.set_scene(scene)
    viewport.look_from((16.0, 40.0, 16.5), (16.0, 0.0, 16.0))
    img = settle(viewport, qtbot)
    qtbot.waitUntil(lambda: len(warnings) >= 1, timeout=5000)
    render(viewport, qtbot)
    assert len(warnings) == 1 and "rock.png" in warnings[0] and "missing" in warnings[0]
    centre = img[80:160, 100:220].reshape(-1, 3).mean(axis=0)
    assert centre[0] > centre[1] + 30 and centre[2] > centre[1] + 30  # the layer's purple colour


def test_textures_are_read_once_and_shared_by_a_new_renderer_of_the_scene(viewport, qtbot, tmp_path) -> None:
    (tmp_path / "checker.png").write_bytes(imagecodecs.png_encode(checker()))
    scene = textured_scene(tmp_path, np.zeros((33, 33)), 1.0, LayerMaterial(albedo="checker.png"))
    before = TEXTURES.reads
    viewport.set_scene(scene)
    settle(viewport, qtbot)
    viewport.set_scene(scene)  # a new renderer: uploads again, decodes nothing
    settle(viewport, qtbot)
    assert TEXTURES.reads == before + 1
    assert viewport.terrain_renderer.textures.uploads == 1


def test_textured_layers_past_sixteen_draw_their_colour_and_are_named_once(viewport, qtbot, tmp_path) -> None:
    (tmp_path / "checker.png").write_bytes(imagecodecs.png_encode(checker()))
    warnings: list[str] = []
    viewport.warning.connect(warnings.append)
    t = Terrain(np.zeros((33, 33), np.float32), 1.0, (0.0, 0.0))
    for k in range(18):
        t.add_layer(f"layer{k:02d}", (120, 120, 120), np.full((33, 33), 255 if k == 17 else 0, np.uint8))
        t.layers[k].material = LayerMaterial(albedo="checker.png")
    viewport.set_scene(Scene(terrain=t, name="Many", asset_folder=tmp_path))
    viewport.look_from((16.0, 40.0, 16.5), (16.0, 0.0, 16.0))
    img = settle(viewport, qtbot)
    render(viewport, qtbot)
    qtbot.waitUntil(lambda: len(warnings) >= 1, timeout=5000)
    assert len(warnings) == 1, warnings
    assert "'layer16', 'layer17'" in warnings[0] and "layer15" not in warnings[0]
    centre = img[80:160, 100:220].reshape(-1, 3)
    assert not red(centre).any() and not blue(centre).any()  # layer17 (painted) shows its grey colour
    # one more past the slots names the new set, once
    t.add_layer("layer18", (120, 120, 120))
    t.layers[18].material = LayerMaterial(albedo="checker.png")
    render(viewport, qtbot)
    render(viewport, qtbot)
    qtbot.waitUntil(lambda: len(warnings) >= 2, timeout=5000)
    render(viewport, qtbot)
    assert len(warnings) == 2 and "'layer18'" in warnings[1]


def test_texture_progress_counts_every_map_in(viewport, qtbot, tmp_path) -> None:
    for name in ("a.png", "b.png", "c.png"):
        (tmp_path / name).write_bytes(imagecodecs.png_encode(checker()))
    heard: list[tuple[int, int]] = []
    viewport.textures_progress.connect(lambda done, total: heard.append((done, total)))
    scene = textured_scene(tmp_path, np.zeros((33, 33)), 1.0,
                           LayerMaterial(albedo="a.png", normal="b.png", height="c.png"))
    scene.terrain.layers[1].material = LayerMaterial(albedo="gone.png")  # unreadable: counted all the same
    viewport.set_scene(scene)
    viewport.look_from((16.0, 40.0, 16.5), (16.0, 0.0, 16.0))
    settle(viewport, qtbot)
    qtbot.waitUntil(lambda: heard and heard[-1] == (4, 4), timeout=5000)
    assert heard[0] == (0, 4)
    dones = [d for d, _ in heard]
    assert dones == sorted(dones) and all(t == 4 for _, t in heard)
