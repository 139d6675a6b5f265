"""Big imports in the editor: written to a scene file tile by tile (progress, Cancel), then opened
from it paged, never held whole."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app import main_window as mw_module
from model.formats import tiles
from model.formats.heightmap import scene_from_heightmap, write_heightmap
from model.formats.scene_file import save_scene
from widgets import import_target


@pytest.fixture
def large(monkeypatch):
    """Everything over 100 samples counts as large; tiles of 16; dialogs answered."""
    from PySide6.QtWidgets import QDialog, QFileDialog

    from widgets.heightmap_dialog import HeightmapOptionsDialog

    monkeypatch.setattr(import_target, "LARGE_IMPORT_CELLS", 100)
    monkeypatch.setattr(tiles, "TILE", 16)
    answers: dict = {"errors": []}
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(answers["source"]), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(answers["out"]), ""))
    monkeypatch.setattr(HeightmapOptionsDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: answers["errors"].append(text))
    monkeypatch.setattr(mw_module.QMessageBox, "warning",
                        lambda *a, **k: mw_module.QMessageBox.StandardButton.Discard)
    return answers


def _trigger(main_window) -> None:
    (action,) = [a for a in main_window.import_menu.actions() if a.objectName() == "action_import_heightmap"]
    action.trigger()


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_large_heightmap_is_written_first_and_opens_paged(main_window, large, tmp_path: Path) -> None:
    heights = np.add.outer(np.arange(37.0), np.arange(41.0) / 3).astype(np.float32)
    write_heightmap(tmp_path / "big.tif", heights, spacing=2.0)
    large.update(source=tmp_path / "big.tif", out=tmp_path / "scene" / "big")
    opened = []
    real_open = main_window.open_scene
    main_window.open_scene = lambda scene: (opened.append(scene.terrain.paged_heights is not None),
                                            real_open(scene))
    _trigger(main_window)
    assert opened == [True]  # what the editor opens is the written scene, paged
    assert large["errors"] == []
    doc = main_window.document
    out = tmp_path / "scene" / "big.boscage"
    assert doc.path == out and not doc.modified  # it is on disk already: nothing to save
    terrain = doc.scene.terrain
    assert (terrain.rows, terrain.columns) == (37, 41)
    assert terrain.read_heights(slice(0, 37), slice(0, 41)).tobytes() == heights.tobytes()
    save_scene(scene_from_heightmap(tmp_path / "big.tif"), tmp_path / "ref" / "big.boscage")
    assert _files(tmp_path / "scene") == _files(tmp_path / "ref")
    assert str(out) in main_window.settings.recent_files()
    main_window.viewport.grabFramebuffer()  # the paged terrain draws


def test_cancel_writes_nothing_and_keeps_the_open_scene(main_window, large, tmp_path: Path,
                                                        monkeypatch) -> None:
    write_heightmap(tmp_path / "big.npy", np.ones((40, 40), np.float32))
    large.update(source=tmp_path / "big.npy", out=tmp_path / "scene" / "big.boscage")
    calls = []

    def press_cancel_on_the_third_tile(self, done, total, what):
        calls.append(done)
        return done < 3

    monkeypatch.setattr(import_target.TileProgress, "__call__", press_cancel_on_the_third_tile)
    before = main_window.document.scene
    _trigger(main_window)
    assert calls[-1] == 3 and main_window.document.scene is before
    assert list((tmp_path / "scene").iterdir()) == [] and large["errors"] == []


def test_a_large_zone_and_trn_region_are_written_first(qtbot, large, tmp_path: Path) -> None:
    from model.trn.evaluator import Region
    from model.zones import write_zone
    from model.zones.sample import sample_zone
    from tests.model.trn.test_to_scene import _doc
    from widgets.trn_import import import_trn_scene
    from widgets.zone_open import import_zone_scene

    write_zone(sample_zone(3, 32), tmp_path / "zone")
    large["out"] = tmp_path / "z.boscage"
    scene = import_zone_scene(None, tmp_path / "zone", tile_size=2.0)
    assert scene.path == tmp_path / "z.boscage" and scene.terrain.paged_heights is not None
    assert scene.sections["foliage"].volume.count() > 0
    doc = _doc()
    doc_path = tmp_path / "t.trn"
    doc_path.write_bytes(doc.to_bytes())
    large["out"] = tmp_path / "t.boscage"
    scene = import_trn_scene(None, doc_path, Region.from_bounds(-20, -20, 20, 20, 2.0))
    assert scene.path == tmp_path / "t.boscage" and scene.terrain.paged_heights is not None
    assert "rock" in [la.name for la in scene.terrain.layers]


def test_a_terrain_drawn_with_levels_of_detail_stays_paged_in_the_editor(main_window, large,
                                                                         tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tiles, "TILE", 512)
    z, x = np.mgrid[0:1025, 0:1025].astype(np.float32)
    write_heightmap(tmp_path / "hills.npy", 30 * np.sin(x / 90) * np.cos(z / 70))
    large.update(source=tmp_path / "hills.npy", out=tmp_path / "hills.boscage")
    _trigger(main_window)
    terrain = main_window.document.scene.terrain
    assert main_window.document.path == tmp_path / "hills.boscage" and large["errors"] == []
    main_window.viewport.grabFramebuffer()
    assert terrain.paged_heights is not None  # drawn from the tiles: the grid was never assembled
