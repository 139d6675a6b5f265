"""The Layers panel and the terrain tool settings as plain widgets (no OpenGL needed)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QColorDialog, QInputDialog

from model.brush import Brush, FalloffCurve
from model.layer_ops import add_layer, rename_layer
from tests.conftest import make_small_scene
from widgets.heightmap_dialog import HeightmapOptionsDialog
from widgets.layers_panel import LayersPanel
from widgets.terrain_tool_panel import TerrainToolPanel


@pytest.fixture
def panel(qtbot):
    p = LayersPanel(make_small_scene().terrain)
    qtbot.addWidget(p)
    return p


def texts(panel: LayersPanel) -> list[str]:
    return [panel.list.item(i).text() for i in range(panel.list.count())]


def test_lists_layers_with_coverage_and_follows_model_events(panel) -> None:
    assert [t.split()[0] for t in texts(panel)] == ["red", "blue"]
    assert "48.8 %" in texts(panel)[0]  # 20 of 41 columns painted
    add_layer(panel.terrain, "moss", (1, 2, 3))
    assert [t.split()[0] for t in texts(panel)] == ["red", "blue", "moss"]
    panel.select("blue")
    rename_layer(panel.terrain, "blue", "navy")
    assert panel.current_name() == "navy"  # a renamed layer stays selected
    assert [t.split()[0] for t in texts(panel)] == ["red", "navy", "moss"]


def test_coverage_is_recounted_once_painting_settles(panel, qtbot) -> None:
    layer = panel.terrain.layer("blue")
    layer.weights[:] = 255
    panel.terrain.layer_weights_changed.emit(1, slice(0, 1), slice(0, 1))
    assert "51.2 %" in texts(panel)[1]  # not yet: a stroke emits many of these
    qtbot.waitUntil(lambda: "100.0 %" in texts(panel)[1], timeout=2000)


def test_buttons_emit_requests(panel, monkeypatch) -> None:
    seen = []
    for name in ("add_requested", "rename_requested", "recolour_requested", "move_requested",
                 "delete_requested", "import_requested", "export_requested"):
        getattr(panel, name).connect(lambda *a, n=name: seen.append((n, *a)))
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("  cliff ", True))
    monkeypatch.setattr(QColorDialog, "getColor", lambda *a, **k: QColor(10, 20, 30))
    panel.select("red")
    for key in ("rename", "colour", "down", "delete", "import", "export", "add"):
        panel.buttons[key].click()
    assert seen[:6] == [("rename_requested", "red", "cliff"), ("recolour_requested", "red", (10, 20, 30)),
                        ("move_requested", "red", 1), ("delete_requested", "red"),
                        ("import_requested", "red"), ("export_requested", "red")]
    assert seen[6][0:2] == ("add_requested", "cliff") and len(seen[6][2]) == 3


def test_move_buttons_follow_the_position(panel) -> None:
    panel.select("red")
    assert not panel.buttons["up"].isEnabled() and panel.buttons["down"].isEnabled()
    panel.select("blue")
    assert panel.buttons["up"].isEnabled() and not panel.buttons["down"].isEnabled()
    panel.set_terrain(None)
    assert panel.list.count() == 0 and not panel.buttons["add"].isEnabled()


def test_cancelled_dialogs_request_nothing(panel, monkeypatch) -> None:
    seen = []
    panel.rename_requested.connect(lambda *a: seen.append(a))
    panel.recolour_requested.connect(lambda *a: seen.append(a))
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("x", False))
    monkeypatch.setattr(QColorDialog, "getColor", lambda *a, **k: QColor())
    panel.ask_rename()
    panel.ask_colour()
    assert seen == []


def test_tool_panel_edits_the_brush(qtbot) -> None:
    panel = TerrainToolPanel(brush=Brush(radius=5.0))
    qtbot.addWidget(panel)
    edits = []
    panel.brush_edited.connect(edits.append)
    panel.strength.setValue(0.9)
    panel.curve.setCurrentText("linear")
    assert edits[-1] == Brush(radius=5.0, strength=0.9, curve=FalloffCurve.LINEAR)
    panel.set_brush(Brush(radius=2.0))  # showing a brush is not an edit
    assert panel.radius.value() == 2.0 and len(edits) == 2


@pytest.mark.parametrize("fmt, importing, expected", [
    ("png16", True, {"offset": None, "scale": None, "spacing": 1.0, "size": None}),
    ("r16", True, {"offset": 0.0, "scale": 100.0, "spacing": 1.0, "size": (1025, 1025)}),
    ("npy", False, {"offset": None, "scale": None, "spacing": None, "size": None}),
])
def test_heightmap_options(qtbot, fmt, importing, expected) -> None:
    dialog = HeightmapOptionsDialog("t", fmt, importing)
    qtbot.addWidget(dialog)
    assert dialog.values() == expected


def test_heightmap_options_manual_mapping(qtbot) -> None:
    dialog = HeightmapOptionsDialog("t", "png16", False)
    qtbot.addWidget(dialog)
    assert not dialog.offset.isEnabled()
    dialog.auto.setChecked(False)
    dialog.offset.setValue(-20.0)
    dialog.scale.setValue(300.0)
    assert dialog.values()["offset"] == -20.0 and dialog.values()["scale"] == 300.0
    fixed = HeightmapOptionsDialog("t", "r16", True, size=(41, 33), ask_spacing=False)
    qtbot.addWidget(fixed)
    assert fixed.values()["size"] == (41, 33) and not fixed.columns.isEnabled()
    assert fixed.values()["spacing"] is None
    assert np.isfinite(fixed.values()["scale"])


@pytest.mark.parametrize("fmt, importing, size, drawn", [
    ("r16", True, (41, 33), {"offset", "scale", "spacing", "columns", "rows"}),  # RAW holds no mapping
    ("png16", True, None, {"auto", "offset", "scale", "spacing"}),
    ("png16", False, None, {"auto", "offset", "scale"}),
    ("npy", True, None, {"spacing"}),
])
def test_heightmap_options_draw_only_the_fields_the_format_asks(qtbot, fmt, importing, size, drawn) -> None:
    dialog = HeightmapOptionsDialog("t", fmt, importing, size=size, path="/maps/valley.dat", note="9 × 9")
    qtbot.addWidget(dialog)
    dialog.show()
    fields = ("auto", "offset", "scale", "spacing", "columns", "rows")
    assert {f for f in fields if getattr(dialog, f).isVisible()} == drawn
    assert "valley.dat" in dialog.header.text() and "9 × 9" in dialog.header.text()
    if fmt == "r16":
        assert dialog.values()["offset"] == 0.0 and dialog.offset.isEnabled()


def test_a_terrain_without_layers_says_how_to_start_and_f2_renames(panel, qtbot, monkeypatch) -> None:
    from model.layer_ops import delete_layer

    panel.show()
    assert not panel.empty.isVisible()
    renames = []
    panel.rename_requested.connect(lambda old, new: renames.append((old, new)))
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("cliff", True))
    panel.select("blue")
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key.Key_F2)
    assert renames == [("blue", "cliff")]
    delete_layer(panel.terrain, "red")
    delete_layer(panel.terrain, "blue")
    assert panel.empty.isVisible() and "Add" in panel.empty.text()
    assert not panel.buttons["rename"].isEnabled() and panel.buttons["add"].isEnabled()
