"""The Road tool in the real editor window: clicks lay a road, a drag moves a point, Ctrl+click
deletes one, the width in Tool Settings reshapes the selected point; each edit is one undo step
that gives the heights back byte for byte."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from app.terrain_editor import install


@pytest.fixture
def editor(main_window):
    return install(main_window)


def heights(terrain) -> bytes:
    return terrain.read_heights(slice(0, terrain.rows), slice(0, terrain.columns)).tobytes()


def click(viewport, pixel: QPoint, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifiers, pixel)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifiers, pixel)


def test_clicks_lay_a_road_and_a_drag_moves_a_point_each_one_undo_step(main_window, editor, qtbot) -> None:
    viewport, toolbox = main_window.viewport, editor.toolbox
    terrain = main_window.document.scene.terrain
    stack = main_window.document.undo_stack
    start = heights(terrain)
    toolbox.activate("spline")
    assert toolbox.active.tool_key == "spline"
    assert toolbox.actions["spline"].shortcut().toString() == "Shift+R"
    c = QPoint(viewport.width() // 2, viewport.height() // 2)
    dx, dy = viewport.width() // 6, viewport.height() // 12
    pixels = [c + QPoint(-dx, dy), c + QPoint(0, -dy), c + QPoint(dx, dy)]
    ground = [toolbox.world_at(p.x(), p.y()) for p in pixels]
    assert all(g is not None for g in ground), (viewport.width(), viewport.height(), ground)
    click(viewport, pixels[0])
    assert stack.count() == 0 and heights(terrain) == start  # one point is no road yet
    click(viewport, pixels[1])
    assert stack.count() == 1 and stack.text(0) == "Lay road 'road'"
    layer = terrain.edits.layer("road")
    assert layer.kind == "spline" and len(layer.params["points"]) == 2
    two = heights(terrain)
    assert two != start and terrain.layer("road") is not None
    click(viewport, pixels[2])
    assert stack.count() == 2 and len(terrain.edits.layer("road").params["points"]) == 3
    three = heights(terrain)
    # drag the middle point 20 m sideways: one step, the same bytes as laying that road afresh
    x, z = ground[1]
    toolbox.drag([(x, z), (x + 10.0, z), (x + 20.0, z + 5.0)])
    assert stack.count() == 3 and stack.text(2) == "Move point 2 of 'road'"
    assert terrain.edits.layer("road").params["points"][1] == [x + 20.0, z + 5.0]
    moved = heights(terrain)
    assert moved != three
    stack.undo()
    assert heights(terrain) == three
    stack.redo()
    assert heights(terrain) == moved
    for _ in range(3):
        stack.undo()
    assert heights(terrain) == start and terrain.edits.names() == [] and terrain.layer("road") is None


def test_ctrl_click_deletes_a_point_and_the_width_reshapes_the_selected_one(main_window, editor) -> None:
    toolbox = editor.toolbox
    terrain = main_window.document.scene.terrain
    stack = main_window.document.undo_stack
    toolbox.activate("spline")
    for p in [(-60.0, 0.0), (0.0, 10.0), (60.0, 0.0)]:
        toolbox.drag([p])
    assert len(terrain.edits.layer("road").params["points"]) == 3
    three = heights(terrain)
    panel = editor.tool_panel()
    toolbox.drag([(0.0, 10.0)])  # a click on a point selects it: no step
    assert stack.count() == 2 and toolbox.tools["spline"].selected == 1
    panel.road_width.setValue(20.0)
    assert stack.count() == 3 and terrain.edits.layer("road").params["widths"] == [8.0, 20.0, 8.0]
    wide = heights(terrain)
    assert wide != three
    toolbox.drag([(0.0, 10.0)], Qt.KeyboardModifier.ControlModifier)
    assert stack.count() == 4 and len(terrain.edits.layer("road").params["points"]) == 2
    toolbox.drag([(60.0, 0.0)], Qt.KeyboardModifier.ControlModifier)  # a road keeps 2 points
    assert stack.count() == 4
    stack.undo()
    assert heights(terrain) == wide
    stack.undo()
    assert heights(terrain) == three


def test_the_river_kind_carves_a_bed_below_the_ground_each_change_one_exact_step(main_window, editor) -> None:
    toolbox = editor.toolbox
    terrain = main_window.document.scene.terrain
    stack = main_window.document.undo_stack
    panel = editor.tool_panel()
    toolbox.activate("spline")
    assert panel.form.isRowVisible(panel.road_shape) and not panel.road_depth.isEnabled()
    assert panel.minimumSizeHint().width() <= 240  # the kind and depth fit the right column
    start = heights(terrain)
    ground = terrain.read_heights(slice(0, terrain.rows), slice(0, terrain.columns)).copy()
    panel.road_kind.setCurrentIndex(panel.road_kind.findData("river"))
    assert stack.count() == 0 and panel.road_depth.isEnabled()  # no river yet: the next one laid
    panel.road_depth.setValue(3.0)
    assert stack.count() == 0
    for p in [(-30.0, 0.0), (30.0, 0.0)]:
        toolbox.drag([p])
    assert stack.count() == 1 and stack.text(0) == "Lay river 'road'"
    params = terrain.edits.layer("road").params
    assert params["type"] == "river" and params["depth"] == 3.0
    river = terrain.read_heights(slice(0, terrain.rows), slice(0, terrain.columns)).copy()
    centre = (terrain.rows // 2, terrain.columns // 2)  # the hill's top, on the river's path
    assert river[centre] <= ground[centre] - 3.0
    assert np.all(river <= ground + 1e-4)  # a river only carves
    # deeper: one step, the bed 2 m lower where it is carved full depth
    panel.road_depth.setValue(5.0)
    assert stack.count() == 2 and stack.text(1) == "Set the depth of 'road' to 5 m"
    deeper = heights(terrain)
    assert terrain.height_at(0.0, 0.0) == pytest.approx(river[centre] - 2.0, abs=1e-3)
    # back to a road: one step; undo gives the river back byte for byte, and the panel follows
    panel.road_kind.setCurrentIndex(panel.road_kind.findData("road"))
    assert stack.count() == 3 and stack.text(2) == "Make 'road' a road"
    assert terrain.edits.layer("road").params["type"] == "road"
    assert heights(terrain) != deeper
    stack.undo()
    assert heights(terrain) == deeper
    assert panel.road_kind.currentData() == "river" and panel.road_depth.value() == 5.0
    for _ in range(2):
        stack.undo()
    assert heights(terrain) == start


def test_a_road_dragged_away_lets_the_spawned_forest_regrow_on_its_old_bed(main_window, editor) -> None:
    from model.foliage import FoliageType, foliage_of
    from model.foliage.spawner import Spawner, Species
    from model.foliage.spawner_section import run_and_apply, spawners_of
    from model.splines import Spline, centreline

    scene = main_window.document.scene
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType(name="tree", mesh="builtin:broadleaf", spacing=0.0))  # on any ground
    volume = foliage.volume
    spawner = Spawner("woods", seed=7, species=(Species("tree", density=400.0),))
    spawners_of(scene).spawners.append(spawner)
    run_and_apply(scene, spawner)
    section = spawners_of(scene)

    def state() -> dict:
        return {key: volume.records(*key).tobytes() for key, _ in volume.chunks()}

    def on_bed(points) -> int:
        pts = np.array([(x, np.nan, z) for x, z in points])
        x, z, *_ = centreline(Spline(pts, 8.0, 6.0, "road"), 0.5)
        rec = volume.all_records("tree")
        d = np.sqrt((rec[:, 0, None] - x[None]) ** 2 + (rec[:, 2, None] - z[None]) ** 2).min(axis=1)
        return int(np.count_nonzero(d < 5.0))

    toolbox, stack = editor.toolbox, main_window.document.undo_stack
    toolbox.activate("spline")
    toolbox.spline_width = 8.0
    laid, away = [(-36.0, -12.0), (36.0, -12.0)], [(-36.0, 14.0), (36.0, 14.0)]
    start, owned = state(), section.owned_count("woods")
    assert on_bed(laid) > 5
    for p in laid:
        toolbox.drag([p])
    assert stack.count() == 1 and on_bed(laid) == 0
    assert section.owned_count("woods") < owned and not section.removed.get("woods")
    after_lay = state()
    for (x, z), (x2, z2) in zip(laid, away, strict=True):
        toolbox.drag([(x, z), (x2, (z + z2) / 2), (x2, z2)])
    assert stack.count() == 3 and on_bed(away) == 0 and on_bed(laid) > 5
    moved = state()
    stack.undo()
    stack.undo()
    assert state() == after_lay
    stack.undo()
    assert state() == start
    for _ in range(3):
        stack.redo()
    assert state() == moved
