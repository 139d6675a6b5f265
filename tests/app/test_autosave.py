"""Autosave and crash recovery: recovery copies beside the settings, never over the user's file;
a session that died leaves a copy the next start restores bit for bit, or discards."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from app import main_window as mw_module
from app.autosave import INFO_FILE, SCENE_FILE, new_lock, orphaned_recoveries, recovery_root
from app.main_window import MainWindow
from app.terrain_commands import ReplaceGridCommand
from model.foliage import FoliageType, foliage_of
from model.formats.scene_file import load_scene, save_scene
from model.sculpt import HEIGHTS
from tests.conftest import make_small_scene

ROOT = Path(__file__).resolve().parents[2]


def edited_scene(seed: int = 5):
    """The small scene with sculpted heights and seeded shrubs and stones: the work to keep."""
    scene = make_small_scene()
    rng = np.random.default_rng(seed)
    scene.terrain.heights[:] += rng.normal(0.0, 0.7, scene.terrain.heights.shape).astype(np.float32)
    foliage = foliage_of(scene)
    for name, mesh, n in (("shrub", "builtin:bush", 57), ("stone", "builtin:rock", 9)):
        foliage.palette.add(FoliageType(name, mesh=mesh))
        records = rng.uniform(-30.0, 30.0, (n, 7)).astype(np.float32)
        records[:, 3:6] = rng.uniform(-0.3, 0.3, (n, 3))
        records[:, 6] = rng.uniform(0.5, 2.0, n)
        foliage.volume.add(name, records)
    return scene


def fingerprint(scene) -> dict:
    """Every byte that matters: heights, layer weights, and each type's records."""
    foliage = foliage_of(scene)
    out = {"heights": scene.terrain.heights.tobytes()}
    out.update({f"layer {layer.name}": layer.weights.tobytes() for layer in scene.terrain.layers})
    out.update({f"type {t}": foliage.volume.all_records(t).tobytes() for t in foliage.volume.type_names()})
    out["palette"] = repr(list(foliage.palette))
    return out


def sculpt(window, value: float) -> None:
    """One undoable edit: every height set to `value` plus the row index."""
    t = window.document.scene.terrain
    new = (np.full(t.heights.shape, value, np.float32) + np.arange(t.rows, dtype=np.float32)[:, None])
    window.document.undo_stack.push(ReplaceGridCommand(t, HEIGHTS, new, "Sculpt"))


