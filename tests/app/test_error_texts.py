"""No dialog or status line shows a Python exception's text: expected errors are their own sentence,
unexpected ones a plain sentence with the Python details tucked under Show Details."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from app import main_window as mw_module
from app.extensions import Importer, ToolWindow
from app.tools import Tool
from model.formats.scene_file import save_scene
from tests.conftest import make_small_scene

PYTHON_TEXT = re.compile(r"\b[A-Z]\w*(Error|Exception)\b|Traceback|\[Errno \d+\]|^'.*'$")


@pytest.fixture
def dialogs(monkeypatch):
    """Every message box the editor raises, read from the real box instead of shown."""
    shown: list[dict] = []

    def critical(parent, title, text, *a, **k):
        shown.append({"title": title, "text": text, "details": ""})

    def run(box):
        shown.append({"title": box.windowTitle(), "text": box.text(), "informative": box.informativeText(),
                      "details": box.detailedText()})
        return 0

    monkeypatch.setattr(mw_module.QMessageBox, "critical", critical)
    monkeypatch.setattr(QMessageBox, "open", run)
    return shown


def readable(text: str) -> bool:
    return bool(text) and not PYTHON_TEXT.search(text)


def test_an_importer_that_breaks_shows_a_sentence_and_keeps_the_details(main_window, dialogs) -> None:
    def broken(window):
        raise KeyError("zone 0 has no altitude layer")

    scene = main_window.document.scene
    main_window.run_importer(Importer("zone", "Zone as Scene…", broken))
    assert len(dialogs) == 1
    box = dialogs[0]
    assert box["text"] == ("Zone as Scene stopped on a problem Boscage did not expect; the open scene is "
                           "unchanged.")
    assert "Show Details" in box["informative"]
    assert "KeyError: 'zone 0 has no altitude layer'" in box["details"]
    assert readable(main_window.last_error) and main_window.statusBar().currentMessage() == box["text"]
    assert main_window.document.scene is scene


def test_an_unexpected_failure_while_opening_a_scene(main_window, dialogs, tmp_path, monkeypatch) -> None:
    from app import document as document_module

    path = tmp_path / "odd.boscage"
    save_scene(make_small_scene(rows=9, cols=11), path)

    def broken(p, *args):
        raise IndexError("list index out of range")

    monkeypatch.setattr(document_module, "load_scene", broken)
    assert main_window.open_file(path) is False
    (box,) = dialogs
    assert str(path) in box["text"] and readable(box["text"].replace(str(path), "FILE"))
    assert "IndexError" in box["details"]


def test_a_tool_window_that_cannot_be_made(main_window, dialogs) -> None:
    def broken(window):
        raise AttributeError("'NoneType' object has no attribute 'zone'")

    main_window.tool_window_specs["broken"] = ToolWindow("broken", "Broken Browser", broken)
    assert main_window.tool_window("broken") is None
    (box,) = dialogs
    assert box["title"] == "Could not open Broken Browser" and readable(box["text"])
    assert "AttributeError" in box["details"]


def test_a_drawing_failure_names_no_python_error(main_window, dialogs) -> None:
    main_window.viewport.gl_failed.emit("FoliageRenderer: KeyError: 'conifer'")
    (box,) = dialogs
    assert readable(box["text"]) and "KeyError" in box["details"]


def test_a_refused_palette_edit_is_a_plain_sentence(main_window, dialogs) -> None:
    editor = main_window.foliage_editor

    def refuse():
        raise KeyError("the palette has no type named 'ghost'")

    assert editor._push(refuse) is False
    (box,) = dialogs
    assert box["text"] == "The palette has no type named 'ghost'" and readable(box["text"])


def test_saving_where_it_cannot_write_names_the_file_and_the_reason(main_window, dialogs, tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    where = tmp_path / "notes.txt" / "scene.boscage"
    assert main_window._save_to(where) is False
    (box,) = dialogs
    # names what it was writing and what stood in the way, in words
    assert box["text"].startswith(str(tmp_path / "notes.txt") + "/")
    assert box["text"].endswith(f"{tmp_path / 'notes.txt'} is a file, not a folder")
    assert readable(box["text"].replace(str(tmp_path / "notes.txt"), "FILE"))


def test_a_tool_that_breaks_says_so_in_words(main_window, qtbot) -> None:
    class Broken(Tool):
        tool_key, title = "broken", "Broken"

        def press(self, pos, modifiers):
            raise ZeroDivisionError("float division by zero")

    host = main_window.tool_host
    tool = Broken()
    host.add_tool(tool, "action_broken")
    host.activate(tool)
    messages = []
    host.message.connect(messages.append)
    viewport = main_window.viewport
    left = Qt.MouseButton.LeftButton
    press = QMouseEvent(QMouseEvent.Type.MouseButtonPress, QPointF(50, 50), QPointF(50, 50), left, left,
                        Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, press)
    assert messages and all(readable(m) for m in messages), messages
    assert messages[-1].startswith("The Broken tool stopped")


def test_no_user_text_is_built_from_an_exception_type() -> None:
    """The source keeps no `type(e).__name__` or `{e!r}` in what the editor shows."""
    root = Path(__file__).resolve().parents[2]
    offenders = []
    for folder in ("app", "widgets", "rendering"):
        for path in (root / folder).rglob("*.py"):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(("app/cli/", "app/bench/")) or rel in ("app/extensions/zones.py",
                                                                     "widgets/trn_browser.py"):
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"type\((e|exc|error)\)\.__name__|\{(e|exc|error)!r\}", line):
                    offenders.append(f"{rel}:{n}")
    assert offenders == []
