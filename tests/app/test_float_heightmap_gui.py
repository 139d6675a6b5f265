"""Float heightmaps (EXR, TIFF, RAW R32) through the Terrain menu and File ▸ Import ▸ Heightmap as Scene."""

from __future__ import annotations

import numpy as np
import pytest

from app import main_window as mw_module
from app.terrain_editor import install
from model.formats.heightmap import NAME_FILTER, write_heightmap


@pytest.fixture
def errors(monkeypatch):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    return shown


@pytest.fixture
def answer_dialogs(monkeypatch):
    """The file chooser answers `path`; the real options dialog is built, recorded and accepted."""
    from PySide6.QtWidgets import QDialog, QFileDialog

    from widgets.heightmap_dialog import HeightmapOptionsDialog

    chosen: dict = {"filters": [], "dialogs": []}

    def choose(parent, caption, start, name_filter, *a, **k):
        chosen["filters"].append(name_filter)
        return str(chosen["path"]), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", choose)

    def exec_(dialog):
        chosen["dialogs"].append(dialog)
        for key, value in chosen.get("options", {}).items():
            getattr(dialog, key).setValue(value)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(HeightmapOptionsDialog, "exec", exec_)
    monkeypatch.setattr(mw_module.QMessageBox, "warning",
                        lambda *a, **k: mw_module.QMessageBox.StandardButton.Discard)
    return chosen


def _import_action(main_window):
    (action,) = [a for a in main_window.import_menu.actions() if a.objectName() == "action_import_heightmap"]
    return action


@pytest.mark.parametrize("suffix", [".exr", ".tif", ".r32"])
def test_terrain_menu_round_trips_float_heights_bit_for_bit(main_window, answer_dialogs, errors, tmp_path,
                                                            suffix: str) -> None:
    editor = install(main_window)
    terrain = main_window.document.scene.terrain
    terrain.heights[:] = terrain.heights + np.float32(1e-4) * np.arange(terrain.columns, dtype=np.float32)
    before = terrain.heights.copy()
    answer_dialogs["path"] = tmp_path / f"h{suffix}"
    editor.actions["export_heights"].trigger()
    assert "*.exr *.tif *.tiff *.r32" in answer_dialogs["filters"][-1] == NAME_FILTER
    assert "Float heights are stored exactly" in _labels(answer_dialogs["dialogs"][-1])
    terrain.heights[:] = 0.0
    editor.actions["import_heights"].trigger()
    assert errors == []
    np.testing.assert_array_equal(terrain.heights.view(np.uint32), before.view(np.uint32))
    assert main_window.document.undo_stack.text(main_window.document.undo_stack.count() - 1) \
        == f"Import heightmap h{suffix}"
    main_window.document.undo_stack.undo()
    assert (terrain.heights == 0).all()


def test_heightmap_as_scene_reads_r32_with_its_square_size_offered(main_window, answer_dialogs, errors,
                                                                   tmp_path) -> None:
    heights = np.linspace(-20, 480, 19 * 19, dtype=np.float32).reshape(19, 19)
    write_heightmap(tmp_path / "gaea.r32", heights)
    answer_dialogs.update(path=tmp_path / "gaea.r32", options={"spacing": 2.0})
    _import_action(main_window).trigger()
    dialog = answer_dialogs["dialogs"][-1]
    assert "1,444 bytes: 19 × 19 samples if square" in dialog.header.text()
    assert not dialog.columns.isHidden() and "× 4 bytes" in dialog.columns.toolTip()
    terrain = main_window.document.scene.terrain
    np.testing.assert_array_equal(terrain.heights, heights)
    assert terrain.spacing == 2.0 and errors == []
    # The wrong size: one error naming both byte counts; the open scene stays.
    answer_dialogs["options"] = {"columns": 18, "rows": 19}
    _import_action(main_window).trigger()
    assert "expected 18 x 19 x 4 = 1368 bytes, file holds 1444" in errors[-1][1]
    assert main_window.document.scene.terrain is terrain


def test_heightmap_as_scene_reads_a_tiff_with_its_spacing_and_refuses_nan_exr(main_window, answer_dialogs,
                                                                              errors, tmp_path) -> None:
    heights = np.linspace(0, 90, 9 * 13, dtype=np.float32).reshape(9, 13)
    write_heightmap(tmp_path / "wm.tif", heights, spacing=3.5)
    answer_dialogs["path"] = tmp_path / "wm.tif"
    _import_action(main_window).trigger()
    assert "13 × 9 samples, 3.5 m spacing stored in the file" in answer_dialogs["dialogs"][-1].header.text()
    terrain = main_window.document.scene.terrain
    assert terrain.spacing == 3.5 and terrain.heights.shape == (9, 13)
    heights[4, 6] = np.nan
    write_heightmap(tmp_path / "hole.exr", heights)
    answer_dialogs["path"] = tmp_path / "hole.exr"
    _import_action(main_window).trigger()
    assert "hole.exr: row 4, column 6: height is nan (1 NaN or infinite samples)" in errors[-1][1]
    assert "Traceback" not in errors[-1][1]
    assert main_window.document.scene.terrain is terrain


def _labels(dialog) -> str:
    from PySide6.QtWidgets import QLabel

    return " ".join(w.text() for w in dialog.findChildren(QLabel))
