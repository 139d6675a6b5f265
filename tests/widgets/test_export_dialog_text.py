"""The export dialog offers only what the format writes, in plain words."""

from __future__ import annotations

from widgets.export_dialog import ExportOptionsDialog


def dialog_for(qtbot, kind: str) -> ExportOptionsDialog:
    dialog = ExportOptionsDialog(kind, f"/tmp/forest.{kind}", {"pine": 3}, (0.0, 0.0, 10.0, 10.0))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_csv_offers_no_terrain_it_would_not_write(qtbot) -> None:
    dialog = dialog_for(qtbot, "csv")
    assert not dialog.terrain.isVisible() and not dialog.step.isVisible()
    for kind in ("gltf", "usd"):
        assert dialog_for(qtbot, kind).terrain.isVisible()


def test_the_terrain_resolution_reads_as_words(qtbot) -> None:
    dialog = dialog_for(qtbot, "gltf")
    step = dialog.step
    step.setValue(1)
    assert step.text() == "every sample (full detail)"
    step.setValue(4)
    assert step.text() == "every 4 samples"


def test_export_is_off_while_the_file_would_hold_nothing_and_says_why(qtbot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialogButtonBox

    def export_button(dialog):
        return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)

    empty_csv = ExportOptionsDialog("csv", "/tmp/x.csv", {}, (0.0, 0.0, 10.0, 10.0))
    qtbot.addWidget(empty_csv)
    empty_csv.show()
    assert not export_button(empty_csv).isEnabled() and "no stored foliage" in empty_csv.nothing.text()
    assert not empty_csv.types.isVisible()  # no empty list box
    gltf = dialog_for(qtbot, "gltf")
    assert export_button(gltf).isEnabled() and not gltf.nothing.isVisible()
    gltf.types.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert export_button(gltf).isEnabled()  # the terrain alone is worth a file
    gltf.terrain.setChecked(False)
    assert not export_button(gltf).isEnabled() and "no type is ticked" in gltf.nothing.text()
    gltf.types.item(0).setCheckState(Qt.CheckState.Checked)
    assert export_button(gltf).isEnabled() and not gltf.nothing.isVisible()
