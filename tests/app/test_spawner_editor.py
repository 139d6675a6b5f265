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


def settle(editor, qtbot) -> None:
    """Wait for the edit's re-run going in the background to land."""
    qtbot.waitUntil(lambda: not editor.running, timeout=60_000)


def add_pine_spawner(editor, qtbot) -> None:
    """Add a spawner with the form and make its species the pine (as a user picks it), then wait
    for the re-run (the second edit supersedes the first's)."""
    panel = editor.panel
    panel.add_button.click()
    panel.type_combo.setCurrentText("pine")
    panel.type_combo.activated.emit(panel.type_combo.currentIndex())
    settle(editor, qtbot)


def test_the_window_opens_from_the_tools_menu(main_window):
    action = main_window.actions_by_key["tool_spawners"]
    assert action.shortcut().toString() == "Ctrl+Shift+F"
    action.trigger()
    assert main_window.spawner_editor.panel.isVisibleTo(main_window.tool_window("spawners"))


def test_add_a_spawner_runs_it_and_undo_takes_both_back(main_window, spawners, qtbot):
    scene = main_window.document.scene
    panel = spawners.panel
    stack = main_window.document.undo_stack
    before = volume_bytes(scene)
    add_pine_spawner(spawners, qtbot)
    assert len(spawners_of(scene).spawners) == 1
    placed = volume_bytes(scene)
    assert len(foliage_of(scene).volume) > 0
    # the species picked before the new spawner's first run landed: one step with it
    assert stack.text(stack.index() - 1).startswith("Add spawner") and stack.index() == stack.count() == 1
    assert "candidates" in panel.summary.text() and "placed" in panel.summary.text()
    stack.undo()
    assert spawners_of(scene).spawners == [] and volume_bytes(scene) == before
    stack.redo()
    assert len(spawners_of(scene).spawners) == 1 and volume_bytes(scene) == placed


def test_editing_density_and_conditions_in_the_form_reruns(main_window, spawners, qtbot, monkeypatch):
    scene = main_window.document.scene
    panel = spawners.panel
    add_pine_spawner(spawners, qtbot)
    n_before = len(foliage_of(scene).volume)
    panel.density_box.setValue(4.0)
    assert spawners_of(scene).spawners[0].species[0].density == 4.0
    settle(spawners, qtbot)
    assert len(foliage_of(scene).volume) > n_before

    def accept(self):  # the condition dialog, answered as a user would: slope 0–5°
        self.fields["low"].setValue(0.0)
        self.fields["high"].setValue(5.0)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(panel_module.ConditionDialog, "exec", accept)
    panel._add_condition("slope")
    settle(spawners, qtbot)
    assert spawners_of(scene).spawners[0].species[0].conditions == (Slope(0.0, 5.0),)
    assert panel.conditions.count() == 1 and "slope 0–5°" in panel.conditions.item(0).text()
    reasons = [b.text() for r in range(panel.results.count())
               for b in panel.results.itemAt(r).widget().buttons]
    assert "condition 1 `slope 0–5°`" in reasons
    n_steep = len(foliage_of(scene).volume)
    main_window.document.undo_stack.undo()  # the condition and its re-run, in one step
    assert spawners_of(scene).spawners[0].species[0].conditions == ()
    assert len(foliage_of(scene).volume) > n_steep


def test_clicking_a_reason_marks_those_candidates(main_window, spawners, qtbot):
    scene = main_window.document.scene
    spawners_of(scene).spawners = [Spawner("hill", 3, Area(layer="red", min_weight=0.5),
                                           (Species("pine", 3.0),))]
    spawners.refresh()
    spawners.panel.run_button.click()
    settle(spawners, qtbot)
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


def test_a_sculpt_drag_reruns_the_spawner_in_the_same_undo_step(main_window, spawners, qtbot):
    scene = main_window.document.scene
    flat = Species("pine", 6.0, conditions=(Slope(0, 12),))
    spawners_of(scene).spawners = [Spawner("flat", 1, Area(), (flat,))]
    spawners.refresh()
    spawners.panel.run_button.click()
    settle(spawners, qtbot)
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


def test_bake_detaches_and_remove_takes_the_instances(main_window, spawners, qtbot):
    scene = main_window.document.scene
    panel = spawners.panel
    add_pine_spawner(spawners, qtbot)
    placed = len(foliage_of(scene).volume)
    add_pine_spawner(spawners, qtbot)
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


