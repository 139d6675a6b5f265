"""Terrain ▸ Auto-Paint Layer…: the dialog previews its rule on the real terrain (taken back on
Cancel) and Paint is one undo step; the viewport shows the painted layer."""

from __future__ import annotations

import numpy as np

from app.main_window import menu_titles
from model.auto_paint import AutoPaintRule
from tests.gui_helpers import render, show_editor


def weights(window) -> dict[str, np.ndarray]:
    return {la.name: la.weights.copy() for la in window.document.scene.terrain.layers}


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_the_terrain_menu_offers_auto_paint(main_window) -> None:
    menu = main_window.terrain_editor.menu
    assert "Auto-Paint Layer…" in menu_titles(menu)
    assert main_window.terrain_editor.actions["auto_paint"].toolTip()


def test_the_dialog_previews_on_the_terrain_and_cancel_takes_it_back(main_window, qtbot) -> None:
    editor = main_window.terrain_editor
    before, steps = weights(main_window), main_window.document.undo_stack.count()
    dialog = editor.make_auto_paint_dialog()
    dialog.set_rule(AutoPaintRule("red", height=(6.0, 20.0), feather=0.0))
    dialog.flush()
    shown = weights(main_window)
    hill_top = main_window.document.scene.terrain.heights >= 6.0
    assert (shown["red"][hill_top] == 255).all() and (shown["blue"][hill_top] == 0).all()
    assert np.array_equal(shown["red"][~hill_top], before["red"][~hill_top])
    assert "changed on" in dialog.summary.text()
    assert main_window.document.undo_stack.count() == steps and not main_window.document.modified
    dialog.preview.setChecked(False)  # preview off: the terrain as it was
    assert same(weights(main_window), before)
    dialog.preview.setChecked(True)
    assert not same(weights(main_window), before)
    dialog.reject()
    assert same(weights(main_window), before)
    assert main_window.document.undo_stack.count() == steps


def test_paint_is_one_undo_step_and_the_viewport_shows_it(main_window, qtbot) -> None:
    show_editor(main_window, qtbot)
    viewport = main_window.viewport
    before_img = render(viewport, qtbot).astype(int)
    editor = main_window.terrain_editor
    before, steps = weights(main_window), main_window.document.undo_stack.count()
    summary = editor.auto_paint(AutoPaintRule("blue", height=(-1.0, 100.0), feather=0.0, replace=True))
    assert summary is not None and summary.others == ["red"]
    after = weights(main_window)
    assert (after["blue"] == 255).all() and not after["red"].any()
    stack = main_window.document.undo_stack
    assert stack.count() == steps + 1 and stack.undoText() == "Auto-paint layer 'blue'"
    img = render(viewport, qtbot).astype(int)
    ground = ~np.all(np.abs(before_img - img) == 0, axis=-1)  # what the paint changed on screen
    assert ground.mean() > 0.05
    assert (img[ground][:, 2] > img[ground][:, 0]).mean() > 0.9  # all blue now where it changed
    stack.undo()
    assert same(weights(main_window), before)
    stack.redo()
    assert same(weights(main_window), after)
    assert "Auto-paint: 'blue' changed on" in main_window.statusBar().currentMessage()


def test_a_refused_rule_is_one_error_and_changes_nothing(main_window, monkeypatch) -> None:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(main_window, "show_error", lambda title, text, *a: shown.append((title, text)))
    before = weights(main_window)
    assert main_window.terrain_editor.auto_paint(AutoPaintRule("red", slope=(50.0, 10.0))) is None
    assert shown and "slope band" in shown[0][1] and same(weights(main_window), before)
