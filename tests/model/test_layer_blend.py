"""Weight-blended layer painting: a painted layer takes its weight from the others (issue 15, point 9)."""

from __future__ import annotations

import numpy as np
import pytest

from model.brush import Brush
from model.errors import FormatError
from model.formats.scene_file import load_scene, save_scene
from model.layer_ops import (
    LayerPaintStroke,
    blend_weights,
    paint_blended,
    paint_layer_stamp,
    set_weight_blend,
)
from model.scene import Scene
from model.terrain import Terrain


def grass_scene(size: int = 64) -> Terrain:
    t = Terrain(np.zeros((size, size), np.float32), 1.0)
    t.add_layer("grass", (90, 150, 60), np.full((size, size), 255, np.uint8))
    t.add_layer("rock", (120, 120, 120), np.full((size, size), 40, np.uint8))
    t.add_layer("sand", (220, 200, 150))
    t.add_layer("puddles", (40, 60, 200), np.full((size, size), 30, np.uint8))
    t.layers[3].weight_blend = False
    return t


def blend_reference(painted: np.ndarray, others: np.ndarray, raised: np.ndarray) -> np.ndarray:
    """Point by point: where the painted layer rose and the others no longer fit, shrink them."""
    out = others.copy()
    for r in range(painted.shape[0]):
        for c in range(painted.shape[1]):
            total = int(others[:, r, c].sum())
            room = 255 - int(painted[r, c])
            if raised[r, c] and total > room:
                for k in range(others.shape[0]):
                    out[k, r, c] = int(np.floor(float(others[k, r, c]) * (room / total)))
    return out


def test_blend_matches_the_point_by_point_reference_and_never_passes_255() -> None:
    rng = np.random.default_rng(3)
    painted = rng.integers(0, 256, (9, 11)).astype(np.uint8)
    others = rng.integers(0, 256, (3, 9, 11)).astype(np.uint8)
    raised = rng.random((9, 11)) < 0.7
    got = blend_weights(painted, others, raised)
    assert got.tobytes() == blend_reference(painted, others, raised).tobytes()
    total = painted.astype(int) + got.astype(int).sum(axis=0)
    assert (total[raised] <= 255).all()
    assert (got[:, ~raised] == others[:, ~raised]).all()  # untouched points keep their weights


def test_painting_sand_takes_weight_from_grass_and_rock_but_not_from_an_unblended_layer() -> None:
    t = grass_scene()
    before = [layer.weights.copy() for layer in t.layers]
    stamp = paint_layer_stamp(t, "sand", Brush(radius=10.0, strength=1.0, falloff=0.3), 32.0, 32.0)
    stroke = LayerPaintStroke(t, "sand")
    assert stroke.apply(stamp)
    grass, rock, sand, puddles = (layer.weights.astype(int) for layer in t.layers)
    assert sand[32, 32] == 255 and grass[32, 32] == 0 and rock[32, 32] == 0
    blended_sum = grass + rock + sand
    assert (blended_sum[sand > 0] <= 255).all()
    assert (puddles == 30).all()  # not weight-blended: neither gives nor takes
    outside = sand == 0
    assert (grass[outside] == 255).all() and (rock[outside] == 40).all()  # only where sand went
    rows, cols = stamp.rows, stamp.cols
    assert rows.stop - rows.start <= 21 and cols.stop - cols.start <= 21  # the brush's window only
    stroke.finish()
    after = [layer.weights.copy() for layer in t.layers]
    stroke.undo()
    assert all(layer.weights.tobytes() == b.tobytes() for layer, b in zip(t.layers, before, strict=True))
    stroke.redo()
    assert all(layer.weights.tobytes() == a.tobytes() for layer, a in zip(t.layers, after, strict=True))


def test_an_unblended_layer_is_painted_on_its_own_and_erasing_takes_nothing_from_others() -> None:
    t = grass_scene()
    set_weight_blend(t, "sand", False)
    stamp = paint_layer_stamp(t, "sand", Brush(radius=6.0, strength=1.0), 20.0, 20.0)
    assert [p.layer.name for p in stamp.layers] == ["sand"]
    t2 = grass_scene()
    w = np.full((5, 5), 200.0)
    erased = paint_blended(t2, "grass", w, slice(0, 5), slice(0, 5), erase=True)
    assert [p.layer.name for p in erased.layers] == ["grass"] and (erased.layers[0].new == 55).all()


def test_undo_finds_the_layers_after_a_rename_and_a_move() -> None:
    from model.layer_ops import move_layer, rename_layer

    t = grass_scene()
    before = [layer.weights.copy() for layer in t.layers]
    stroke = LayerPaintStroke(t, "sand")
    stroke.apply(paint_layer_stamp(t, "sand", Brush(radius=8.0, strength=1.0), 10.0, 10.0))
    stroke.finish()
    rename_layer(t, "grass", "meadow")
    move_layer(t, "meadow", 3)
    stroke.undo()
    by_name = {layer.name: layer.weights for layer in t.layers}
    assert by_name["meadow"].tobytes() == before[0].tobytes()
    assert by_name["sand"].tobytes() == before[2].tobytes()


def test_old_scenes_open_unchanged_and_save_the_same_bytes(tmp_path) -> None:
    from model.demo import demo_resource_path

    src = demo_resource_path()
    scene = load_scene(src)
    assert all(layer.weight_blend for layer in scene.terrain.layers)
    save_scene(scene, tmp_path / src.name)
    for path in src.parent.iterdir():
        if path.is_file():  # the manifest and its side files (layer textures are the demo's own files)
            assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
    assert "weight_blend" not in (tmp_path / src.name).read_text()


def test_the_option_is_saved_and_read_back_and_a_bad_value_is_named(tmp_path) -> None:
    t = grass_scene(8)
    path = tmp_path / "blend.boscage"
    save_scene(Scene(terrain=t, name="blend"), path)
    text = path.read_text()
    assert text.count("weight_blend = false") == 1
    again = load_scene(path)
    assert [layer.weight_blend for layer in again.terrain.layers] == [True, True, True, False]
    path.write_text(text.replace("weight_blend = false", 'weight_blend = "no"'))
    with pytest.raises(FormatError) as e:
        load_scene(path)
    assert "layers[3].weight_blend" in str(e.value)


def test_derived_grass_stops_growing_where_sand_was_painted_over_it() -> None:
    from model.foliage import FoliageType, LayerFilter
    from model.foliage.derived_grass import grass_near

    t = grass_scene()
    grass = FoliageType("meadow", mesh="builtin:grass", storage="derived", density=400.0,
                        layer=LayerFilter("grass", 0.3))

    def growing_near_centre() -> int:
        c = grass_near(t, grass, 32.0, 32.0, 40.0)
        d = np.hypot(c.position[:, 0] - 32.0, c.position[:, 2] - 32.0)
        return int((c.grows & (d < 4.0)).sum())

    assert growing_near_centre() > 5
    stroke = LayerPaintStroke(t, "sand")
    stroke.apply(paint_layer_stamp(t, "sand", Brush(radius=10.0, strength=1.0, falloff=0.3), 32.0, 32.0))
    assert growing_near_centre() == 0  # the grass layer under the sand is gone, so is its grass
