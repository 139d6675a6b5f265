"""Panels show what the model holds now: the Inspector after a gizmo move and its undo, palette
counts right after a stroke, refusal markers gone with the stroke they explain."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from model.foliage import foliage_of
from tests.gui_helpers import settle
from tests.widgets.test_inspector_panel import plant


def position_of(volume, selection) -> str:
    x, y, z = (float(v) for v in volume.at(selection)[0, :3])
    return f"{x:.2f}, {y:.2f}, {z:.2f} m"


def test_the_inspector_follows_gizmo_moves_shown_or_behind_its_tab(shown, qtbot) -> None:
    plant(shown)
    editor = shown.foliage_editor
    inspector = shown.inspector
    volume = foliage_of(shown.document.scene).volume
    editor.toolset.activate("select")
    editor.toolset.set_selection(volume.query_radius(0.0, 0.0, 0.5, ["stone"]))
    assert inspector.value("Position") == position_of(volume, editor.toolset.selection)
    for hidden, offset in ((False, (6.0, 0.0)), (False, (0.0, 30.0)), (True, (-9.0, 0.0))):
        if hidden:
            shown.docks["history"].raise_()
        assert editor.gizmo.apply(offset)
        if hidden:
            settle()
            shown.docks["inspector"].raise_()
        selection = editor.toolset.selection
        qtbot.waitUntil(lambda s=selection: inspector.value("Position") == position_of(volume, s),
                        timeout=3000)
        cell = next(iter(selection))[0]
        assert inspector.value("Cell") == f"{cell[0]}, {cell[1]}"


def shrubs_chosen(shown):
    """(the foliage editor, the scene's foliage) with a shrub type added, picked in the palette and
    active for the tools."""
    from model.foliage import FoliageType

    editor = shown.foliage_editor
    foliage = foliage_of(shown.document.scene)
    foliage.palette.add(FoliageType("shrub", mesh="builtin:bush", density=40.0, spacing=2.5))
    editor.palette_panel.select(["shrub"])
    settle()
    editor.toolset.set_active_types(["shrub"])
    return editor, foliage


def test_counts_follow_a_stroke_at_once_and_its_markers_go_with_its_undo(shown) -> None:
    editor, foliage = shrubs_chosen(shown)
    markers = shown.viewport.overlays.refusals
    result = editor.toolset.fill_polygon([(-30.0, -25.0), (30.0, -25.0), (30.0, 25.0), (-30.0, 25.0)])
    placed = foliage.volume.count("shrub")
    assert result is not None and placed > 20 and len(markers) > 0  # spacing refused some
    # no event loop turn in between: the list already says what the stroke left
    assert f"shrub · {placed:,} instances" in editor.palette_panel.item_texts()
    shown.document.undo_stack.undo()
    assert foliage.volume.count("shrub") == 0 and len(markers) == 0
    shown.document.undo_stack.redo()
    assert foliage.volume.count("shrub") == placed and len(markers) == 0


def drag_gizmo(shown, offset_px: tuple[int, int]) -> None:
    """Grab the move gizmo's free handle and drag it with the mouse, as a user does."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    viewport, gizmo = shown.viewport, shown.foliage_editor.gizmo
    edge = gizmo.handles()["free"][0].mean(axis=0)  # the middle of the square's near side
    at = shown.foliage_editor.toolset.host.to_screen(edge[None])[0]
    grab = QPoint(int(round(at[0])), int(round(at[1])))
    assert gizmo.hit(grab.x(), grab.y()) == "free"
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QTest.mousePress(viewport, left, none, grab)
    for i in range(1, 5):
        QTest.mouseMove(viewport, grab + QPoint(offset_px[0] * i // 4, offset_px[1] * i // 4))
    QTest.mouseRelease(viewport, left, none, grab + QPoint(*offset_px))


def centre_of(volume, selection) -> str:
    c = volume.at(selection)[:, :3].astype(np.float64).mean(axis=0)
    return f"{c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f} m"


def test_the_inspector_shows_a_mouse_gizmo_move_its_undo_and_redo_at_once(shown) -> None:
    plant(shown)
    toolset = shown.foliage_editor.toolset
    inspector, stack = shown.inspector, shown.document.undo_stack
    volume = foliage_of(shown.document.scene).volume
    toolset.activate("select")
    toolset.set_selection(volume.query_radius(0.0, 0.0, 0.5, ["stone"]))
    start = position_of(volume, toolset.selection)
    assert inspector.value("Position") == start
    drag_gizmo(shown, (60, 25))
    # no event loop turn in between: the fields say where the stone is now
    moved = position_of(volume, toolset.selection)
    assert moved != start and inspector.value("Position") == moved
    stack.undo()
    assert toolset.selection_count() == 1 and position_of(volume, toolset.selection) == start
    assert inspector.value("Position") == start
    stack.redo()
    assert position_of(volume, toolset.selection) == moved and inspector.value("Position") == moved


def test_the_inspector_shows_a_move_of_several_instances_at_once(shown) -> None:
    plant(shown)
    toolset = shown.foliage_editor.toolset
    inspector, stack = shown.inspector, shown.document.undo_stack
    volume = foliage_of(shown.document.scene).volume
    toolset.activate("select")
    toolset.set_selection(volume.query_radius(0.0, 0.0, 9.0, ["shrub", "stone"]))
    n = toolset.selection_count()
    assert n == 13
    start = centre_of(volume, toolset.selection)
    assert inspector.value("Centre") == start
    drag_gizmo(shown, (-50, 40))
    moved = centre_of(volume, toolset.selection)
    assert toolset.selection_count() == n and moved != start and inspector.value("Centre") == moved
    stack.undo()
    assert toolset.selection_count() == n and inspector.value("Centre") == start
    stack.redo()
    assert toolset.selection_count() == n and inspector.value("Centre") == moved


def test_palette_counts_follow_a_paint_stroke_and_its_undo_at_once(shown) -> None:
    from model.brush import Brush

    editor, foliage = shrubs_chosen(shown)
    toolset = editor.toolset
    toolset.host.set_brush(Brush(radius=8.0, strength=1.0, falloff=0.3))
    toolset.activate("paint")
    toolset.host.drag([(-10.0, 0.0), (-4.0, 0.0), (2.0, 0.0)])
    placed = foliage.volume.count("shrub")
    assert placed > 5
    assert f"shrub · {placed:,} instances" in editor.palette_panel.item_texts()
    shown.document.undo_stack.undo()
    assert foliage.volume.count("shrub") == 0
    assert not any(t.startswith("shrub · ") and "instance" in t and not t.startswith("shrub · 0")
                   for t in editor.palette_panel.item_texts()), editor.palette_panel.item_texts()
    shown.document.undo_stack.redo()
    assert f"shrub · {placed:,} instances" in editor.palette_panel.item_texts()
