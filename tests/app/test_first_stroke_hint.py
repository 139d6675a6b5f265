"""Before a scene's first stroke the refusal panel says what keeps the selected types off the
terrain, and the type selected at first is one that can grow there."""

from __future__ import annotations

import numpy as np
import pytest

from app.document import new_scene
from model.foliage.placeability import growth_obstacles
from model.scene import Scene
from model.terrain import Terrain


@pytest.fixture
def small_scene() -> Scene:
    """The window opens on a flat new scene 20 m up: broadleaf and bush can grow on its grass."""
    return new_scene(samples=33, base_height=20.0)


def _sentence(window) -> str:
    window.foliage_editor._obstacles_timer.timeout.emit()  # the debounced refresh, now
    return window.foliage_editor.refusal_panel.sentence.text()


def test_a_new_scene_says_why_the_selected_tree_cannot_grow_yet(main_window, qtbot) -> None:
    main_window.document.replace_scene(new_scene(samples=33))  # File ▸ New's defaults: 0 m
    editor = main_window.foliage_editor
    assert editor.toolset.active_types == ["broadleaf"]  # the artist's choice stays
    assert _sentence(main_window) == ("broadleaf cannot grow on this terrain yet: it grows at "
                                      "altitudes 4–60 m and the ground lies at 0 m.")
    editor.palette_panel.select(["conifer"])
    assert _sentence(main_window) == (
        "conifer cannot grow on this terrain yet: it needs the layer 'forest_floor', which this "
        "terrain does not have (it has 'grass'); it grows at altitudes 10–80 m and the ground lies at 0 m.")


def test_the_first_type_that_can_grow_is_selected_and_the_hint_follows_the_terrain(main_window) -> None:
    scene = main_window.document.scene
    editor = main_window.foliage_editor
    assert editor.toolset.active_types == ["broadleaf"]  # conifer needs forest_floor
    assert _sentence(main_window) == "No stroke yet: paint, fill or place one to see what the brush decided."
    terrain = scene.terrain
    terrain.heights = np.full(terrain.heights.shape, 100.0, np.float32)  # above the band now
    terrain.heights_changed.emit(slice(None), slice(None))
    assert "altitudes 4–60 m and the ground lies at 100 m" in _sentence(main_window)


def test_obstacles_name_an_unpainted_layer_and_a_partial_altitude_band_is_no_obstacle() -> None:
    from model.foliage import builtin_palette

    palette = builtin_palette()
    heights = np.linspace(0, 50, 9 * 9, dtype=np.float32).reshape(9, 9)
    terrain = Terrain(heights, 1.0)
    terrain.add_layer("forest_floor", (80, 70, 40))
    assert growth_obstacles(palette["conifer"], terrain) == [
        "it needs the layer 'forest_floor', painted nowhere yet"]
    terrain.layers[0].weights[4, 4] = 255
    assert growth_obstacles(palette["conifer"], terrain) == []  # 0–50 m meets 10–80 m
    assert growth_obstacles(palette["grass"], Scene(terrain=terrain).terrain) == [
        "it needs the layer 'grass', which this terrain does not have (it has 'forest_floor')"]
