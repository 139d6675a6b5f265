"""TRN browser: tree with item kinds and active check boxes, property edits, families, map preview,
boundary outline, hover read-out, save; and the import dialog."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit

from model.trn import build, document
from tests.model.trn.builders import kitchen_sink
from tests.model.trn.helpers import circle, doc_of, flora, height_const, shader
from widgets.trn_browser import PREVIEW_MODES, TrnBrowser, outline_of


def _hill_doc():
    return doc_of([build.layer("base", [height_const(2)]),
                   build.layer("hill", [circle(100, -200, 600, 3, 0.5), height_const(80),
                                        build.item("ASCN", "0001", shaderFamily=2, useFeatherClampOverride=0,
                                                   featherClampOverride=0.0),
                                        build.item("AFSC", "0004", floraFamily=8, operation=1, removeAll=0,
                                                   densityOverride=0, density=0.0)])],
                  shaders=[shader(2, "grass")], floras=[flora(8, 0.5)])


@pytest.fixture()
def browser(qtbot, tmp_path):
    path = tmp_path / "hill.trn"
    path.write_bytes(_hill_doc().to_bytes())
    w = TrnBrowser()
    qtbot.addWidget(w)
    w.resize(1100, 700)
    w.show()
    qtbot.waitExposed(w)
    assert w.load(path)
    return w


def _rows(model):
    out = []

    def walk(parent, depth):
        for r in range(parent.rowCount()):
            child = parent.child(r)
            out.append((depth, child))
            walk(child, depth + 1)
    walk(model.invisibleRootItem(), 0)
    return out


def test_tree_shows_every_item_with_kind_icons_and_checks(qtbot, tmp_path):
    path = tmp_path / "sink.trn"
    path.write_bytes(build.to_bytes(kitchen_sink()))
    w = TrnBrowser()
    qtbot.addWidget(w)
    assert w.load(path)
    rows = _rows(w.model)
    doc_items = list(w.doc.items())
    assert len(rows) == len(doc_items)
    texts = [r.text() for _, r in rows]
    assert any("Boundary circle (BCIR 0002)" in t for t in texts)
    assert any("kept raw" in t for t in texts)
    assert max(d for d, _ in rows) >= 2  # nested sub-layers
    checks = {r.text(): r.checkState() for _, r in rows if r.isCheckable()}
    assert Qt.CheckState.Unchecked in checks.values() and Qt.CheckState.Checked in checks.values()
    assert w.families.tabText(0) == "Shader (2)"
    w.resize(900, 600)
    w.show()
    qtbot.waitExposed(w)
    first = w.model.index(0, 0)
    rect = w.tree.visualRect(first)
    assert rect.isValid() and w.tree.indexAt(rect.center()) == first  # the view really shows the rows
    assert w.family_lists["bitmap"].count() == 1


def test_unchecking_a_layer_deactivates_it_and_updates_the_preview(browser, qtbot):
    before = browser.evaluation.heights.max()
    assert before == pytest.approx(80.0, abs=1.0)
    hill = next(r for _, r in _rows(browser.model) if r.text().startswith("hill"))
    hill.setCheckState(Qt.CheckState.Unchecked)
    assert browser.modified and not browser.doc.layers[1].active
    qtbot.waitUntil(lambda: browser.evaluation.heights.max() == pytest.approx(2.0), timeout=3000)
    again = document.parse(browser.doc.to_bytes())
    assert not again.layers[1].active


def test_property_form_edits_write_back(browser, qtbot, tmp_path):
    circle_item = browser.doc.layers[1].children[0]
    browser.select(circle_item)
    assert browser.props.item is circle_item
    editors = {browser.props.form.itemAt(i, browser.props.form.ItemRole.LabelRole).widget().text():
               browser.props.form.itemAt(i, browser.props.form.ItemRole.FieldRole).widget()
               for i in range(browser.props.form.rowCount())}
    radius = editors["radius"]
    assert isinstance(radius, QDoubleSpinBox) and radius.value() == pytest.approx(600.0)
    radius.setValue(300.0)
    radius.editingFinished.emit()
    name = editors["Name"]
    assert isinstance(name, QLineEdit)
    name.setText("small circle")
    name.editingFinished.emit()
    assert circle_item.params["radius"] == 300.0 and circle_item.name == "small circle"
    xs, zs = browser.outline.getData()
    assert np.hypot(xs - 100, zs + 200).max() == pytest.approx(300.0, rel=1e-3)
    out = tmp_path / "edited.trn"
    browser.save(out)
    again = document.read(out)
    assert again.layers[1].children[0].params["radius"] == 300.0
    assert again.layers[1].children[0].name == "small circle"
    assert not browser.modified


def test_preview_modes_render_families(browser):
    for i, mode in enumerate(PREVIEW_MODES):
        browser.mode.setCurrentIndex(i)
        img = browser.image.image
        assert img is not None and img.shape[2] == 3, mode
    browser.mode.setCurrentIndex(PREVIEW_MODES.index("shader"))
    img = browser.image.image
    ev = browser.evaluation
    assert np.all(img[ev.shader == 2] == (80, 90, 30))
    assert np.all(img[ev.shader == -1] == 40)


def test_mouse_over_the_map_updates_the_read_out(browser):
    from PySide6.QtCore import QPointF

    browser.mode.setCurrentIndex(0)
    scene_pos = browser.plot.vb.mapViewToScene(QPointF(100.0, -200.0))
    browser.plot.scene().sigMouseMoved.emit(scene_pos)
    assert browser.hover.text().startswith("(100, -200)") and "hill" in browser.hover.text()


def test_hover_lists_layers_that_reach_the_pole(browser):
    trace = browser.describe_pole(100.0, -200.0)
    names = {t["name"] for t in trace}
    assert {"base", "hill"} <= names
    assert "hill" in browser.hover.text() and "grass" in browser.hover.text()
    trace = browser.describe_pole(1500.0, 1500.0)
    assert {t["name"] for t in trace if t["tag"] == "LAYR"} == {"base"}


def test_outline_of_each_boundary_and_layer():
    doc = document.parse(build.to_bytes(kitchen_sink()))
    for it in doc.items():
        xs, zs = outline_of(it)
        if it.kind == "boundary" and it.unsupported is None:
            assert len(xs) >= 2 and len(xs) == len(zs), it.tag
        elif it.kind == "layer":
            drawn = [c for c in it.children if c.kind == "boundary" and c.active and c.unsupported is None]
            assert sum(1 for v in xs if v != v) == len(drawn)
        else:
            assert xs == [] and zs == []


def test_bad_file_shows_an_error_and_keeps_the_document(browser, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    seen = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: seen.append(a[2]))
    bad = tmp_path / "bad.trn"
    bad.write_bytes(b"FORM\x00\x00\x00\x04STAT")
    doc = browser.doc
    assert not browser.load(bad)
    assert browser.doc is doc and "not a TRN terrain generator" in seen[0]


def test_import_dialog_region_and_scene(qtbot, tmp_path):
    from widgets.trn_import import RegionDialog, import_trn_scene

    doc = _hill_doc()
    path = tmp_path / "hill.trn"
    path.write_bytes(doc.to_bytes())
    dialog = RegionDialog(document.read(path))
    qtbot.addWidget(dialog)
    r = dialog.region()
    assert r.cols == r.rows == 513
    dialog.spacing.setValue(0.05)
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
    from model.trn.evaluator import Region
    scene = import_trn_scene(None, path, Region.from_bounds(-400, -800, 600, 400, 8.0))
    assert scene is not None and scene.terrain.heights.max() == pytest.approx(80.0, abs=0.5)
    assert [la.name for la in scene.terrain.layers] == ["grass"]
    assert scene.sections["foliage"].counts()["flora8"] > 0


def test_extension_declares_browser_and_importer():
    from app.extensions import importers, tool_windows

    win = next(w for w in tool_windows() if w.key == "trn_browser")
    assert win.shortcut == "Ctrl+Shift+R" and win.tooltip
    assert any(i.key == "trn_scene" for i in importers())
    widget = win.create(None)
    assert isinstance(widget, TrnBrowser)
    widget.deleteLater()


def test_preview_can_be_cancelled_keeping_the_previous_one(browser, monkeypatch):
    import widgets.trn_browser as tb

    before = browser.evaluation
    monkeypatch.setattr(tb.QProgressDialog, "wasCanceled", lambda self: True)
    browser.resolution.setCurrentIndex(2)
    assert browser.evaluation is before and "cancelled" in browser.status.text()
    monkeypatch.undo()
    browser.refresh_preview()
    assert browser.evaluation.heights.shape == (512, 512)


def _editors(browser):
    form = browser.props.form
    return {form.itemAt(i, form.ItemRole.LabelRole).widget().text():
            form.itemAt(i, form.ItemRole.FieldRole).widget() for i in range(form.rowCount())}


def test_leaving_a_field_unchanged_does_not_edit_and_enums_are_named(browser):
    circle_item = browser.doc.layers[1].children[0]
    circle_item.params["cx"] = 100.123456789  # more digits than the field shows
    before = browser.doc.to_bytes()
    browser.select(circle_item)
    editors = _editors(browser)
    for key in ("cx", "radius", "feather"):
        editors[key].editingFinished.emit()
    assert circle_item.params["cx"] == 100.123456789 and not browser.modified
    assert browser.doc.to_bytes() == before
    fn = editors["featherFn"]
    assert isinstance(fn, QComboBox) and fn.currentText().startswith("Ease in-out")
    fn.setCurrentIndex(1)
    fn.activated.emit(1)
    assert circle_item.params["featherFn"] == 1 and browser.modified
    assert "degrees" not in editors["radius"].toolTip() and "metres" in editors["radius"].toolTip()


def test_a_name_the_file_cannot_hold_is_refused_with_a_message(browser, monkeypatch):
    from PySide6.QtWidgets import QMessageBox
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: shown.append(a[2]))
    circle_item = browser.doc.layers[1].children[0]
    browser.select(circle_item)
    name = _editors(browser)["Name"]
    name.setText("cut\0here")
    name.editingFinished.emit()
    assert shown and "NUL" in shown[0] and circle_item.name != "cut\0here" and not browser.modified
    assert _editors(browser)["Name"].text() == circle_item.name
