"""File ▸ Export ▸ glTF / USD / CSV and File ▸ Import ▸ Foliage in the real editor: the menu actions,
the real options, progress and error dialogs (answered through the event loop); only the file
chooser is replaced."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDialogButtonBox,
    QFileDialog,
    QMessageBox,
    QProgressDialog,
    QPushButton,
)

from app.main_window import menu_titles
from model.foliage import FoliageType, foliage_of
from model.interchange import ExportOptions, export_scene
from model.interchange.geometry import terrain_vertex_count
from widgets.export_dialog import ExportOptionsDialog


def records(n: int, seed: int, span: float = 30.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    r = np.zeros((n, 7), np.float32)
    r[:, 0] = rng.uniform(-span, span, n)
    r[:, 2] = rng.uniform(-span, span, n)
    r[:, 1] = rng.uniform(0, 10, n)
    r[:, 3] = rng.uniform(0, 2 * np.pi, n)  # yaw beyond π: only exact angles survive a round trip
    r[:, 4] = rng.uniform(-0.2, 0.2, n)
    r[:, 6] = rng.uniform(0.7, 1.3, n)
    return r


@pytest.fixture
def forest(main_window):
    """The open scene with 60 conifers and 25 rocks stored."""
    foliage = foliage_of(main_window.document.scene)
    for name, mesh in (("conifer", "builtin:conifer"), ("rock", "builtin:rock")):
        if name not in foliage.palette:
            foliage.palette.add(FoliageType(name, mesh))
    foliage.volume.add("conifer", records(60, 1))
    foliage.volume.add("rock", records(25, 2))
    return foliage


@pytest.fixture
def choose_file(monkeypatch):
    """The file chooser answers `chosen["path"]` and records the filter it was offered."""
    chosen: dict = {"filters": []}

    def answer(parent, caption, start, name_filter, *a, **k):
        chosen["filters"].append(name_filter)
        chosen["start"] = start
        return str(chosen["path"]), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", answer)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", answer)
    return chosen


_WATCHERS: list[list[int]] = []


@pytest.fixture(autouse=True)
def _stop_watchers():
    """No dialog watcher of one test may answer another test's dialog."""
    yield
    for left in _WATCHERS:
        left[0] = -1
    _WATCHERS.clear()


def when_modal(kind, act, tries: int = 1000) -> list:
    """Run `act(widget)` on the next modal dialog of `kind` once the event loop shows it (looking
    every 10 ms, for at most `tries` looks, so a watcher never outlives its test for long)."""
    seen: list = []
    left = [tries]
    _WATCHERS.append(left)

    def poll() -> None:
        if left[0] < 0:  # its test is over
            return
        w = QApplication.activeModalWidget()
        if isinstance(w, kind) and w.isVisible() and w not in seen:
            seen.append(w)
            act(w)
        elif left[0] > 0:
            left[0] -= 1
            QTimer.singleShot(10, poll)

    QTimer.singleShot(0, poll)
    return seen


def error_boxes() -> list[str]:
    """Record the next error box's text and close it with OK."""
    texts: list[str] = []

    def close(box: QMessageBox) -> None:
        texts.append(box.text())
        box.button(QMessageBox.StandardButton.Ok).click()

    when_modal(QMessageBox, close)
    return texts


def press_export(dialog: ExportOptionsDialog) -> None:
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def action(main_window, name: str):
    (found,) = [a for a in main_window.findChildren(type(main_window.actions_by_key["new"]))
                if a.objectName() == name]
    return found


def chunks_bytes(volume) -> dict:
    return {key: chunk.records.tobytes() for key, chunk in volume.chunks()}


# ---- menus -----------------------------------------------------------------------------------------
def test_file_menu_has_export_entries_and_foliage_import(main_window) -> None:
    assert menu_titles(main_window.export_menu) == ["glTF…", "USD…", "CSV…"]
    assert "Foliage…" in menu_titles(main_window.import_menu)
    assert "Omniverse" in action(main_window, "action_export_usd").toolTip()