def test_the_form_fits_the_right_column_without_scrolling_sideways(main_window, spawners, qtbot):
    panel = spawners.panel
    add_pine_spawner(spawners, qtbot)
    panel.run_button.click()
    settle(spawners, qtbot)
    assert panel.results.count() > 0
    assert panel.minimumSizeHint().width() <= 300  # the column is ~300 px; long texts are cut


def two_species_spawner(main_window, spawners, qtbot):
    foliage_of(main_window.document.scene).palette.add(FoliageType("fir", spacing=2.0))
    spawners_of(main_window.document.scene).spawners = [
        Spawner("mixed", 4, Area(), (Species("pine", 2.0), Species("fir", 1.0, 1)))]
    spawners.refresh()
    spawners.panel.run_button.click()
    settle(spawners, qtbot)


def test_a_species_edit_keeps_that_species_selected_and_reruns_only_from_it(main_window, spawners, qtbot,
                                                                            monkeypatch):
    from PySide6.QtCore import Qt

    from model.foliage import spawn_run

    two_species_spawner(main_window, spawners, qtbot)
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
        settle(spawners, qtbot)
        species = spawners_of(main_window.document.scene).spawners[0].species
        assert (species[0].density, species[1].density) == (2.0, float(value))
        assert panel.species_list.currentRow() == 1 and panel.density_box.value() == float(value)
    assert ran == [1, 1]  # the pine, grown first, was decided before the edits and is kept
    main_window.document.undo_stack.undo()
    ran.clear()
    panel.density_box.setValue(4.0)  # after an undo the kept run no longer describes the scene
    settle(spawners, qtbot)
    assert ran == [0, 1]


def slow_species(monkeypatch, seconds: float = 0.6) -> None:
    """A busy machine: each species takes a while."""
    import time

    from model.foliage import spawn_run

    real = spawn_run._run_species

    def slow(*a):
        time.sleep(seconds)
        return real(*a)

    monkeypatch.setattr(spawn_run, "_run_species", slow)


def slow_rerun(main_window, spawners, qtbot, monkeypatch, seconds: float = 0.4) -> None:
    """The two-species spawner, run; then an edit whose re-run goes slowly (a busy machine)."""
    two_species_spawner(main_window, spawners, qtbot)
    slow_species(monkeypatch, seconds)
    spawners.panel.density_box.setValue(3.0)
    assert spawners.running


def modal_dialogs() -> list:
    from PySide6.QtWidgets import QApplication, QProgressDialog

    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QProgressDialog) and w.isVisible()]


def clean_run_bytes(scene, spawner: Spawner) -> bytes:
    """The instances one uninterrupted run of `spawner` gives from the scene as it is (the scene is
    left as it was)."""
    from model.foliage.spawner_section import run_and_apply, undo_change

    section = spawners_of(scene)
    kept = list(section.spawners)
    section.spawners = [spawner]
    _, change = run_and_apply(scene, spawner)
    out = volume_bytes(scene)
    undo_change(scene, change)
    section.spawners = kept
    return out


def test_an_edit_reruns_in_the_background_and_a_second_edit_supersedes_it(shown, qtbot, monkeypatch):
    main_window = shown
    main_window.set_tool_window_visible("spawners", True)
    foliage_of(main_window.document.scene).palette.add(FoliageType("pine", spacing=1.5))
    spawners = main_window.spawner_editor
    two_species_spawner(main_window, spawners, qtbot)
    scene = main_window.document.scene
    panel, stack = spawners.panel, main_window.document.undo_stack
    before, start = volume_bytes(scene), stack.index()
    slow_species(monkeypatch)
    panel.species_list.setCurrentRow(0)
    panel.density_box.setValue(3.0)  # the pine: both species run again
    assert spawners.running and stack.index() == start + 1  # the recipe is changed at once, one step
    assert panel.run_progress.isVisible() and panel.run_cancel.isVisible()
    assert "Re-running 'mixed'" in panel.run_label.text()
    assert spawners.status_strip.isVisible()  # seen also with the panel behind another tab
    assert modal_dialogs() == []
    for w in (panel, panel.species_list, panel.density_box, panel.list, panel.form_box):
        assert w.isEnabled()
    qtbot.wait(100)
    panel.species_list.setCurrentRow(1)  # another species, chosen while the run goes
    assert panel.density_box.value() == 1.0 and spawners.running
    panel.density_box.setValue(2.5)  # a second edit before the first re-run lands: it joins that step
    assert stack.index() == stack.count() == start + 1 and spawners.running and panel.run_progress.isVisible()
    assert modal_dialogs() == []
    settle(spawners, qtbot)
    assert not panel.run_progress.isVisible() and not spawners.status_strip.isVisible()
    final = spawners_of(scene).spawners[0]
    assert [sp.density for sp in final.species] == [3.0, 2.5]
    after = volume_bytes(scene)
    assert after != before
    stack.undo()  # both edits and the re-run that landed in their step: no step shows a recipe with
    original = spawners_of(scene).spawners[0]  # a forest it did not grow
    assert [sp.density for sp in original.species] == [2.0, 1.0] and volume_bytes(scene) == before
    assert not spawners.running  # undo to a step with a redo after it runs nothing
    assert after == clean_run_bytes(scene, final)  # the same as one run of the final recipe
    assert volume_bytes(scene) == before
    stack.redo()
    assert not spawners.running and volume_bytes(scene) == after
    assert spawners_of(scene).spawners[0] == final
    panel.density_box.setValue(2.0)  # its re-run lands before the next edit: a step of its own
    settle(spawners, qtbot)
    panel.density_box.setValue(1.5)
    settle(spawners, qtbot)
    assert stack.index() == start + 3


