"""Zone viewer: layers with named legends, overlays, hover read-out, histogram, zoom and PNG export."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QImage, QMouseEvent
from PySide6.QtWidgets import QApplication

from model.zones import BLOCK_FLAGS, CONTROL_BITS, derive_slope, write_zone
from model.zones.sample import sample_zone
from widgets.zone_layers import BIT_COLORS, CATALOGUE, PALETTE
from widgets.zone_viewer import ZoneViewer


@pytest.fixture()
def viewer(qtbot):
    zone = sample_zone(106, 96, seed=4)
    # A known tile: a pine on an island with a highway and concrete under it.
    zone.altitude[40, 30] = 700 * 32 + 8
    zone.altitude[40, 31] = 703 * 32
    zone.blocks[40, 30] = (BLOCK_FLAGS["Plant"] | BLOCK_FLAGS["Island"], 12)
    zone.control[40, 30] = CONTROL_BITS["Highway"] | CONTROL_BITS["ConcreteA"]
    zone.plants[40, 30] = (3, 2, 1, 131, 200, 9, 5)
    zone.invalidate()
    w = ZoneViewer(zone)
    qtbot.addWidget(w)
    w.resize(1000, 700)
    w.show()
    qtbot.waitExposed(w)
    w.fit()
    QApplication.processEvents()
    w.render()
    return w


def hover(viewer: ZoneViewer, x: int, y: int) -> None:
    pos = viewer.view_point_of_tile(x, y)
    viewport = viewer.view.viewport()
    event = QMouseEvent(QEvent.Type.MouseMove, pos, viewport.mapToGlobal(pos), Qt.MouseButton.NoButton,
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, event)


def readout(viewer: ZoneViewer) -> dict[str, str]:
    """The read-out's lines as label → value."""
    return dict(re.split(r"\s{2,}", line, maxsplit=1) for line in viewer.readout.text().splitlines())


