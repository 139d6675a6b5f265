"""Small frictions: imports reuse what their windows have open, and dialogs remember what they
were given."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog

from app.extensions import importers

SAMPLE_RULES = Path(__file__).resolve().parents[2] / "resources" / "plants"


def importer(key: str):
    return next(i for i in importers() if i.key == key)


def test_trn_as_scene_takes_the_file_open_in_the_trn_browser(main_window, tmp_path, monkeypatch) -> None:
    from model.trn.synthetic import realistic_stack
    from widgets import trn_import

    path = tmp_path / "planet.trn"
    path.write_bytes(realistic_stack(8, seed=2, extent=800.0).to_bytes())
    main_window.set_tool_window_visible("trn_browser", True)
    assert main_window.tool_widget("trn_browser").load(path)
    asked, titles = [], []
    monkeypatch.setattr(trn_import.QFileDialog, "getOpenFileName",
                        lambda *a, **k: asked.append(a) or ("", ""))
    monkeypatch.setattr(trn_import.RegionDialog, "exec",
                        lambda self: titles.append(self.windowTitle()) or QDialog.DialogCode.Rejected)
    main_window.run_importer(importer("trn_scene"))
    assert asked == [] and titles == ["Import planet.trn as scene"]


@pytest.fixture
def grow_dialogs(monkeypatch):
    """Each Grow dialog shown: its fields as filled, then Cancel (or OK with `accept`)."""
    from widgets import plant_grow

    seen: list[dict] = []
    plan = {"accept": False, "rules": None}

    def exec_(self) -> int:
        seen.append({"zone": self.zone_edit.text(), "rules": self.rules_edit.text(),
                     "passes": self.passes.value()})
        if plan["rules"] is not None:
            self.rules_edit.setText(plan["rules"])
            self.passes.setValue(7)
        return QDialog.DialogCode.Accepted if plan["accept"] else QDialog.DialogCode.Rejected

    monkeypatch.setattr(plant_grow.GrowForestDialog, "exec", exec_)
    monkeypatch.setattr(plant_grow, "_LAST", {})
    return seen, plan


def test_grow_offers_the_folders_open_in_their_windows(main_window, tmp_path, grow_dialogs) -> None:
    from model.zones import write_zone
    from model.zones.sample import sample_zone

    seen, _ = grow_dialogs
    write_zone(sample_zone(4, 64, seed=1), tmp_path / "zone")
    main_window.set_tool_window_visible("zone_viewer", True)
    main_window.tool_widget("zone_viewer").load(tmp_path / "zone", 4)
    main_window.set_tool_window_visible("plant_inspector", True)
    assert main_window.tool_widget("plant_inspector").open_folder(SAMPLE_RULES)
    main_window.run_importer(importer("plant_forest"))
    main_window.run_importer(importer("plant_forest_here"))
    assert seen[0]["zone"] == str(tmp_path / "zone") and seen[0]["rules"] == str(SAMPLE_RULES)
    assert seen[1]["rules"] == str(SAMPLE_RULES)


def test_grow_remembers_what_it_was_given_after_an_error(main_window, tmp_path, grow_dialogs,
                                                         monkeypatch) -> None:
    from widgets import plant_grow

    seen, plan = grow_dialogs
    errors: list[str] = []
    monkeypatch.setattr(plant_grow.QMessageBox, "critical", lambda p, t, text: errors.append(text))
    plan.update(accept=True, rules=str(tmp_path / "no such rules"))
    main_window.run_importer(importer("plant_forest_here"))
    assert len(errors) == 1 and "plant rules folder not found" in errors[0]
    plan.update(accept=False, rules=None)
    main_window.run_importer(importer("plant_forest_here"))
    assert seen[-1]["rules"] == str(tmp_path / "no such rules") and seen[-1]["passes"] == 7


def test_a_heightmap_scene_says_which_sample_types_cannot_grow_there(main_window, tmp_path) -> None:
    import numpy as np

    from model.formats.heightmap import scene_from_heightmap, write_heightmap

    heights = np.add.outer(np.arange(65.0), np.arange(65.0)).astype(np.float32)
    write_heightmap(tmp_path / "hill.npy", heights)
    main_window.open_scene(scene_from_heightmap(tmp_path / "hill.npy"))
    panel = main_window.foliage_editor.palette_panel
    note = panel.layer_note
    assert not note.isHidden()
    assert "4 types filter on terrain layers 'forest_floor', 'grass', 'rock'" in note.text()
    assert "place nothing" in note.text()
    terrain = main_window.document.scene.terrain
    for name in ("grass", "forest_floor", "rock"):  # the layers appear: nothing left to say
        terrain.add_layer(name, (90, 140, 60), np.zeros(terrain.heights.shape, np.uint8))
    main_window.foliage_editor._on_palette_changed()
    assert note.isHidden()


def test_a_10_m_brush_is_seen_on_a_16_km_world_at_frame_all(main_window, qtbot) -> None:
    import numpy as np

    from app.document import new_scene
    from tests.gui_helpers import render, show_editor

    main_window.open_scene(new_scene(samples=1025, spacing=16.0))  # 16 km a side
    viewport = show_editor(main_window, qtbot, view=(0.3, 70.0)).viewport
    viewport.overlays.set_toggle("show_ground_grid", False)
    without = render(viewport, qtbot).astype(int)
    viewport.overlays.brush_cursor.show((0.0, 0.0, 0.0), 10.0, 0.5)
    with_brush = render(viewport, qtbot).astype(int)
    changed = np.abs(with_brush - without).sum(axis=-1) > 60
    assert changed.sum() >= 20  # a ring a few pixels across, not a lost dot
    rows, cols = np.nonzero(changed)
    assert np.ptp(cols) >= 8 and np.ptp(rows) >= 4
    assert viewport.overlays.brush_cursor.radius == 10.0  # the brush itself is unchanged
    # near, the rim is drawn at its own radius
    viewport.camera.distance = 60.0
    viewport.overlays.brush_cursor.show((0.0, 0.0, 0.0), 10.0, 0.5)
    near = viewport.overlays.build(viewport.camera.target, viewport.camera.eye(),
                                   viewport._overlay_renderer._brush_least(viewport.frame_context()))[1]
    assert np.isclose(np.abs(near[:, [0, 2]]).max(), 10.0, atol=0.1)