def test_undo_during_a_rerun_stops_it_and_redo_runs_it_again(main_window, spawners, qtbot, monkeypatch):
    slow_rerun(main_window, spawners, qtbot, monkeypatch)
    scene = main_window.document.scene
    stack = main_window.document.undo_stack
    before = volume_bytes(scene)  # the re-run has not landed
    stack.undo()
    settle(spawners, qtbot)
    assert spawners_of(scene).spawners[0].species[0].density == 2.0 and volume_bytes(scene) == before
    stack.redo()
    assert spawners.running  # the step's re-run, cancelled by the undo, goes again
    settle(spawners, qtbot)
    edited = spawners_of(scene).spawners[0]
    after = volume_bytes(scene)
    stack.undo()
    assert volume_bytes(scene) == before
    assert after == clean_run_bytes(scene, edited)


def test_the_panel_cancel_stops_a_rerun_and_leaves_the_forest(main_window, spawners, qtbot, monkeypatch):
    two_species_spawner(main_window, spawners, qtbot)
    scene = main_window.document.scene
    before = volume_bytes(scene)
    slow_species(monkeypatch, 0.4)
    spawners.panel.density_box.setValue(3.0)
    spawners.panel.run_cancel.click()
    settle(spawners, qtbot)
    assert volume_bytes(scene) == before and "cancelled" in spawners.panel.summary.text()
    assert spawners_of(scene).spawners[0].species[0].density == 3.0  # the recipe edit stays


def test_painting_during_a_rerun_is_refused_with_a_sentence(main_window, spawners, qtbot, monkeypatch):
    from model.brush import Brush

    two_species_spawner(main_window, spawners, qtbot)
    scene = main_window.document.scene
    editor = main_window.foliage_editor.toolset
    editor.host.set_brush(Brush(radius=8.0, strength=1.0, falloff=0.3))
    editor.set_active_types(["pine"])
    editor.activate("paint")
    slow_species(monkeypatch, 0.4)
    spawners.panel.density_box.setValue(3.0)
    stack = main_window.document.undo_stack
    index = stack.index()
    editor.host.drag([(-10.0, -10.0), (-5.0, -10.0), (0.0, -10.0)])
    assert stack.index() == index
    assert "re-running" in main_window.statusBar().currentMessage()
    settle(spawners, qtbot)
    landed = volume_bytes(scene)
    assert landed == clean_run_bytes(scene, spawners_of(scene).spawners[0])
    editor.host.drag([(-10.0, -10.0), (-5.0, -10.0), (0.0, -10.0)])  # afterwards, painting works
    assert stack.index() == index + 1 and volume_bytes(scene) != landed


def test_closing_the_window_during_a_rerun_waits_for_it(main_window, spawners, qtbot, monkeypatch):
    import threading

    slow_rerun(main_window, spawners, qtbot, monkeypatch)
    main_window.document.undo_stack.setClean()
    main_window.close()
    assert not spawners.running
    assert not any(t.name == "boscage-spawner-rerun" for t in threading.enumerate())


def test_saving_during_a_rerun_saves_the_forest_the_recipe_makes(main_window, spawners, qtbot, monkeypatch,
                                                                  tmp_path):
    from model.formats.scene_file import load_scene

    slow_rerun(main_window, spawners, qtbot, monkeypatch, 0.3)
    scene = main_window.document.scene
    assert main_window._save_to(tmp_path / "saved.boscage")
    assert not spawners.running
    assert volume_bytes(load_scene(tmp_path / "saved.boscage")) == volume_bytes(scene)
    assert volume_bytes(scene) == clean_run_bytes(scene, spawners_of(scene).spawners[0])


