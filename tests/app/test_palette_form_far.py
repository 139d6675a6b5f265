"""The palette form edits variants, colour variation, levels of detail and impostors: each change
one exact undo step, bad values refused with the reason, saved and read back equal."""

from __future__ import annotations

import pytest

from app.foliage_commands import AddTypeCommand
from model.foliage import FoliageType, foliage_of
from model.foliage.foliage_type import MAX_LODS, MAX_VARIANTS, Lod, Variant


@pytest.fixture
def editor(main_window):
    return main_window.foliage_editor


@pytest.fixture
def form(editor):
    editor.palette_panel.select(["conifer"])
    return editor.palette_panel.form


def palette_of(main_window):
    return foliage_of(main_window.document.scene).palette


def add_variant(form, mesh: str) -> None:
    action = next(a for a in form.variants.add.menu().actions() if a.text() == mesh)
    action.trigger()


def test_variants_are_added_weighted_moved_and_removed_one_exact_step_each(main_window, form) -> None:
    palette = palette_of(main_window)
    stack = main_window.document.undo_stack
    states = [palette["conifer"]]
    assert not form.variants.table.isVisible() and form.mesh.isEnabled()  # one mesh: nothing listed
    add_variant(form, "builtin:broadleaf")
    assert palette["conifer"].variants == (Variant("builtin:conifer"), Variant("builtin:broadleaf"))
    assert form.variants.share_texts() == ["50 %", "50 %"]
    assert stack.text(stack.index() - 1) == "Add variant builtin:broadleaf to 'conifer'"
    assert not form.mesh.isEnabled()  # the variants are drawn, not the one mesh
    states.append(palette["conifer"])
    add_variant(form, "builtin:rock")  # a second add is a step of its own, not merged
    assert stack.count() == 2 and form.variants.current() == 2  # the added row is selected
    states.append(palette["conifer"])
    form.variants.table.setCurrentCell(1, 0)
    form.variants.weight.setValue(3.0)
    form.variants.weight.setValue(2.0)  # one spin drag: merges into one step
    assert stack.count() == 3 and stack.text(2) == "Change variant 2 weight of 'conifer'"
    assert palette["conifer"].weights == (1.0, 2.0, 1.0)
    assert form.variants.share_texts() == ["25 %", "50 %", "25 %"]
    states.append(palette["conifer"])
    form.variants.up.click()
    assert [v.mesh for v in palette["conifer"].variants] == [
        "builtin:broadleaf", "builtin:conifer", "builtin:rock"]
    assert palette["conifer"].mesh == "builtin:broadleaf"  # the first variant is the type's mesh
    assert form.variants.current() == 0 and form.variants.weight.value() == 2.0  # selection moved along
    states.append(palette["conifer"])
    form.variants.table.setCurrentCell(2, 0)
    form.variants.mesh.setCurrentText("builtin:bush")
    form.variants.mesh.activated.emit(2)
    assert palette["conifer"].variants[2] == Variant("builtin:bush", 1.0)
    states.append(palette["conifer"])
    form.variants.remove.click()
    states.append(palette["conifer"])
    form.variants.table.setCurrentCell(0, 0)
    form.variants.remove.click()  # one left: the type has one mesh again
    assert palette["conifer"].variants == () and palette["conifer"].mesh == "builtin:conifer"
    assert stack.text(stack.index() - 1) == "Remove variant builtin:broadleaf from 'conifer'"
    states.append(palette["conifer"])
    assert stack.count() == len(states) - 1
    for i in range(len(states) - 1, 0, -1):
        stack.undo()
        assert palette["conifer"] == states[i - 1]
    assert form.variants.variants() == ()
    for i in range(1, len(states)):
        stack.redo()
        assert palette["conifer"] == states[i]
        assert form.variants.variants() == states[i].variants  # the form follows undo and redo


