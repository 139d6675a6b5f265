"""The plant rule inspector and File ▸ Import ▸ Grow a forest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.extensions import importers, tool_windows
from model.zones import write_zone
from model.zones.sample import sample_zone
from widgets.plant_inspector import NAME_ROLE, PlantInspector

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "plants"


@pytest.fixture()
def inspector(qtbot) -> PlantInspector:
    widget = PlantInspector(folder=SAMPLE)
    qtbot.addWidget(widget)
    return widget


def _row(table, key: str) -> list[str]:
    for r in range(table.rowCount()):
        if table.item(r, 0).text() == key:
            return [table.item(r, c).text() for c in range(table.columnCount())]
    raise AssertionError(f"no row {key}")


def test_lists_the_folder_and_shows_merged_fields_with_origins(inspector: PlantInspector) -> None:
    assert inspector.names() == ["bush_a", "bush_b", "grass_a", "irontree_lo", "irontree_t2", "pine",
                                 "reed", "wall"]
    assert "8 rules, 0 errors, 2 warnings" in inspector.status.text()
    assert inspector.select_rule("irontree_t2")
    assert _row(inspector.fields, "fruitAmount")[1:4] == ["125", "int", "irontree_t2.txt:2"]
    assert _row(inspector.fields, "health")[3] == "irontree_lo.txt:13"
    assert _row(inspector.fields, "damageScale")[3:] == ["(default)", "1.0"]


def test_text_tab_marks_lint_lines(qtbot, tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("index=n1\nhealth=N1,1\nblockingHeight=40,1A\n"
                                    "state_0=N0,1\naction_0=N1\nstate_1=N1\naction_1=N1,0\nfertilty=n1\n")
    widget = PlantInspector(folder=tmp_path)
    qtbot.addWidget(widget)
    assert widget.current_name() == "r"
    assert "blockingHeight=40,1A" in widget.text.toPlainText()
    marked = sorted(sel.cursor.blockNumber() + 1 for sel in widget.text.extraSelections())
    assert marked == [3, 8]
    messages = [widget.lint_list.item(i).text() for i in range(widget.lint_list.count())]
    assert any("bare array" in m for m in messages) and any("unknown key" in m for m in messages)
    widget.lint_list.itemClicked.emit(widget.lint_list.item(1))
    assert widget.text.textCursor().blockNumber() + 1 in (3, 8)
    assert "⚠" in widget.rule_list.item(0).text()


def test_state_graph_and_figures(inspector: PlantInspector) -> None:
    inspector.select_rule("grass_a")
    graph = inspector.graph
    assert set(graph.nodes) == {"S0", "S1", "S2", "S3", "death"}
    edges = {(a, b): p for a, b, p in graph.edges}
    assert edges[("S0", "S0")] == pytest.approx(2 / 3) and edges[("S3", "death")] == pytest.approx(0.25)
    assert "expected lifetime 26.0 ticks" in inspector.summary.text()
    assert inspector.shares.rowCount() == 4
    x, y = inspector.survival_curve.getData()
    assert y[0] == 1.0 and y[-1] < 0.01 and np.all(np.diff(y) <= 0)
    inspector.select_rule("bush_a")
    assert "T6" in inspector.graph.nodes  # BushA turns into BushB
    inspector.select_rule("irontree_lo")
    assert "first fruit after 18.0 ticks" in inspector.summary.text()


def test_bad_files_and_folders_are_reported(qtbot, tmp_path: Path) -> None:
    (tmp_path / "bad.txt").write_text("index=n1\nhealth=nx\n")
    widget = PlantInspector()
    qtbot.addWidget(widget)
    assert not widget.open_folder(tmp_path / "missing")
    assert "not a folder" in widget.status.text()
    assert widget.open_folder(tmp_path)
    item = widget.rule_list.item(0)
    assert item.data(NAME_ROLE) == "bad" and "✖" in item.text()
    assert "bad.txt: line 2" in widget.summary.text()
    assert widget.graph.nodes == {}


def test_tool_window_and_importer_are_registered(qtbot, tmp_path: Path, monkeypatch) -> None:
    window = next(w for w in tool_windows() if w.key == "plant_inspector")
    widget = window.create(None)
    qtbot.addWidget(widget)
    assert isinstance(widget, PlantInspector) and window.shortcut
    assert any(i.key == "plant_forest" for i in importers())


def test_grow_a_forest_returns_a_scene_with_stored_and_derived_plants(qtbot, tmp_path: Path,
                                                                      monkeypatch) -> None:
    from widgets.plant_grow import grow_forest_scene

    errors: list[str] = []
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.critical", lambda p, t, text: errors.append(text))
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.warning",  # the sample set has no GrassB rule
                        lambda *a: widgets_ok())
    write_zone(sample_zone(2, 64, seed=3), tmp_path / "zone")
    scene = grow_forest_scene(None, tmp_path / "zone", SAMPLE, passes=3, seed=2, fertility=15)
    assert scene is not None and not errors
    foliage = scene.sections["foliage"]
    assert foliage.volume.count() > 0
    assert any(t.derived for t in foliage.palette)
    assert grow_forest_scene(None, tmp_path / "zone", tmp_path / "nope", passes=1) is None
    assert errors and "rules folder not found" in errors[0]


def test_grow_a_forest_on_the_open_scene(qtbot, monkeypatch) -> None:
    from types import SimpleNamespace

    from model.scene import Scene
    from model.terrain import Terrain
    from widgets.plant_grow import grow_forest_on_scene

    errors: list[str] = []
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.critical", lambda p, t, text: errors.append(text))
    assert grow_forest_on_scene(None, SAMPLE, passes=1) is None and "Open a scene first" in errors[0]
    terrain = Terrain(np.zeros((48, 48), np.float32), spacing=1.0)
    terrain.add_layer("LowlandA", (0, 200, 0), np.full((48, 48), 255, np.uint8))
    window = SimpleNamespace(document=SimpleNamespace(scene=Scene(terrain=terrain, name="flat")))
    scene = grow_forest_on_scene(window, SAMPLE, passes=4, seed=2, fertility=15)
    assert scene is not None and scene is not window.document.scene
    assert scene.sections["foliage"].volume.count() > 0 and "foliage" not in window.document.scene.sections


def widgets_ok():
    from PySide6.QtWidgets import QMessageBox

    return QMessageBox.StandardButton.Ok


def test_an_empty_rules_folder_says_it_holds_no_rules(qtbot, tmp_path: Path) -> None:
    widget = PlantInspector()
    qtbot.addWidget(widget)
    assert widget.open_folder(tmp_path)
    assert widget.status.text() == f"✖ {tmp_path}: no plant rules here: a rules folder holds GenXY rule " \
                                   "files (*.txt); it is empty"


def _grow_setup(tmp_path: Path, monkeypatch, answer):
    from tests.model.plants.conftest import simple_rule, write_rules

    write_zone(sample_zone(2, 64, seed=3), tmp_path / "zone")
    rules = write_rules(tmp_path / "rules", {"grass.txt": simple_rule(1)})
    seen: dict[str, list] = {"warnings": [], "errors": []}
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.critical",
                        lambda p, t, text: seen["errors"].append(text))

    def warning(parent, title, text, *rest):
        seen["warnings"].append((title, text))
        return answer()

    monkeypatch.setattr("widgets.plant_grow.QMessageBox.warning", warning)
    return rules, seen


def _fill_and_accept(qtbot, zone: Path, rules: Path, drop: bool) -> None:
    """Drive the real Grow dialog once it is up: folders, passes, the drop choice, OK."""
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication, QDialogButtonBox

    from widgets.plant_grow import GrowForestDialog

    def act() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, GrowForestDialog):
            QTimer.singleShot(20, act)
            return
        try:
            assert not dialog.drop_unknown.isChecked() and dialog.drop_unknown.isVisibleTo(dialog)
            dialog.zone_edit.setText(str(zone))
            dialog.rules_edit.setText(str(rules))
            dialog.passes.setValue(2)
            if drop:
                qtbot.mouseClick(dialog.drop_unknown, Qt.MouseButton.LeftButton)
                assert dialog.drop_unknown.isChecked()
        except Exception:
            dialog.reject()  # the test fails on the missing scene instead of waiting forever
            raise
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok).click()

    QTimer.singleShot(0, act)


def test_growing_reports_plants_without_a_rule_and_keeps_them(qtbot, tmp_path: Path, monkeypatch) -> None:
    from model.zones import read_zone
    from widgets.plant_grow import grow_forest_scene

    rules, seen = _grow_setup(tmp_path, monkeypatch, widgets_ok)
    zone = read_zone(tmp_path / "zone", 2)
    kinds = zone.plants["type"]
    others = sorted(int(k) for k in np.unique(kinds) if k not in (0, 1))
    _fill_and_accept(qtbot, tmp_path / "zone", rules, drop=False)
    scene = grow_forest_scene(None)
    assert scene is not None and not seen["errors"]
    [(title, text)] = seen["warnings"]
    assert title == "Plants without a rule"
    assert f"{rules} has no rule for {len(others)} plant types on zone 2: " in text
    assert "They will be kept as they are" in text
    from model.zones.names import PLANT_TYPES

    assert {PLANT_TYPES[k] for k in others} <= set(scene.sections["foliage"].palette.names())
    # Ticking the choice removes them.
    seen["warnings"].clear()
    _fill_and_accept(qtbot, tmp_path / "zone", rules, drop=True)
    scene = grow_forest_scene(None)
    assert "They will be removed" in seen["warnings"][0][1]
    assert not {PLANT_TYPES[k] for k in others} & set(scene.sections["foliage"].palette.names())


def test_growing_can_be_stopped_at_the_report(qtbot, tmp_path: Path, monkeypatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    from widgets.plant_grow import grow_forest_scene

    rules, seen = _grow_setup(tmp_path, monkeypatch, lambda: QMessageBox.StandardButton.Cancel)
    assert grow_forest_scene(None, tmp_path / "zone", rules, passes=1) is None
    assert len(seen["warnings"]) == 1 and not seen["errors"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert grow_forest_scene(None, tmp_path / "zone", empty, passes=1) is None
    assert "no plant rules here" in seen["errors"][0]


def test_growing_offers_only_zones_with_altitude_and_plants(qtbot, tmp_path: Path, monkeypatch) -> None:
    from model.zones import write_zone as write
    from widgets.plant_grow import grow_forest_scene

    rules, seen = _grow_setup(tmp_path, monkeypatch, widgets_ok)
    bare = sample_zone(9, 32)
    del bare.layers["plants"]
    write(bare, tmp_path / "zone")
    asked = []
    monkeypatch.setattr("widgets.zone_open.QInputDialog.getItem",
                        lambda *a: asked.append(a[3]) or ("2", True))
    assert grow_forest_scene(None, tmp_path / "zone", rules, passes=1) is not None
    assert asked == []  # zone 9 has no plants to grow: only zone 2 is left, nothing to ask
    for p in (tmp_path / "zone").glob("*.0002.*"):
        p.unlink()
    assert grow_forest_scene(None, tmp_path / "zone", rules, passes=1) is None
    assert "no zone here has a layer file for altitude and plants" in seen["errors"][-1]
    assert "KeyError" not in seen["errors"][-1] and "ValueError" not in seen["errors"][-1]
