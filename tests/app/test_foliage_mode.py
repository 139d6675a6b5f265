"""Foliage mode in the real editor window: strokes and exact undo, refusals, select/delete, gizmo, palette."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app import main_window as mw_module
from model.brush import Brush
from model.demo import demo_resource_path
from model.foliage import FoliageType, LayerFilter, Refusal, foliage_of
from model.formats.scene_file import load_scene


@pytest.fixture
def errors(monkeypatch):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    return shown


@pytest.fixture
def editor(main_window):
    ed = main_window.foliage_editor
    ed.host.set_brush(Brush(radius=8.0, strength=1.0, falloff=0.3))
    return ed


def snapshot(volume) -> dict:
    """Every chunk's bytes: equal snapshots mean byte-identical instances at the same addresses."""
    return {key: chunk.records.tobytes() for key, chunk in volume.chunks()}


def grid_points(terrain):
    x = terrain.origin[0] + np.arange(terrain.columns) * terrain.spacing
    z = terrain.origin[1] + np.arange(terrain.rows) * terrain.spacing
    return np.meshgrid(x, z)


def forest_spot(terrain) -> tuple[float, float]:
    """A gentle, well-painted forest-floor spot of the demo, where conifers may grow."""
    gx, gz = grid_points(terrain)
    ok = (terrain.layer("forest_floor").weights > 220) & (terrain.slope_at(gx, gz) < 12)
    ok &= (terrain.heights > 20) & (terrain.heights < 70)
    ok &= np.hypot(gx - 266.0, gz - 205.0) > 300.0  # well away from the plateau's cliffs
    rows, cols = np.nonzero(ok)
    i = len(rows) // 2
    return float(gx[rows[i], cols[i]]), float(gz[rows[i], cols[i]])


def press_drag_release(viewport, pixels: list[QPoint], modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifiers, pixels[0])
    for p in pixels[1:]:
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifiers, pixels[-1])


def pixel_of(viewport, x: float, z: float, terrain) -> QPoint:
    sx, sy = viewport.world_to_screen([[x, float(terrain.height_at(x, z)), z]])[0]
    return QPoint(int(round(sx)), int(round(sy)))


# ---- paint: one step, exact undo and redo -----------------------------------------------------
def test_a_paint_drag_on_the_demo_is_one_exact_undo_step(main_window, editor) -> None:
    main_window.open_scene(load_scene(demo_resource_path()))
    scene = main_window.document.scene
    terrain, volume = scene.terrain, foliage_of(scene).volume
    assert "conifer" in foliage_of(scene).palette
    editor.palette_panel.select(["conifer"])
    x, z = forest_spot(terrain)
    viewport = main_window.viewport
    viewport.camera.yaw, viewport.camera.pitch = 0.4, math.radians(80)  # from above: nothing in front
    y = float(terrain.height_at(x, z))
    viewport.focus_on(np.array([[x - 30, y, z - 30], [x + 30, y, z + 30]]))
    editor.toolset.activate("paint")
    pixels = [pixel_of(viewport, x + dx, z, terrain) for dx in (-12.0, -6.0, 0.0, 6.0, 12.0)]
    before, count = snapshot(volume), volume.count("conifer")
    press_drag_release(viewport, pixels)
    after = snapshot(volume)
    placed = volume.count("conifer") - count
    assert placed > 5
    stack = main_window.document.undo_stack
    assert stack.count() == 1 and stack.text(0) == "Paint foliage"
    history = main_window.docks["history"].widget()
    assert history.model().rowCount() == 2  # "<opened>" and the one drag
    assert editor.refusal_panel.text().endswith(f", {placed} placed")
    QApplication.processEvents()
    editor.refresh_counts()
    assert editor.palette_panel.item_texts()[0] == f"conifer · {count + placed:,} instances"
    stack.undo()
    assert volume.count("conifer") == count and snapshot(volume) == before
    stack.redo()
    assert snapshot(volume) == after  # byte-identical records at the same addresses


def test_ctrl_while_painting_erases_and_erase_reapply_fill_undo_exactly(main_window, editor) -> None:
    foliage = foliage_of(main_window.document.scene)
    foliage.palette.add(FoliageType("shrub", mesh="builtin:bush", density=40.0))
    editor.palette_panel.select(["shrub"])
    volume, stack = foliage.volume, main_window.document.undo_stack
    editor.toolset.activate("paint")
    editor.toolset.drag([(-20.0, 0.0), (-10.0, 0.0), (0.0, 0.0)])
    painted = snapshot(volume)
    n = len(volume)
    assert n > 50
    none, ctrl = Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ControlModifier
    for tool, modifiers in (("paint", ctrl), ("erase", none), ("reapply", none)):
        editor.toolset.activate(tool)
        index = stack.index()
        editor.toolset.drag([(-15.0, 0.0), (-8.0, 0.0)], modifiers)
        assert stack.index() == index + 1
        if tool != "reapply":
            assert 0 < len(volume) < n
        edited = snapshot(volume)
        assert edited != painted
        stack.undo()
        assert snapshot(volume) == painted
        stack.redo()
        assert snapshot(volume) == edited
        stack.undo()
    assert stack.text(stack.index() - 1) == "Paint foliage"
    editor.toolset.activate("fill")
    result = editor.toolset.fill_polygon([(10.0, -10.0), (30.0, -10.0), (30.0, 10.0), (10.0, 10.0)])
    assert result.placed > 0 and stack.text(stack.index() - 1) == "Fill lasso"
    filled = snapshot(volume)
    stack.undo()
    assert snapshot(volume) == painted
    stack.redo()
    assert snapshot(volume) == filled