def test_at_most_eight_variants(main_window, form) -> None:
    for _ in range(MAX_VARIANTS - 1):
        add_variant(form, "builtin:rock")
    assert len(palette_of(main_window)["conifer"].variants) == MAX_VARIANTS
    assert not form.variants.add.isEnabled()


def test_a_variant_weight_of_zero_is_refused_with_the_reason(main_window, form) -> None:
    add_variant(form, "builtin:bush")
    stack = main_window.document.undo_stack
    before, count = palette_of(main_window)["conifer"], stack.count()
    form.variants.table.setCurrentCell(1, 0)
    form.variants.weight.setValue(0.0)
    assert "variant 2 weight: must be greater than 0" in form.error.text()
    assert palette_of(main_window)["conifer"] == before and stack.count() == count
    form.variants.weight.setValue(0.5)  # a good value clears the message
    assert form.error.text() == "" and palette_of(main_window)["conifer"].weights == (1.0, 0.5)


def test_a_missing_mesh_file_is_named_and_refused(main_window, form, tmp_path) -> None:
    from model.formats.scene_file import save_scene

    scene = main_window.document.scene
    save_scene(scene, tmp_path / "s.boscage")
    scene.path = tmp_path / "s.boscage"
    main_window.foliage_editor._on_palette_changed()
    add_variant(form, "builtin:bush")
    before = palette_of(main_window)["conifer"]
    form.variants.mesh.setCurrentText("meshes/oak.obj")
    form.variants.mesh.lineEdit().editingFinished.emit()
    message = form.error.text()
    assert "variants[1].mesh: mesh file 'meshes/oak.obj' not found in" in message and str(tmp_path) in message
    assert palette_of(main_window)["conifer"] == before
    # a file chosen outside the scene's folder is refused too; one inside it is taken, relative
    outside = tmp_path.parent / "elsewhere.obj"
    form.variants.choose_file = lambda: str(outside)
    form.variants.browse.click()
    assert "lies outside the scene's folder" in form.error.text()
    import trimesh

    (tmp_path / "meshes").mkdir()
    trimesh.creation.cone(1.0, 3.0).export(tmp_path / "meshes" / "oak.obj")
    form.variants.choose_file = lambda: str(tmp_path / "meshes" / "oak.obj")
    form.variants.browse.click()
    assert form.error.text() == ""
    assert palette_of(main_window)["conifer"].variants[1] == Variant("meshes/oak.obj", 1.0)


def test_generated_levels_are_shown_and_overridden_by_an_edit(main_window, form) -> None:
    palette = palette_of(main_window)
    stack = main_window.document.undo_stack
    conifer = palette["conifer"]
    assert conifer.lods is None
    lods = form.lods
    start = conifer.cull[0]
    assert [lods.table.item(i, 0).text() for i in range(2)] == [f"{0.3 * start:g} m", f"{0.6 * start:g} m"]
    assert lods.table.item(0, 1).text() == "generated" and lods.table.item(0, 0).font().italic()
    assert not lods.reset.isEnabled() and lods.browse.isEnabled()
    lods.table.setCurrentCell(1, 0)
    lods.distance.setValue(120.0)
    assert palette["conifer"].lods == (Lod(0.3 * start), Lod(120.0))
    assert not lods.table.item(0, 0).font().italic() and lods.reset.isEnabled()
    lods.distance.setValue(130.0)  # the same level's distance again: merges
    assert stack.count() == 1 and stack.text(0) == "Change level 2 distance of 'conifer'"
    lods.add.click()
    assert palette["conifer"].lods[-1] == Lod(195.0) and lods.current() == 2
    assert not lods.add.isEnabled() and len(palette["conifer"].lods) == MAX_LODS
    lods.mesh.setCurrentText("builtin:bush")
    lods.mesh.activated.emit(3)
    assert palette["conifer"].lods[2] == Lod(195.0, "builtin:bush")
    lods.reset.click()
    assert palette["conifer"].lods is None and stack.text(stack.index() - 1) == \
        "Generated levels of detail for 'conifer'"
    lods.table.setCurrentCell(0, 0)
    lods.remove.click()
    lods.remove.click()
    assert palette["conifer"].lods == ()  # no coarser level: the mesh at every distance
    assert "drawn at every distance" in lods.note.text()
    states = []
    while stack.canUndo():
        states.append(palette["conifer"])
        stack.undo()
    assert palette["conifer"] == conifer and stack.count() == 6
    for state in reversed(states):
        stack.redo()
        assert palette["conifer"] == state