# ---- export ------------------------------------------------------------------------------------------
def test_usd_export_through_the_dialog_with_a_preset_types_and_terrain_step(main_window, forest, choose_file,
                                                                             tmp_path) -> None:
    from pxr import Usd, UsdGeom

    choose_file["path"] = tmp_path / "valley"  # no suffix: the format's default is added

    def answer(dialog: ExportOptionsDialog) -> None:
        dialog.preset.setCurrentText("Unreal")
        assert (dialog.up.currentText(), dialog.handedness.currentText(), dialog.units.currentText()) \
            == ("Z", "left", "centimetres")
        dialog.types.item(1).setCheckState(dialog.types.item(0).checkState().Unchecked)  # rock off
        dialog.step.setValue(4)
        press_export(dialog)

    when_modal(ExportOptionsDialog, answer)
    action(main_window, "action_export_usd").trigger()
    out = tmp_path / "valley.usdc"
    assert "*.usdc *.usda *.usdz" in choose_file["filters"][-1]
    stage = Usd.Stage.Open(str(out))
    assert UsdGeom.GetStageUpAxis(stage) == "Z"
    assert UsdGeom.GetStageMetersPerUnit(stage) == pytest.approx(0.01)
    assert [p.GetName() for p in stage.GetPrimAtPath("/World/Foliage").GetChildren()] == ["conifer"]
    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Foliage/conifer"))
    assert len(inst.GetPositionsAttr().Get()) == 60
    t = main_window.document.scene.terrain
    points = UsdGeom.Mesh(stage.GetPrimAtPath("/World/Terrain")).GetPointsAttr().Get()
    assert len(points) == terrain_vertex_count(t, 4) < t.rows * t.columns
    assert "Exported 60 instances of 1 type" in main_window.statusBar().currentMessage()
    # the choices are remembered: the next export starts from them; cancelling writes nothing
    before = out.read_bytes()
    remembered: list = []

    def look_and_cancel(dialog: ExportOptionsDialog) -> None:
        remembered.append((dialog.preset.currentText(), dialog.step.value(), dialog.units.currentText()))
        dialog.reject()

    when_modal(ExportOptionsDialog, look_and_cancel)
    choose_file["path"] = out
    action(main_window, "action_export_usd").trigger()
    assert remembered == [("Unreal", 4, "centimetres")]
    assert out.read_bytes() == before
    assert choose_file["start"] == str(tmp_path / "valley.usdc") or str(tmp_path) in choose_file["start"]


@pytest.mark.parametrize(("key", "suffix"), [("gltf", ".glb"), ("csv", ".csv"), ("csv", ".json")])
def test_gltf_and_csv_exports_from_the_menu(main_window, forest, choose_file, tmp_path, key, suffix) -> None:
    from model.interchange import read_foliage

    choose_file["path"] = tmp_path / f"out{suffix}"
    seen = when_modal(ExportOptionsDialog, press_export)
    action(main_window, f"action_export_{key}").trigger()
    assert seen and seen[0].kind == key
    if key == "gltf":
        assert not seen[0].up.isEnabled() and seen[0].plain.isVisibleTo(seen[0])
    back = read_foliage(tmp_path / f"out{suffix}")
    assert back.counts() == {"conifer": 60, "rock": 25}


