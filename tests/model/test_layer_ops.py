"""Layer edits and their undo data; foliage types follow a renamed layer by name."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage.foliage_type import FoliageType, LayerFilter
from model.foliage.palette import Palette
from model.foliage.scatter import FoliageScatter
from model.foliage.volume import FoliageVolume
from model.layer_ops import (
    LayerError,
    add_layer,
    delete_layer,
    insert_layer,
    move_layer,
    recolour_layer,
    rename_layer,
    restore_types,
    retarget_types,
    types_using_layer,
    unique_name,
)
from model.terrain import Terrain


@pytest.fixture
def terrain() -> Terrain:
    t = Terrain(np.zeros((8, 10), np.float32))
    for i, name in enumerate(["grass", "rock", "sand"]):
        t.add_layer(name, (10 * i, 20 * i, 30 * i), np.full((8, 10), i * 50, np.uint8))
    return t


def names(t: Terrain) -> list[str]:
    return [layer.name for layer in t.layers]


def count_events(t: Terrain) -> list[int]:
    seen = [0]
    t.layers_changed.connect(lambda: seen.__setitem__(0, seen[0] + 1))
    return seen


def test_add_inserts_at_an_index_and_delete_undoes_it(terrain) -> None:
    seen = count_events(terrain)
    index = add_layer(terrain, "  moss ", (1, 2, 3), index=1)
    assert index == 1 and names(terrain) == ["grass", "moss", "rock", "sand"]
    assert terrain.layers[1].weights.shape == (8, 10) and not terrain.layers[1].weights.any()
    delete_layer(terrain, "moss")
    assert names(terrain) == ["grass", "rock", "sand"] and seen[0] == 2


def test_delete_then_insert_restores_the_same_layer_object(terrain) -> None:
    rock = terrain.layer("rock")
    before = rock.weights.copy()
    removed = delete_layer(terrain, "rock")
    assert removed.index == 1 and removed.layer is rock
    assert names(terrain) == ["grass", "sand"]
    insert_layer(terrain, removed)
    assert names(terrain) == ["grass", "rock", "sand"] and terrain.layer("rock") is rock
    assert np.array_equal(rock.weights, before)


def test_rename_keeps_weights_and_is_undone_by_renaming_back(terrain) -> None:
    weights = terrain.layer("rock").weights
    assert rename_layer(terrain, "rock", " cliff ") == "cliff"
    assert names(terrain) == ["grass", "cliff", "sand"] and terrain.layer("cliff").weights is weights
    rename_layer(terrain, "cliff", "rock")
    assert names(terrain) == ["grass", "rock", "sand"]


def test_recolour_returns_the_old_colour(terrain) -> None:
    seen = count_events(terrain)
    old = recolour_layer(terrain, "sand", (200, 190, 120))
    assert old == (20, 40, 60) and terrain.layer("sand").color == (200, 190, 120)
    assert recolour_layer(terrain, "sand", (200, 190, 120)) == (200, 190, 120)
    assert seen[0] == 1  # no event when nothing changed


def test_move_returns_where_the_layer_was(terrain) -> None:
    old = move_layer(terrain, "grass", 2)
    assert old == 0 and names(terrain) == ["rock", "sand", "grass"]
    move_layer(terrain, "grass", old)
    assert names(terrain) == ["grass", "rock", "sand"]


@pytest.mark.parametrize("edit, message", [
    (lambda t: add_layer(t, "rock", (0, 0, 0)), "already exists"),
    (lambda t: add_layer(t, "   ", (0, 0, 0)), "empty"),
    (lambda t: add_layer(t, "a\tb", (0, 0, 0)), "control"),
    (lambda t: add_layer(t, "x" * 65, (0, 0, 0)), "at most 64"),
    (lambda t: add_layer(t, "new", (0, 0, 256)), "0..255"),
    (lambda t: add_layer(t, "new", "red"), "0..255"),
    (lambda t: add_layer(t, "new", (0, 0, 0), index=9), "out of range"),
    (lambda t: add_layer(t, "new", (0, 0, 0), weights=np.zeros((3, 3))), r"3 x 3, expected 10 x 8"),
    (lambda t: rename_layer(t, "rock", "sand"), "already exists"),
    (lambda t: rename_layer(t, "lava", "magma"), "no layer named 'lava'"),
    (lambda t: delete_layer(t, "lava"), "no layer"),
    (lambda t: move_layer(t, "rock", 3), "out of range"),
    (lambda t: recolour_layer(t, "rock", (1, 2)), "three numbers"),
])
def test_bad_edits_are_refused_and_change_nothing(terrain, edit, message) -> None:
    before = [(layer.name, layer.color) for layer in terrain.layers]
    with pytest.raises(LayerError, match=message):
        edit(terrain)
    assert [(layer.name, layer.color) for layer in terrain.layers] == before


def test_rename_to_the_same_name_is_allowed(terrain) -> None:
    assert rename_layer(terrain, "rock", "rock") == "rock"


def test_unique_name(terrain) -> None:
    assert unique_name(terrain, "moss") == "moss"
    assert unique_name(terrain, "rock") == "rock 2"
    add_layer(terrain, "rock 2", (0, 0, 0))
    assert unique_name(terrain, "rock") == "rock 3"


# ---- foliage types follow names -----------------------------------------------------------------
def palette_with_layer_types() -> Palette:
    return Palette([
        FoliageType("pine", layer=LayerFilter("rock", 0.4)),
        FoliageType("oak", layer=LayerFilter("grass", 0.5)),
        FoliageType("fern", layer=LayerFilter("rock", 0.7)),
        FoliageType("stone"),
    ])


def test_types_using_a_layer_are_listed_by_name() -> None:
    palette = palette_with_layer_types()
    assert types_using_layer(palette, "rock") == ["pine", "fern"]
    assert types_using_layer(palette, "sand") == []


def test_retarget_moves_filters_to_the_new_name_and_restores_exactly() -> None:
    palette = palette_with_layer_types()
    before = list(palette)
    old = retarget_types(palette, "rock", "cliff")
    assert [t.name for t in old] == ["pine", "fern"]
    assert palette["pine"].layer.name == "cliff" and palette["pine"].layer.min_weight == 0.4
    assert palette["fern"].layer.name == "cliff" and palette["oak"].layer.name == "grass"
    assert types_using_layer(palette, "rock") == []
    restore_types(palette, old)
    assert list(palette) == before


def test_renaming_with_retarget_keeps_the_scatter_result() -> None:
    t = Terrain(np.zeros((65, 65), np.float32), spacing=1.0)
    t.add_layer("rock", (100, 100, 100))
    t.layer("rock").weights[:, :32] = 255  # painted on the west half only
    palette = palette_with_layer_types()

    def fill() -> np.ndarray:
        volume = FoliageVolume(palette)
        square = [(0, 0), (64, 0), (64, 64), (0, 64)]
        result = FoliageScatter(t, volume).fill_polygon(["pine"], square, seed=3)
        return result.records("pine")

    before = fill()
    assert len(before) > 0 and (before[:, 0] <= 32.0).all()
    rename_layer(t, "rock", "cliff")
    assert len(fill()) == 0  # without updating the types, the layer is missing
    retarget_types(palette, "rock", "cliff")
    assert fill().tobytes() == before.tobytes()