def test_switch_distances_must_increase(main_window, form) -> None:
    stack = main_window.document.undo_stack
    before = palette_of(main_window)["conifer"]
    form.lods.table.setCurrentCell(1, 0)
    form.lods.distance.setValue(50.0)  # before level 1 (75 m)
    assert form.error.text() == ("level 2 starts at 50 m: switch distances must increase "
                                 "(level 1 starts at 75 m)")
    assert palette_of(main_window)["conifer"] == before and stack.count() == 0


def test_a_level_past_the_cull_start_is_flagged(main_window, form) -> None:
    form.lods.table.setCurrentCell(1, 0)
    form.lods.distance.setValue(260.0)  # conifer's cull starts at 250 m
    assert palette_of(main_window)["conifer"].lods[1] == Lod(260.0)
    assert "Level 2 starts past the cull start (250 m): never drawn" in form.lods.note.text()


def test_colour_variation_and_impostor_settings_are_edited_and_undone(main_window, form) -> None:
    palette = palette_of(main_window)
    stack = main_window.document.undo_stack
    original = palette["conifer"]
    form.hue.low.setValue(-15.0)
    form.hue.high.setValue(10.0)
    form.value.low.setValue(-0.2)
    assert (palette["conifer"].hue, palette["conifer"].value) == ((-15.0, 10.0), (-0.2, 0.0))
    form.impostor_end_on.setChecked(True)
    assert palette["conifer"].impostor_cull == form.impostor_end.value() > original.cull[1]
    form.impostor_end.setValue(2500.0)
    assert palette["conifer"].impostor_cull == 2500.0
    form.impostor_end.setValue(300.0)  # before the cull end (320 m): refused
    assert "impostor_cull: the cards must end beyond the cull end (320 m)" in form.error.text()
    assert palette["conifer"].impostor_cull == 2500.0
    form.cull.high.setValue(2600.0)  # the meshes may not outlast the cards
    assert "cull: the end 2600 m must come before the cards' end (2500 m)" in form.error.text()
    assert palette["conifer"].cull == original.cull
    form.impostor.setChecked(False)
    assert palette["conifer"].impostor is False and not form.impostor_end_on.isEnabled()
    assert stack.text(stack.index() - 1) == "No impostors for 'conifer'"
    assert [stack.text(i) for i in range(stack.count())] == [
        "Change hue of 'conifer'", "Change value of 'conifer'", "Change impostor_cull of 'conifer'",
        "No impostors for 'conifer'"]
    edited = palette["conifer"]
    while stack.canUndo():
        stack.undo()
    assert palette["conifer"] == original and form.hue.value() == (0.0, 0.0) and form.impostor.isChecked()
    while stack.canRedo():
        stack.redo()
    assert palette["conifer"] == edited and not form.impostor.isChecked()


