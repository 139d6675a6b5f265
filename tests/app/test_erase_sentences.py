"""Erase and Reapply say what they did: how many of which type, and what the brush left alone."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from model.brush import Brush
from model.foliage import FoliageType, foliage_of


def press_drag_release(viewport, pixels: list[QPoint]) -> None:
    none = Qt.KeyboardModifier.NoModifier
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, none, pixels[0])
    for p in pixels[1:]:
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, none, pixels[-1])


@pytest.fixture
def shown(shown):
    """With a hard 6 m brush and two types to paint."""
    main_window = shown
    editor = main_window.foliage_editor
    editor.host.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.0))
    palette = foliage_of(main_window.document.scene).palette
    palette.add(FoliageType("pine", mesh="builtin:conifer"))
    palette.add(FoliageType("oak", mesh="builtin:broadleaf"))
    return main_window


def plant(window, name: str, xz) -> None:
    scene = window.document.scene
    xz = np.asarray(xz, np.float64)
    rec = np.zeros((len(xz), 7), np.float32)
    rec[:, 0], rec[:, 2], rec[:, 6] = xz[:, 0], xz[:, 1], 1.0
    rec[:, 1] = scene.terrain.height_at(xz[:, 0], xz[:, 1])
    foliage_of(scene).volume.add(name, rec)


def ring(cx: float, cz: float, n: int, r: float = 2.0) -> np.ndarray:
    a = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(a), cz + r * np.sin(a)])


def drag_over(window, points) -> str:
    """A real mouse drag through the ground points; returns the Refusals panel's sentence."""
    viewport, terrain = window.viewport, window.document.scene.terrain
    pixels = []
    for x, z in points:
        sx, sy = viewport.world_to_screen([[x, float(terrain.height_at(x, z)), z]])[0]
        pixels.append(QPoint(int(round(sx)), int(round(sy))))
    press_drag_release(viewport, pixels)
    return window.foliage_editor.refusal_panel.text()


def test_erasing_over_another_types_trees_says_so(shown) -> None:
    window, editor = shown, shown.foliage_editor
    plant(window, "oak", ring(-20.0, 0.0, 12))
    editor.palette_panel.select(["pine"])
    editor.toolset.activate("erase")
    text = drag_over(window, [(-21.0, 0.0), (-20.0, 0.0), (-19.0, 0.0)])
    assert text == "Erased 0 pine: none under the brush (oak 12 left alone)"
    assert "density" not in text


def test_erasing_counts_each_instance_once_and_names_the_spared(shown) -> None:
    window, editor = shown, shown.foliage_editor
    plant(window, "pine", ring(-20.0, 0.0, 5))
    plant(window, "oak", ring(-20.0, 0.0, 3, 1.0))
    editor.palette_panel.select(["pine"])
    editor.toolset.activate("erase")
    text = drag_over(window, [(-22.0, 0.0), (-20.0, 0.0), (-18.0, 0.0)])  # many stamps over one spot
    assert text == "Erased 5 pine (oak 3 left alone)"
    plant(window, "pine", ring(20.0, 0.0, 4))
    editor.host.set_brush(Brush(radius=6.0, strength=0.0, falloff=0.0))
    assert drag_over(window, [(20.0, 0.0)]) == (
        "Erased 0 pine: 4 under the brush, all spared by its strength and falloff")
    plant(window, "pine", [(20.0, 20.0)])
    editor.palette_panel.select([])
    editor.host.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.0))
    assert drag_over(window, [(20.0, 20.0)]) == "Erased 1 pine"  # no active type: every type
    assert drag_over(window, [(-30.0, 25.0)]) == "Erased 0 instances: nothing under the brush"


def test_reapply_says_what_it_kept_and_removed(shown) -> None:
    window, editor = shown, shown.foliage_editor
    palette = foliage_of(window.document.scene).palette
    palette.add(FoliageType("lowland", mesh="builtin:bush", altitude=(-100.0, 3.0)))
    editor.palette_panel.select(["lowland"])
    editor.toolset.activate("reapply")
    plant(window, "oak", ring(-30.0, -20.0, 2))
    assert drag_over(window, [(-30.0, -20.0)]) == (
        "Reapplied 0 lowland: none under the brush (oak 2 left alone)")
    plant(window, "lowland", ring(-30.0, -20.0, 3))  # flat ground at height 0: kept
    plant(window, "lowland", [(0.0, 0.0)])  # the hilltop, 12 m up: the altitude band refuses it now
    text = drag_over(window, [(-30.0, -20.0), (-15.0, -10.0), (0.0, 0.0)])
    assert text == ("Reapplied 4 lowland: 3 kept with fresh height, rotation and scale, "
                    "1 removed (the filters now refuse it) (oak 2 left alone)")


def test_one_candidate_is_singular(shown) -> None:
    window, editor = shown, shown.foliage_editor
    editor.palette_panel.select(["pine"])
    editor.toolset.activate("single")
    assert drag_over(window, [(-30.0, -25.0)]) == "1 candidate: 1 placed"