def test_single_places_one_or_says_why_not(main_window, editor) -> None:
    foliage = foliage_of(main_window.document.scene)
    foliage.palette.add(FoliageType("stone", mesh="builtin:rock", altitude=(-100.0, 1.0)))
    editor.palette_panel.select(["stone"])
    editor.toolset.activate("single")
    editor.toolset.drag([(-38.0, -30.0)])  # a corner of the small scene: flat, at height 0
    assert len(foliage.volume) == 1
    editor.toolset.drag([(0.0, 0.0)])  # the hilltop, 12 m up
    assert len(foliage.volume) == 1
    assert editor.refusal_panel.count(Refusal.ALTITUDE) == 1
    assert "1 too high (12 m > 1 m)" in editor.refusal_panel.text()
    assert main_window.document.undo_stack.count() == 1  # a refused click is no step


# ---- refusals --------------------------------------------------------------------------------
def test_a_stroke_on_a_steep_slope_reports_the_slope_count(main_window, editor) -> None:
    scene = main_window.document.scene
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("flatland", mesh="builtin:bush", density=30.0, slope=(0.0, 5.0)))
    editor.palette_panel.select(["flatland"])
    editor.toolset.activate("paint")
    editor.toolset.drag([(12.0, 0.0), (14.0, 0.0)])  # the flank of the small scene's hill
    result = editor.toolset.last_result
    outcome = result.outcomes["flatland"]
    steep = [i for i, (x, z) in enumerate(outcome.xz)
             if outcome.refusals[i] != Refusal.NO_GROUND and float(scene.terrain.slope_at(x, z)) > 5.0]
    n_slope = int(np.sum(outcome.refusals == Refusal.SLOPE))
    assert n_slope == len(steep) > 10  # every candidate on ground steeper than 5° refused for slope
    text = editor.refusal_panel.text()
    median = float(np.median(scene.terrain.slope_at(outcome.xz[steep, 0], outcome.xz[steep, 1])))
    assert text.startswith(f"{result.candidates} candidates: ")
    assert f"{n_slope} too steep (slope {median:.0f}° > 5°)" in text
    assert text.endswith(f"{result.placed} placed")
    assert editor.refusal_panel.bars[Refusal.SLOPE].value() == n_slope
    # Clicking the reason highlights exactly those candidates in the viewport.
    editor.refusal_panel.buttons[Refusal.SLOPE].click()
    markers = main_window.viewport.overlays.refusals
    assert markers.highlight == int(Refusal.SLOPE)
    assert int(np.sum(markers.reasons == Refusal.SLOPE)) == n_slope
    np.testing.assert_allclose(np.sort(markers.positions[markers.reasons == Refusal.SLOPE][:, 0]),
                               np.sort(outcome.xz[outcome.refusals == Refusal.SLOPE][:, 0]), atol=1e-4)


def refused_stroke(main_window, editor) -> int:
    """A paint stroke on the hill's flank that refuses candidates for slope; the markers drawn."""
    palette = foliage_of(main_window.document.scene).palette
    if "flatland" not in palette:
        palette.add(FoliageType("flatland", mesh="builtin:bush", density=30.0, slope=(0.0, 5.0)))
    editor.palette_panel.select(["flatland"])
    editor.toolset.activate("paint")
    editor.toolset.drag([(12.0, 0.0), (14.0, 0.0)])
    return len(main_window.viewport.overlays.refusals)


@pytest.mark.parametrize("other", ["select", "erase", "fill", "single"])
def test_switching_to_another_foliage_tool_clears_the_refusal_markers(main_window, editor, other) -> None:
    markers = main_window.viewport.overlays.refusals
    assert refused_stroke(main_window, editor) > 10
    text = editor.refusal_panel.text()
    editor.toolset.activate(other)
    assert len(markers) == 0 and markers.positions.shape == (0, 3)
    editor.toolset.activate("paint")  # coming back restores nothing
    assert len(markers) == 0
    assert editor.refusal_panel.text() == text  # the panel still explains the last stroke


