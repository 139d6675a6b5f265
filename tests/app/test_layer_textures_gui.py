"""The Layers panel's material: set (with preview), clear and copy-in a layer's textures, change
its repeat and projection; each change one undo step."""

from __future__ import annotations

from pathlib import Path

import imagecodecs
import numpy as np
import pytest

import app.main_window as mw_module
from model.layer_material import LayerMaterial


@pytest.fixture
def errors(monkeypatch):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    return shown


def two_colour(path: Path) -> Path:
    img = np.zeros((64, 64, 3), np.uint8)
    img[:, :32] = (200, 40, 20)
    img[:, 32:] = (40, 160, 60)  # mean (120, 100, 40)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(imagecodecs.png_encode(img))
    return path


def editor_in(main_window, folder: Path):
    main_window.document.scene.asset_folder = folder
    return main_window.terrain_editor


def test_setting_an_albedo_is_one_undo_step_with_preview_and_colour(main_window, qtbot, tmp_path) -> None:
    editor = editor_in(main_window, tmp_path)
    file = two_colour(tmp_path / "tex" / "stripes.png")
    editor.pick_texture_file = lambda folder, title: str(file)
    panel, stack = editor.panel, main_window.document.undo_stack
    panel.select("red")
    layer = main_window.document.scene.terrain.layer("red")
    before = (layer.material, layer.color)
    steps = stack.count()
    panel.map_set["albedo"].trigger()
    assert layer.material.albedo == "tex/stripes.png"
    assert layer.color == (120, 100, 40)  # the texture's mean: drawn as it is
    assert stack.count() == steps + 1
    icon = panel.map_previews["albedo"].icon()
    assert not icon.isNull() and not icon.pixmap(16, 16).isNull()
    assert panel.map_clear["albedo"].isEnabled()
    stack.undo()
    assert (layer.material, layer.color) == before
    assert panel.map_previews["albedo"].icon().isNull() and not panel.map_clear["albedo"].isEnabled()
    stack.redo()
    assert layer.material.albedo == "tex/stripes.png"
    panel.map_clear["albedo"].trigger()
    assert layer.material.albedo is None and layer.color == (120, 100, 40)
    assert stack.count() == steps + 2


def test_a_texture_outside_the_scene_folder_is_copied_in_when_asked(main_window, tmp_path) -> None:
    scene_folder = tmp_path / "scene"
    scene_folder.mkdir()
    editor = editor_in(main_window, scene_folder)
    file = two_colour(tmp_path / "elsewhere" / "rock.png")
    editor.pick_texture_file = lambda folder, title: str(file)
    asked = []
    editor.ask_copy_texture = lambda f, folder: asked.append(f) or False
    assert not editor.choose_texture("blue", "height")
    assert main_window.document.scene.terrain.layer("blue").material.height is None
    editor.ask_copy_texture = lambda f, folder: True
    assert editor.choose_texture("blue", "height")
    material = main_window.document.scene.terrain.layer("blue").material
    assert material.height == "textures/rock.png"
    assert (scene_folder / "textures" / "rock.png").read_bytes() == file.read_bytes()
    assert main_window.document.scene.terrain.layer("blue").color == (30, 60, 220)  # only albedo recolours


def test_an_unreadable_texture_is_one_error_and_changes_nothing(main_window, tmp_path, errors) -> None:
    editor = editor_in(main_window, tmp_path)
    (tmp_path / "bad.png").write_bytes(b"not a png")
    editor.pick_texture_file = lambda folder, title: str(tmp_path / "bad.png")
    steps = main_window.document.undo_stack.count()
    assert not editor.choose_texture("red", "albedo")
    assert len(errors) == 1 and "bad.png" in errors[0][1]
    assert main_window.document.undo_stack.count() == steps


def test_an_unsaved_scene_asks_to_be_saved_first(main_window, tmp_path, errors) -> None:
    editor = main_window.terrain_editor
    editor.pick_texture_file = lambda folder, title: (_ for _ in ()).throw(AssertionError("no dialog"))
    assert not editor.choose_texture("red", "albedo")
    assert len(errors) == 1 and "Save the scene first" in errors[0][1]


def test_repeat_and_triplanar_are_undoable_steps(main_window, qtbot) -> None:
    panel, stack = main_window.terrain_editor.panel, main_window.document.undo_stack
    panel.select("blue")
    layer = main_window.document.scene.terrain.layer("blue")
    steps = stack.count()
    panel.tiling.setValue(7.5)
    qtbot.mouseClick(panel.triplanar, qtbot_left())
    assert layer.material == LayerMaterial(tiling=7.5, triplanar=True)
    assert stack.count() == steps + 2
    stack.undo()
    stack.undo()
    assert layer.material == LayerMaterial()
    assert panel.tiling.value() == LayerMaterial().tiling and not panel.triplanar.isChecked()


def qtbot_left():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_the_status_bar_shows_the_layer_textures_loading(main_window, qtbot) -> None:
    progress = main_window.texture_progress
    assert progress.isHidden()
    main_window.viewport.textures_progress.emit(3, 16)
    assert not progress.isHidden() and (progress.bar.value(), progress.bar.maximum()) == (3, 16)
    main_window.viewport.textures_progress.emit(16, 16)
    assert progress.isHidden()


def test_save_as_into_another_folder_copies_the_textures_and_asks_before_replacing(
        main_window, monkeypatch, tmp_path, errors) -> None:
    from model.formats.scene_file import load_scene

    a, b = tmp_path / "a", tmp_path / "b"
    editor = editor_in(main_window, a)
    file = two_colour(a / "textures" / "stripes.png")
    editor.pick_texture_file = lambda folder, title: str(file)
    assert editor.choose_texture("red", "albedo")
    (b / "textures").mkdir(parents=True)
    (b / "textures" / "stripes.png").write_bytes(b"another scene's")
    asked: list[list[Path]] = []
    main_window.ask_replace_textures = lambda parent, files: asked.append(files) or False
    monkeypatch.setattr(mw_module.QFileDialog, "getSaveFileName", lambda *a, **k: (str(b / "moved"), ""))
    assert main_window.save_as() is False  # declined: nothing written, the other file kept
    assert asked == [[b / "textures" / "stripes.png"]] and not (b / "moved.boscage").exists()
    assert (b / "textures" / "stripes.png").read_bytes() == b"another scene's"
    main_window.ask_replace_textures = lambda parent, files: True
    assert main_window.save_as() is True
    assert (b / "textures" / "stripes.png").read_bytes() == file.read_bytes()
    assert "1 layer texture" in main_window.statusBar().currentMessage()
    assert main_window.document.scene.textures_folder() == b
    assert load_scene(b / "moved.boscage").terrain.layer("red").material.albedo == "textures/stripes.png"
    assert errors == []


def test_a_recovery_copy_reads_the_textures_from_where_they_were(main_window, tmp_path) -> None:
    from app.autosave import orphaned_recoveries, write_recovery

    a = tmp_path / "a"
    editor = editor_in(main_window, a)
    file = two_colour(a / "textures" / "stripes.png")
    editor.pick_texture_file = lambda folder, title: str(file)
    assert editor.choose_texture("red", "albedo")
    root = tmp_path / "recovery"
    write_recovery(root / "one", main_window.document.scene)
    assert not (root / "one" / "textures").exists()  # no copy of every map at every autosave
    assert main_window.document.scene.textures_folder() == a
    [recovery] = orphaned_recoveries(root)
    scene = recovery.load()
    recovery.release()
    assert scene.textures_folder() == a.resolve()
    assert scene.terrain.layer("red").material.albedo == "textures/stripes.png"
