"""The scene document: modified marker from the undo stack, load that fails leaves the scene."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QUndoCommand

from app.document import SceneDocument, new_scene
from model.errors import FormatError
from model.formats.scene_file import save_scene
from tests.conftest import make_small_scene


class Noop(QUndoCommand):
    def redo(self) -> None:
        pass

    def undo(self) -> None:
        pass


def test_modified_follows_the_clean_state(qapp) -> None:
    doc = SceneDocument(make_small_scene())
    seen = []
    doc.modified_changed.connect(seen.append)
    assert not doc.modified
    doc.undo_stack.push(Noop("a"))
    assert doc.modified
    doc.undo_stack.undo()
    assert not doc.modified
    assert seen == [True, False]


def test_save_marks_clean_and_load_replaces(qapp, tmp_path) -> None:
    doc = SceneDocument(make_small_scene())
    replaced = []
    doc.scene_replaced.connect(replaced.append)
    doc.undo_stack.push(Noop("a"))
    with pytest.raises(ValueError):
        doc.save()  # no path yet
    path = doc.save(tmp_path / "d.boscage")
    assert not doc.modified and doc.path == path and doc.display_name() == "d.boscage"
    other = make_small_scene(rows=7, cols=8)
    save_scene(other, tmp_path / "o.boscage")
    doc.undo_stack.push(Noop("b"))
    doc.load(tmp_path / "o.boscage")
    assert doc.scene.terrain.heights.shape == (7, 8) and replaced == [doc.scene]
    assert doc.undo_stack.count() == 0 and not doc.modified


def test_failed_load_keeps_the_scene_and_history(qapp, tmp_path) -> None:
    doc = SceneDocument(make_small_scene())
    scene = doc.scene
    doc.undo_stack.push(Noop("a"))
    (tmp_path / "bad.boscage").write_text("format = 'boscage-scene'\nversion = 99\n")
    with pytest.raises(FormatError, match="version"):
        doc.load(tmp_path / "bad.boscage")
    assert doc.scene is scene and doc.undo_stack.count() == 1 and doc.modified


def test_new_scene_is_flat_and_grassy() -> None:
    scene = new_scene(samples=9)
    assert scene.terrain.heights.shape == (9, 9) and not scene.terrain.heights.any()
    assert [la.name for la in scene.terrain.layers] == ["grass"]
    assert scene.terrain.bounds()[0] == -8.0