def test_switching_to_a_terrain_tool_or_to_none_clears_the_refusal_markers(main_window, editor) -> None:
    markers = main_window.viewport.overlays.refusals
    assert refused_stroke(main_window, editor) > 10
    main_window.terrain_editor.toolbox.activate("raise")
    assert len(markers) == 0
    assert refused_stroke(main_window, editor) > 10
    editor.toolset.activate(None)
    assert len(markers) == 0
    # A tool left in mid-drag finishes its stroke first; its markers go with the tool too.
    editor.toolset.activate("paint")
    editor.host.dragging = True
    editor.toolset.active.press((12.0, 0.0), Qt.KeyboardModifier.NoModifier)
    main_window.terrain_editor.toolbox.activate("raise")
    assert editor.toolset.last_result is not None and editor.toolset.last_result.candidates
    assert len(markers) == 0


def test_a_missing_layer_is_named(main_window, editor) -> None:
    foliage = foliage_of(main_window.document.scene)
    foliage.palette.add(FoliageType("mossy", density=10.0, layer=LayerFilter("moss", 0.5)))
    editor.palette_panel.select(["mossy"])
    editor.toolset.activate("paint")
    editor.toolset.drag([(-20.0, -10.0)])
    assert len(foliage.volume) == 0
    assert editor.refusal_panel.missing.isVisibleTo(editor.refusal_panel)
    assert "'moss'" in editor.refusal_panel.missing.text()
    assert "layer 'moss' missing" in editor.refusal_panel.text()
    assert main_window.document.undo_stack.count() == 0


# ---- select, delete, gizmo ---------------------------------------------------------------------
def inside(polygon, x: float, z: float) -> bool:
    """Plain even-odd ray casting (the reference for the vectorised lasso)."""
    hit = False
    for i in range(len(polygon)):
        (ax, az), (bx, bz) = polygon[i], polygon[(i + 1) % len(polygon)]
        if (az > z) != (bz > z) and x < ax + (z - az) * (bx - ax) / (bz - az):
            hit = not hit
    return hit


def scattered(main_window, n: int = 400, seed: int = 3) -> np.ndarray:
    """`n` shrubs at known spots of the small scene, grounded."""
    scene = main_window.document.scene
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("shrub", mesh="builtin:bush"))
    rng = np.random.default_rng(seed)
    xz = rng.uniform(-30.0, 30.0, size=(n, 2))
    y = scene.terrain.height_at(xz[:, 0], xz[:, 1])
    records = np.zeros((n, 7), np.float32)
    records[:, 0], records[:, 1], records[:, 2], records[:, 6] = xz[:, 0], y, xz[:, 1], 1.0
    foliage.volume.add("shrub", records)
    return records


def test_lasso_select_and_delete_remove_exactly_the_instances_inside(main_window, editor) -> None:
    records = scattered(main_window)
    volume = foliage_of(main_window.document.scene).volume
    terrain = main_window.document.scene.terrain
    viewport = main_window.viewport
    viewport.camera.yaw, viewport.camera.pitch = 0.3, math.radians(70)
    viewport.frame_all()
    editor.toolset.activate("select")
    editor.select_mode.setCurrentText("lasso")
    ring = [(18.0 * math.cos(a), 12.0 * math.sin(a) + 3.0) for a in np.linspace(0, 2 * np.pi, 14)[:-1]]
    pixels = [pixel_of(viewport, x, z, terrain) for x, z in ring] + [pixel_of(viewport, *ring[0], terrain)]
    polygon = [editor.host.world_at(p.x(), p.y()) for p in pixels]  # what the lasso lands on
    before = snapshot(volume)
    press_drag_release(viewport, pixels)
    expected = sorted(i for i, r in enumerate(records) if inside(polygon[1:], float(r[0]), float(r[2])))
    assert 20 < len(expected) < len(records)
    assert editor.toolset.selection_count() == len(expected)
    assert editor.actions["delete"].shortcut().toString() == "Del"
    editor.actions["delete"].trigger()
    left = volume.all_records("shrub")
    gone = {tuple(r) for r in records[expected]}
    assert len(left) == len(records) - len(expected)
    assert not gone & {tuple(r) for r in left}
    stack = main_window.document.undo_stack
    assert stack.count() == 1 and stack.text(0) == f"Delete {len(expected)} instances"
    stack.undo()
    assert snapshot(volume) == before
    # Shift adds, Ctrl removes.
    editor.toolset.set_selection({})
    press_drag_release(viewport, pixels)
    n = editor.toolset.selection_count()
    for i in expected:  # an instance the viewport's own picking finds under its pixel
        click = pixel_of(viewport, float(records[i, 0]), float(records[i, 2]), terrain)
        hit = viewport.pick_instance(click.x(), click.y())
        if hit is not None and hit.index in editor.toolset.selection.get((hit.cell, hit.type), []) \
                and editor.gizmo.hit(click.x(), click.y()) is None:  # not on a gizmo handle
            break
    else:
        raise AssertionError("no selected instance can be clicked")
    press_drag_release(viewport, [click], Qt.KeyboardModifier.ControlModifier)
    assert editor.toolset.selection_count() == n - 1
    press_drag_release(viewport, [click], Qt.KeyboardModifier.ShiftModifier)
    assert editor.toolset.selection_count() == n


