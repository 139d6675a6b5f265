"""File ▸ Import ▸ Zone as scene: picks the zone, asks sizes, shows errors, returns the scene."""

from __future__ import annotations

from pathlib import Path

import pytest

from model.zones import write_zone
from model.zones.sample import sample_zone
from widgets.zone_open import import_zone_scene


@pytest.fixture()
def messages(monkeypatch) -> list[str]:
    seen: list[str] = []
    monkeypatch.setattr("widgets.zone_open.QMessageBox.critical",
                        lambda parent, title, text: seen.append(text))
    return seen


def test_import_builds_the_scene(qtbot, tmp_path: Path, messages) -> None:
    write_zone(sample_zone(3, 32), tmp_path, gz=True)
    scene = import_zone_scene(None, tmp_path, tile_size=2.0)
    assert scene is not None and not messages
    assert (scene.terrain.columns, scene.terrain.spacing) == (32, 2.0)
    assert scene.sections["foliage"].volume.count() > 0


def test_several_zones_ask_which_and_non_square_asks_the_size(qtbot, tmp_path: Path, monkeypatch,
                                                              messages) -> None:
    write_zone(sample_zone(3, 16), tmp_path)
    write_zone(sample_zone(4, 24, height=10), tmp_path)
    asked = []
    monkeypatch.setattr("widgets.zone_open.QInputDialog.getItem",
                        lambda *a: (asked.append(a[3]) or "4", True))
    monkeypatch.setattr("widgets.zone_open.QInputDialog.getText", lambda *a: ("24x10", True))
    scene = import_zone_scene(None, tmp_path, tile_size=1.0)
    assert asked == [["3", "4"]]
    assert scene is not None and (scene.terrain.columns, scene.terrain.rows) == (24, 10)


def test_bad_zone_shows_one_clear_error(qtbot, tmp_path: Path, messages, monkeypatch) -> None:
    write_zone(sample_zone(3, 16), tmp_path)
    (tmp_path / "plants.0003.bin.gz").write_bytes(b"\x1f\x8b")
    assert import_zone_scene(None, tmp_path, tile_size=1.0) is None
    assert messages == [f"{tmp_path / 'plants.0003.bin.gz'}: both plants.0003.bin and plants.0003.bin.gz "
                        "exist; keep one"]


def test_a_layer_of_the_wrong_size_is_left_out_and_the_rest_imports(qtbot, tmp_path: Path, messages,
                                                                    monkeypatch) -> None:
    warnings = []
    monkeypatch.setattr("widgets.zone_open.QMessageBox.warning",
                        lambda parent, title, text: warnings.append((title, text)))
    write_zone(sample_zone(3, 16), tmp_path)
    (tmp_path / "control.0003.bin").write_bytes(b"\x01")
    scene = import_zone_scene(None, tmp_path, tile_size=1.0)
    assert scene is not None and not messages
    [(title, text)] = warnings
    assert title == "Zone 3: layers left out"
    assert f"{tmp_path / 'control.0003.bin'}: holds 1 bytes, expected 512" in text


def test_zones_without_altitude_are_not_offered_and_alone_say_what_is_missing(
        qtbot, tmp_path: Path, monkeypatch, messages) -> None:
    asked = []
    monkeypatch.setattr("widgets.zone_open.QInputDialog.getItem",
                        lambda *a: (asked.append(a[3]) or a[3][0], True))
    flat = sample_zone(0, 16)
    del flat.layers["altitude"]
    write_zone(flat, tmp_path)
    assert import_zone_scene(None, tmp_path, tile_size=1.0) is None
    [text] = messages
    assert "KeyError" not in text and "Traceback" not in text
    assert text == (f"{tmp_path}: no zone here has a layer file for altitude "
                    "(altitude.{zoneId:04d}.bin[.gz]): zone 0 has blocks, control, plants")
    write_zone(sample_zone(5, 24), tmp_path)
    write_zone(sample_zone(6, 20), tmp_path)
    scene = import_zone_scene(None, tmp_path, tile_size=1.0)
    assert asked == [["5", "6"]]  # zone 0 cannot be imported: not offered
    assert scene is not None and scene.terrain.columns == 24


def test_importer_is_registered() -> None:
    from app.extensions import importers

    assert [i.key for i in importers() if i.key == "zone_scene"] == ["zone_scene"]


def _palette_names(main_window) -> list[str]:
    panel = main_window.foliage_editor.palette_panel
    return [panel.list.item(i).text() for i in range(panel.list.count())]


def _import_through_the_menu(main_window, monkeypatch, folder: Path) -> None:
    from app.extensions import zones

    monkeypatch.setattr("widgets.zone_open.QFileDialog.getExistingDirectory", lambda *a: str(folder))
    monkeypatch.setattr("widgets.zone_open.QInputDialog.getDouble", lambda *a: (1.0, True))
    (importer,) = zones.IMPORTERS
    main_window.run_importer(importer)


def test_an_imported_zone_has_the_palette_of_its_own_plants_only(main_window, monkeypatch, tmp_path: Path,
                                                                 messages) -> None:
    from model.foliage import builtin_palette

    demo = {t.name for t in builtin_palette()}
    assert demo & set(main_window.document.scene.sections["foliage"].palette.names())  # the demo palette
    zone = sample_zone(3, 32)
    write_zone(zone, tmp_path / "z")
    _import_through_the_menu(main_window, monkeypatch, tmp_path / "z")
    palette = main_window.document.scene.sections["foliage"].palette
    assert not messages and main_window.document.scene.name == "zone 0003"
    assert not demo & set(palette.names())
    assert set(palette.names()) == {t.name for t in zone_to_scene_palette(zone)}
    shown = _palette_names(main_window)
    assert len(shown) == len(palette.names()) and not any("⚠" in text for text in shown)
    # A zone without plants: an empty palette, not the sample types.
    del zone.layers["plants"]
    write_zone(zone, tmp_path / "bare")
    main_window.document.undo_stack.setClean()
    _import_through_the_menu(main_window, monkeypatch, tmp_path / "bare")
    assert main_window.document.scene.name == "zone 0003" and main_window.document.scene.terrain.columns == 32
    assert list(main_window.document.scene.sections["foliage"].palette) == []
    assert _palette_names(main_window) == []


def zone_to_scene_palette(zone):
    from model.zones.scene_import import zone_to_scene

    return zone_to_scene(zone).sections["foliage"].palette