def test_cancel_during_export_leaves_the_file_and_says_so(main_window, choose_file, tmp_path) -> None:
    foliage = foliage_of(main_window.document.scene)
    foliage.volume.add("conifer", records(40_000, 3, span=200.0))
    out = tmp_path / "big.usdc"
    out.write_bytes(b"the previous export")
    choose_file["path"] = out

    def export_then_cancel(dialog: ExportOptionsDialog) -> None:
        def cancel() -> None:
            bar = getattr(main_window, "export_progress", None)
            if bar is None or bar.dialog is None:
                QTimer.singleShot(0, cancel)
                return
            bar.dialog.findChild(QPushButton).click()  # the progress dialog's own Cancel button

        QTimer.singleShot(0, cancel)
        press_export(dialog)

    when_modal(ExportOptionsDialog, export_then_cancel)
    action(main_window, "action_export_usd").trigger()
    assert out.read_bytes() == b"the previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.usdc"]
    assert "Export cancelled" in main_window.statusBar().currentMessage()
    assert isinstance(main_window.export_progress.dialog, QProgressDialog)


def test_an_unwritable_target_is_a_clear_error(main_window, forest, choose_file, tmp_path) -> None:
    (tmp_path / "file").write_text("not a folder")
    choose_file["path"] = tmp_path / "file" / "out.usda"
    when_modal(ExportOptionsDialog, press_export)
    texts = error_boxes()
    action(main_window, "action_export_usd").trigger()
    assert texts and str(tmp_path / "file") in texts[0]
    assert "Traceback" not in texts[0] and "Error:" not in texts[0]


# ---- import -------------------------------------------------------------------------------------------
def _source_file(main_window, path) -> dict[str, np.ndarray]:
    """A file another session exported: 30 conifers (a type the open scene has) and 12 oaks (new)."""
    from model.scene import Scene

    t = main_window.document.scene.terrain
    other = Scene(terrain=t, name="other")
    foliage = foliage_of(other)
    foliage.palette.add(FoliageType("conifer", "builtin:conifer"))
    foliage.palette.add(FoliageType("oak", "builtin:broadleaf", density=0.4))
    wanted = {"conifer": records(30, 7), "oak": records(12, 8)}
    for name, rec in wanted.items():
        foliage.volume.add(name, rec)
    export_scene(other, path, ExportOptions(terrain=False))
    return wanted


@pytest.mark.parametrize("suffix", [".usdc", ".glb", ".csv"])
def test_import_foliage_is_one_undo_step_restoring_the_exact_bytes(main_window, forest, choose_file, tmp_path,
                                                                  suffix: str) -> None:
    source = tmp_path / f"incoming{suffix}"
    _source_file(main_window, source)
    volume, palette = forest.volume, forest.palette
    stack = main_window.document.undo_stack
    before, names_before, steps = chunks_bytes(volume), palette.names(), stack.count()
    choose_file["path"] = source
    action(main_window, "action_import_foliage").trigger()
    assert "Foliage instances (*.glb *.gltf *.usda *.usdc *.usdz *.csv *.json)" == choose_file["filters"][-1]
    assert stack.count() == steps + 1 and stack.text(stack.count() - 1) == f"Import foliage incoming{suffix}"
    assert volume.counts() == {"conifer": 90, "rock": 25, "oak": 12}
    assert palette.get("oak") is not None and palette.names() == names_before + ["oak"]
    assert "Imported 42 instances" in main_window.statusBar().currentMessage()
    assert main_window.document.modified
    after = chunks_bytes(volume)
    stack.undo()
    assert chunks_bytes(volume) == before and palette.names() == names_before
    stack.redo()
    assert chunks_bytes(volume) == after
    if suffix != ".csv":  # glTF extras and USD attributes carry the palette keys; CSV has no place for them
        oak = palette.get("oak")
        assert oak.density == pytest.approx(0.4) and oak.mesh == "builtin:broadleaf"


def test_import_asks_nothing_about_unsaved_changes_and_keeps_the_scene(main_window, forest, choose_file,
                                                                     tmp_path) -> None:
    asked = when_modal(QMessageBox, lambda box: box.reject(), tries=300)  # e.g. "Save your changes?"
    main_window.document.mark_modified()
    scene = main_window.document.scene
    _source_file(main_window, tmp_path / "in.usda")
    choose_file["path"] = tmp_path / "in.usda"
    action(main_window, "action_import_foliage").trigger()
    assert asked == [] and main_window.document.scene is scene and forest.volume.count("oak") == 12


