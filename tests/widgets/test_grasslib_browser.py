"""Grass library browser on libraries from the fixture generator (offscreen; no OpenGL needed)."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QMessageBox

from app.extensions import tool_windows
from model.foliage.foliage_type import load_foliage_type
from model.grasslib import MAPPING_NOTE, parse_library
from tests.model.grasslib import fixtures as fx
from widgets.grasslib_browser import GrassLibraryBrowser
from widgets.grasslib_derived import DerivedGrassPanel
from widgets.grasslib_picker import read_gray_image


@pytest.fixture()
def browser(qtbot):
    w = GrassLibraryBrowser(None)
    qtbot.addWidget(w)
    return w


@pytest.fixture()
def seed_file(tmp_path: Path) -> Path:
    return fx.write(tmp_path / "seed.lib", fx.seed_shaped_bytes())


@pytest.fixture()
def small_file(tmp_path: Path) -> Path:
    return fx.write(tmp_path / "small.lib", fx.small_library_bytes())


def test_tool_window_is_declared_and_creates_without_a_main_window(qtbot) -> None:
    spec = next(w for w in tool_windows() if w.key == "grasslib")
    widget = spec.create(None)
    qtbot.addWidget(widget)
    assert isinstance(widget, GrassLibraryBrowser) and spec.shortcut and spec.tooltip


def test_seed_library_fills_every_view(browser, seed_file: Path) -> None:
    assert browser.open_path(seed_file)
    assert "46 models, 190 groups" in browser.summary.text() and "218 rules" in browser.summary.text()
    assert "5 rule(s) name models beyond the 46" in browser.summary.text()
    models = browser.models.table
    assert models.rowCount() == 46
    headers = [models.horizontalHeaderItem(c).text() for c in range(models.columnCount())]
    assert "LOD table (inferred)" in headers and "Distances m (inferred)" in headers
    assert models.item(1, 3).text() == "00 01 02 03 03"
    assert models.item(0, 2).text().startswith("GrassModel (0x")
    models.setCurrentCell(3, 0)
    assert "raw bytes" in browser.models.detail.toPlainText()
    assert browser.groups.groups.rowCount() == 190
    assert browser.table.cell_text(255) == "0" and browser.table.cell_text(0) == "–"
    assert "1 of 256 materials" in browser.table.summary.text()


def test_rules_naming_missing_models_are_flagged(browser, seed_file: Path) -> None:
    browser.open_path(seed_file)
    assert browser.groups.groups.item(187, 5).text() == "1"
    browser.groups.show_group(187)
    rules = browser.groups.rules
    assert rules.rowCount() == 1 and rules.item(0, 1).text() == "48 (missing)"
    assert "not in the library" in rules.item(0, 1).toolTip()
    lib = parse_library(seed_file.read_bytes())
    g = next(i for i, grp in enumerate(lib.groups[:185]) if len(grp.rules) == 3)
    browser.groups.show_group(g)
    assert rules.rowCount() == 3
    assert rules.item(1, 1).text() == str(int(lib.groups[g].rules["model"][1]))
    assert rules.item(1, 12).text() == bytes(lib.groups[g].rules["unnamed"][1]).hex(" ")
    assert len(rules.item(1, 13).text().split(", ")) == 10


def test_bad_file_reports_offset_and_keeps_the_open_library(browser, seed_file: Path, tmp_path, qtbot):
    browser.open_path(seed_file)
    bad = fx.write(tmp_path / "long.lib", fx.with_extra(seed_file.read_bytes()))
    assert not browser.open_path(bad)
    assert "long.lib @ offset 30247" in browser.last_error
    box = browser.findChild(QMessageBox, "grasslib_error")
    assert box is not None and "offset 30247" in box.text()
    assert browser.library is not None and browser.library.model_count == 46
    box.close()


def test_a_library_with_another_tail_opens_on_request(browser, tmp_path: Path) -> None:
    data = fx.library_bytes(4, [0, 1, 2], b"\xff" * 255 + b"\x01", tail_raw_size=40)
    path = fx.write(tmp_path / "other.lib", data)
    assert not browser.open_path(path)
    box = browser.findChild(QMessageBox, "grasslib_error")
    again = next(b for b in box.buttons() if b.text() == "Read with any tail size")
    assert browser.library is None and again.toolTip()
    again.click()
    assert browser.library is not None and len(browser.library.groups) == 3
    summary = browser.summary.text()
    assert "tail 296 bytes" in summary and "443 in the examined library" in summary


def test_picker_cases(browser, small_file: Path) -> None:
    browser.open_path(small_file)
    p = browser.picker
    p.set_values(0, 0x60, 0xFE)
    assert p.result.group == 1 and p.result.weight == 48 and p.rules.rowCount() == 1
    p.set_values(0, 0x60, 0xFF)
    assert p.result.group is None and p.rules.rowCount() == 0 and "no group" in p.explanation.text()
    p.set_values(1, 1, 0xFE)
    assert (p.result.group, p.result.weight, p.result.active) == (2, 1, True)
    p.set_values(1, 0, 0xFE)
    assert not p.result.active and "disables" in p.explanation.text()
    assert not p.derive_button.isEnabled()
    p.block4.setValue(0x60)  # through the spin boxes
    p.block5.setValue(4)
    assert p.result.group == 4 and p.result.weight == 48
    assert p.rules.item(0, 1).text() == "9 (missing)" and "beyond the 4" in p.explanation.text()


def test_picker_rasters_show_group_and_weight_maps(browser, small_file: Path, tmp_path: Path) -> None:
    browser.open_path(small_file)
    p = browser.picker
    material = np.zeros((8, 12), np.uint8)
    material[:, 6:] = 1
    img = QImage(material.tobytes(), 12, 8, 12, QImage.Format.Format_Grayscale8).copy()
    path = tmp_path / "material.png"
    assert img.save(str(path))
    assert np.array_equal(read_gray_image(path), material)
    p.set_values(0, 0x60, 0xFE)
    assert p.load_raster("material", path)
    res = p.raster_result
    assert res.group.shape == (8, 12)
    assert (res.group[:, :6] == 1).all() and (res.group[:, 6:] == 2).all() and (res.weight == 48).all()
    assert not p.group_map.pixmap().isNull() and not p.weight_map.pixmap().isNull()
    assert "96 nodes: 96 reach a group" in p.raster_summary.text()
    block4 = np.zeros((8, 12), np.uint8)
    block4[4:] = 1
    p.set_raster("block4", block4)
    assert p.raster_result.active.sum() == 48 and "48 disabled by weight 0" in p.raster_summary.text()
    p.set_raster("block5", np.zeros((3, 3), np.uint8))
    assert p.raster_result is None and "differ in size" in p.raster_summary.text()
    assert not p.load_raster("block5", tmp_path / "missing.png")


def test_derived_grass_states_the_mapping_and_exports(browser, small_file: Path, tmp_path: Path,
                                                      qtbot) -> None:
    browser.open_path(small_file)
    d = browser.derived
    assert MAPPING_NOTE in d.note.text() and "Boscage's own mapping" in d.note.text()
    browser.picker.set_values(255, 0x60, 0xFE)  # table[255] = group 3, three rules
    browser.picker.derive_button.click()
    assert browser.tabs.currentWidget() is d
    assert (d.group.value(), d.weight.value(), d.table.rowCount()) == (3, 48, 3)
    assert "storage = \"derived\"" in d.preview.toPlainText()
    with qtbot.waitSignal(d.typesDerived) as sig:
        d.use_button.click()
    assert [t.name for t in sig.args[0]] == [doc["name"] for doc in d.derived.types]
    paths = d.export_to(tmp_path / "out")
    assert len(paths) == 3
    for path, doc in zip(paths, d.derived.types, strict=True):
        ftype = load_foliage_type(path)
        assert ftype.derived and ftype.name == doc["name"] and ftype.density == doc["density"]
    d.show_group(4)
    assert d.table.rowCount() == 0 and "model 9" in d.notes.text() and not d.export_button.isEnabled()


def test_main_window_hook_receives_derived_types(qtbot, small_file: Path) -> None:
    class Host:
        def __init__(self):
            self.got = None

        def add_derived_foliage_types(self, types):
            self.got = types

    host = Host()
    w = GrassLibraryBrowser(host)
    qtbot.addWidget(w)
    w.open_path(small_file)
    w.derived.show_group(2)
    w.derived.use_button.click()
    assert [t.name for t in host.got] == [t["name"] for t in w.derived.derived.types]
    assert all(t.derived and t.mesh == "builtin:grass" for t in host.got)


def test_without_a_hook_derived_types_go_into_the_scene_palette(qtbot, small_file: Path) -> None:
    from model.foliage.section import foliage_of
    from model.scene import Scene
    from model.terrain import Terrain

    class Doc:
        scene = Scene(Terrain(np.zeros((4, 4), np.float32)))

    class Host:
        document = Doc()

    w = GrassLibraryBrowser(Host())
    qtbot.addWidget(w)
    w.open_path(small_file)
    w.derived.show_group(3)
    w.derived.use_button.click()
    palette = foliage_of(Host.document.scene).palette
    assert palette.names() == [t["name"] for t in w.derived.derived.types]
    assert "Added 3" in w.derived.notes.text()
    w.derived.show_group(3, 20)
    w.derived.use_button.click()
    assert len(palette) == 3 and "updated 3" in w.derived.notes.text()
    assert palette[w.derived.derived.types[0]["name"]].density == w.derived.derived.types[0]["density"]
    lonely = GrassLibraryBrowser(None)
    qtbot.addWidget(lonely)
    lonely.open_path(small_file)
    lonely.derived.show_group(3)
    lonely.derived.use_button.click()
    assert "export it instead" in lonely.derived.notes.text()


def test_empty_library_and_no_library(qtbot, tmp_path: Path) -> None:
    panel = DerivedGrassPanel()
    qtbot.addWidget(panel)
    assert not panel.export_button.isEnabled() and panel.export_to(tmp_path) == []
    w = GrassLibraryBrowser(None)
    qtbot.addWidget(w)
    assert w.open_path(fx.write(tmp_path / "empty.lib", fx.empty_library_bytes()))
    assert "0 models, 0 groups" in w.summary.text()
    w.picker.set_values(0, 0x60, 0xFE)
    assert w.picker.result.group is None


def test_notes_are_shown(browser, seed_file: Path, tmp_path: Path) -> None:
    data = bytearray(seed_file.read_bytes())
    data[5] = 3
    struct.pack_into("<I", data, 6 + 46 * 132, 9)
    browser.open_path(fx.write(tmp_path / "odd.lib", bytes(data)))
    assert "offset 5" in browser.summary.text() and "(kept)" in browser.summary.text()


def test_oversized_raster_is_refused_before_loading(browser, small_file: Path, tmp_path: Path) -> None:
    from model.errors import FormatError

    browser.open_path(small_file)
    wide = QImage(4097, 1, QImage.Format.Format_Grayscale8)
    wide.fill(0)
    path = tmp_path / "wide.png"
    assert wide.save(str(path))
    with pytest.raises(FormatError, match="4097 x 1"):
        read_gray_image(path)
    assert not browser.picker.load_raster("material", path)
    assert "4097 x 1" in browser.picker.raster_summary.text()
    assert browser.picker.rasters["material"] is None