def pixel_of_tile(viewer: ZoneViewer, x: int, y: int) -> np.ndarray:
    """The RGBA the image item holds for tile (x, y)."""
    rect = viewer.image.mapRectToParent(viewer.image.boundingRect())
    img = viewer.image.image
    sx = rect.width() / img.shape[1]
    sy = rect.height() / img.shape[0]
    return img[int((y - rect.top()) // sy), int((x - rect.left()) // sx)]


def test_hovering_a_known_tile_shows_its_values(viewer: ZoneViewer, qtbot) -> None:
    with qtbot.waitSignal(viewer.tile_hovered) as signal:
        hover(viewer, 30, 40)
    assert signal.args == [30, 40]
    shown = readout(viewer)
    assert shown["tile"] == "x 30, y 40"
    assert shown["altitude"] == "700.25 units (raw 22408)"
    assert shown["slope"] == str(derive_slope(viewer.zone.altitude)[40, 30])
    assert shown["block flags"] == "Plant|Island (10)" and shown["block height"] == "12"
    assert shown["control"] == "ConcreteA|Highway (136)"
    assert (shown["PlantAllowed"], shown["DevrinolAllowed"]) == ("no", "yes")
    assert shown["plant type"] == "PineTree (3)"
    assert (shown["state"], shown["time"], shown["health"], shown["material"]) == ("2", "1", "200", "9")
    assert shown["spawn"] == "131 (51% chance)" and shown["ground type"] == "HighlandA (5)"
    # Another tile replaces the read-out.
    hover(viewer, 5, 6)
    assert readout(viewer)["tile"] == "x 5, y 6"
    assert readout(viewer)["plant type"].endswith(f"({viewer.zone.plants['type'][6, 5]})")


def test_hover_follows_zoom_and_pan(viewer: ZoneViewer) -> None:
    viewer.view_box.setRange(QRectF(20, 30, 24, 16), padding=0)
    QApplication.processEvents()
    hover(viewer, 30, 40)
    assert "x 30, y 40" in viewer.readout.text()
    assert viewer.hovered == (30, 40)


def test_layers_colour_tiles_and_legends_use_names(viewer: ZoneViewer, qtbot) -> None:
    viewer.view_box.setRange(QRectF(0, 0, 96, 96), padding=0)
    QApplication.processEvents()
    viewer.render()
    viewer.set_layer("plants.type")
    assert tuple(pixel_of_tile(viewer, 30, 40)[:3]) == tuple(PALETTE[3])
    qtbot.waitUntil(lambda: "tiles" in viewer.legend.item(0).text())
    names = [viewer.legend.item(i).text() for i in range(viewer.legend.count())]
    assert any(n.startswith("PineTree (3) — ") for n in names)
    assert any(n.startswith("NotDefined (0)") for n in names)
    viewer.set_layer("plants.groundType")
    qtbot.waitUntil(lambda: "tiles" in viewer.legend.item(0).text())
    assert any("HighlandA (5)" in viewer.legend.item(i).text() for i in range(viewer.legend.count()))
    viewer.set_layer("blocks.flags")
    qtbot.waitUntil(lambda: "tiles" in viewer.legend.item(0).text())
    assert any("Plant|Island (10)" in viewer.legend.item(i).text() for i in range(viewer.legend.count()))
    viewer.set_layer("control.Highway")
    assert tuple(pixel_of_tile(viewer, 30, 40)[:3]) == BIT_COLORS["Highway"]
    assert tuple(pixel_of_tile(viewer, 2, 2)[:3]) != BIT_COLORS["Highway"]
    viewer.set_layer("altitude")
    legend = viewer.legend.item(0).text()
    assert "units" in legend


def test_every_layer_present_can_be_shown(viewer: ZoneViewer) -> None:
    shown = []
    for key, layer in CATALOGUE.items():
        offered = viewer.layer_combo.findData(key) >= 0
        assert offered == layer.available(viewer.zone)
        if offered:
            viewer.set_layer(key)
            assert viewer.image.image is not None and viewer.image.image.shape[2] == 4
            shown.append(key)
    assert {"slope", "plants.spawn", "plants.health", "plants.material", "plants.time", "plants.state",
            "blocks.height", "mask.PlantAllowed", "control.AntiPlant"} <= set(shown)
    assert "altitude_blend" not in shown
    with pytest.raises(ValueError, match="no altitude_blend"):
        viewer.set_layer("altitude_blend")


def test_overlays_tint_only_tiles_with_the_bit(viewer: ZoneViewer) -> None:
    viewer.view_box.setRange(QRectF(0, 0, 96, 96), padding=0)
    QApplication.processEvents()
    viewer.set_layer("plants.groundType")
    before = viewer.image.image.copy()
    viewer.set_overlays(["control.Highway"])
    after = viewer.image.image
    highway = (viewer.zone.control & CONTROL_BITS["Highway"]) != 0
    changed = (before != after).any(axis=2)
    assert changed.shape == highway.shape
    assert not changed[~highway].any()
    assert changed[highway].mean() > 0.9
    assert viewer.overlay_actions["control.Highway"].isChecked()
    last = viewer.legend.item(viewer.legend.count() - 1).text()
    assert last == "overlay: Highway"


def test_histogram_counts_every_tile(viewer: ZoneViewer, qtbot) -> None:
    viewer.set_layer("slope")
    qtbot.waitUntil(lambda: viewer.histogram_curve.yData is not None
                    and viewer.histogram_curve.yData.sum() == 96 * 96)
    viewer.set_layer("altitude")
    qtbot.waitUntil(lambda: viewer.histogram_curve.yData.sum() == 96 * 96
                    and viewer.histogram_curve.xData.max() > 600)  # in units


def test_export_png_writes_the_current_view(viewer: ZoneViewer, tmp_path: Path) -> None:
    out = tmp_path / "view.png"
    viewer.export_png(out)
    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (viewer.view.width(), viewer.view.height())
    assert not list(tmp_path.glob(".*.tmp"))


def test_zoom_and_pan_stay_interactive_on_a_2048_zone(qtbot) -> None:
    w = ZoneViewer(sample_zone(1, 2048))
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    QApplication.processEvents()
    w.render()
    # Whatever the zoom, a frame colours at most about one tile per screen pixel: its cost follows
    # the view, never the 4 million tiles of the zone.
    pixels = w.view.width() * w.view.height()
    coloured = [w.image.image.shape[0] * w.image.image.shape[1]]
    for rect in (QRectF(500, 500, 300, 200), QRectF(520, 510, 300, 200), QRectF(0, 0, 2048, 2048),
                 QRectF(1900, 1900, 148, 148)):
        w.view_box.setRange(rect, padding=0)
        w.render()
        w.view.grab()
        coloured.append(w.image.image.shape[0] * w.image.image.shape[1])
    assert max(coloured) <= pixels, (coloured, pixels)
    assert coloured[3] < 2048 * 2048 / 4  # zoomed out to the whole zone: every few tiles, not each
    hover(w, 1990, 2000)
    assert "x 1990, y 2000" in w.readout.text()


def test_open_folder_reports_bad_input_in_a_dialog(qtbot, tmp_path: Path, monkeypatch) -> None:
    w = ZoneViewer()
    qtbot.addWidget(w)
    messages = []
    monkeypatch.setattr("widgets.zone_viewer.QMessageBox.critical",
                        lambda parent, title, text: messages.append(text))
    assert w.open_folder(tmp_path) is None
    assert "no zone layer files" in messages[-1]
    write_zone(sample_zone(7, 32), tmp_path)
    (tmp_path / "plants.0007.bin").write_bytes(b"\x00" * 10)
    zone = w.open_folder(tmp_path)  # the plants are left out, the rest opens, the window says why
    assert zone is not None and not zone.has("plants") and len(messages) == 1
    assert "holds 10 bytes, expected 7168" in w.warning.text()
    (tmp_path / "altitude.0007.bin").write_bytes(b"\x00" * 10)
    (tmp_path / "plants.0007.bin").unlink()
    for name in ("blocks", "control"):
        (tmp_path / f"{name}.0007.bin").unlink()
    monkeypatch.setattr("widgets.zone_open.QInputDialog.getText", lambda *a: ("4x4", True))
    assert w.open_folder(tmp_path) is None
    assert "holds 10 bytes, expected 32" in messages[-1]
    write_zone(sample_zone(7, 32), tmp_path)
    zone = w.open_folder(tmp_path)
    assert zone is not None and w.zone is zone and "zone 7: 32 x 32" in w.title.text()


def test_tool_window_is_registered() -> None:
    from app.extensions import tool_windows

    windows = [t for t in tool_windows() if t.key == "zone_viewer"]
    assert len(windows) == 1
    widget = windows[0].create(None)
    try:
        assert isinstance(widget, ZoneViewer)
    finally:
        widget.deleteLater()


def test_page_keys_step_through_the_layers_present(viewer: ZoneViewer, qtbot) -> None:
    viewer.set_layer("altitude")
    qtbot.keyClick(viewer.view, Qt.Key.Key_PageDown)
    assert viewer.layer.key == "slope"  # the original and blend altitudes are absent: skipped
    qtbot.keyClick(viewer.view, Qt.Key.Key_PageUp)
    assert viewer.layer.key == "altitude"
    viewer.view_box.setRange(QRectF(10, 10, 8, 8), padding=0)
    qtbot.keyClick(viewer.view, Qt.Key.Key_F)
    assert viewer.view_box.viewRect().width() >= 96


def test_plant_names_from_rules_reach_legend_and_read_out(viewer: ZoneViewer, qtbot) -> None:
    from model.zones.names import plant_names_from_rules

    rules = Path(__file__).resolve().parents[2] / "resources" / "plants"
    viewer.set_layer("plants.type")
    viewer.show_tile(30, 40)
    viewer.set_plant_names(plant_names_from_rules(rules))
    assert readout(viewer)["plant type"] == "Pine (3)"
    qtbot.waitUntil(lambda: any(viewer.legend.item(i).text().startswith("Pine (3) — ")
                                for i in range(viewer.legend.count())))


def _offered(viewer: ZoneViewer) -> list[str]:
    return [viewer.layer_combo.itemData(i) for i in range(viewer.layer_combo.count())]


def test_a_zone_without_plants_or_altitude_offers_only_what_it_has(qtbot, capfd) -> None:
    zone = sample_zone(3, 64, seed=1)
    del zone.layers["plants"]
    w = ZoneViewer()
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    qtbot.waitExposed(w)
    w.set_zone(zone)
    offered = _offered(w)
    assert "altitude" in offered and "slope" in offered
    assert not [k for k in offered if k.startswith("plants.")]  # no "Plant type" to pick
    assert w.layer_combo.findText("Plant type") == -1
    # Every layer offered shows, stepping through all of them with the page keys.
    for _ in offered:
        qtbot.keyClick(w.view, Qt.Key.Key_PageDown)
        QApplication.processEvents()
        assert w.image.image is not None
    without_altitude = sample_zone(4, 64, seed=1)
    del without_altitude.layers["altitude"]
    w.set_layer("control.Highway")
    w.set_overlays(["control.Highway"])
    w.set_zone(without_altitude)
    offered = _offered(w)
    assert "altitude" not in offered and "slope" not in offered and "plants.type" in offered
    assert w.layer.key == "control.Highway" and w.layer_combo.currentData() == "control.Highway"
    hover(w, 5, 5)
    assert "plant type" in readout(w) and "slope" not in readout(w)
    w.set_zone(zone)  # back to a zone without plants: nothing left pointing at a missing layer
    assert not [k for k in _offered(w) if k.startswith("plants.")]
    assert [k for k, a in w.overlay_actions.items() if a.isVisible()] == list(w.overlay_actions)
    QApplication.processEvents()
    assert "Traceback" not in capfd.readouterr().err


def test_a_layer_sized_for_another_zone_is_left_out_and_said(qtbot, tmp_path: Path, monkeypatch) -> None:
    errors = []
    monkeypatch.setattr("widgets.zone_viewer.QMessageBox.critical", lambda p, t, text: errors.append(text))
    write_zone(sample_zone(45, 64, seed=2), tmp_path)
    blend = tmp_path / "altitude_blend.0045.bin"
    blend.write_bytes(bytes(2 * 128 * 128))  # sized for a 128² zone
    w = ZoneViewer()
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    qtbot.waitExposed(w)
    zone = w.open_folder(tmp_path)
    assert zone is not None and not errors and "zone 45: 64 x 64" in w.title.text()
    assert w.warning.isVisible()
    assert str(blend) in w.warning.text() and "32768" in w.warning.text() and "8192" in w.warning.text()
    assert "altitude_blend" not in _offered(w) and "plants.type" in _offered(w)
    w.set_zone(sample_zone(1, 16))
    assert not w.warning.isVisible()


def test_naming_plants_from_a_folder_without_rules_says_so(viewer: ZoneViewer, tmp_path: Path,
                                                          monkeypatch) -> None:
    messages = []
    monkeypatch.setattr("widgets.zone_viewer.QMessageBox.critical", lambda p, t, text: messages.append(text))
    monkeypatch.setattr("widgets.zone_viewer.QFileDialog.getExistingDirectory", lambda *a: str(tmp_path))
    viewer.rules_dialog()
    assert messages and "no plant rules here" in messages[0]
    assert viewer.zone.plant_names[3] == "PineTree"
