"""TRN browser: tree with item kinds and active check boxes, property edits, families, map preview,
boundary outline, hover read-out, save; and the import dialog."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit

from model.trn import build, document
from model.trn.palette import CURATED, family_palette
from tests.model.trn.builders import kitchen_sink
from tests.model.trn.helpers import circle, doc_of, flora, height_const, shader
from widgets.trn_browser import (
    NO_DOCUMENT_HINT,
    NO_SELECTION_HINT,
    NON_FINITE_RGB,
    PREVIEW_MODES,
    TrnBrowser,
    outline_of,
)


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
    # the readable colour an import paints the family's layer with, not its own (80, 90, 30)
    assert np.all(img[ev.shader == 2] == CURATED[0])
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


# ---- readable colours, swatches, colour bar, hints ---------------------------------------------
def _near(a, b, tol=6) -> bool:
    return all(abs(int(x) - int(y)) <= tol for x, y in zip(a, b, strict=False))


def test_family_lists_show_the_own_colour_beside_the_map_colour(browser):
    """The family's own colour (from the file) stays visible as a swatch, beside the readable colour
    the map and an import use."""
    lst = browser.family_lists["shader"]
    item = lst.item(0)
    image = item.icon().pixmap(24, 12).toImage()
    left, right = image.pixelColor(3, 6), image.pixelColor(20, 6)
    assert (left.red(), left.green(), left.blue()) == (80, 90, 30)  # shader(2)'s own colour
    assert (right.red(), right.green(), right.blue()) == CURATED[0]
    assert "#505A1E" in item.toolTip() and "#4E79A7" in item.toolTip()
    flora_item = browser.family_lists["flora"].item(0)
    right = flora_item.icon().pixmap(24, 12).toImage().pixelColor(20, 6)
    assert (right.red(), right.green(), right.blue()) == family_palette(browser.doc)[("flora", 8)]
    # the tab shows the same pixels on screen: grab the list and find both colours
    browser.families.setCurrentWidget(lst)
    shot = lst.grab().toImage()
    colours = {(shot.pixelColor(x, y).red(), shot.pixelColor(x, y).green(), shot.pixelColor(x, y).blue())
               for x in range(0, min(shot.width(), 60)) for y in range(0, min(shot.height(), 30))}
    assert (80, 90, 30) in colours and CURATED[0] in colours


def test_heights_preview_has_a_colour_bar_with_the_range_in_metres(browser, qtbot):
    browser.mode.setCurrentIndex(PREVIEW_MODES.index("heights"))
    h = browser.evaluation.heights
    assert browser.color_bar.isVisible() and browser.range_label.isVisible()
    assert browser.color_bar.levels() == pytest.approx((float(h.min()), float(h.max())))
    assert (float(h.min()), float(h.max())) == pytest.approx((2.0, 80.0), abs=0.01)
    assert browser.range_label.text() == "Heights 2.00 m … 80.00 m"
    assert browser.color_bar.getAxis("left").labelText == "height (m)"
    assert browser.color_bar.axis.range == pytest.approx([2.0, 80.0], abs=0.01)  # the tick axis, in metres
    # the map uses the bar's colour map: the highest pole is its top colour, the lowest its bottom
    top, bottom = (tuple(c) for c in browser.height_colormap.map([1.0, 0.0], mode="byte")[:, :3])
    img = browser.image.image
    assert tuple(img[np.unravel_index(np.argmax(h), h.shape)]) == top
    assert tuple(img[np.unravel_index(np.argmin(h), h.shape)]) == bottom
    # and the bar is drawn: the right-hand strip of the view holds the colour map's ends
    qtbot.wait(50)
    shot = browser.view.grab().toImage()
    strip = {(shot.pixelColor(x, y).red(), shot.pixelColor(x, y).green(), shot.pixelColor(x, y).blue())
             for x in range(int(shot.width() * 0.8), shot.width()) for y in range(0, shot.height(), 2)}
    assert any(_near(c, top) for c in strip) and any(_near(c, bottom) for c in strip)
    browser.mode.setCurrentIndex(PREVIEW_MODES.index("shader"))
    assert not browser.color_bar.isVisible() and not browser.range_label.isVisible()


def test_non_finite_heights_are_counted_and_drawn_magenta(qtbot, tmp_path):
    doc = doc_of([build.layer("base", [height_const(5)]),
                  build.layer("hole", [circle(0, 0, 900), height_const(float("nan"))]),
                  build.layer("hill", [circle(1500, 1500, 600), height_const(40)])])
    path = tmp_path / "holes.trn"
    path.write_bytes(doc.to_bytes())
    w = TrnBrowser()
    qtbot.addWidget(w)
    assert w.load(path)
    h = w.evaluation.heights
    bad = int((~np.isfinite(h)).sum())
    assert bad > 0
    assert w.range_label.text() == (f"Heights 5.00 m … 40.00 m; {bad:,} poles not finite (NaN or infinite), "
                                    "drawn magenta")
    assert np.all(w.image.image[~np.isfinite(h)] == NON_FINITE_RGB)
    assert w.color_bar.levels() == pytest.approx((5.0, 40.0))


def test_property_pane_says_what_to_do_when_nothing_is_selected(browser, qtbot):
    fresh = TrnBrowser()
    qtbot.addWidget(fresh)
    assert fresh.props.hint is not None and fresh.props.hint.text() == NO_DOCUMENT_HINT
    # a loaded file with nothing selected: the hint, readable (not greyed out), not a blank pane
    hint = browser.props.hint
    assert hint is not None and hint.text() == NO_SELECTION_HINT and hint.isVisible()
    assert hint.palette().color(hint.foregroundRole()) == browser.palette().color(browser.foregroundRole())
    first = browser.model.item(0)
    browser.tree.setCurrentIndex(first.index())
    assert browser.props.hint is None and browser.props.form.rowCount() > 1
    browser.tree.setCurrentIndex(first.index().siblingAtRow(99))  # an invalid index: nothing selected
    assert browser.props.hint is not None and browser.props.hint.text() == NO_SELECTION_HINT


def test_imported_scene_has_readable_layers_and_only_its_own_palette(main_window, qtbot, tmp_path):
    """TRN data without flora: the editor shows an empty palette (no demo types with ⚠ badges), and
    the paint layer carries its readable colour, not the family's neon one."""
    from model.trn.evaluator import Region
    from widgets.trn_import import import_trn_scene

    neon = shader(3, "neon")
    neon["color"] = (255, 255, 0)
    doc = doc_of([build.layer("ground", [height_const(5), build.item(
        "ASCN", "0001", shaderFamily=3, useFeatherClampOverride=0, featherClampOverride=0.0)])],
        shaders=[neon])
    path = tmp_path / "bare.trn"
    path.write_bytes(doc.to_bytes())
    scene = import_trn_scene(main_window, path, Region.from_bounds(-32, -32, 32, 32, 2.0))
    main_window.open_scene(scene)
    main_window.document.undo_stack.setClean()
    panel = main_window.docks["palette"].widget()
    assert panel.list.count() == 0 and panel.types == []
    (layer,) = main_window.document.scene.terrain.layers
    assert layer.name == "neon" and layer.color == CURATED[0] != (255, 255, 0)


