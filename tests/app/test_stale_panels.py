"""Panels show what the model holds now: the Inspector after a gizmo move and its undo, palette
counts right after a stroke, refusal markers gone with the stroke they explain."""

from __future__ import annotations

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


def test_counts_follow_a_stroke_at_once_and_its_markers_go_with_its_undo(shown) -> None:
    from model.foliage import FoliageType

    editor = shown.foliage_editor
    foliage = foliage_of(shown.document.scene)
    foliage.palette.add(FoliageType("shrub", mesh="builtin:bush", density=40.0, spacing=2.5))
    editor.palette_panel.select(["shrub"])
    settle()
    editor.toolset.set_active_types(["shrub"])
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