def test_every_new_setting_is_saved_and_read_back_equal(main_window, editor, tmp_path) -> None:
    import trimesh

    from model.formats.scene_file import save_scene

    scene = main_window.document.scene
    save_scene(scene, tmp_path / "s.boscage")
    scene.path = tmp_path / "s.boscage"
    trimesh.creation.cone(1.0, 3.0).export(tmp_path / "oak_far.obj")
    palette = palette_of(main_window)
    name = editor.new_type()
    form = editor.palette_panel.form
    add_variant(form, "builtin:broadleaf")
    form.variants.weight.setValue(2.5)
    form.hue.high.setValue(12.0)
    form.value.low.setValue(-0.1)
    form.lods.table.setCurrentCell(0, 0)
    form.lods.distance.setValue(40.0)
    form.impostor_end_on.setChecked(True)
    form.impostor_end.setValue(4000.0)
    other = editor.new_type()
    form.lods.choose_file = lambda: str(tmp_path / "oak_far.obj")
    form.lods.table.setCurrentCell(1, 0)
    form.lods.browse.click()
    form.impostor.setChecked(False)
    edited = {n: palette[n] for n in (name, other)}
    assert edited[name].variants == (Variant("builtin:conifer"), Variant("builtin:broadleaf", 2.5))
    assert edited[name].hue == (0.0, 12.0) and edited[name].value == (-0.1, 0.0)
    assert edited[name].lods == (Lod(40.0), Lod(0.6 * 150.0)) and edited[name].impostor_cull == 4000.0
    assert edited[other].lods == (Lod(0.3 * 150.0), Lod(0.6 * 150.0, "oak_far.obj"))
    assert not edited[other].impostor
    path = tmp_path / "far.boscage"
    assert main_window._save_to(path)
    assert main_window.open_file(path)
    reopened = palette_of(main_window)
    assert {n: reopened[n] for n in (name, other)} == edited
    editor.palette_panel.select([name])
    form = editor.palette_panel.form
    assert form.variants.share_texts() == ["29 %", "71 %"] and form.impostor_end.value() == 4000.0


def test_the_form_with_variants_and_levels_fits_the_palette_dock(main_window, form) -> None:
    for mesh in ("builtin:broadleaf", "builtin:rock"):
        add_variant(form, mesh)
    form.lods.add.click()
    assert form.minimumSizeHint().width() <= 300  # the palette column is 240-360 px
    for widget in (form.variants.table, form.variants.add, form.variants.weight, form.variants.mesh,
                   form.lods.table, form.lods.distance, form.lods.mesh, form.lods.reset, form.hue.low,
                   form.value.high, form.impostor, form.impostor_end_on, form.impostor_end):
        assert len(widget.toolTip()) > 20, widget  # every new control says what it does


def test_a_type_with_a_missing_mesh_file_still_takes_other_edits(main_window, editor) -> None:
    palette = palette_of(main_window)
    statue = FoliageType("statue", mesh="meshes/statue.obj")  # the file is not there
    main_window.document.undo_stack.push(AddTypeCommand(palette, statue))
    editor.palette_panel.select(["statue"])
    form = editor.palette_panel.form
    form.hue.high.setValue(5.0)
    assert palette["statue"].hue == (0.0, 5.0) and form.error.text() == ""


def test_delete_in_a_list_removes_its_row_not_the_foliage_selection(main_window, form, qtbot) -> None:
    from PySide6.QtCore import Qt

    main_window.show()
    main_window.activateWindow()
    qtbot.waitActive(main_window)
    add_variant(form, "builtin:rock")
    add_variant(form, "builtin:bush")
    deleted = []
    main_window.foliage_editor.actions["delete"].triggered.connect(lambda *_: deleted.append(True))
    table = form.variants.table
    table.setCurrentCell(1, 0)
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)
    qtbot.keyClick(table, Qt.Key.Key_Delete)
    meshes = [v.mesh for v in palette_of(main_window)["conifer"].variants]
    assert meshes == ["builtin:conifer", "builtin:bush"]
    assert deleted == []  # the window's Delete Selection did not fire
    form.lods.table.setCurrentCell(0, 0)
    form.lods.table.setFocus()
    qtbot.waitUntil(form.lods.table.hasFocus)
    qtbot.keyClick(form.lods.table, Qt.Key.Key_Delete)
    assert len(palette_of(main_window)["conifer"].lods) == 1 and deleted == []
