"""The Inspector dock: the scene's summary with nothing selected, counts per type for a selection,
one instance's type, position, angles and scale; it follows selection and model changes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from model.brush import Brush
from model.foliage import FoliageType, foliage_of
from tests.conftest import make_small_scene
from widgets.inspector_panel import InspectorPanel


@pytest.fixture
def editor(main_window):
    ed = main_window.foliage_editor
    ed.host.set_brush(Brush(radius=8.0, strength=1.0, falloff=0.3))
    return ed


@pytest.fixture
def inspector(main_window) -> InspectorPanel:
    panel = main_window.docks["inspector"].widget()
    assert isinstance(panel, InspectorPanel) and panel is main_window.inspector
    return panel


def press_drag_release(viewport, pixels: list[QPoint], modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifiers, pixels[0])
    for p in pixels[1:]:
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifiers, pixels[-1])


def pixel_of(viewport, x: float, y: float, z: float) -> QPoint:
    sx, sy = viewport.world_to_screen([[x, y, z]])[0]
    return QPoint(int(round(sx)), int(round(sy)))


def plant(main_window) -> dict[str, np.ndarray]:
    """Shrubs on a ring and three stones far apart, grounded, with known angles and scales."""
    scene = main_window.document.scene
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("shrub", mesh="builtin:bush"))
    foliage.palette.add(FoliageType("stone", mesh="builtin:rock"))
    out = {}
    for name, xz in (("shrub", [(8.0 * math.cos(a), 8.0 * math.sin(a)) for a in np.linspace(0, 6, 12)]),
                     ("stone", [(-25.0, -20.0), (0.0, 0.0), (25.0, 20.0)])):
        xz = np.asarray(xz)
        rec = np.zeros((len(xz), 7), np.float32)
        rec[:, 0], rec[:, 2] = xz[:, 0], xz[:, 1]
        rec[:, 1] = scene.terrain.height_at(xz[:, 0], xz[:, 1])
        rec[:, 3], rec[:, 4], rec[:, 5] = math.radians(30.0), math.radians(-4.0), math.radians(2.5)
        rec[:, 6] = 1.75
        foliage.volume.add(name, rec)
        out[name] = rec
    return out


def test_with_nothing_selected_it_summarises_the_scene(main_window, inspector, qtbot) -> None:
    rows = dict(inspector.rows())
    assert inspector.title.text() == "Scene: Small"
    assert rows["Terrain"] == "41 × 33 samples"
    assert rows["Size"] == "80 × 64 m" and rows["Spacing"] == "2.00 m"
    assert rows["Layers"] == "2" and "red" in rows and "blue" in rows
    plant(main_window)  # the model announces the change; the panel redraws once the burst is over
    qtbot.waitUntil(lambda: inspector.value("Instances") == "15", timeout=3000)
    assert inspector.value("shrub") == "12" and inspector.value("stone") == "3"
    main_window.terrain_editor.add_layer("moss", (40, 120, 40))  # an undoable layer edit
    qtbot.waitUntil(lambda: inspector.value("Layers") == "3", timeout=3000)
    assert inspector.value("moss") == "#287828"
    moss = inspector.tree.findItems("moss", Qt.MatchFlag.MatchRecursive | Qt.MatchFlag.MatchExactly, 0)[0]
    assert moss.icon(1).pixmap(12, 12).toImage().pixelColor(6, 6).name() == "#287828"  # its swatch
    main_window.open_scene(make_small_scene(rows=9, cols=11))
    assert inspector.value("Terrain") == "11 × 9 samples" and inspector.value("Instances") == "0"


def test_a_box_selection_shows_counts_per_type(main_window, editor, inspector, qtbot) -> None:
    records = plant(main_window)
    viewport = main_window.viewport
    viewport.frame_all()
    editor.toolset.activate("select")
    w, h = viewport.width(), viewport.height()
    press_drag_release(viewport, [QPoint(2, 2), QPoint(w // 2, h // 2), QPoint(w - 2, h - 2)])
    screen = {n: viewport.world_to_screen(r[:, :3]) for n, r in records.items()}
    inside = {n: int(np.sum((s[:, 0] >= 2) & (s[:, 0] <= w - 2) & (s[:, 1] >= 2) & (s[:, 1] <= h - 2)))
              for n, s in screen.items()}
    total = editor.toolset.selection_count()
    assert total == sum(inside.values()) and inside["shrub"] > 1 and inside["stone"] >= 1
    assert inspector.title.text() == f"{total} instances selected"
    assert inspector.value("Types") == "2"
    assert inspector.value("shrub") == str(inside["shrub"])
    assert inspector.value("stone") == str(inside["stone"])
    assert inspector.value("Scale") == "1.750 – 1.750"
    editor.actions["select_none"].trigger()
    assert inspector.title.text() == "Scene: Small" and inspector.value("Instances") == "15"


def test_clicking_one_instance_shows_its_type_position_angles_and_scale(main_window, editor, inspector,
                                                                        qtbot) -> None:
    records = plant(main_window)
    viewport = main_window.viewport
    viewport.frame_all()
    editor.toolset.activate("select")
    x, y, z = (float(v) for v in records["stone"][2, :3])
    click = pixel_of(viewport, x, y + 0.3, z)
    hit = viewport.pick_instance(click.x(), click.y())
    assert hit is not None and hit.type == "stone"
    press_drag_release(viewport, [click])
    assert editor.toolset.selection_count() == 1
    assert inspector.title.text() == "1 instance of stone"
    assert inspector.value("Type") == "stone"
    assert inspector.value("Position") == f"{x:.2f}, {y:.2f}, {z:.2f} m"
    assert inspector.value("Yaw") == "30.0°" and inspector.value("Pitch") == "-4.0°"
    assert inspector.value("Roll") == "2.5°" and inspector.value("Scale") == "1.750"
    # Deleting it (undoable) clears the selection, and the summary counts one stone less.
    editor.actions["delete"].trigger()
    qtbot.waitUntil(lambda: inspector.value("stone") == "2", timeout=3000)
    assert inspector.title.text() == "Scene: Small"
    main_window.document.undo_stack.undo()
    qtbot.waitUntil(lambda: inspector.value("stone") == "3", timeout=3000)


def test_a_replaced_panel_is_not_called_after_it_is_gone(main_window, editor, qtbot) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QLabel

    volume_event = foliage_of(main_window.document.scene).volume.changed
    subscribed = len(volume_event)
    main_window.set_panel("inspector", QLabel("other"))
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert len(volume_event) == subscribed - 1  # unsubscribed when it went
    plant(main_window)
    editor.toolset.set_selection({})  # neither the model nor the selection reaches the deleted panel


def test_the_position_follows_a_gizmo_drag_live_and_after_release(main_window, editor, inspector,
                                                                  qtbot) -> None:
    plant(main_window)
    volume = foliage_of(main_window.document.scene).volume
    viewport = main_window.viewport
    viewport.camera.yaw, viewport.camera.pitch = 0.0, math.radians(60)
    viewport.frame_all()
    editor.toolset.activate("select")
    editor.toolset.set_selection(volume.query_radius(0.0, 0.0, 0.5, ["stone"]))
    start_x = float(volume.at(editor.toolset.selection)[0, 0])
    assert inspector.value("Position").startswith(f"{start_x:.2f}, ")
    tip = viewport.world_to_screen(editor.gizmo.handles()["x"][0, 1:2])[0]
    grab = QPoint(int(round(tip[0])), int(round(tip[1])))
    assert editor.gizmo.hit(grab.x(), grab.y()) == "x"
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, grab)
    QTest.mouseMove(viewport, grab + QPoint(20, 0))
    QTest.mouseMove(viewport, grab + QPoint(40, 0))

    def shown_x() -> float:
        return float(inspector.value("Position").split(",")[0])

    qtbot.waitUntil(lambda: shown_x() > start_x + 0.5, timeout=3000)  # mid-drag, from the live records
    live_x = shown_x()
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       grab + QPoint(40, 0))
    qtbot.waitUntil(lambda: inspector.title.text() == "1 instance of stone", timeout=3000)
    final = volume.at(editor.toolset.selection)[0]
    expected = f"{final[0]:.2f}, {final[1]:.2f}, {final[2]:.2f} m"
    qtbot.waitUntil(lambda: inspector.value("Position") == expected, timeout=3000)
    assert abs(float(final[0]) - live_x) < 0.01