@pytest.mark.parametrize(("name", "data", "words"), [
    ("broken.usda", b"#usda 1.0\ndef Xform (((", "not a readable USD file"),
    ("empty.csv", b"type,x,y,z\n", ""),
    ("nothing.usda", b"#usda 1.0\ndef Xform \"World\" {}\n", "holds no foliage instances"),
])
def test_a_bad_file_is_one_clear_error_and_changes_nothing(main_window, forest, choose_file, tmp_path,
                                                           name: str, data: bytes, words: str) -> None:
    (tmp_path / name).write_bytes(data)
    choose_file["path"] = tmp_path / name
    stack = main_window.document.undo_stack
    before, steps = chunks_bytes(forest.volume), stack.count()
    texts = error_boxes()
    action(main_window, "action_import_foliage").trigger()
    assert len(texts) == 1 and name in texts[0] and words in texts[0]
    assert "Traceback" not in texts[0]
    assert stack.count() == steps and chunks_bytes(forest.volume) == before


def test_usd_plain_prims_and_a_region_from_the_dialog(main_window, forest, choose_file, tmp_path) -> None:
    from pxr import Usd, UsdGeom

    choose_file["path"] = tmp_path / "part.usda"

    def answer(dialog: ExportOptionsDialog) -> None:
        assert dialog.plain.isVisibleTo(dialog) and "One prim per instance" in dialog.plain.text()
        dialog.preset.setCurrentText("Blender")
        assert "half precision" in dialog.note.text() and dialog.up.currentText() == "Z"
        dialog.preset.setCurrentText("Omniverse")
        assert "half precision" not in dialog.note.text()
        dialog.plain.setChecked(True)
        dialog.region_on.setChecked(True)
        for box, value in zip(dialog.region, (-30.0, -30.0, 0.0, 30.0), strict=True):
            box.setValue(value)
        dialog.terrain.setChecked(False)
        assert not dialog.step.isEnabled()
        press_export(dialog)

    when_modal(ExportOptionsDialog, answer)
    action(main_window, "action_export_usd").trigger()
    stage = Usd.Stage.Open(str(tmp_path / "part.usda"))
    assert not stage.GetPrimAtPath("/World/Terrain")
    west = {name: int((forest.volume.all_records(name)[:, 0] < 0).sum()) for name in ("conifer", "rock")}
    for name, count in west.items():
        group = stage.GetPrimAtPath(f"/World/Foliage/{name}")
        assert not group.IsA(UsdGeom.PointInstancer) and len(group.GetChildren()) == count


def test_an_empty_region_is_refused_in_plain_words(main_window, forest, choose_file, tmp_path) -> None:
    choose_file["path"] = tmp_path / "none.usdc"

    def answer(dialog: ExportOptionsDialog) -> None:
        dialog.region_on.setChecked(True)
        dialog.region[2].setValue(dialog.region[0].value())  # x1 = x0
        press_export(dialog)

    when_modal(ExportOptionsDialog, answer)
    texts = error_boxes()
    action(main_window, "action_export_usd").trigger()
    assert texts and "is empty: need x0 < x1 and z0 < z1" in texts[0]
    assert not (tmp_path / "none.usdc").exists()


def test_an_option_a_format_does_not_take_is_not_drawn_over_the_form(qtbot) -> None:
    from widgets.export_dialog import KINDS, ExportOptionsDialog

    for kind in KINDS:
        dialog = ExportOptionsDialog(kind, f"/tmp/forest.{kind}", {"pine": 3}, (0.0, 0.0, 10.0, 10.0))
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        assert dialog.matrix.isVisible() == (kind == "csv")
        assert dialog.plain.isVisible() == (kind != "csv")
        dialog.close()
