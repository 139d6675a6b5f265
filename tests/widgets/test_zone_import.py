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


def test_bad_zone_shows_one_clear_error(qtbot, tmp_path: Path, messages) -> None:
    write_zone(sample_zone(3, 16), tmp_path)
    (tmp_path / "control.0003.bin").write_bytes(b"\x01")
    assert import_zone_scene(None, tmp_path, tile_size=1.0) is None
    assert messages and "control.0003.bin" in messages[0] and "holds 1 bytes, expected 512" in messages[0]


def test_importer_is_registered() -> None:
    from app.extensions import importers

    assert [i.key for i in importers() if i.key == "zone_scene"] == ["zone_scene"]