def test_box_select_takes_what_projects_inside_the_rectangle(main_window, editor) -> None:
    records = scattered(main_window)
    viewport = main_window.viewport
    viewport.frame_all()
    editor.toolset.activate("select")
    w, h = viewport.width(), viewport.height()
    corner0, corner1 = QPoint(w // 3, h // 3), QPoint(2 * w // 3, 2 * h // 3)
    press_drag_release(viewport, [corner0, QPoint(w // 2, h // 2), corner1])
    screen = viewport.world_to_screen(records[:, :3])
    expected = np.sum((screen[:, 0] >= w // 3) & (screen[:, 0] <= 2 * w // 3)
                      & (screen[:, 1] >= h // 3) & (screen[:, 1] <= 2 * h // 3))
    assert 0 < expected < len(records)
    assert abs(editor.toolset.selection_count() - expected) <= 1  # pixel rounding at the border


def test_gizmo_move_is_one_step_and_the_view_follows(main_window, editor) -> None:
    records = scattered(main_window, 60)
    terrain = main_window.document.scene.terrain
    volume = foliage_of(main_window.document.scene).volume
    viewport = main_window.viewport
    viewport.camera.yaw, viewport.camera.pitch = 0.0, math.radians(60)
    viewport.frame_all()
    editor.toolset.activate("select")
    chosen = volume.query_radius(-10.0, -10.0, 12.0)
    editor.toolset.set_selection(chosen)
    n = editor.toolset.selection_count()
    assert n > 3
    moved_before = volume.at(chosen).copy()
    before = snapshot(volume)
    versions = {k: volume.chunk(*k).version for k in chosen}
    handles = editor.gizmo.handles()
    tip = viewport.world_to_screen(handles["x"][0, 1:2])[0]
    grab = QPoint(int(round(tip[0])), int(round(tip[1])))
    assert editor.gizmo.hit(grab.x(), grab.y()) == "x"
    press_drag_release(viewport, [grab, grab + QPoint(20, 0), grab + QPoint(40, 0)])
    stack = main_window.document.undo_stack
    assert stack.count() == 1 and stack.text(0) == f"Move {n} instances"
    after = volume.at(editor.toolset.selection)
    assert len(after) == n
    dx = after[:, 0] - np.sort(moved_before[:, 0])[np.argsort(np.argsort(after[:, 0]))]
    assert np.all(np.abs(dx - dx[0]) < 1e-3) and dx[0] > 0.5  # all moved by the same amount along x
    np.testing.assert_allclose(np.sort(after[:, 2]), np.sort(moved_before[:, 2]), atol=1e-5)
    ground_lift = terrain.height_at(after[:, 0], after[:, 2])
    np.testing.assert_allclose(after[:, 1] - ground_lift, 0.0, atol=1e-3)  # still on the ground
    # The view follows: the selection markers sit on the moved instances, and every chunk the
    # renderer draws from carries a new version.
    markers = viewport.overlays.points.get("selection")
    np.testing.assert_allclose(np.sort(markers[:, 0]), np.sort(after[:, 0]), atol=1e-5)
    assert all(volume.chunk(*k) is None or volume.chunk(*k).version != v for k, v in versions.items())
    moved = snapshot(volume)
    stack.undo()
    assert snapshot(volume) == before
    stack.redo()
    assert snapshot(volume) == moved
    assert len(volume) == len(records)


def test_gizmo_rotate_and_scale_and_a_drag_back_leaves_no_step(main_window, editor) -> None:
    scattered(main_window, 80)
    volume = foliage_of(main_window.document.scene).volume
    editor.toolset.set_selection(volume.query_radius(5.0, 5.0, 15.0))
    stack = main_window.document.undo_stack
    before = volume.at(editor.toolset.selection).copy()
    pivot = before[:, :3].astype(np.float64).mean(axis=0)
    assert editor.gizmo.apply(angle=math.pi / 2)
    after = volume.at(editor.toolset.selection)
    # A quarter turn about up: yaw grows by the angle, and each offset from the pivot turns with it.
    np.testing.assert_allclose(np.sort(after[:, 3]), np.sort(before[:, 3] + math.pi / 2), atol=1e-5)
    np.testing.assert_allclose(np.sort(np.hypot(after[:, 0] - pivot[0], after[:, 2] - pivot[2])),
                               np.sort(np.hypot(before[:, 0] - pivot[0], before[:, 2] - pivot[2])), atol=1e-3)
    assert editor.gizmo.apply(factor=2.0)
    np.testing.assert_allclose(np.sort(volume.at(editor.toolset.selection)[:, 6]), np.sort(before[:, 6] * 2))
    assert stack.count() == 2 and stack.text(1).startswith("Scale")
    editor.gizmo.begin("free")
    editor.gizmo.update((5.0, 0.0))
    editor.gizmo.update((0.0, 0.0))
    assert not editor.gizmo.end()
    assert stack.count() == 2


# ---- palette ----------------------------------------------------------------------------------
def test_palette_edits_round_trip_through_save_and_open(main_window, editor, tmp_path) -> None:
    palette = foliage_of(main_window.document.scene).palette
    stack = main_window.document.undo_stack
    name = editor.new_type()
    assert name == "new type" and palette.names()[-1] == "new type"
    form = editor.palette_panel.form
    assert form.name.text() == "new type"
    form.density.setValue(7.5)
    form.slope.high.setValue(25.0)
    form.layer.setCurrentText("red")
    form.layer.activated.emit(0)
    form.altitude_on.setChecked(True)
    form.altitude.high.setValue(40.0)
    copy = editor.duplicate_type("new type")
    assert copy == "new type copy"
    assert editor.remove_type("bush")
    saved = [palette[n] for n in palette.names()]
    edited = palette["new type"]
    assert (edited.density, edited.slope, edited.layer, edited.altitude) == (
        7.5, (0.0, 25.0), LayerFilter("red", 0.5), (0.0, 40.0))
    path = tmp_path / "palette.boscage"
    assert main_window._save_to(path)
    assert main_window.open_file(path)
    reopened = foliage_of(main_window.document.scene).palette
    assert [reopened[n] for n in reopened.names()] == saved
    assert editor.palette_panel.names() == reopened.names()
    assert stack.count() == 0


def test_a_filter_edit_is_undoable_and_dragging_back_leaves_no_step(main_window, editor) -> None:
    palette = foliage_of(main_window.document.scene).palette
    stack = main_window.document.undo_stack
    editor.palette_panel.select(["conifer"])
    form = editor.palette_panel.form
    original = palette["conifer"]
    form.slope.high.setValue(20.0)
    form.slope.high.setValue(18.0)  # the same setting again: merges into one step
    assert stack.count() == 1 and stack.text(0) == "Change slope of 'conifer'"
    assert palette["conifer"].slope == (0.0, 18.0)
    stack.undo()
    assert palette["conifer"] == original
    assert form.slope.high.value() == original.slope[1]  # the form follows the undo
    stack.redo()
    assert palette["conifer"].slope == (0.0, 18.0)
    form.slope.high.setValue(original.slope[1])  # dragged back: the step disappears
    assert palette["conifer"] == original
    assert stack.count() == 1 or stack.index() == 0
    form.min_weight.setValue(0.8)
    assert palette["conifer"].layer == LayerFilter("forest_floor", 0.8)


def test_removing_a_type_with_instances_asks_and_is_undoable(main_window, editor) -> None:
    scattered(main_window, 50)
    foliage = foliage_of(main_window.document.scene)
    before = snapshot(foliage.volume)
    names = foliage.palette.names()
    asked = []
    editor.confirm_remove = lambda parent, name, count: asked.append((name, count)) or False
    assert not editor.remove_type("shrub")
    assert asked == [("shrub", 50)] and "shrub" in foliage.palette
    editor.confirm_remove = lambda parent, name, count: True
    assert editor.remove_type("shrub")
    assert "shrub" not in foliage.palette and len(foliage.volume) == 0
    main_window.document.undo_stack.undo()
    assert foliage.palette.names() == names and snapshot(foliage.volume) == before


def test_renaming_a_type_carries_its_instances(main_window, editor) -> None:
    scattered(main_window, 30)
    foliage = foliage_of(main_window.document.scene)
    editor.palette_panel.select(["shrub"])
    records = foliage.volume.all_records("shrub").copy()
    form = editor.palette_panel.form
    form.name.setText("hedge")
    form.name.editingFinished.emit()
    assert "hedge" in foliage.palette and "shrub" not in foliage.palette
    assert foliage.volume.all_records("hedge").tobytes() == records.tobytes()
    main_window.document.undo_stack.undo()
    assert foliage.volume.all_records("shrub").tobytes() == records.tobytes()


def test_adding_types_from_files_reports_bad_ones(main_window, editor, errors, tmp_path) -> None:
    from model.foliage import save_foliage_type

    save_foliage_type(FoliageType("fern", mesh="builtin:bush", density=3.0), tmp_path / "fern.vxfoliage")
    (tmp_path / "bad.vxfoliage").write_text('name = "x"\ncolour = 3\n')
    assert editor.add_type_files([tmp_path / "fern.vxfoliage", tmp_path / "bad.vxfoliage"]) == 1
    assert "fern" in foliage_of(main_window.document.scene).palette
    assert "colour" in errors[-1][1] and "bad.vxfoliage" in errors[-1][1]


# ---- the window's furniture --------------------------------------------------------------------
def test_one_exclusive_group_for_terrain_and_foliage_tools(main_window, editor) -> None:
    terrain = main_window.terrain_editor.toolbox
    terrain.activate("raise")
    editor.toolset.activate("paint")
    assert terrain.active is None and editor.toolset.active.tool_key == "paint"
    assert not terrain.actions["raise"].isChecked()
    actions = list(editor.toolset.actions.values())
    assert all(a.toolTip() and not a.shortcut().isEmpty() and not a.icon().isNull() for a in actions)
    shortcuts = [a.shortcut().toString() for a in main_window.findChildren(type(actions[0]))
                 if not a.shortcut().isEmpty()]
    assert len(shortcuts) == len(set(shortcuts)), "two actions share a shortcut"
    titles = [a.text().replace("&", "") for a in editor.menu.actions() if not a.isSeparator()]
    assert titles[:6] == ["Paint", "Erase", "Single", "Select", "Fill", "Reapply"]


def test_bracket_keys_change_the_shared_brush_and_it_persists(main_window, editor) -> None:
    from app.tools import ToolHost

    editor.toolset.activate("paint")
    QTest.keyClick(main_window.viewport, Qt.Key.Key_BracketRight)
    assert editor.host.brush.radius == pytest.approx(10.0)
    QTest.keyClick(main_window.viewport, Qt.Key.Key_BracketLeft, Qt.KeyboardModifier.ShiftModifier)
    assert editor.host.brush.strength == pytest.approx(0.95)
    assert main_window.terrain_editor.toolbox.brush == editor.host.brush
    assert editor.brush_panel.radius.value() == pytest.approx(10.0)
    again = ToolHost(main_window.viewport, main_window.document, main_window.settings)
    assert again.brush == editor.host.brush
    main_window.viewport.removeEventFilter(again)


def test_status_bar_reads_out_the_cursor(main_window, editor) -> None:
    viewport = main_window.viewport
    viewport.frame_all()
    editor.toolset.activate("paint")
    assert editor.readout.hint.text().startswith("Paint:")
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    for p in (centre, centre + QPoint(3, 0)):  # hover: no button held
        event = QMouseEvent(QEvent.Type.MouseMove, QPointF(p), QPointF(viewport.mapToGlobal(p)),
                            Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(viewport, event)
    hit = viewport.pick_terrain(centre.x() + 3, centre.y())
    text = editor.readout.cursor.text()
    assert f"x {hit[0]:.1f}" in text and f"height {hit[1]:.2f} m" in text
    assert "red" in text or "blue" in text


def test_collision_view_shows_bodies_near_the_probe(main_window, editor) -> None:
    scattered(main_window, 200)
    foliage = foliage_of(main_window.document.scene)
    from dataclasses import replace

    foliage.palette.replace(replace(foliage.palette["shrub"], activation_radius=10.0))
    main_window.set_tool_window_visible("collision", True)
    panel = editor.collision_panel
    assert panel is not None
    ground = float(main_window.document.scene.terrain.height_at(0.0, 0.0))
    panel.set_probe((0.0, ground, 0.0))
    records = foliage.volume.all_records("shrub").astype(np.float64)
    distance = np.sqrt(records[:, 0] ** 2 + (records[:, 1] - ground) ** 2 + records[:, 2] ** 2)
    near = int(np.sum(distance <= 10.0))
    added, removed = panel.last
    assert len(added) == near and removed == []
    assert panel.summary.text().startswith(f"{near} of 200 instances have a body (+{near} −0")
    # the reach is drawn: a ring per activation radius of the stored types around the probe
    rings, _ = main_window.viewport.overlays.lines.sets["collision_reach"]
    drawn = np.unique(np.round(np.hypot(rings[:, :, 0], rings[:, :, 2]), 2))
    wanted = {t.activation_radius for t in foliage.palette if t.stored and t.activation_radius > 0}
    assert 10.0 in wanted and set(drawn.tolist()) == wanted
    panel.set_probe((25.0, float(main_window.document.scene.terrain.height_at(25.0, 0.0)), 0.0))
    added, removed = panel.last
    assert len(removed) > 0 and "far" in panel.summary.text()
    # Place by click: the next left click on the ground puts the probe there, then the tool lets go.
    viewport = main_window.viewport
    viewport.frame_all()
    panel.place.click()
    assert editor.host.active is editor.probe_tool
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    press_drag_release(viewport, [centre])
    hit = viewport.pick_terrain(centre.x(), centre.y())
    np.testing.assert_allclose(panel.probe(), hit, atol=0.06)
    assert editor.host.active is None and not panel.place.isChecked()
    assert viewport.overlays.probe is not None and viewport.overlays.show_collision
    # An erase forgets the erased body and those that shifted down after it (nothing else), and
    # the next update gives the shifted instances their bodies again.
    bodies = set(panel.collision.active)
    key = next(iter(bodies))
    foliage.volume.remove({(key.cell, key.type): np.array([key.index])})
    kept = {a for a in bodies if (a.cell, a.type) != (key.cell, key.type) or a.index < key.index}
    assert panel.collision.active == kept
    panel.update_bodies()
    added, removed = panel.last
    assert removed == [] and len(panel.collision.active) == len(bodies) - 1


def test_gizmo_ring_drag_turns_the_selection_about_up(main_window, editor) -> None:
    scattered(main_window, 60)
    volume = foliage_of(main_window.document.scene).volume
    viewport = main_window.viewport
    viewport.resize(600, 450)
    viewport.camera.yaw, viewport.camera.pitch = 0.2, math.radians(70)
    viewport.frame_all()
    editor.toolset.activate("select")
    editor.gizmo.set_mode("rotate")
    editor.toolset.set_selection(volume.query_radius(0.0, 0.0, 10.0))
    before = volume.at(editor.toolset.selection).copy()
    ring = editor.gizmo.handles()["ring"]
    pivot = ring[:, 0].mean(axis=0)
    radius = float(np.linalg.norm(ring[0, 0] - pivot))
    # From angle 0 on the ring round to a quarter turn (yaw sends +x to -z).
    angles = np.linspace(0, math.pi / 2, 6)
    path = [pivot + radius * np.array([math.cos(a), 0.0, -math.sin(a)]) for a in angles]
    pixels = [QPoint(int(round(x)), int(round(y))) for x, y in viewport.world_to_screen(np.array(path))]
    assert editor.gizmo.hit(pixels[0].x(), pixels[0].y()) == "ring"
    press_drag_release(viewport, pixels)
    after = volume.at(editor.toolset.selection)
    turned = np.sort(after[:, 3]) - np.sort(before[:, 3])
    np.testing.assert_allclose(turned, math.pi / 2, atol=math.radians(3))
    assert main_window.document.undo_stack.text(0).startswith("Rotate")


# ---- what the artist sees: brush cursor, gizmo handles, the type form -------------------------
def hover(viewport, pixel: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """A mouse move with no button held (the window is hidden, so sent as an event)."""
    QApplication.sendEvent(viewport, QMouseEvent(QEvent.Type.MouseMove, QPointF(pixel), QPointF(),
                                                 Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, modifiers))


def test_an_erasing_brush_is_drawn_red_and_a_new_tool_shows_its_brush_at_once(main_window, editor) -> None:
    viewport = main_window.viewport
    viewport.resize(600, 450)
    viewport.camera.yaw, viewport.camera.pitch = 0.3, math.radians(60)
    viewport.frame_all()
    terrain = main_window.document.scene.terrain
    cursor, lines = viewport.overlays.brush_cursor, viewport.overlays.lines
    editor.toolset.activate("paint")
    hover(viewport, pixel_of(viewport, -20.0, -10.0, terrain))
    assert cursor.visible and np.allclose(cursor.center[[0, 2]], (-20.0, -10.0), atol=0.5)
    assert "foliage_erase_brush" not in lines.sets
    # switching by shortcut with the mouse at rest: the erase brush is there without a move
    editor.toolset.activate("erase")
    assert cursor.visible and "foliage_erase_brush" in lines.sets
    segments, colour = lines.sets["foliage_erase_brush"]
    rim = segments[:-1].reshape(-1, 3)
    assert np.allclose(np.hypot(rim[:, 0] - cursor.center[0], rim[:, 2] - cursor.center[2]),
                       editor.host.brush.radius, atol=1e-3)
    assert colour[0] > 0.8 and colour[1] < 0.5  # red
    # Paint again: no red until Ctrl is held
    editor.toolset.activate("paint")
    assert cursor.visible and "foliage_erase_brush" not in lines.sets
    hover(viewport, pixel_of(viewport, -18.0, -10.0, terrain))
    assert "foliage_erase_brush" not in lines.sets
    hover(viewport, pixel_of(viewport, -16.0, -10.0, terrain), Qt.KeyboardModifier.ControlModifier)
    assert "foliage_erase_brush" in lines.sets
    editor.toolset.activate(None)
    assert not cursor.visible and "foliage_erase_brush" not in lines.sets


def test_move_handles_end_in_arrow_heads_that_grab_the_axis(main_window, editor) -> None:
    scattered(main_window, 30)
    volume = foliage_of(main_window.document.scene).volume
    viewport = main_window.viewport
    viewport.resize(600, 450)
    viewport.camera.yaw, viewport.camera.pitch = 0.0, math.radians(60)
    viewport.frame_all()
    editor.toolset.activate("select")
    editor.toolset.set_selection(volume.query_radius(0.0, 0.0, 15.0))
    handles = editor.gizmo.handles()
    for axis, direction in (("x", np.array([1.0, 0.0, 0.0])), ("z", np.array([0.0, 0.0, 1.0]))):
        base, tip = handles[axis][0]
        assert np.allclose((tip - base) / np.linalg.norm(tip - base), direction)
        barbs = handles[axis][1:5]
        assert np.allclose(barbs[:, 0], tip)
        assert (np.einsum("ij,j->i", barbs[:, 1] - tip, direction) < 0).all()  # swept back from the tip
        # a point on the head (off the shaft) grabs the axis
        corner = viewport.world_to_screen(barbs[0, 1][None, :])[0]
        assert editor.gizmo.hit(float(corner[0]), float(corner[1])) == axis


def test_the_type_form_fits_a_narrow_palette_dock(main_window, editor) -> None:
    form = editor.palette_panel.form
    editor.palette_panel.select(["conifer"])
    assert form.isEnabled()
    assert form.minimumSizeHint().width() <= 300  # no sideways scrolling in a 300-pixel dock
    assert form.tilt.low.minimum() == -90.0  # a lean either way, as the file allows


def test_a_type_file_added_to_a_saved_scene_keeps_pointing_at_its_mesh(main_window, editor, tmp_path) -> None:
    from model.foliage import save_foliage_type
    from model.formats.scene_file import save_scene

    scene = main_window.document.scene
    level = tmp_path / "level"
    (level / "library" / "meshes").mkdir(parents=True)
    save_scene(scene, level / "level.boscage")
    scene.path = level / "level.boscage"
    save_foliage_type(FoliageType("fir", mesh="meshes/fir.obj"), level / "library" / "fir.vxfoliage")
    save_foliage_type(FoliageType("palm", mesh="palm.obj"), tmp_path / "palm.vxfoliage")
    assert editor.add_type_files([level / "library" / "fir.vxfoliage", tmp_path / "palm.vxfoliage"]) == 2
    palette = foliage_of(scene).palette
    assert palette["fir"].mesh == "library/meshes/fir.obj"  # relative to the scene, as the renderer reads it
    assert palette["palm"].mesh == "palm.obj" and "outside the scene's folder" in \
        main_window.statusBar().currentMessage()
    # the palette renders the scene's mesh file for its thumbnail; the one it cannot read is a
    # placeholder that says why
    import trimesh

    from rendering.meshes import mesh_for
    from widgets.palette_panel import render_mesh

    trimesh.creation.cone(1.0, 3.0).export(level / "library" / "meshes" / "fir.obj")
    editor._on_palette_changed()
    panel = editor.palette_panel
    items = {panel.list.item(i).data(Qt.ItemDataRole.UserRole): panel.list.item(i)
             for i in range(panel.list.count())}
    shown = items["fir"].icon().pixmap(48, 48).toImage()
    assert shown == render_mesh(mesh_for("library/meshes/fir.obj", level).vertices, 48).toImage()
    assert "cannot be read" not in items["fir"].toolTip()
    palm = items["palm"].toolTip()
    assert "⚠ the mesh file cannot be read" in palm and "palm.obj" in palm


def test_single_shows_where_the_one_instance_goes(main_window, editor) -> None:
    viewport = main_window.viewport
    viewport.resize(600, 450)
    viewport.frame_all()
    terrain = main_window.document.scene.terrain
    editor.palette_panel.select(["bush"])
    editor.toolset.activate("single")
    hover(viewport, pixel_of(viewport, -20.0, -10.0, terrain))
    cursor = viewport.overlays.brush_cursor
    bush = foliage_of(main_window.document.scene).palette["bush"]
    assert cursor.visible and cursor.falloff == 0.0
    assert cursor.radius == pytest.approx(bush.resolved_extent().radius * sum(bush.scale) / 2)
    editor.toolset.activate(None)
    assert not cursor.visible


def test_the_palette_follows_layer_changes_for_name_filtered_types(main_window, editor) -> None:
    scene = main_window.document.scene
    foliage_of(scene).palette.add(FoliageType("moss", layer=LayerFilter("wet rock", 0.5)))
    panel = editor.palette_panel
    row = panel.names().index("moss")
    assert "'wet rock'" in panel.list.item(row).toolTip()
    scene.terrain.add_layer("wet rock", (60, 90, 70))  # the layer now exists: the warning goes
    row = panel.names().index("moss")
    assert "⚠" not in panel.list.item(row).toolTip()
