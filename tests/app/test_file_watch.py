"""Watching the open scene's file: our own save is ignored, a clean document reloads silently,
a modified one asks first."""

from __future__ import annotations

import numpy as np
import pytest

from app.file_watch import manifest_digest
from app.terrain_commands import ReplaceGridCommand
from model.formats.scene_file import load_scene, save_scene
from model.sculpt import HEIGHTS

QUIET_MS = 1200  # well past the watcher's settle time


@pytest.fixture
def watched(main_window, tmp_path):
    """The window's scene saved to a file it watches; the reload question recorded and answered."""
    path = tmp_path / "watched.boscage"
    main_window.document.save(path)
    asked: list = []
    answer = {"reload": False}

    def ask(parent, p):
        asked.append(p)
        return answer["reload"]

    main_window.file_watcher.ask_reload = ask
    reloaded: list = []
    main_window.file_watcher.reloaded.connect(reloaded.append)
    return path, asked, answer, reloaded


def write_elsewhere(path, value: float) -> None:
    """Another program changes the scene on disk: every height becomes `value`."""
    scene = load_scene(path)
    scene.terrain.heights[:] = value
    save_scene(scene, path)


def test_the_watcher_follows_the_document_file(main_window, watched) -> None:
    path, *_ = watched
    watcher = main_window.file_watcher
    assert watcher.path == path and watcher.known == manifest_digest(path)
    assert str(path) in watcher.watcher.files()


def test_our_own_save_is_not_taken_for_a_change(main_window, watched, qtbot) -> None:
    path, asked, answer, reloaded = watched
    doc = main_window.document
    scene = doc.scene
    t = scene.terrain
    doc.undo_stack.push(ReplaceGridCommand(t, HEIGHTS, np.full(t.heights.shape, 9.0, np.float32), "Flatten"))
    assert main_window.save()
    qtbot.wait(QUIET_MS)
    assert reloaded == [] and asked == []
    assert doc.scene is scene and doc.undo_stack.count() == 1  # history kept: nothing was reloaded
    # The watch survived the save's replace of the file: another program's change is still seen.
    write_elsewhere(path, 4.0)
    qtbot.waitUntil(lambda: reloaded == [path], timeout=5000)
    assert float(doc.scene.terrain.heights[0, 0]) == 4.0


def test_a_clean_document_reloads_silently(main_window, watched, qtbot) -> None:
    path, asked, answer, reloaded = watched
    old_scene = main_window.document.scene
    write_elsewhere(path, 21.5)
    qtbot.waitUntil(lambda: reloaded == [path], timeout=5000)
    scene = main_window.document.scene
    assert scene is not old_scene and np.all(scene.terrain.heights == 21.5)
    assert asked == [] and not main_window.document.modified
    assert main_window.viewport.terrain_renderer.terrain is scene.terrain
    assert "Reloaded watched.boscage" in main_window.statusBar().currentMessage()


def test_a_modified_document_asks_and_keeps_the_edit_when_told(main_window, watched, qtbot) -> None:
    path, asked, answer, reloaded = watched
    doc = main_window.document
    t = doc.scene.terrain
    doc.undo_stack.push(ReplaceGridCommand(t, HEIGHTS, np.full(t.heights.shape, 7.0, np.float32), "Flatten"))
    scene = doc.scene
    write_elsewhere(path, 30.0)
    qtbot.waitUntil(lambda: asked == [path], timeout=5000)
    qtbot.wait(QUIET_MS)
    assert asked == [path]  # one change, one question
    assert reloaded == [] and doc.scene is scene and doc.modified
    assert np.all(doc.scene.terrain.heights == 7.0)
    # Next change, and this time the user takes the file's version.
    answer["reload"] = True
    write_elsewhere(path, 31.0)
    qtbot.waitUntil(lambda: reloaded == [path], timeout=5000)
    assert len(asked) == 2
    assert np.all(doc.scene.terrain.heights == 31.0) and not doc.modified
    assert not main_window.autosave.has_copy()


def test_a_new_scene_stops_watching(main_window, watched, qtbot) -> None:
    path, asked, answer, reloaded = watched
    main_window.ask_new_scene = lambda parent, options: options
    assert main_window.new_scene()
    assert main_window.file_watcher.path is None
    assert main_window.file_watcher.watcher.files() == []
    write_elsewhere(path, 2.0)
    qtbot.wait(QUIET_MS)
    assert reloaded == [] and asked == []


def test_the_reload_question_names_its_choices_and_keeps_the_edits_by_default(qtbot, tmp_path) -> None:
    from PySide6.QtWidgets import QMessageBox

    from app.file_watch import reload_box

    box = reload_box(None, tmp_path / "forest.boscage")
    qtbot.addWidget(box)
    assert sorted(b.text() for b in box.buttons()) == ["Keep My Version", "Reload from Disk"]
    assert box.defaultButton() is box.keep_button and box.escapeButton() is box.keep_button
    assert box.standardButtons() == QMessageBox.StandardButton.NoButton  # no bare Yes / No
    assert "forest.boscage was changed by another program" in box.text()
