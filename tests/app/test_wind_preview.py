"""View ▸ Wind Preview: toggled and strength chosen from the menu, remembered in the settings."""

from __future__ import annotations

from app.settings import Settings


def test_the_wind_preview_is_off_by_default_and_remembered(main_window) -> None:
    toggle = main_window.actions_by_key["wind_preview"]
    assert not toggle.isChecked() and main_window.viewport.wind == 0.0
    main_window.actions_by_key["wind_gale"].trigger()  # choosing a strength shows it
    assert toggle.isChecked() and main_window.viewport.wind == 3.5
    assert Settings().wind_preview() == (True, 3.5)
    toggle.trigger()
    assert main_window.viewport.wind == 0.0 and Settings().wind_preview() == (False, 3.5)
    toggle.trigger()
    assert main_window.viewport.wind == 3.5


def test_a_new_window_starts_with_the_remembered_wind(qtbot, settings_folder, small_scene) -> None:
    from app.main_window import MainWindow

    Settings().set_wind_preview(True, 2.0)
    window = MainWindow(small_scene, restore_layout=False)
    qtbot.addWidget(window)
    try:
        assert window.viewport.wind == 2.0
        assert window.actions_by_key["wind_preview"].isChecked()
        assert window.actions_by_key["wind_windy"].isChecked()
    finally:
        window.viewport.set_wind(0.0)
        window.document.undo_stack.setClean()
        window.close()


def test_wind_without_a_screenshot_is_a_usage_error(capsys) -> None:
    from app.gui_entry import run_gui

    assert run_gui(["--wind"]) == 2
    assert "--wind" in capsys.readouterr().err