def test_opening_another_scene_during_a_rerun_stops_it(main_window, spawners, qtbot, monkeypatch):
    from app.document import new_scene

    slow_rerun(main_window, spawners, qtbot, monkeypatch)
    main_window.document.undo_stack.setClean()
    main_window.open_scene(new_scene(33))
    assert not spawners.running and not spawners.panel.run_progress.isVisibleTo(spawners.panel)
    assert spawners_of(main_window.document.scene).spawners == []
    qtbot.wait(100)  # nothing of the old run arrives later
    assert len(foliage_of(main_window.document.scene).volume) == 0


def test_an_autosave_waits_for_a_rerun(main_window, spawners, qtbot, monkeypatch, tmp_path):
    """A recovery copy taken mid-run would hold the new recipe with the old forest."""
    from model.formats.scene_file import load_scene

    two_species_spawner(main_window, spawners, qtbot)
    scene = main_window.document.scene
    autosave = main_window.autosave
    written = []
    real_save = autosave.save_now
    monkeypatch.setattr(autosave, "save_now", lambda: written.append(volume_bytes(scene)) or real_save())
    slow_species(monkeypatch, 0.4)
    spawners.panel.density_box.setValue(3.0)
    assert spawners.running and main_window.document.modified
    autosave._due()
    assert written == []  # postponed, not written with the old forest
    settle(spawners, qtbot)
    autosave._due()
    assert written == [clean_run_bytes(scene, spawners_of(scene).spawners[0])]
    assert volume_bytes(load_scene(autosave.manifest)) == written[0]


def two_spawners(main_window, spawners) -> list[Spawner]:
    foliage_of(main_window.document.scene).palette.add(FoliageType("fir", spacing=2.0))
    recipes = [Spawner("pines", 4, Area(), (Species("pine", 2.0),)),
               Spawner("firs", 5, Area(), (Species("fir", 1.0),))]
    spawners_of(main_window.document.scene).spawners = list(recipes)
    spawners.refresh()
    return recipes


def sequential_run_bytes(scene, recipes: list[Spawner]) -> bytes:
    """The instances running each recipe in turn gives from the scene as it is (left as it was)."""
    from model.foliage.spawner_section import run_and_apply, undo_change

    changes = [run_and_apply(scene, sp)[1] for sp in recipes]
    out = volume_bytes(scene)
    for change in reversed(changes):
        undo_change(scene, change)
    return out


def test_run_all_goes_in_the_background_and_lands_as_one_undo_step(main_window, spawners, qtbot, monkeypatch):
    recipes = two_spawners(main_window, spawners)
    scene = main_window.document.scene
    panel, stack = spawners.panel, main_window.document.undo_stack
    before, start = volume_bytes(scene), stack.index()
    expected = sequential_run_bytes(scene, recipes)
    assert volume_bytes(scene) == before
    slow_species(monkeypatch, 0.3)
    panel.run_all_button.click()
    assert spawners.running and modal_dialogs() == []
    assert "Running 'pines' (1 of 2)" in panel.run_label.text() and not spawners.status_strip.isHidden()
    assert "is running" in spawners.busy_sentence()
    for w in (panel, panel.list, panel.form_box, panel.run_all_button):
        assert w.isEnabled()
    qtbot.waitUntil(lambda: "(2 of 2)" in panel.run_label.text(), timeout=30_000)
    assert stack.index() == start + 1  # the first run landed: its step is there, the second joins it
    settle(spawners, qtbot)
    assert panel.run_strip.isHidden() and spawners.status_strip.isHidden()
    assert stack.index() == start + 1 and stack.text(start) == "Run all spawners"
    assert volume_bytes(scene) == expected != before
    assert [r.spawner for r in spawners.results] == ["pines", "firs"]
    stack.undo()
    assert volume_bytes(scene) == before
    stack.redo()
    assert volume_bytes(scene) == expected


def test_cancel_during_run_all_keeps_the_spawners_run_before_it(main_window, spawners, qtbot, monkeypatch):
    recipes = two_spawners(main_window, spawners)
    scene = main_window.document.scene
    panel, stack = spawners.panel, main_window.document.undo_stack
    before, start = volume_bytes(scene), stack.index()
    first_only = sequential_run_bytes(scene, recipes[:1])
    slow_species(monkeypatch, 0.4)
    panel.run_all_button.click()
    qtbot.waitUntil(lambda: "(2 of 2)" in panel.run_label.text(), timeout=30_000)
    spawners.status_strip.cancel_requested.emit()  # the status bar's Cancel
    settle(spawners, qtbot)
    assert volume_bytes(scene) == first_only
    assert "Run of 'firs' cancelled" in panel.summary.text() and "stay run" in panel.summary.text()
    assert stack.index() == start + 1
    stack.undo()
    assert volume_bytes(scene) == before


