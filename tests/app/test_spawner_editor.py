"""The Spawners window in the real editor: edits and runs are undoable, sculpting re-runs in the
same step, the bars say why, and Bake to Painted detaches."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QDialog

from app.spawner_editor import AREA_MARKERS, REFUSED_MARKERS
from app.terrain_editor import install as install_terrain
from model.brush import Brush
from model.foliage import FoliageType, foliage_of
from model.foliage.spawn_conditions import Slope
from model.foliage.spawner import Area, Spawner, Species
from model.foliage.spawner_section import spawners_of
from widgets import spawner_panel as panel_module


@pytest.fixture
def spawners(main_window):
    # a type with no bands of its own, so what places and refuses is the spawner's doing
    foliage_of(main_window.document.scene).palette.add(FoliageType("pine", spacing=1.5))
    main_window.set_tool_window_visible("spawners", True)
    return main_window.spawner_editor


def volume_bytes(scene) -> bytes:
    vol = foliage_of(scene).volume
    keys = sorted((key for key, _ in vol.chunks()), key=lambda k: (k[1], k[0]))
    return b"".join(vol.records(*key).tobytes() for key in keys)


def add_pine_spawner(panel) -> None:
    """Add a spawner with the form, and make its species the pine (as a user picks it)."""
    panel.add_button.click()
    panel.type_combo.setCurrentText("pine")
    panel.type_combo.activated.emit(panel.type_combo.currentIndex())


def test_the_window_opens_from_the_tools_menu(main_window):
    action = main_window.actions_by_key["tool_spawners"]
    assert action.shortcut().toString() == "Ctrl+Shift+F"
    action.trigger()
    assert main_window.spawner_editor.panel.isVisibleTo(main_window.tool_window("spawners"))


def test_add_a_spawner_runs_it_and_undo_takes_both_back(main_window, spawners):
    scene = main_window.document.scene
    panel = spawners.panel
    stack = main_window.document.undo_stack
    before = volume_bytes(scene)
    add_pine_spawner(panel)
    assert len(spawners_of(scene).spawners) == 1
    placed = volume_bytes(scene)
    assert len(foliage_of(scene).volume) > 0
    assert stack.text(stack.index() - 2).startswith("Add spawner")
    assert stack.text(stack.index() - 1) == "Change spawner 'spawner 1' species pine"
    assert "candidates" in panel.summary.text() and "placed" in panel.summary.text()
    stack.undo()
    stack.undo()
    assert spawners_of(scene).spawners == [] and volume_bytes(scene) == before
    stack.redo()
    stack.redo()
    assert len(spawners_of(scene).spawners) == 1 and volume_bytes(scene) == placed


def test_editing_density_and_conditions_in_the_form_reruns(main_window, spawners, monkeypatch):
    scene = main_window.document.scene
    panel = spawners.panel
    add_pine_spawner(panel)
    n_before = len(foliage_of(scene).volume)
    panel.density_box.setValue(4.0)
    assert spawners_of(scene).spawners[0].species[0].density == 4.0
    assert len(foliage_of(scene).volume) > n_before

    def accept(self):  # the condition dialog, answered as a user would: slope 0–5°
        self.fields["low"].setValue(0.0)
        self.fields["high"].setValue(5.0)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(panel_module.ConditionDialog, "exec", accept)
    panel._add_condition("slope")
    assert spawners_of(scene).spawners[0].species[0].conditions == (Slope(0.0, 5.0),)
    assert panel.conditions.count() == 1 and "slope 0–5°" in panel.conditions.item(0).text()
    reasons = [b.text() for r in range(panel.results.count())
               for b in panel.results.itemAt(r).widget().buttons]
    assert "condition 1 `slope 0–5°`" in reasons
    n_steep = len(foliage_of(scene).volume)
    main_window.document.undo_stack.undo()  # the condition and its re-run, in one step
    assert spawners_of(scene).spawners[0].species[0].conditions == ()
    assert len(foliage_of(scene).volume) > n_steep


def test_clicking_a_reason_marks_those_candidates(main_window, spawners):
    scene = main_window.document.scene
    spawners_of(scene).spawners = [Spawner("hill", 3, Area(layer="red", min_weight=0.5),
                                           (Species("pine", 3.0),))]
    spawners.refresh()
    spawners.panel.run_button.click()
    overlays = main_window.viewport.overlays
    widget = spawners.panel.results.itemAt(0).widget()
    outside = next(b for b in widget.buttons if b.text() == "outside the area")
    outside.click()
    marked = overlays.points.get(REFUSED_MARKERS)
    assert marked is not None and len(marked) > 0
    assert (marked[:, 0] > -1.0).mean() > 0.9  # 'red' is the west half: refused ones lie east
    spawners.panel.preview_button.click()
    area = overlays.points.get(AREA_MARKERS)
    assert area is not None and (area[:, 0] < 1.0).all()


def test_a_sculpt_drag_reruns_the_spawner_in_the_same_undo_step(main_window, spawners):
    scene = main_window.document.scene
    flat = Species("pine", 6.0, conditions=(Slope(0, 12),))
    spawners_of(scene).spawners = [Spawner("flat", 1, Area(), (flat,))]
    spawners.refresh()
    spawners.panel.run_button.click()
    before = volume_bytes(scene)
    heights = scene.terrain.heights.copy()
    terrain = install_terrain(main_window)
    terrain.toolbox.set_brush(Brush(radius=10.0, strength=1.0, falloff=0.3))
    terrain.toolbox.activate("raise")
    terrain.toolbox.drag([(-20.0, 0.0), (-14.0, 0.0), (-8.0, 0.0)])
    after = volume_bytes(scene)
    assert after != before  # steeper ground: fewer trees there, in the same step
    stack = main_window.document.undo_stack
    assert stack.text(stack.index() - 1) == "Raise terrain"
    stack.undo()
    assert volume_bytes(scene) == before and np.array_equal(scene.terrain.heights, heights)
    stack.redo()
    assert volume_bytes(scene) == after


def test_bake_detaches_and_remove_takes_the_instances(main_window, spawners):
    scene = main_window.document.scene
    panel = spawners.panel
    add_pine_spawner(panel)
    placed = len(foliage_of(scene).volume)
    add_pine_spawner(panel)
    panel.list.setCurrentRow(0)
    panel.bake_button.click()
    assert spawners_of(scene).owned_count("spawner 1") == 0
    panel.list.setCurrentRow(1)
    total = len(foliage_of(scene).volume)
    panel.remove_button.click()
    assert [s.name for s in spawners_of(scene).spawners] == ["spawner 1"]
    assert len(foliage_of(scene).volume) == placed < total  # the baked ones stay, painted
    main_window.document.undo_stack.undo()
    assert len(foliage_of(scene).volume) == total


def test_a_bad_toml_edit_says_why_and_changes_nothing(main_window, spawners):
    assert "unknown condition 'wet'" in panel_module.parse_spawner_text(
        '[[spawners]]\nname = "a"\n[[spawners.species]]\ntype = "conifer"\nconditions = [{ wet = 1 }]\n')
    assert panel_module.parse_spawner_text("[[spawners]]\nname = ") .startswith("bad TOML")


def test_the_spawners_form_opens_beside_the_viewport_as_a_tab(main_window):
    from PySide6.QtCore import Qt

    main_window.set_tool_window_visible("spawners", True)
    dock = main_window.tool_window("spawners")
    assert main_window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert dock in main_window.tabifiedDockWidgets(main_window.docks["inspector"])


def test_the_form_fits_the_right_column_without_scrolling_sideways(main_window, spawners):
    panel = spawners.panel
    add_pine_spawner(panel)
    panel.run_button.click()
    assert panel.results.count() > 0
    assert panel.minimumSizeHint().width() <= 300  # the column is ~300 px; long texts are cut


def two_species_spawner(main_window, spawners):
    foliage_of(main_window.document.scene).palette.add(FoliageType("fir", spacing=2.0))
    spawners_of(main_window.document.scene).spawners = [
        Spawner("mixed", 4, Area(), (Species("pine", 2.0), Species("fir", 1.0, 1)))]
    spawners.refresh()
    spawners.panel.run_button.click()


def test_a_species_edit_keeps_that_species_selected_and_reruns_only_from_it(main_window, spawners, qtbot,
                                                                            monkeypatch):
    from PySide6.QtCore import Qt

    from model.foliage import spawn_run

    two_species_spawner(main_window, spawners)
    panel = spawners.panel
    panel.species_list.setCurrentRow(1)
    ran = []
    real = spawn_run._run_species
    monkeypatch.setattr(spawn_run, "_run_species", lambda *a: ran.append(a[1]) or real(*a))
    for value in ("3", "5"):  # typed into Density and entered, twice: both edit the fir
        panel.density_box.setFocus()
        panel.density_box.selectAll()
        qtbot.keyClicks(panel.density_box, value)
        qtbot.keyClick(panel.density_box, Qt.Key.Key_Return)
        species = spawners_of(main_window.document.scene).spawners[0].species
        assert (species[0].density, species[1].density) == (2.0, float(value))
        assert panel.species_list.currentRow() == 1 and panel.density_box.value() == float(value)
    assert ran == [1, 1]  # the pine, grown first, was decided before the edits and is kept
    main_window.document.undo_stack.undo()
    ran.clear()
    panel.density_box.setValue(4.0)  # after an undo the kept run no longer describes the scene
    assert ran == [0, 1]


def test_a_rerun_says_so_at_once_and_the_window_keeps_drawing(main_window, spawners, monkeypatch):
    import time

    from PySide6.QtWidgets import QApplication, QProgressDialog

    from model.foliage import spawn_run
    from tests.stalls import LONGEST_STALL_S, StallMeter

    two_species_spawner(main_window, spawners)
    real = spawn_run._run_species

    def slow(*a):  # a busy machine: each species takes a second
        time.sleep(1.0)
        return real(*a)

    monkeypatch.setattr(spawn_run, "_run_species", slow)
    shown = []

    def look() -> None:
        shown.append(any(isinstance(w, QProgressDialog) and w.isVisible()
                         for w in QApplication.topLevelWidgets()))

    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.timeout.connect(look)
    timer.start(50)
    with StallMeter() as meter:
        spawners.panel.density_box.setValue(3.0)
    timer.stop()
    assert spawners_of(main_window.document.scene).spawners[0].species[0].density == 3.0
    assert len(shown) >= 20 and all(shown[:-1])  # from the first 50 ms on, not after 5 s
    assert meter.longest_busy <= LONGEST_STALL_S, meter.gaps
