"""A mesh file that cannot be drawn: refused where it is chosen; a scene naming one opens with that
type drawn as a placeholder, the rest drawn, and one warning."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from model.foliage import FoliageType, foliage_of
from model.formats.scene_file import save_scene
from tests.app.test_screenshot import run_app
from tests.conftest import make_small_scene
from tests.gui_helpers import render, settle
from tests.model.foliage.test_mesh_check import junk


def scene_naming_junk(folder: Path) -> Path:
    junk(folder)
    scene = make_small_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("junk", mesh="junk.glb"))
    foliage.palette.add(FoliageType("pine", mesh="builtin:conifer"))
    rng = np.random.default_rng(3)
    for name in ("junk", "pine"):
        records = np.zeros((40, 7), np.float32)
        records[:, [0, 2]] = rng.uniform(-30, 30, (40, 2))
        records[:, 1] = 20.0
        records[:, 6] = 3.0
        foliage.volume.add(name, records)
    save_scene(scene, folder / "junk.boscage")
    return folder / "junk.boscage"


def test_a_scene_naming_a_bad_mesh_opens_with_one_warning_and_draws(shown, qtbot, tmp_path) -> None:
    warned: list[str] = []
    shown.warning_hook = lambda parent, title, text: warned.append(text)
    assert shown.open_file(scene_naming_junk(tmp_path))
    qtbot.waitUntil(lambda: len(warned) == 1, timeout=5000)
    assert "junk.glb: not a glTF file" in warned[0] and "placeholder" in warned[0]
    assert "pine" not in warned[0]
    shown.viewport.frame_all()
    render(shown.viewport, qtbot)
    render(shown.viewport, qtbot)
    settle()
    assert "junk" in shown.viewport.foliage_renderer.mesh_errors  # it met the file: a placeholder
    assert warned == warned[:1]  # the renderer meeting the file says nothing more
    assert shown.last_error is None  # nothing was switched off
    assert shown.viewport.foliage_renderer in shown.viewport.renderers


def test_a_screenshot_of_such_a_scene_exits_0_with_one_warning(tmp_path) -> None:
    out = tmp_path / "shot.png"
    result = run_app(str(scene_naming_junk(tmp_path)), "--screenshot", str(out), "--frame-all")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("boscage: warning:")]
    assert len(warnings) == 1 and "1 foliage type cannot draw its mesh" in warnings[0]
    assert "junk.glb: not a glTF file" in result.stderr and out.is_file()


def open_stone_scene(window, folder: Path):
    """The window on a saved scene with type 'stone' drawn from meshes/stone.glb, the form on it."""
    from tests.app.test_autosave import scene_with_mesh_file

    assert window.open_file(scene_with_mesh_file(folder))
    editor = window.foliage_editor
    editor.palette_panel.select(["stone"])
    settle()
    return editor.palette_panel.form


def pick(combo, text: str) -> None:
    """Choose `text` in a combo box as a click on its entry does."""
    index = combo.findText(text)
    assert index >= 0, f"{text!r} is not offered"
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def test_the_mesh_combo_offers_files_and_shows_their_extent(shown, tmp_path) -> None:
    from widgets.variant_list import FILE_ITEM

    form = open_stone_scene(shown, tmp_path)
    stone = foliage_of(shown.document.scene).palette["stone"].resolved_extent(tmp_path)
    assert stone.radius != 1.0 and form.extent_auto.isChecked()
    assert (form.extent_radius.value(), form.extent_height.value()) == (
        round(stone.radius, 2), round(stone.height, 2))  # the file's own bounds, not 1 m × 1 m
    pick(form.mesh, "builtin:rock")
    assert foliage_of(shown.document.scene).palette["stone"].mesh == "builtin:rock"
    form.choose_file = lambda: str(tmp_path / "meshes" / "stone.glb")
    pick(form.mesh, FILE_ITEM)
    assert foliage_of(shown.document.scene).palette["stone"].mesh == "meshes/stone.glb"
    assert form.error.text() == ""


def test_a_bad_file_is_refused_where_it_is_chosen(shown, tmp_path) -> None:
    from widgets.variant_list import FILE_ITEM

    form = open_stone_scene(shown, tmp_path)
    junk(tmp_path / "meshes")
    steps = shown.document.undo_stack.count()
    form.choose_file = lambda: str(tmp_path / "meshes" / "junk.glb")
    pick(form.mesh, FILE_ITEM)
    assert form.error.text().startswith("mesh: junk.glb: not a glTF file")
    form.variants.choose_file = lambda: str(tmp_path / "meshes" / "junk.glb")
    form.variants.add_mesh(FILE_ITEM)
    assert form.error.text().startswith("variants[1].mesh: junk.glb: not a glTF file")
    assert shown.document.undo_stack.count() == steps
    assert foliage_of(shown.document.scene).palette["stone"].mesh == "meshes/stone.glb"
    settle()
    # the refusal is scrolled into view, below the variant and level lists
    assert not form.error.visibleRegion().isEmpty()


def test_a_file_outside_the_scenes_folder_is_copied_in_with_one_click(shown, tmp_path) -> None:
    from tests.widgets.test_palette_panel import write_rock
    from widgets.variant_list import FILE_ITEM

    form = open_stone_scene(shown, tmp_path / "level")
    (tmp_path / "library").mkdir()
    write_rock(tmp_path / "library", "boulder.glb")
    outside = tmp_path / "library" / "meshes" / "boulder.glb"
    form.variants.choose_file = lambda: str(outside)
    form.variants.add_mesh(FILE_ITEM)
    assert "lies outside the scene's folder" in form.error.text()
    settle()
    assert form.copy_in.isVisible() and not form.copy_in.visibleRegion().isEmpty()
    form.copy_in.click()
    ftype = foliage_of(shown.document.scene).palette["stone"]
    assert [v.mesh for v in ftype.variants] == ["meshes/stone.glb", "meshes/boulder.glb"]
    assert (tmp_path / "level" / "meshes" / "boulder.glb").read_bytes() == outside.read_bytes()
    assert form.error.text() == "" and not form.copy_in.isVisible()
    shown.document.undo_stack.undo()  # one step, as choosing a file inside would be
    assert foliage_of(shown.document.scene).palette["stone"].variants == ()