def test_undo_during_a_run_stops_it_and_a_cancelled_first_run_leaves_no_step(main_window, spawners, qtbot,
                                                                             monkeypatch):
    two_spawners(main_window, spawners)
    scene = main_window.document.scene
    panel, stack = spawners.panel, main_window.document.undo_stack
    panel.density_box.setValue(2.5)  # an edit to undo, with its re-run
    settle(spawners, qtbot)
    edited, start = volume_bytes(scene), stack.index()
    slow_species(monkeypatch, 0.4)
    panel.run_button.click()
    assert spawners.running
    stack.undo()  # the history moves under the run: it stops, its result is not wanted
    settle(spawners, qtbot)
    assert stack.index() == start - 1 and stack.count() == start  # no step of the run
    assert "stopped" in panel.summary.text()
    stack.redo()
    assert volume_bytes(scene) == edited
    panel.run_button.click()
    panel.run_cancel.click()
    settle(spawners, qtbot)
    assert stack.count() == start and volume_bytes(scene) == edited  # nothing ran: no step
    assert "Nothing changed" in panel.summary.text()


def edit_both_slowly(main_window, spawners, qtbot, monkeypatch) -> tuple[bytes, int]:
    """Both spawners run; then the pines' edit re-runs slowly and the firs' edit comes meanwhile.
    (The forest's bytes and the undo index before the edits.)"""
    scene, panel = main_window.document.scene, spawners.panel
    panel.run_all_button.click()
    settle(spawners, qtbot)
    before = volume_bytes(scene), main_window.document.undo_stack.index()
    slow_species(monkeypatch, 0.4)
    panel.list.setCurrentRow(0)
    panel.density_box.setValue(3.0)  # the pines re-run…
    panel.list.setCurrentRow(1)
    panel.density_box.setValue(2.0)  # …and the firs' edit waits for it
    return before


def test_an_edit_of_another_spawner_waits_for_the_rerun_going_and_both_land(main_window, spawners, qtbot,
                                                                            monkeypatch):
    recipes = two_spawners(main_window, spawners)
    scene = main_window.document.scene
    panel, stack = spawners.panel, main_window.document.undo_stack
    before, start = edit_both_slowly(main_window, spawners, qtbot, monkeypatch)  # both forests follow
    assert stack.index() == start + 2 and spawners.running
    assert "Re-running 'pines', 1 more waiting" in panel.run_label.text()
    settle(spawners, qtbot)
    final = list(spawners_of(scene).spawners)
    assert [sp.species[0].density for sp in final] == [3.0, 2.0]
    after = volume_bytes(scene)
    edited = [Spawner("pines", 4, Area(), (Species("pine", 3.0),)),
              Spawner("firs", 5, Area(), (Species("fir", 2.0),))]
    assert final == edited and recipes != edited
    stack.undo()
    stack.undo()
    assert volume_bytes(scene) == before
    assert after == sequential_run_bytes(scene, edited)  # as running both edited recipes in turn
    stack.redo()  # the pines' step, with its forest
    assert spawners_of(scene).spawners[0].species[0].density == 3.0 and not spawners.running
    stack.redo()
    assert volume_bytes(scene) == after and spawners_of(scene).spawners == edited


def test_undoing_the_waiting_edit_lets_the_rerun_going_land_and_redo_runs_it(main_window, spawners, qtbot,
                                                                             monkeypatch):
    two_spawners(main_window, spawners)
    scene = main_window.document.scene
    panel, stack = spawners.panel, main_window.document.undo_stack
    edit_both_slowly(main_window, spawners, qtbot, monkeypatch)
    stack.undo()  # the firs' edit, before its re-run began
    settle(spawners, qtbot)
    pines_only = volume_bytes(scene)
    assert [sp.species[0].density for sp in spawners_of(scene).spawners] == [3.0, 1.0]
    assert "placed" in panel.summary.text() and stack.index() == stack.count() - 1
    stack.redo()  # the firs' edit runs now
    assert spawners.running
    settle(spawners, qtbot)
    both = volume_bytes(scene)
    assert both != pines_only
    stack.undo()
    assert volume_bytes(scene) == pines_only
    stack.redo()
    assert volume_bytes(scene) == both