def crash_with_recovery(original: Path | None, settings_dir: Path) -> None:
    """Another editor process writes a recovery copy of `edited_scene()` and dies holding its lock."""
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from PySide6.QtCore import QCoreApplication
        from app.autosave import new_lock, recovery_root, write_recovery
        from tests.app.test_autosave import edited_scene
        app = QCoreApplication([])
        scene = edited_scene()
        scene.path = {None if original is None else str(original)!r}
        scene.path = Path(scene.path) if scene.path else None
        scene.name = "Crashed work"
        folder = recovery_root() / "20260101-000000-deadbeef"
        folder.mkdir(parents=True)
        lock = new_lock(folder)
        assert lock.tryLock(0)
        write_recovery(folder, scene)
        os._exit(3)  # no clean close: the lock file stays, naming a process that is gone
    """)
    env = dict(os.environ, BOSCAGE_SETTINGS_DIR=str(settings_dir), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert (recovery_root() / "20260101-000000-deadbeef" / "session.lock").is_file()


@pytest.fixture
def errors(monkeypatch):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    return shown


def test_recovery_lives_under_the_redirected_settings_folder(settings_folder) -> None:
    assert recovery_root() == settings_folder / "recovery"


def test_a_modified_document_is_copied_on_the_timer_and_a_save_removes_the_copy(main_window, qtbot,
                                                                                 tmp_path) -> None:
    path = tmp_path / "mine.boscage"
    main_window.document.save(path)
    saved_bytes = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    saver = main_window.autosave
    saver.set_interval(0.05)
    assert not saver.timer.isActive()  # nothing to keep while the document is clean
    sculpt(main_window, 40.0)
    assert saver.timer.isActive()
    qtbot.waitUntil(saver.has_copy, timeout=5000)
    assert saver.manifest.parent.parent == recovery_root()
    # The user's file and the document's path are untouched.
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == saved_bytes
    assert main_window.document.path == path and main_window.document.modified
    assert (saver.manifest.parent / INFO_FILE).is_file()
    main_window.save()
    assert not saver.has_copy() and not main_window.document.modified
    assert not saver.timer.isActive()
    assert (path.read_bytes() != saved_bytes["mine.boscage"])


def test_undo_back_to_the_saved_state_removes_the_copy(main_window) -> None:
    saver = main_window.autosave
    sculpt(main_window, 12.0)
    assert saver.save_now() and saver.has_copy()
    main_window.document.undo_stack.undo()
    assert not main_window.document.modified and not saver.has_copy()


def test_a_clean_close_removes_the_recovery_folder(qtbot, monkeypatch) -> None:
    window = MainWindow(make_small_scene(), restore_layout=False)
    qtbot.addWidget(window)
    sculpt(window, 3.0)
    assert window.autosave.save_now()
    folder = window.autosave.manifest.parent
    monkeypatch.setattr(mw_module.QMessageBox, "warning",
                        lambda *a, **k: mw_module.QMessageBox.StandardButton.Discard)
    assert window.close()
    assert not folder.exists()
    assert orphaned_recoveries() == []


def test_after_a_crash_restore_reproduces_the_work_bit_for_bit(qtbot, settings_folder, tmp_path) -> None:
    original = tmp_path / "forest.boscage"
    save_scene(make_small_scene(), original)  # what the user last saved: not what was being edited
    crash_with_recovery(original, settings_folder)
    expected = fingerprint(edited_scene())

    window = MainWindow(make_small_scene(), restore_layout=False)
    qtbot.addWidget(window)
    asked = []
    window.ask_restore = lambda parent, recovery: asked.append(recovery) or True
    assert window.offer_recovery() is True
    assert len(asked) == 1 and asked[0].original == original and asked[0].name == "Crashed work"
    doc = window.document
    assert fingerprint(doc.scene) == expected
    assert doc.modified and window.isWindowModified()
    assert doc.path == original and doc.scene.name == "Crashed work"
    assert window.windowTitle().startswith("forest.boscage[*]")
    assert window.viewport.terrain_renderer.terrain is doc.scene.terrain
    # The crashed session's copy is gone; the restored work is already kept by this session.
    assert not (recovery_root() / "20260101-000000-deadbeef").exists()
    assert window.autosave.has_copy()
    assert orphaned_recoveries() == []  # this window holds its own copy: nothing to offer
    # The user's file was never written by the recovery.
    assert fingerprint(load_scene(original)) == fingerprint(make_small_scene())
    doc.undo_stack.setClean()
    window.close()


def test_discard_deletes_the_copy_and_keeps_the_scene(qtbot, settings_folder) -> None:
    crash_with_recovery(None, settings_folder)
    window = MainWindow(make_small_scene(), restore_layout=False)
    qtbot.addWidget(window)
    scene = window.document.scene
    window.ask_restore = lambda parent, recovery: False
    assert window.offer_recovery() is False
    assert window.document.scene is scene and not window.document.modified
    assert not (recovery_root() / "20260101-000000-deadbeef").exists()
    again = []
    window.ask_restore = lambda parent, recovery: again.append(recovery) or True
    assert window.offer_recovery() is False and again == []


def test_a_running_editors_copy_is_never_offered(qtbot) -> None:
    first = MainWindow(make_small_scene(), restore_layout=False)
    qtbot.addWidget(first)
    sculpt(first, 8.0)
    assert first.autosave.save_now()
    second = MainWindow(make_small_scene(), restore_layout=False)
    qtbot.addWidget(second)
    asked = []
    second.ask_restore = lambda parent, recovery: asked.append(recovery) or True
    assert second.offer_recovery() is False and asked == []
    assert first.autosave.has_copy()
    # The first session ends without closing (its lock goes with it): now its copy is offered.
    first.autosave.lock.unlock()
    first.autosave.lock = None
    assert second.offer_recovery() is True and len(asked) == 1
    assert np.array_equal(second.document.scene.terrain.heights, first.document.scene.terrain.heights)
    for w in (first, second):
        w.document.undo_stack.setClean()


def test_a_damaged_copy_is_reported_and_kept(qtbot, settings_folder, errors) -> None:
    crash_with_recovery(None, settings_folder)
    folder = recovery_root() / "20260101-000000-deadbeef"
    heights = next(folder.glob("recovery.heights*.bin"))
    heights.write_bytes(heights.read_bytes()[:64])
    window = MainWindow(make_small_scene(), restore_layout=False)
    qtbot.addWidget(window)
    scene = window.document.scene
    window.ask_restore = lambda parent, recovery: True
    assert window.offer_recovery() is False
    assert len(errors) == 1 and "heights" in errors[0][1]
    assert window.document.scene is scene
    assert (folder / SCENE_FILE).is_file()  # kept: nothing is thrown away that could still be read
    lock = new_lock(folder)
    assert lock.tryLock(0)  # and released for a later try
    lock.unlock()


def test_autosave_interval_is_a_setting(main_window) -> None:
    assert main_window.settings.autosave_interval() == 120
    assert main_window.autosave.interval_s == 120
    main_window.settings.set_autosave_interval(30)
    assert main_window.settings.autosave_interval() == 30
    main_window.autosave.set_interval(0)
    sculpt(main_window, 1.0)
    assert not main_window.autosave.timer.isActive()


def test_a_recovery_description_nested_a_thousand_levels_reads_as_none(tmp_path) -> None:
    from app.autosave import read_info

    (tmp_path / INFO_FILE).write_text('format = "boscage-recovery"\nx = ' + "[" * 1000 + "]" * 1000 + "\n")
    assert read_info(tmp_path) == {}  # no RecursionError at the editor's start
    (tmp_path / INFO_FILE).write_text('format = "boscage-recovery"\nname = "a"\n')
    assert read_info(tmp_path) == {"format": "boscage-recovery", "name": "a"}


def scene_with_mesh_file(folder: Path) -> Path:
    """A saved scene in `folder` with one type drawn from `meshes/stone.glb` beside it."""
    from tests.widgets.test_palette_panel import write_rock

    folder.mkdir(parents=True, exist_ok=True)
    write_rock(folder, "stone.glb")
    scene = make_small_scene()
    foliage_of(scene).palette.add(FoliageType("stone", mesh="meshes/stone.glb"))
    foliage_of(scene).volume.add("stone", [[0.0, 0.0, 0.0, 0, 0, 0, 1.0]])
    save_scene(scene, folder / "rocks.boscage")
    return folder / "rocks.boscage"


def test_an_autosave_changes_nothing_about_the_open_document(main_window, tmp_path) -> None:
    from widgets.form_fields import relative_mesh_path

    path = scene_with_mesh_file(tmp_path)
    assert main_window.open_file(path)
    editor = main_window.foliage_editor
    sculpt(main_window, 5.0)
    assert main_window.autosave.save_now()
    copy = main_window.autosave.manifest.parent
    assert (copy / "meshes" / "stone.glb").read_bytes() == (tmp_path / "meshes" / "stone.glb").read_bytes()
    assert foliage_of(main_window.document.scene).volume.mesh_folder == tmp_path
    assert main_window.document.path == path
    editor.palette_panel.select(["stone"])
    editor._on_palette_changed()  # any later refresh of the palette still speaks of the scene's folder
    form = editor.palette_panel.form
    assert form.mesh_folder == tmp_path and form.variants.folder == tmp_path
    (tmp_path / "meshes" / "moss.glb").write_bytes((tmp_path / "meshes" / "stone.glb").read_bytes())
    assert relative_mesh_path(tmp_path / "meshes" / "moss.glb", form.mesh_folder) == ("meshes/moss.glb", None)
    assert main_window.save()
    assert foliage_of(main_window.document.scene).volume.mesh_folder == tmp_path
    assert not (copy / "meshes").exists()  # the save removed the copy and what it carried


def test_a_restored_scene_opens_with_every_mesh_file_it_names(qtbot, settings_folder, tmp_path) -> None:
    from app.autosave import write_recovery
    from rendering.meshes import mesh_for

    path = scene_with_mesh_file(tmp_path)
    scene = load_scene(path)
    write_recovery(recovery_root() / "20260101-000000-cafebabe", scene)  # nobody holds its lock
    glb = (tmp_path / "meshes" / "stone.glb").read_bytes()
    (tmp_path / "meshes" / "stone.glb").unlink()  # lost since: the copy still has it
    window = MainWindow(make_small_scene(), restore_layout=False)
    qtbot.addWidget(window)
    window.ask_restore = lambda parent, recovery: True
    assert window.offer_recovery() is True
    volume = foliage_of(window.document.scene).volume
    assert window.document.path == path and volume.mesh_folder == tmp_path
    assert (tmp_path / "meshes" / "stone.glb").read_bytes() == glb
    assert len(mesh_for("meshes/stone.glb", volume.mesh_folder).vertices) > 0
    window.document.undo_stack.setClean()
    window.close()


def test_save_as_into_another_folder_takes_the_mesh_files_along(main_window, tmp_path) -> None:
    path = scene_with_mesh_file(tmp_path / "a")
    assert main_window.open_file(path)
    editor = main_window.foliage_editor
    editor.palette_panel.select(["stone"])
    main_window.document.save(tmp_path / "b" / "rocks.boscage")
    assert (tmp_path / "b" / "meshes" / "stone.glb").is_file()
    assert editor.palette_panel.form.mesh_folder == tmp_path / "b"  # the form follows the save
