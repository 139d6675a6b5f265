"""Terrain edit layers in the real editor: the Terrain Layers panel, its undo steps, sculpting into a
layer, Erode…, Terrace… and the Stamp tool; heights compared byte for byte."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from app.edit_layers_editor import install
from model.brush import Brush
from widgets.progress import BatchProgress


@pytest.fixture
def editor(main_window):
    ed = install(main_window)
    main_window.terrain_editor.toolbox.set_brush(Brush(radius=8.0, strength=0.8, falloff=0.5))
    return ed


def heights(window) -> bytes:
    return window.document.scene.terrain.heights.tobytes()


def raise_at(editor, points, times: int = 1) -> None:
    toolbox = editor.toolbox
    toolbox.activate("raise")
    for _ in range(times):
        toolbox.drag(points)


def undo_stack(window):
    return window.document.undo_stack


# ---- the panel ---------------------------------------------------------------------------------
def test_add_lists_the_layer_above_the_base_and_undo_redo_are_exact(main_window, editor, qtbot) -> None:
    panel = editor.panel
    assert panel.row_names() == [None] and panel.list.item(0).text() == "Base heights"
    before = heights(main_window)
    qtbot.mouseClick(panel.buttons["add"], Qt.MouseButton.LeftButton)
    assert panel.row_names() == ["Sculpt 1", None]
    assert panel.current_name() == "Sculpt 1"
    assert main_window.document.scene.terrain.edits.selected == "Sculpt 1"
    qtbot.mouseClick(panel.buttons["add"], Qt.MouseButton.LeftButton)
    assert panel.row_names() == ["Sculpt 2", "Sculpt 1", None]
    assert "sculpt" in panel.list.item(0).text()
    undo_stack(main_window).undo()
    assert panel.row_names() == ["Sculpt 1", None]
    undo_stack(main_window).undo()
    assert panel.row_names() == [None] and heights(main_window) == before
    undo_stack(main_window).redo()
    assert panel.row_names() == ["Sculpt 1", None]


def test_sculpting_into_the_selected_layer_leaves_the_base_and_undo_writes_where_it_painted(
        main_window, editor) -> None:
    terrain = main_window.document.scene.terrain
    original = heights(main_window)
    editor.add_layer()
    stack = terrain.edits
    base_before = np.array(stack.base).tobytes()
    raise_at(editor, [(0.0, 0.0), (6.0, 2.0)])
    layer = stack.layer("Sculpt 1")
    assert heights(main_window) != original  # the ground rose
    assert np.array(stack.base).tobytes() == base_before  # the base did not
    deltas = layer.read(slice(0, terrain.rows), slice(0, terrain.columns))
    assert deltas.max() > 0.1
    raised = heights(main_window)
    # pick the base, then undo the stroke: the layer loses its deltas, the base stays as it was
    editor.panel.select(None)
    assert stack.selected is None
    undo_stack(main_window).undo()
    assert heights(main_window) == original
    assert np.array(stack.base).tobytes() == base_before
    assert not layer.read(slice(0, terrain.rows), slice(0, terrain.columns)).any()
    undo_stack(main_window).redo()
    assert heights(main_window) == raised
    assert np.array_equal(layer.read(slice(0, terrain.rows), slice(0, terrain.columns)), deltas)


def test_hiding_a_layer_gives_exactly_the_heights_without_it(main_window, editor) -> None:
    editor.add_layer()
    raise_at(editor, [(-10.0, 0.0), (0.0, 0.0)])
    below = heights(main_window)
    editor.add_layer()
    raise_at(editor, [(0.0, -4.0), (8.0, 4.0)], times=2)
    both = heights(main_window)
    assert both != below
    panel = editor.panel
    item = panel.list.item(panel.row_names().index("Sculpt 2"))
    item.setCheckState(Qt.CheckState.Unchecked)  # the eye box
    assert heights(main_window) == below
    assert "hidden" in panel.list.item(0).text()
    steps = undo_stack(main_window).count()
    undo_stack(main_window).undo()
    assert heights(main_window) == both and undo_stack(main_window).count() == steps
    undo_stack(main_window).redo()
    assert heights(main_window) == below
    # a hidden layer takes no sculpting: the press says why and changes nothing
    messages = []
    editor.toolbox.message.connect(messages.append)
    raise_at(editor, [(0.0, 0.0)])
    assert heights(main_window) == below and "hidden" in messages[-1]


def test_rename_by_f2_and_double_click_each_one_undo_step(main_window, editor, qtbot) -> None:
    editor.add_layer()
    panel = editor.panel
    answers = iter([("Cliffs", True), ("Ridge", True)])
    panel.get_text = lambda *a, **k: next(answers)
    panel.list.setCurrentRow(0)
    QTest.keyClick(panel.list, Qt.Key.Key_F2)
    assert panel.row_names() == ["Cliffs", None]
    assert main_window.document.scene.terrain.edits.selected == "Cliffs"
    rect = panel.list.visualItemRect(panel.list.item(0))
    # the press a double-click follows, then the double-click on the same row
    QTest.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     rect.center())
    QTest.mouseDClick(panel.list.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                      rect.center())
    assert panel.row_names() == ["Ridge", None]
    undo_stack(main_window).undo()
    assert panel.row_names() == ["Cliffs", None]
    undo_stack(main_window).undo()
    assert panel.row_names() == ["Sculpt 1", None]


def test_reorder_by_buttons_and_by_drag_and_undo(main_window, editor, qtbot) -> None:
    for _ in range(3):
        editor.add_layer()
        raise_at(editor, [(0.0, 0.0)])
    panel = editor.panel
    start = heights(main_window)
    assert panel.row_names() == ["Sculpt 3", "Sculpt 2", "Sculpt 1", None]
    panel.select("Sculpt 1")
    assert not panel.buttons["down"].isEnabled()  # the base stays at the bottom
    qtbot.mouseClick(panel.buttons["up"], Qt.MouseButton.LeftButton)
    assert panel.row_names() == ["Sculpt 3", "Sculpt 1", "Sculpt 2", None]
    assert panel.current_name() == "Sculpt 1"
    # a row dragged to the top of the list: the model's move, as a drop makes it
    panel.select("Sculpt 2")
    panel.list.model().moveRow(panel.list.rootIndex(), 2, panel.list.rootIndex(), 0)
    qtbot.waitUntil(lambda: panel.row_names() == ["Sculpt 2", "Sculpt 3", "Sculpt 1", None])
    names = [la.name for la in main_window.document.scene.terrain.edits.layers]
    assert names == ["Sculpt 1", "Sculpt 3", "Sculpt 2"]  # bottom first
    undo_stack(main_window).undo()
    undo_stack(main_window).undo()
    assert panel.row_names() == ["Sculpt 3", "Sculpt 2", "Sculpt 1", None]
    assert heights(main_window) == start


def test_an_opacity_drag_is_one_undo_step_and_back_to_start_leaves_none(main_window, editor) -> None:
    editor.add_layer()
    raise_at(editor, [(0.0, 0.0), (4.0, 0.0)], times=3)
    full = heights(main_window)
    stack = main_window.document.scene.terrain.edits
    slider, steps = editor.panel.opacity_slider, undo_stack(main_window).count()
    slider.setSliderDown(True)
    for value in (90, 70, 40, 25):
        slider.setValue(value)
    slider.setSliderDown(False)
    assert undo_stack(main_window).count() == steps + 1
    assert stack.layer("Sculpt 1").opacity == 0.25 and editor.panel.opacity_spin.value() == 25
    quarter = heights(main_window)
    assert quarter != full
    undo_stack(main_window).undo()
    assert heights(main_window) == full and stack.layer("Sculpt 1").opacity == 1.0
    undo_stack(main_window).redo()
    assert heights(main_window) == quarter
    undo_stack(main_window).undo()
    slider.setSliderDown(True)
    slider.setValue(60)
    slider.setValue(100)
    slider.setSliderDown(False)
    assert undo_stack(main_window).index() == steps  # dragged back: no step
    assert heights(main_window) == full
    editor.panel.opacity_spin.setValue(50)  # a typed value: a step of its own
    assert undo_stack(main_window).count() == steps + 1 and stack.layer("Sculpt 1").opacity == 0.5


def test_delete_and_collapse_undo_exactly(main_window, editor, qtbot) -> None:
    editor.add_layer()
    raise_at(editor, [(0.0, 0.0), (6.0, 3.0)], times=2)
    stack = main_window.document.scene.terrain.edits
    raised, base = heights(main_window), np.array(stack.base).tobytes()
    panel = editor.panel
    panel.select("Sculpt 1")
    qtbot.mouseClick(panel.buttons["delete"], Qt.MouseButton.LeftButton)
    assert panel.row_names() == [None] and heights(main_window) != raised
    undo_stack(main_window).undo()
    assert panel.row_names() == ["Sculpt 1", None] and heights(main_window) == raised
    panel.select("Sculpt 1")
    qtbot.mouseClick(panel.buttons["collapse"], Qt.MouseButton.LeftButton)
    assert panel.row_names() == [None]
    assert heights(main_window) == raised  # folded into the base: the ground as it looked
    undo_stack(main_window).undo()
    assert panel.row_names() == ["Sculpt 1", None]
    assert heights(main_window) == raised and np.array(stack.base).tobytes() == base
    undo_stack(main_window).redo()
    assert panel.row_names() == [None] and heights(main_window) == raised


# ---- Erode…, Terrace… ---------------------------------------------------------------------------
def test_erode_dialog_runs_thermal_erosion_as_one_undo_step(main_window, editor) -> None:
    before = heights(main_window)
    dialog = editor.erode_dialog()
    dialog.method.setCurrentIndex(1)
    assert dialog.layer.text() == "erode-hydraulic"
    dialog.method.setCurrentIndex(0)
    dialog.thermal_iterations.setValue(20)
    dialog.talus.setValue(10.0)
    values = dialog.values()
    dialog.deleteLater()
    assert values["layer"] == "erode-thermal" and values["region"] is None
    editor.ask_erosion = lambda: values
    steps = undo_stack(main_window).count()
    editor.actions["erode"].trigger()
    stack = main_window.document.scene.terrain.edits
    layer = stack.layer("erode-thermal")
    assert layer.kind == "erosion" and layer.params["talus"] == 10.0 and layer.params["method"] == "thermal"
    assert undo_stack(main_window).count() == steps + 1
    eroded = heights(main_window)
    assert eroded != before
    assert editor.panel.row_names() == ["erode-thermal", None]
    # the highest ground wore down: the hill's top is lower
    assert main_window.document.scene.terrain.heights.max() < np.frombuffer(before, np.float32).max()
    undo_stack(main_window).undo()
    assert heights(main_window) == before and editor.panel.row_names() == [None]
    undo_stack(main_window).redo()
    assert heights(main_window) == eroded


def test_cancelled_erosion_changes_nothing(main_window, editor) -> None:
    before = heights(main_window)
    made = []

    def cancelled_progress(*args, **kwargs):
        progress = BatchProgress(*args, **kwargs)
        progress.dialog.cancel()  # the dialog's Cancel, pressed as the work starts
        made.append(progress)
        return progress

    editor.progress_factory = cancelled_progress
    steps = undo_stack(main_window).count()
    rain = {"method": "hydraulic", "layer": "rain", "iterations": 1, "seed": 3, "rain": 1.0}
    assert editor.erode(rain) is False
    assert made and heights(main_window) == before
    assert undo_stack(main_window).count() == steps
    stack = main_window.document.scene.terrain.edits
    assert stack is None or not stack.layers
    assert "cancelled" in main_window.statusBar().currentMessage()
    assert editor.terrace({"layer": "steps", "step": 2.0, "sharpness": 0.8}) is False
    assert heights(main_window) == before and undo_stack(main_window).count() == steps


def test_terrace_in_a_box_cuts_steps_only_there(main_window, editor) -> None:
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    dialog = editor.terrace_dialog()
    dialog.step.setValue(3.0)
    dialog.sharpness.setValue(1.0)
    dialog.region.set_box((-20.0, -16.0, 20.0, 16.0))
    values = dialog.values()
    dialog.deleteLater()
    assert values["region"] == (-20.0, -16.0, 20.0, 16.0)
    assert editor.terrace(values) is True
    after = terrain.heights
    x = terrain.origin[0] + np.arange(terrain.columns) * terrain.spacing
    z = terrain.origin[1] + np.arange(terrain.rows) * terrain.spacing
    inside = (np.abs(x)[None, :] <= 20.0) & (np.abs(z)[:, None] <= 16.0)
    assert np.array_equal(after[~inside], before[~inside])
    steps = after[inside] / 3.0
    assert np.allclose(steps, np.round(steps), atol=1e-4)  # hard steps: multiples of 3 m
    assert not np.array_equal(after[inside], before[inside])
    undo_stack(main_window).undo()
    assert terrain.heights.tobytes() == before.tobytes()


def test_a_layer_of_another_kind_is_not_overwritten(main_window, editor, monkeypatch) -> None:
    editor.add_layer("terrace")  # a sculpt layer named as the terrace would be
    shown = []
    monkeypatch.setattr(main_window, "show_error", lambda title, text, *a: shown.append(text))
    assert editor.terrace({"layer": "terrace", "step": 2.0}) is False
    assert "sculpt layer" in shown[-1]


# ---- the Stamp tool -----------------------------------------------------------------------------
def test_a_stamp_click_adds_a_stamp_layer_and_a_drag_is_one_step(main_window, editor) -> None:
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    viewport = main_window.viewport
    toolbox = editor.toolbox
    toolbox.activate("stamp")
    editor.stamp_tool.height = 5.0
    editor.stamp_tool.source = "Mesa"
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    at = toolbox.world_at(centre.x(), centre.y())
    assert at is not None
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
    stack = terrain.edits
    layer = stack.layer("Stamp 1")
    assert layer.kind == "stamp" and layer.params["file"] == "Mesa" and stack.selected == "Stamp 1"
    assert editor.panel.row_names() == ["Stamp 1", None]
    i = int(round((at[1] - terrain.origin[1]) / terrain.spacing))
    j = int(round((at[0] - terrain.origin[0]) / terrain.spacing))
    assert terrain.heights[i, j] - before[i, j] == pytest.approx(5.0, abs=0.05)  # the mesa's top
    assert terrain.heights[0, 0] == before[0, 0]
    one = terrain.heights.copy()
    steps = undo_stack(main_window).count()
    toolbox.drag([(-20.0, 0.0), (20.0, 0.0)])  # into the selected stamp layer, one step
    assert undo_stack(main_window).count() == steps + 1
    assert stack.names() == ["Stamp 1"]
    row = int(round((0.0 - terrain.origin[1]) / terrain.spacing))
    for x in (-20.0, 0.0, 20.0):
        col = int(round((x - terrain.origin[0]) / terrain.spacing))
        assert terrain.heights[row, col] > before[row, col] + 4.0
    undo_stack(main_window).undo()
    assert terrain.heights.tobytes() == one.tobytes()
    undo_stack(main_window).undo()
    assert terrain.heights.tobytes() == before.tobytes() and editor.panel.row_names() == [None]


def test_stamp_settings_show_with_the_tool(main_window, editor, qtbot) -> None:
    panel = main_window.terrain_editor.tool_panel()
    box = panel.stamp_settings
    assert not box.isVisibleTo(panel)
    editor.toolbox.activate("stamp")
    assert box.isVisibleTo(panel)
    assert [box.shape.itemText(k) for k in range(4)] == ["Hill", "Cone", "Mesa", "Crater"]
    box.shape.setCurrentIndex(1)
    box.shape.activated.emit(1)
    box.rotation.setValue(30.0)
    box.mode.setCurrentText("max")
    assert editor.stamp_tool.source == "Cone" and editor.stamp_tool.rotation == 30.0
    assert editor.stamp_tool.mode == "max"
    panel.deleteLater()


# ---- the viewport -------------------------------------------------------------------------------
def test_hiding_a_tall_stamp_layer_changes_the_view_where_the_stamp_was(shown, editor, qtbot) -> None:
    from tests.gui_helpers import render, settle

    window = shown
    viewport = window.viewport
    terrain = window.document.scene.terrain
    editor.toolbox.activate("stamp")  # its settings open beside the view: the view's size settles first
    settle()
    editor.stamp_tool.height = 30.0
    editor.stamp_tool.source = "Mesa"
    editor.toolbox.set_brush(Brush(radius=10.0, strength=1.0, falloff=0.5))
    flat = render(viewport, qtbot)
    editor.toolbox.drag([(0.0, 0.0)])
    stamped = render(viewport, qtbot)
    panel = editor.panel
    frames = viewport.frames_rendered
    panel.list.item(panel.row_names().index("Stamp 1")).setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: viewport.frames_rendered > frames)  # the view redraws of itself
    hidden = render(viewport, qtbot)

    changed = np.any(np.abs(stamped.astype(int) - hidden.astype(int)) > 12, axis=-1)
    assert changed.sum() > 200, "hiding the stamp changed too little of the view"
    # where the stamp stands on screen: its top centre and its square's corners, projected
    top = float(terrain.height_at(0.0, 0.0))
    corners = viewport.world_to_screen([(x, top, z) for x in (-10.0, 10.0) for z in (-10.0, 10.0)]
                                       + [(0.0, top, 0.0)])
    ys, xs = np.nonzero(changed)
    cx, cy = corners[-1]
    assert abs(xs.mean() - cx) < 60 and abs(ys.mean() - cy) < 60
    far = np.hypot(xs - cx, ys - cy) > 3 * np.nanmax(np.hypot(corners[:4, 0] - cx, corners[:4, 1] - cy))
    assert far.mean() < 0.05  # the change is where the stamp was, not elsewhere
    # hidden, the view is the ground without the stamp again
    assert np.mean(np.any(np.abs(hidden.astype(int) - flat.astype(int)) > 12, axis=-1)) < 0.002


# ---- recomputing, opening, the stamp library -----------------------------------------------------
def test_erode_starts_from_the_selected_erosion_layer_and_recomputes_it_in_one_step(main_window,
                                                                                   editor) -> None:
    before = heights(main_window)
    assert editor.erode({"method": "thermal", "layer": "slopes", "iterations": 10, "talus": 20.0,
                         "region": (-30.0, -20.0, 30.0, 20.0)})
    first = heights(main_window)
    dialog = editor.erode_dialog()  # the new layer is selected: the dialog starts from it
    assert dialog.layer.text() == "slopes" and dialog.thermal_iterations.value() == 10
    assert dialog.talus.value() == 20.0 and dialog.region.box.isChecked()
    dialog.talus.setValue(12.0)
    values = dialog.values()
    dialog.deleteLater()
    steps = undo_stack(main_window).count()
    assert editor.erode(values)
    stack = main_window.document.scene.terrain.edits
    assert stack.names() == ["slopes"] and stack.layer("slopes").params["talus"] == 12.0
    assert undo_stack(main_window).count() == steps + 1 and heights(main_window) not in (first, before)
    undo_stack(main_window).undo()
    assert heights(main_window) == first and stack.layer("slopes").params["talus"] == 20.0


def test_an_opened_scene_shows_its_edit_layers(main_window, editor) -> None:
    from model.edit_layers import EditStack, grid_from
    from tests.conftest import make_small_scene

    scene = make_small_scene()

    stack = EditStack(scene.terrain)
    layer = stack.new_layer("dunes", "stamp", {"file": "dune.png"})
    layer.deltas = grid_from(np.full((5, 5), 2.0, np.float32), slice(4, 9), slice(4, 9),
                             (scene.terrain.rows, scene.terrain.columns))
    stack.insert(layer)
    main_window.open_scene(scene)
    assert editor.panel.row_names() == ["dunes", None]
    assert "stamp" in editor.panel.list.item(0).text()
    editor.panel.list.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert scene.terrain.heights[6, 6] == make_small_scene().terrain.heights[6, 6]


def test_the_stamp_library_lists_its_heightmaps_and_a_chosen_one_is_stamped(main_window, editor,
                                                                            tmp_path) -> None:
    from model.formats.heightmap import write_heightmap

    ramp = np.tile(np.linspace(0.0, 1.0, 17, dtype=np.float32), (17, 1))  # rises to the east
    write_heightmap(tmp_path / "ramp.png", ramp, offset=0.0, scale=1.0)
    (tmp_path / "notes.txt").write_text("not a stamp")
    panel = main_window.terrain_editor.tool_panel()
    box = panel.stamp_settings
    editor.set_stamp_folder(str(tmp_path), box)
    labels = [box.shape.itemText(k) for k in range(box.shape.count())]
    assert labels == ["Hill", "Cone", "Mesa", "Crater", "ramp", "Other File…"]
    assert not box.shape.itemIcon(4).isNull()  # its thumbnail
    box.shape.setCurrentIndex(4)
    box.shape.activated.emit(4)
    assert editor.stamp_tool.source == str(tmp_path / "ramp.png")
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    editor.stamp_tool.height = 6.0
    editor.toolbox.set_brush(Brush(radius=10.0, strength=1.0, falloff=0.5))
    editor.toolbox.activate("stamp")
    editor.toolbox.drag([(0.0, 0.0)])
    rise = terrain.heights - before
    row = int(round(-terrain.origin[1] / terrain.spacing))
    west, east = (int(round((x - terrain.origin[0]) / terrain.spacing)) for x in (-8.0, 8.0))
    assert rise[row, east] > rise[row, west] + 3.0  # the ramp's high side is east
    assert main_window.document.scene.terrain.edits.layer("Stamp 1").params["file"] == "ramp.png"
    panel.deleteLater()


def test_hydraulic_erosion_writes_its_outputs_into_paint_layers_in_the_same_step(main_window, editor) -> None:
    terrain = main_window.document.scene.terrain
    before = heights(main_window)
    paint_before = [la.name for la in terrain.layers]
    dialog = editor.erode_dialog()
    dialog.method.setCurrentIndex(1)
    dialog.seed.setValue(7)
    dialog.outputs["flow"].setChecked(True)
    dialog.outputs["wear"].setChecked(True)
    values = dialog.values()
    dialog.deleteLater()
    assert values["outputs"] == ["flow", "wear"]
    steps = undo_stack(main_window).count()
    assert editor.erode(values)
    assert undo_stack(main_window).count() == steps + 1
    assert [la.name for la in terrain.layers] == paint_before + ["erosion_flow", "erosion_wear"]
    flow = terrain.layer("erosion_flow").weights.copy()
    assert flow.any() and heights(main_window) != before
    eroded = heights(main_window)
    undo_stack(main_window).undo()
    assert [la.name for la in terrain.layers] == paint_before and heights(main_window) == before
    undo_stack(main_window).redo()
    assert np.array_equal(terrain.layer("erosion_flow").weights, flow) and heights(main_window) == eroded


def test_a_mask_layer_limits_the_terraces_to_where_it_is_painted(main_window, editor) -> None:
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    dialog = editor.terrace_dialog()
    dialog.region.mask.setChecked(True)
    dialog.region.mask_name.setCurrentText("red")  # the west half
    dialog.step.setValue(4.0)
    values = dialog.values()
    dialog.deleteLater()
    assert values["mask"] == "red" and values["region"] is None
    assert editor.terrace(values)
    west = terrain.layer("red").weights == 255
    changed = terrain.heights != before
    assert changed[west].any() and not changed[~west].any()
    assert main_window.document.scene.terrain.edits.layer("terrace").params["mask"] == "red"


def test_stored_foliage_follows_an_opacity_drag_once_the_slider_is_let_go(main_window, editor) -> None:
    from model.foliage import foliage_of

    scene = main_window.document.scene
    t, volume = scene.terrain, foliage_of(scene).volume
    ground = float(t.height_at(np.array([1.0]), np.array([0.5]))[0])
    volume.add("rock", np.array([[1.0, ground + 0.5, 0.5, 0.0, 1.0, 0.0, 0.0]], np.float32))

    def above() -> float:
        rec = volume.all_records("rock")
        return float(rec[0, 1]) - float(t.height_at(rec[:, 0].astype(float), rec[:, 2].astype(float))[0])

    editor.add_layer()
    raise_at(editor, [(0.0, 0.0), (4.0, 0.0)], times=3)
    assert above() == pytest.approx(0.5, abs=1e-3)  # the sculpt stroke carried it
    slider = editor.panel.opacity_slider
    slider.setSliderDown(True)
    for value in (80, 50, 20):
        slider.setValue(value)
    assert above() > 1.0  # while the slider is held, the ground moves alone
    slider.setSliderDown(False)
    assert above() == pytest.approx(0.5, abs=1e-3)
    low = volume.all_records("rock").tobytes()
    undo_stack(main_window).undo()
    assert above() == pytest.approx(0.5, abs=1e-3)
    undo_stack(main_window).redo()
    assert volume.all_records("rock").tobytes() == low
    editor.panel.opacity_spin.setValue(60)  # a typed value: followed at once
    assert above() == pytest.approx(0.5, abs=1e-3)


def test_collapsing_a_road_lets_the_spawners_grow_on_it_and_says_so(main_window, editor, qtbot) -> None:
    from model.foliage import FoliageType, foliage_of
    from model.foliage.spawner import Area, Spawner, Species
    from model.foliage.spawner_section import run_and_apply, spawners_of
    from model.spline_edits import apply_spline
    from model.splines import Spline, inside, sample_path
    from tests.conftest import make_small_scene

    scene = make_small_scene()  # a wood spawned over it, a road through the wood: then opened
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("pine", spacing=1.5))
    spawners_of(scene).spawners = [Spawner("all", 1, Area(), (Species("pine", 6.0),))]
    run_and_apply(scene, spawners_of(scene).spawners[0])
    t = scene.terrain
    road = Spline(np.array([(-30.0, np.nan, -1.0), (30.0, np.nan, 2.0)]), 6.0, 3.0, "road")
    apply_spline(scene, "road", road, full=True)
    path = sample_path(road, lambda rows, cols: t.heights[rows, cols], (t.rows, t.columns), t.spacing,
                       t.origin)
    main_window.open_scene(scene)

    def on_road() -> int:
        rec = foliage.volume.all_records("pine").astype(np.float64)
        return int(np.count_nonzero(inside(path, rec[:, 0], rec[:, 2])))

    assert on_road() == 0 and foliage.volume.count() > 20
    panel = editor.panel
    assert panel.row_names() == ["road", None]
    steps = undo_stack(main_window).count()
    panel.select("road")
    qtbot.mouseClick(panel.buttons["collapse"], Qt.MouseButton.LeftButton)
    assert panel.row_names() == [None] and undo_stack(main_window).count() == steps + 1
    assert on_road() > 0  # plain ground now: the spawner grows on it at once
    assert "Spawners no longer keep off its width (1 re-ran there" in panel.status.text()
    undo_stack(main_window).undo()
    assert panel.row_names() == ["road", None] and on_road() == 0
