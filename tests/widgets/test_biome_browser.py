"""Biome browser on biome sets written by the tests (offscreen; no OpenGL needed)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtGui import QColor

from app.document import SceneDocument, new_scene
from app.extensions import importers, tool_windows
from app.extensions.biomes import import_biome_layers
from tests.model.biomes.biome_sets import write_set
from widgets.biome_browser import BiomeBrowser
from widgets.biome_panels import CONFLICT, INHERITED


@pytest.fixture()
def folders(tmp_path: Path) -> list[Path]:
    return write_set(
        tmp_path,
        {
            "Forest": {"Type": "Tile", "SeedName": "forest", "MapColor": "#228B22", "Weight": 2.0,
                       "Zones": [{"Zone": "Temperate", "Order": 0, "ConvertedPin": True}],
                       "Tags": {"Material": ["Solid", "Stone"], "Ore": []},
                       "TerrainHeightThreshold": {"Type": "Basic", "Positions": [0, 64, 128],
                                                  "Values": [0.0, 0.5, 1.0]}},
            "Birch": {"Type": "Tile", "Parent": "Forest", "MapColor": "0xDDDD88",
                      "Zones": [{"Zone": "Temperate", "Order": 0, "ConvertedPin": True}],
                      "Fade": {"FadeStart": 2.0}},
            "Ridge": {"Type": "Tile", "MapColor": "404040", "TerrainHeightThreshold": {
                "Type": "Noise", "Noise": "Ridges", "Keys": [0.25, 0.75],
                "Thresholds": [{"Type": "Basic", "Positions": [0, 10], "Values": [0.1, 0.2]},
                               {"Type": "Basic", "Positions": [5, 50, 90], "Values": [0.3, 0.6, 0.9]}]}},
            "Cave": {"Type": "Custom", "CustomBiomeGenerator": {"BiomeMask": ["Forest"], "Threshold": 0.5},
                     "Zones": [{"Zone": "Temperate", "Order": 1, "ConvertedPin": True}]},
            "Broken": "{",
        },
        {"Forest": {"Type": "Tile", "Weight": 3.0}},
    )


@pytest.fixture()
def browser(qtbot) -> BiomeBrowser:
    w = BiomeBrowser(None)
    qtbot.addWidget(w)
    return w


def test_tool_window_and_importer_are_declared(qtbot) -> None:
    spec = next(w for w in tool_windows() if w.key == "biomes")
    widget = spec.create(None)
    qtbot.addWidget(widget)
    assert isinstance(widget, BiomeBrowser) and spec.shortcut and spec.tooltip
    assert not widget.layers_button.isEnabled()  # no scene to add layers to
    assert any(i.key == "biome_layers" for i in importers())


def test_list_groups_by_type_with_swatches_and_badges(browser, folders) -> None:
    assert browser.load_folders(folders)
    groups = [browser.asset_list.topLevelItem(i) for i in range(browser.asset_list.topLevelItemCount())]
    assert [g.text(0) for g in groups] == ["Tile biomes (3)", "Custom biomes (1)", "Unresolved type (1)"]
    assert [groups[0].child(i).text(0) for i in range(3)] == ["Birch", "Forest", "Ridge"]
    birch = browser.list_items["Birch"]
    pixel = birch.icon(0).pixmap(14, 14).toImage().pixelColor(7, 7)
    assert (pixel.red(), pixel.green(), pixel.blue()) == (0xDD, 0xDD, 0x88)
    assert birch.text(1) == "⚠ 1"  # its Order collides with Forest's in Temperate
    assert browser.list_items["Broken"].text(1) == "⚠ 1"
    assert browser.list_items["Ridge"].text(1) == ""
    assert "5 biomes (3 Tile, 1 Custom), 4 resolved — 3 errors, 0 warnings" in browser.summary.text()


def test_resolved_fields_show_their_origin_and_the_chain(browser, folders) -> None:
    browser.load_folders(folders)
    browser.select_asset("Birch")
    items = browser.fields.items
    assert items["MapColor"].text(1) == '"0xDDDD88"' and items["MapColor"].text(2) == "base/Birch.json"
    assert items["Weight"].text(1) == "3.0" and items["Weight"].text(2) == "overlay1/Forest.json"
    assert items["Fade.FadeStart"].text(2) == "base/Birch.json"
    assert items["Tags.Material"].text(2) == "base/Forest.json"
    assert items["Weight"].foreground(0).color() == INHERITED
    assert items["MapColor"].foreground(0).color() != INHERITED
    assert "SeedName" not in items  # never inherited through Parent
    assert [browser.chain.item(i).text() for i in range(browser.chain.count())] == [
        "Birch   (base/Birch.json)", "Forest   (base/Forest.json, overlay1/Forest.json)"]
    assert "Birch → Forest" in browser.chain_label.text()
    assert "1 error, 0 warnings" in browser.chain_label.text()  # counted, not "1 errors"
    assert [browser.tags.item(i).text() for i in range(browser.tags.count())] == [
        "Ore", "Material", "Solid", "Stone", "Material=Solid", "Material=Stone"]
    issues = browser.issues
    assert issues.topLevelItemCount() == 1
    row = issues.topLevelItem(0)
    assert (row.text(0), row.text(1), row.text(2)) == ("error", "Zones[0].Order", "base/Birch.json")
    assert "converted Order 0 is also used by Forest Zones[0]" in row.text(3)


def test_height_profile_plots_basic_and_noise_thresholds(browser, folders) -> None:
    browser.load_folders(folders)
    browser.select_asset("Birch")  # inherits Forest's Basic profile
    assert browser.profile.curves == [("Basic", [0.0, 64.0, 128.0], [0.0, 0.5, 1.0])]
    assert len(browser.profile.getPlotItem().listDataItems()) == 1
    browser.select_asset("Ridge")
    assert browser.profile.curves == [("key 0.25", [0.0, 10.0], [0.1, 0.2]),
                                      ("key 0.75", [5.0, 50.0, 90.0], [0.3, 0.6, 0.9])]
    assert len(browser.profile.getPlotItem().listDataItems()) == 2
    browser.select_asset("Cave")
    assert browser.profile.curves == [] and browser.profile.getPlotItem().listDataItems() == []


def test_tile_weights_in_map_colours(browser, folders) -> None:
    browser.load_folders(folders)
    assert browser.weights.bars == [("Birch", 3.0, (0xDD, 0xDD, 0x88)), ("Forest", 3.0, (0x22, 0x8B, 0x22)),
                                    ("Ridge", 1.0, (0x40, 0x40, 0x40))]


def test_zone_order_table_highlights_conflicts(browser, folders) -> None:
    browser.load_folders(folders)
    z = browser.zones
    rows = [[z.item(r, c).text() for c in range(z.columnCount())] for r in range(z.rowCount())]
    assert rows == [["Temperate", "0", "Birch", "Tile", "Zones[0]", "yes"],
                    ["Temperate", "0", "Forest", "Tile", "Zones[0]", "yes"],
                    ["Temperate", "1", "Cave", "Custom", "Zones[0]", "yes"]]
    assert z.conflict_rows() == [0, 1]
    assert z.item(2, 0).background().color() != QColor(CONFLICT)


def test_missing_folder_keeps_the_open_set(browser, folders, tmp_path) -> None:
    browser.load_folders(folders)
    assert not browser.load_folders([tmp_path / "missing"])
    assert "missing: not a folder of biome assets" in browser.last_error
    assert browser.folders == folders and "Forest" in browser.biomes


def test_export_and_reload_keep_the_selection(browser, folders, tmp_path) -> None:
    browser.load_folders(folders)
    browser.select_asset("Birch")
    assert browser.export_button.isEnabled()
    out = tmp_path / "out" / "Birch.json"
    assert browser.export_current(out)
    flat = json.loads(out.read_text(encoding="utf-8"))
    assert flat["Weight"] == 3.0 and "Parent" not in flat
    (folders[1] / "Birch.json").write_text('{"Type": "Tile", "Weight": 9.5}')
    browser.reload()
    assert browser.current.key == "Birch" and browser.fields.items["Weight"].text(1) == "9.5"
    browser.select_asset("Broken")
    assert not browser.export_button.isEnabled() and browser.fields.topLevelItemCount() == 0
    assert browser.issues.topLevelItem(0).text(1) == "line 1 column 2"


def test_tile_biomes_become_layers_of_the_open_scene_as_one_undo_step(qtbot, folders) -> None:
    document = SceneDocument(new_scene(samples=5))
    window = SimpleNamespace(document=document)
    spec = next(w for w in tool_windows() if w.key == "biomes")
    browser = spec.create(window)
    qtbot.addWidget(browser)
    browser.load_folders(folders)
    assert browser.layers_button.isEnabled()
    terrain = document.scene.terrain
    assert browser.add_layers() == ["Birch", "Forest", "Ridge"]
    assert [(layer.name, layer.color) for layer in terrain.layers] == [
        ("grass", (104, 146, 62)), ("Birch", (0xDD, 0xDD, 0x88)), ("Forest", (0x22, 0x8B, 0x22)),
        ("Ridge", (0x40, 0x40, 0x40))]
    assert not terrain.layer("Forest").weights.any()
    assert document.undo_stack.count() == 1 and document.modified
    document.undo_stack.undo()
    assert [layer.name for layer in terrain.layers] == ["grass"]
    document.undo_stack.redo()
    assert [layer.name for layer in terrain.layers] == ["grass", "Birch", "Forest", "Ridge"]
    assert browser.add_layers() == []  # all there already: no empty undo step
    assert document.undo_stack.count() == 1
    assert "every Tile biome has one" in browser.summary.text()


def test_importer_adds_to_the_open_scene_or_builds_a_new_one(qtbot, folders) -> None:
    document = SceneDocument(new_scene(samples=5))
    assert import_biome_layers(SimpleNamespace(document=document), folders) is None
    assert [layer.name for layer in document.scene.terrain.layers] == ["grass", "Birch", "Forest", "Ridge"]
    scene = import_biome_layers(None, [folders[0]])
    assert [layer.name for layer in scene.terrain.layers] == ["grass", "Birch", "Forest", "Ridge"]
    assert scene.name == "base"


def test_long_chains_show_elided_in_the_list_and_whole_for_the_selected_asset(browser, tmp_path) -> None:
    assets = {"L000": {"Type": "Tile"}}
    assets.update({f"L{i:03d}": {"Type": "Tile", "Parent": f"L{i - 1:03d}"} for i in range(1, 300)})
    assert browser.load_folders(write_set(tmp_path, assets))
    item = browser.list_items["L299"]
    assert item.toolTip(0) == "L299 → L298 → L297 → L296 → L295 → L294 → … 293 more … → L000"
    browser.select_asset("L299")
    assert browser.chain.count() == 300  # one asset: its whole chain, link by link
    assert browser.chain.item(299).text().startswith("L000")
    assert "L299 → L298" in browser.chain_label.text() and "… 293 more … → L000" in browser.chain_label.text()
