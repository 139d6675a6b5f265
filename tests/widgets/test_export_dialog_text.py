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