def test_import_of_non_finite_heights_warns_once_and_gives_a_finite_scene(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from model.trn.evaluator import Region
    from widgets.trn_import import import_trn_scene

    doc = doc_of([build.layer("base", [height_const(5)]),
                  build.layer("hole", [circle(0, 0, 6), height_const(float("-inf"))])])
    path = tmp_path / "pit.trn"
    path.write_bytes(doc.to_bytes())
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append((title, text)))
    scene = import_trn_scene(None, path, Region.from_bounds(-16, -16, 16, 16, 2.0))
    assert scene is not None and np.isfinite(scene.terrain.heights).all()
    assert scene.terrain.heights.min() == 5.0
    ((title, text),) = shown
    assert title == "TRN imported with warnings"
    assert text.startswith("pit.trn was imported, but:")
    assert "−inf written as the lowest finite height (5 m)" in text


def test_imported_layers_draw_in_their_readable_colour_in_the_viewport(viewport, qtbot, tmp_path):
    """Real pixels: a TRN whose only shader family is neon yellow paints the ground in the palette's
    first colour (a muted blue), not yellow."""
    from model.trn.evaluator import Region
    from tests.gui_helpers import render
    from widgets.trn_import import import_trn_scene

    neon = shader(3, "neon")
    neon["color"] = (255, 255, 0)
    doc = doc_of([build.layer("ground", [height_const(5), build.item(
        "ASCN", "0001", shaderFamily=3, useFeatherClampOverride=0, featherClampOverride=0.0)])],
        shaders=[neon])
    path = tmp_path / "neon.trn"
    path.write_bytes(doc.to_bytes())
    scene = import_trn_scene(None, path, Region.from_bounds(-64, -64, 64, 64, 2.0))
    viewport.set_scene(scene)
    img = render(viewport, qtbot).astype(int)
    h, w = img.shape[:2]
    middle = img[h // 3: 2 * h // 3, w // 3: 2 * w // 3, :3].reshape(-1, 3)
    r, g, b = (int(v) for v in np.median(middle, axis=0))
    assert b > r + 20 and b > g, (r, g, b)  # blue ground (78, 121, 167 lit), where neon yellow has b ≈ 0
