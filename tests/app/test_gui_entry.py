"""`boscage SCENE` in the editor: the window comes up, then the scene opens (or one error, then the demo)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

from app import gui_entry
from app import main_window as mw_module
from app.main_window import MainWindow
from model.formats.scene_file import save_scene
from tests.conftest import make_small_scene


@pytest.fixture
def started(qtbot, settings_folder, monkeypatch):
    """run_gui without entering the event loop; the windows it made are closed afterwards."""
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    monkeypatch.setattr(QApplication, "exec", lambda *a: 0)
    before = set(QApplication.topLevelWidgets())

    def run(*argv: str) -> MainWindow:
        assert gui_entry.run_gui(list(argv)) == 0
        qtbot.wait(20)  # the recovery offer queued for once the window is up
        (window,) = [w for w in QApplication.topLevelWidgets()
                     if isinstance(w, MainWindow) and w not in before and w.isVisible()]
        before.add(window)
        return window

    yield run, shown
    for w in QApplication.topLevelWidgets():
        if isinstance(w, MainWindow) and w.isVisible():
            w.document.undo_stack.setClean()
            w.close()
            w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_a_scene_named_on_the_command_line_opens_in_the_window(started, tmp_path) -> None:
    run, shown = started
    path = tmp_path / "valley.boscage"
    save_scene(make_small_scene(rows=7, cols=9), path)
    window = run(str(path))
    assert shown == [] and window.document.scene.terrain.heights.shape == (7, 9)
    assert window.document.path == path and str(path.resolve()) in window.settings.recent_files()
    assert not window.document.modified


def test_a_bad_scene_on_the_command_line_is_one_error_then_the_demo(started, tmp_path) -> None:
    run, shown = started
    bad = tmp_path / "broken.boscage"
    bad.write_text('format = "boscage-scene"\nversion = 7\n')
    window = run(str(bad))
    assert len(shown) == 1 and "broken.boscage" in shown[0][1] and "version" in shown[0][1]
    assert window.document.scene.name == "Demo" and window.document.path is None
