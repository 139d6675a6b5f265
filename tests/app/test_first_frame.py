"""Start-up: the window and its panels come up at once, and the viewport says it is preparing the
view (over the sky, not a black rectangle) until the scene's first frame is drawn."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel


def test_the_viewport_says_it_is_preparing_until_the_first_frame(main_window, qtbot) -> None:
    viewport = main_window.viewport
    paints: list[tuple[bool, int]] = []  # each paint: the message shown?, scene frames drawn before
    paint = viewport.paintGL
    viewport.paintGL = lambda: paints.append((not waiting.isHidden(), viewport.frames_rendered)) or paint()
    waiting = viewport.findChild(QLabel, "viewport_waiting")
    assert waiting is not None and "first frame" in waiting.text()
    main_window.resize(900, 600)
    main_window.show()
    qtbot.waitUntil(lambda: viewport.frames_rendered > 0, timeout=60000)
    # the first paint shows the message (over the sky) and returns: the scene's first (slow) frame
    # is the next paint
    assert paints[:3] == [(True, 0), (True, 0), (False, 1)], paints
    assert not waiting.isVisible()  # gone with the scene's first frame
    centre = waiting.geometry().center()
    assert abs(centre.x() - viewport.width() // 2) <= 2 and abs(centre.y() - viewport.height() // 2) <= 2
    image = viewport.grabFramebuffer()
    assert not image.isNull() and image.pixelColor(5, 5).blue() > 0  # the sky, not black


@pytest.mark.slow
def test_bench_quick_passes_the_start_up_budget(capsys) -> None:
    import json

    from app.cli import run_cli

    code = run_cli(["bench", "--quick", "--json", "startup.first_frame_vs_bare_window"])
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert code == 0, rows


def test_the_window_comes_up_with_its_panels_before_the_demo_opens(qtbot, settings_folder, monkeypatch):
    from app import gui_entry
    from app.main_window import MainWindow

    seen = []
    real = MainWindow.open_scene

    def opening(self, scene):  # the moment the demo is handed to the window
        label = self.viewport.findChild(QLabel, "viewport_waiting")
        seen.append((self.isVisible(), self.docks["palette"].isVisible(), label.text(), label.isVisible(),
                     self.foliage_editor.palette_panel.thumbnails_pending()))
        real(self, scene)

    monkeypatch.setattr(MainWindow, "open_scene", opening)
    window = gui_entry.start_window(None, restore_layout=False)
    try:
        assert seen == [(True, True, "Opening the demo scene…", True, True)]  # thumbnails: placeholders
        assert window.document.scene.name == gui_entry.load_demo().name
        qtbot.waitUntil(lambda: window.viewport.frames_rendered > 0, timeout=60000)
        assert not window.viewport.findChild(QLabel, "viewport_waiting").isVisible()
        # the palette's thumbnails waited for the first frame and are rendered after it
        panel = window.foliage_editor.palette_panel
        qtbot.waitUntil(lambda: not panel.thumbnails_pending(), timeout=60000)
        from widgets.palette_panel import thumbnail

        for i, ftype in enumerate(panel.types):
            shown = panel.list.item(i).icon().pixmap(48, 48).toImage()
            assert shown == thumbnail(ftype, 48, panel.mesh_folder).pixmap(48, 48).toImage(), ftype.name
    finally:
        window.document.undo_stack.setClean()
        window.close()
        window.deleteLater()


def test_a_window_that_draws_no_frame_still_gets_its_palette_thumbnails(qtbot, settings_folder, small_scene,
                                                                        monkeypatch) -> None:
    from app import foliage_editor
    from app.main_window import MainWindow

    monkeypatch.setattr(foliage_editor, "THUMBNAILS_WAIT_MS", 200)
    window = MainWindow(small_scene, restore_layout=False, first_frame_first=True)  # never shown: no frame
    try:
        panel = window.foliage_editor.palette_panel
        assert panel.thumbnails_pending() and window.viewport.frames_rendered == 0
        qtbot.waitUntil(lambda: not panel.thumbnails_pending(), timeout=20000)
        assert window.viewport.frames_rendered == 0
    finally:
        window.document.undo_stack.setClean()
        window.close()
        window.deleteLater()
