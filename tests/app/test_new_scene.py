"""File ▸ New: the dialog (size, spacing, base height), its test hook, and the options remembered."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtWidgets import QDialog, QDialogButtonBox

from app.main_window import MainWindow
from widgets import new_scene_dialog as dialog_module
from widgets.new_scene_dialog import MAX_SAMPLES, MIN_SPACING, NewSceneDialog, NewSceneOptions


def test_the_dialog_offers_what_it_is_given_and_restores_the_defaults(qtbot) -> None:
    dialog = NewSceneDialog(NewSceneOptions(129, 0.5, -3.0))
    qtbot.addWidget(dialog)
    assert dialog.options() == NewSceneOptions(129, 0.5, -3.0)
    assert dialog.extent.text() == "64 × 64 m (129 × 129 samples)"
    dialog.samples.setValue(513)
    dialog.spacing.setValue(4.0)
    dialog.base_height.setValue(12.5)
    assert dialog.options() == NewSceneOptions(513, 4.0, 12.5)
    assert dialog.extent.text() == "2048 × 2048 m (513 × 513 samples)"  # follows the fields
    dialog.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).click()
    assert dialog.options() == NewSceneOptions(257, 2.0, 0.0) == NewSceneOptions()
    assert all(w.toolTip() for w in (dialog.samples, dialog.spacing, dialog.base_height))


def test_options_out_of_range_or_not_numbers_are_brought_back() -> None:
    assert NewSceneOptions(10**9, 0.0, 1e12).clamped() == NewSceneOptions(MAX_SAMPLES, MIN_SPACING, 100_000.0)
    assert NewSceneOptions(1, math.nan, -math.inf).clamped() == NewSceneOptions(2, 2.0, 0.0)


def test_ask_new_scene_returns_the_choice_or_none_when_cancelled(qtbot, monkeypatch) -> None:
    def accept(dialog):
        dialog.samples.setValue(65)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(NewSceneDialog, "exec", accept)
    assert dialog_module.ask_new_scene(None, NewSceneOptions(33, 1.0, 5.0)) == NewSceneOptions(65, 1.0, 5.0)
    monkeypatch.setattr(NewSceneDialog, "exec", lambda dialog: QDialog.DialogCode.Rejected)
    assert dialog_module.ask_new_scene(None, NewSceneOptions()) is None


def test_file_new_builds_the_chosen_terrain_and_remembers_the_choice(main_window, qtbot) -> None:
    offered: list[NewSceneOptions] = []

    def answer(chosen):
        def ask(parent, options):
            assert parent is main_window
            offered.append(options)
            return chosen
        return ask

    main_window.ask_new_scene = answer(NewSceneOptions(65, 3.0, 7.5))
    main_window.actions_by_key["new"].trigger()
    assert offered == [NewSceneOptions()]  # nothing remembered yet: the defaults
    terrain = main_window.document.scene.terrain
    assert terrain.heights.shape == (65, 65) and terrain.spacing == 3.0
    assert np.all(terrain.heights == 7.5) and terrain.heights.dtype == np.float32
    assert terrain.origin == (-96.0, -96.0)  # centred on the origin
    assert float(terrain.height_at(0.0, 0.0)) == 7.5
    assert [layer.name for layer in terrain.layers] == ["grass"]
    assert main_window.document.scene.name == "Untitled" and not main_window.document.modified
    assert "192 × 192 m" in main_window.statusBar().currentMessage()
    # Cancelled: the open scene stays, and the remembered choice is the last one made.
    scene = main_window.document.scene
    main_window.ask_new_scene = answer(None)
    assert main_window.new_scene() is False
    assert main_window.document.scene is scene
    assert offered[-1] == NewSceneOptions(65, 3.0, 7.5)
    # The choice survives a restart (it lives in the settings file).
    main_window.settings.sync()
    again = MainWindow(restore_layout=False)
    qtbot.addWidget(again)
    assert again.new_scene_options() == NewSceneOptions(65, 3.0, 7.5)


@pytest.mark.parametrize("key, value, expected", [
    ("new_scene/samples", "lots", NewSceneOptions()),
    ("new_scene/spacing", "nan", NewSceneOptions(65, 2.0, 1.0)),
    ("new_scene/base_height", "1e999", NewSceneOptions(65, 4.0, 0.0)),
    ("new_scene/samples", "100000", NewSceneOptions(MAX_SAMPLES, 4.0, 1.0)),
])
def test_unreadable_remembered_options_fall_back_to_defaults(main_window, key, value, expected) -> None:
    q = main_window.settings.qsettings
    q.setValue("new_scene/samples", 65)
    q.setValue("new_scene/spacing", 4.0)
    q.setValue("new_scene/base_height", 1.0)
    q.setValue(key, value)
    assert main_window.new_scene_options() == expected
