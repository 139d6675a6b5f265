"""Terrain tools in the real editor window: sculpt and paint drags, undo, layers, heightmaps."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app import main_window as mw_module
from app.extensions import terrain as terrain_extension
from app.terrain_editor import install
from app.terrain_tools import ray_hit
from model.brush import Brush
from model.foliage import FoliageScatter, FoliageType, LayerFilter, foliage_of
from model.foliage.volume import FoliageVolume
from model.formats.heightmap import write_heightmap, write_layer_png
from model.terrain import Terrain


@pytest.fixture
def errors(monkeypatch):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    return shown


@pytest.fixture
def editor(main_window):
    ed = install(main_window)
    ed.toolbox.set_brush(Brush(radius=8.0, strength=0.8, falloff=0.5))
    return ed


def grid_xz(t: Terrain) -> tuple[np.ndarray, np.ndarray]:
    gx = t.origin[0] + np.arange(t.columns) * t.spacing
    gz = t.origin[1] + np.arange(t.rows) * t.spacing
    return np.meshgrid(gx, gz)


def distance_to_segment(t: Terrain, a, b) -> np.ndarray:
    x, z = grid_xz(t)
    ax, az = a
    bx, bz = b
    dx, dz = bx - ax, bz - az
    length2 = dx * dx + dz * dz
    f = np.zeros_like(x) if length2 == 0 else np.clip(((x - ax) * dx + (z - az) * dz) / length2, 0, 1)
    return np.hypot(x - (ax + f * dx), z - (az + f * dz))


# ---- sculpt with the mouse ---------------------------------------------------------------------
def test_a_raise_drag_raises_under_the_brush_only_and_undo_is_exact(main_window, editor, qtbot) -> None:
    viewport = main_window.viewport
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    editor.toolbox.activate("raise")
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    pixels = [centre + QPoint(5 * i, 2 * i) for i in range(6)]
    path = [editor.toolbox.world_at(p.x(), p.y()) for p in pixels]  # the ground under the cursor
    assert all(p is not None for p in path)
    tool, centres = editor.toolbox.active, []
    make_patch = tool.make_patch
    tool.make_patch = lambda t, brush, x, z: (centres.append((x, z)), make_patch(t, brush, x, z))[1]
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixels[0])
    for p in pixels[1:]:
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pixels[-1])

    after = terrain.heights.copy()
    changed = after != before
    radius = editor.toolbox.brush.radius
    assert len(centres) >= 3 and centres[0] == path[0]
    along = np.min([distance_to_segment(terrain, a, b) for a, b in zip(path, path[1:], strict=False)], axis=0)
    x, z = grid_xz(terrain)
    reach = np.min([np.hypot(x - cx, z - cz) for cx, cz in centres], axis=0)
    assert changed.sum() > 10
    assert not changed[reach > radius].any()  # nowhere else
    assert changed[reach < radius * 0.5].all() and not changed[along > radius + 1.0].any()
    assert (after >= before).all() and (after[reach < 2.0] > before[reach < 2.0]).all()
    stack = main_window.document.undo_stack
    assert stack.count() == 1 and stack.text(0) == "Raise terrain"  # one step for the drag
    assert main_window.document.modified
    stack.undo()
    assert terrain.heights.tobytes() == before.tobytes()
    stack.redo()
    assert terrain.heights.tobytes() == after.tobytes()


def test_ctrl_drag_lowers_and_navigation_buttons_still_orbit(main_window, editor, qtbot) -> None:
    viewport = main_window.viewport
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    editor.toolbox.activate("raise")
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, centre)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, centre)
    assert (terrain.heights <= before).all() and (terrain.heights < before).any()
    assert main_window.document.undo_stack.text(0) == "Lower terrain"
    yaw = viewport.camera.yaw
    QTest.mousePress(viewport, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, centre)
    QTest.mouseMove(viewport, centre + QPoint(40, 0))
    QTest.mouseRelease(viewport, Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier,
                       centre + QPoint(40, 0))
    assert viewport.camera.yaw != yaw
    assert main_window.document.undo_stack.count() == 1


@pytest.mark.parametrize("tool", ["smooth", "flatten", "noise"])
def test_every_sculpt_tool_is_one_exact_undo_step(main_window, editor, tool) -> None:
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    editor.toolbox.activate(tool)
    editor.toolbox.drag([(-10.0, -6.0), (-4.0, -2.0), (3.0, 1.0), (9.0, 5.0)])
    after = terrain.heights.copy()
    assert not np.array_equal(after, before)
    stack = main_window.document.undo_stack
    assert stack.count() == 1
    stack.undo()
    assert terrain.heights.tobytes() == before.tobytes()
    stack.redo()
    assert terrain.heights.tobytes() == after.tobytes()


def test_flatten_levels_toward_the_height_under_the_press(main_window, editor) -> None:
    terrain = main_window.document.scene.terrain
    editor.toolbox.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.0))
    editor.toolbox.activate("flatten")
    target = float(terrain.height_at(10.0, 0.0))
    editor.toolbox.drag([(10.0, 0.0), (1.0, 0.0)])  # stamps every 1.5 m land on both ends
    # Within 5.9 m of the path every point is within 6 m of a stamp 1.5 m apart.
    near = distance_to_segment(terrain, (10.0, 0.0), (1.0, 0.0)) <= 5.9
    np.testing.assert_allclose(terrain.heights[near], target, atol=1e-4)


def test_sculpting_regrounds_stored_foliage_in_the_same_step(main_window, editor) -> None:
    scene = main_window.document.scene
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("pine"))
    x, z = 2.0, 1.0
    ground = float(scene.terrain.height_at(x, z))
    foliage.volume.add("pine", np.array([[x, ground - 0.25, z, 0.5, 0, 0, 1.0]], np.float32))
    records = foliage.volume.all_records("pine").copy()
    editor.toolbox.activate("raise")
    editor.toolbox.drag([(x, z), (x + 1.0, z)])
    moved = foliage.volume.all_records("pine")
    assert moved[0, 1] > records[0, 1]
    assert moved[0, 1] - scene.terrain.height_at(x, z) == pytest.approx(-0.25, abs=1e-4)
    main_window.document.undo_stack.undo()
    assert foliage.volume.all_records("pine").tobytes() == records.tobytes()


def test_bracket_keys_resize_and_shift_changes_strength(main_window, editor, settings_folder) -> None:
    viewport = main_window.viewport
    editor.toolbox.activate("smooth")
    QTest.keyClick(viewport, Qt.Key.Key_BracketRight)
    assert editor.toolbox.brush.radius == pytest.approx(10.0)
    QTest.keyClick(viewport, Qt.Key.Key_BracketLeft)
    QTest.keyClick(viewport, Qt.Key.Key_BracketLeft)
    assert editor.toolbox.brush.radius == pytest.approx(6.4)
    QTest.keyClick(viewport, Qt.Key.Key_BracketLeft, Qt.KeyboardModifier.ShiftModifier)
    assert editor.toolbox.brush.strength == pytest.approx(0.75)
    # The brush persists in the settings.
    from app.terrain_tools import TerrainToolbox

    again = TerrainToolbox(viewport, main_window.document, main_window.settings)
    assert again.brush == editor.toolbox.brush
    viewport.removeEventFilter(again)


def test_tools_are_one_exclusive_group(main_window, editor) -> None:
    actions = editor.toolbox.actions
    actions["raise"].trigger()
    actions["paint_layer"].trigger()
    assert not actions["raise"].isChecked() and editor.toolbox.active.tool_key == "paint_layer"
    actions["paint_layer"].trigger()
    assert editor.toolbox.active is None
    assert all(a.toolTip() and not a.shortcut().isEmpty() for a in actions.values())
    titles = [a.text().replace("&", "") for a in editor.menu.actions() if not a.isSeparator()]
    assert "Raise / Lower" in titles and "Export Heightmap…" in titles


def test_ray_hit_finds_the_ground_within_a_centimetre() -> None:
    z, x = np.mgrid[0:64, 0:64].astype(np.float32)
    t = Terrain(5 * np.sin(x / 6) + 0.2 * z, spacing=1.5, origin=(-10.0, 4.0))
    for px, pz in [(12.3, 30.1), (50.0, 60.5), (-5.5, 10.0)]:
        py = float(t.height_at(px, pz))
        eye = np.array([px - 30.0, py + 40.0, pz - 20.0])
        direction = np.array([px, py, pz]) - eye
        hit = ray_hit(t, eye, direction / np.linalg.norm(direction))
        assert np.linalg.norm(np.array(hit) - [px, py, pz]) < 0.01
    assert ray_hit(t, [0.0, 100.0, 0.0], [0.0, 1.0, 0.0]) is None  # looking up


# ---- painting and scattering -------------------------------------------------------------------
def scatter_pines(scene, seed: int = 5) -> np.ndarray:
    t = scene.terrain
    x0, z0, x1, z1 = t.bounds()
    volume = FoliageVolume(foliage_of(scene).palette)
    result = FoliageScatter(t, volume).fill_polygon(["pine"], [(x0, z0), (x1, z0), (x1, z1), (x0, z1)],
                                                    seed=seed)
    return result.records("pine")


def test_painting_a_layer_then_scattering_places_only_on_the_painted_area(main_window, editor) -> None:
    scene = main_window.document.scene
    assert editor.add_layer("meadow", (90, 200, 90))
    assert editor.toolbox.current_layer == "meadow"  # a new layer becomes current
    editor.toolbox.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.2))
    editor.toolbox.activate("paint_layer")
    stroke = [(-20.0, -10.0), (-10.0, -10.0)]
    editor.toolbox.drag(stroke)
    assert main_window.document.undo_stack.text(1) == "Paint layer 'meadow'"
    foliage_of(scene).palette.add(FoliageType("pine", density=400.0, layer=LayerFilter("meadow", 0.5)))
    placed = scatter_pines(scene)
    assert len(placed) > 5
    seg = np.array(stroke)
    px, pz = placed[:, 0].astype(np.float64), placed[:, 2].astype(np.float64)
    d = np.min([np.hypot(px - x, pz - z) for x, z in np.linspace(seg[0], seg[1], 50)], axis=0)
    assert (d <= 6.0 + scene.terrain.spacing).all()
    assert (scene.terrain.layer_weight_at("meadow", px, pz) >= 0.5).all()
    # Erasing with Ctrl leaves no meadow where the stroke was.
    editor.toolbox.set_brush(Brush(radius=9.0, strength=1.0, falloff=0.0))
    editor.toolbox.drag(stroke, Qt.KeyboardModifier.ControlModifier)
    assert len(scatter_pines(scene)) == 0


def test_renaming_with_update_types_keeps_the_scatter_result(main_window, editor) -> None:
    scene = main_window.document.scene
    foliage_of(scene).palette.add(FoliageType("pine", density=100.0, layer=LayerFilter("red", 0.5)))
    before = scatter_pines(scene)
    assert len(before) > 0
    asked = []
    editor.ask_update_types = lambda parent, old, new, types: asked.append((old, new, types)) or True
    assert editor.rename_layer("red", "crimson")
    assert asked == [("red", "crimson", ["pine"])]
    assert [layer.name for layer in scene.terrain.layers] == ["crimson", "blue"]
    assert foliage_of(scene).palette["pine"].layer.name == "crimson"
    assert scatter_pines(scene).tobytes() == before.tobytes()
    main_window.document.undo_stack.undo()  # one step undoes the rename and the types
    assert scene.terrain.layer("red") is not None
    assert foliage_of(scene).palette["pine"].layer.name == "red"
    assert scatter_pines(scene).tobytes() == before.tobytes()


def test_renaming_without_updating_leaves_types_missing_their_layer(main_window, editor) -> None:
    scene = main_window.document.scene
    foliage_of(scene).palette.add(FoliageType("pine", density=100.0, layer=LayerFilter("red", 0.5)))
    editor.ask_update_types = lambda *a: False
    editor.rename_layer("red", "crimson")
    assert foliage_of(scene).palette["pine"].layer.name == "red"
    assert len(scatter_pines(scene)) == 0
    foliage_of(scene).palette.add(FoliageType("oak", layer=LayerFilter("blue", 0.5)))
    editor.ask_update_types = lambda *a: None  # cancel: nothing happens
    assert not editor.rename_layer("blue", "navy")
    assert scene.terrain.layer("blue") is not None
    assert main_window.document.undo_stack.count() == 1


def test_deleting_lists_the_types_that_will_refuse_and_undo_restores(main_window, editor) -> None:
    scene = main_window.document.scene
    foliage_of(scene).palette.add(FoliageType("pine", layer=LayerFilter("blue", 0.5)))
    foliage_of(scene).palette.add(FoliageType("oak", layer=LayerFilter("blue", 0.2)))
    blue = scene.terrain.layer("blue")
    confirmations = []
    editor.confirm_delete = lambda parent, name, types: confirmations.append((name, types)) or True
    assert editor.delete_layer("blue")
    assert confirmations == [("blue", ["pine", "oak"])]
    assert scene.terrain.layer("blue") is None
    assert "pine, oak" in editor.panel.status.text() and "layer missing" in editor.panel.status.text()
    main_window.document.undo_stack.undo()
    assert scene.terrain.layer("blue") is blue and scene.terrain.layers[1] is blue


# ---- the Layers panel ----------------------------------------------------------------------------
def test_layers_panel_fills_the_dock_and_follows_edits(main_window, editor) -> None:
    panel = editor.panel
    assert main_window.docks["layers"].widget() is panel
    assert panel.list.count() == 2 and panel.list.item(0).text().startswith("red")
    panel.add_requested.emit("moss", (1, 2, 3))
    assert [panel.list.item(i).text().split()[0] for i in range(3)] == ["red", "blue", "moss"]
    panel.select("moss")
    panel.request_move(-1)
    assert [layer.name for layer in main_window.document.scene.terrain.layers] == ["red", "moss", "blue"]
    assert panel.current_name() == "moss"
    panel.recolour_requested.emit("moss", (9, 9, 9))
    panel.recolour_requested.emit("moss", (8, 8, 8))  # a second pick of the same layer merges
    stack = main_window.document.undo_stack
    assert stack.count() == 3
    assert main_window.document.scene.terrain.layer("moss").color == (8, 8, 8)
    stack.undo()
    assert main_window.document.scene.terrain.layer("moss").color == (1, 2, 3)
    stack.undo()
    stack.undo()
    assert [panel.list.item(i).text().split()[0] for i in range(panel.list.count())] == ["red", "blue"]


def test_bad_layer_edits_show_one_error_and_push_nothing(main_window, editor, errors) -> None:
    assert not editor.add_layer("blue", (0, 0, 0))
    assert not editor.rename_layer("red", "  ")
    assert [t for t, _ in errors] == ["Layer edit refused"] * 2
    assert "already exists" in errors[0][1] and "empty" in errors[1][1]
    assert main_window.document.undo_stack.count() == 0


def test_panel_follows_a_replaced_scene(main_window, editor) -> None:
    from app.document import new_scene

    main_window.open_scene(new_scene(samples=17))
    assert editor.panel.layer_names() == ["grass"] and editor.toolbox.current_layer == "grass"


# ---- heightmaps and layer weights --------------------------------------------------------------
def test_importing_heights_is_one_step_and_wrong_sizes_are_named(main_window, editor, errors, tmp_path):
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    wanted = (before * 0.5 + 3.0).astype(np.float32)
    np.save(tmp_path / "h.npy", wanted)
    assert editor.import_heights(tmp_path / "h.npy")
    assert terrain.heights.tobytes() == wanted.tobytes()
    main_window.document.undo_stack.undo()
    assert terrain.heights.tobytes() == before.tobytes()
    write_heightmap(tmp_path / "small.png", np.zeros((10, 12), np.float32))
    assert not editor.import_heights(tmp_path / "small.png")
    assert "12 x 10 (columns x rows), expected 41 x 33" in errors[-1][1]
    assert main_window.document.undo_stack.count() == 1


def test_export_then_import_png16_round_trips_within_16_bits(main_window, editor, tmp_path) -> None:
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    assert editor.export_heights(tmp_path / "h.png")
    terrain.heights[:] = 0.0
    assert editor.import_heights(tmp_path / "h.png")
    step = float(before.max() - before.min()) / 65535
    assert np.abs(terrain.heights - before).max() <= step / 2 + 1e-5


def test_layer_weights_import_and_export(main_window, editor, errors, tmp_path) -> None:
    terrain = main_window.document.scene.terrain
    red = terrain.layer("red").weights.copy()
    assert editor.export_layer("red", tmp_path / "red.png")
    write_layer_png(tmp_path / "blue.png", red)
    assert editor.import_layer("blue", tmp_path / "blue.png")
    assert np.array_equal(terrain.layer("blue").weights, red)
    main_window.document.undo_stack.undo()
    assert np.array_equal(terrain.layer("blue").weights, 255 - red)
    write_layer_png(tmp_path / "tiny.png", np.zeros((3, 3), np.uint8))
    assert not editor.import_layer("blue", tmp_path / "tiny.png")
    assert "expected 41 x 33" in errors[-1][1]


def test_extension_entries(main_window) -> None:
    (window,) = terrain_extension.WINDOWS
    standalone = window.create(None)
    assert standalone.brush() == Brush()
    standalone.deleteLater()
    panel = window.create(main_window)
    editor = main_window.terrain_editor
    assert install(main_window) is editor  # installing twice gives the same editor
    panel.radius.setValue(20.0)
    assert editor.toolbox.brush.radius == 20.0
    editor.toolbox.set_brush(Brush(radius=3.0))
    assert panel.radius.value() == 3.0
    panel.deleteLater()
    assert [i.key for i in terrain_extension.IMPORTERS] == ["heightmap"]


# ---- dialogs (file choosers and options answered by the test) -----------------------------------
@pytest.fixture
def answer_dialogs(monkeypatch):
    from PySide6.QtWidgets import QDialog, QFileDialog

    from widgets.heightmap_dialog import HeightmapOptionsDialog

    chosen: dict = {}
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(chosen["path"]), ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(chosen["path"]), ""))

    def exec_(dialog):
        for key, value in chosen.get("options", {}).items():
            if key == "auto":
                dialog.auto.setChecked(value)
            else:
                getattr(dialog, key).setValue(value)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(HeightmapOptionsDialog, "exec", exec_)
    # An imported scene is unsaved: importing again asks first, and these tests discard it.
    chosen["unsaved_asked"] = []

    def warning(parent, title, text, *args, **kwargs):
        chosen["unsaved_asked"].append(text)
        return mw_module.QMessageBox.StandardButton.Discard

    monkeypatch.setattr(mw_module.QMessageBox, "warning", warning)
    return chosen


def test_file_import_heightmap_as_scene(main_window, answer_dialogs, errors, tmp_path) -> None:
    heights = np.linspace(0, 50, 17 * 23, dtype=np.float32).reshape(17, 23)
    write_heightmap(tmp_path / "valley.r16", heights, offset=0.0, scale=50.0)
    answer_dialogs.update(path=tmp_path / "valley.r16",
                          options={"columns": 23, "rows": 17, "offset": 0.0, "scale": 50.0, "spacing": 4.0})
    (importer,) = terrain_extension.IMPORTERS
    main_window.run_importer(importer)
    terrain = main_window.document.scene.terrain
    assert terrain.heights.shape == (17, 23) and terrain.spacing == 4.0
    assert np.abs(terrain.heights - heights).max() <= 50.0 / 65535
    assert main_window.document.modified and answer_dialogs["unsaved_asked"] == []
    # A RAW file of the wrong size: one error naming both sizes, the scene is kept.
    answer_dialogs["options"]["columns"] = 24
    main_window.run_importer(importer)
    assert len(answer_dialogs["unsaved_asked"]) == 1  # the first import was never saved
    assert "expected 24 x 17 x 2 = 816 bytes, file holds 782" in errors[-1][1]
    assert main_window.document.scene.terrain is terrain


def test_terrain_menu_export_and_import_heights(main_window, editor, answer_dialogs, tmp_path) -> None:
    terrain = main_window.document.scene.terrain
    before = terrain.heights.copy()
    answer_dialogs.update(path=tmp_path / "h.r16", options={"auto": False, "offset": -5.0, "scale": 40.0})
    editor.actions["export_heights"].trigger()
    assert (tmp_path / "h.r16").stat().st_size == 33 * 41 * 2
    assert "height = -5 + 40 m" in main_window.statusBar().currentMessage()
    terrain.heights[:] = 0.0
    editor.actions["import_heights"].trigger()
    assert np.abs(terrain.heights - before).max() <= 40.0 / 65535
    assert main_window.document.undo_stack.text(0) == "Import heightmap h.r16"


def test_painting_without_a_layer_says_so_and_changes_nothing(main_window, editor) -> None:
    messages = []
    editor.toolbox.message.connect(messages.append)
    editor.toolbox.set_current_layer(None)
    editor.toolbox.activate("paint_layer")
    editor.toolbox.drag([(0.0, 0.0), (5.0, 0.0)])
    assert main_window.document.undo_stack.count() == 0
    assert messages and "pick one in the Layers panel" in messages[-1] and "None" not in messages[-1]


def test_a_drag_off_the_terrain_pushes_nothing(main_window, editor) -> None:
    editor.toolbox.activate("raise")
    editor.toolbox.drag([(500.0, 500.0), (600.0, 500.0)])
    assert main_window.document.undo_stack.count() == 0


def test_a_png_scene_import_offers_the_spacing_the_file_stores(main_window, answer_dialogs, errors,
                                                                tmp_path, monkeypatch) -> None:
    from widgets.heightmap_dialog import HeightmapOptionsDialog

    heights = np.linspace(0, 30, 9 * 11, dtype=np.float32).reshape(9, 11)
    write_heightmap(tmp_path / "ridge.png", heights, spacing=3.5)
    shown: list[HeightmapOptionsDialog] = []
    original = HeightmapOptionsDialog.__init__

    def record(self, *args, **kwargs):
        original(self, *args, **kwargs)
        shown.append(self)

    monkeypatch.setattr(HeightmapOptionsDialog, "__init__", record)
    answer_dialogs.update(path=tmp_path / "ridge.png", options={})
    (importer,) = terrain_extension.IMPORTERS
    main_window.run_importer(importer)
    assert errors == []
    assert main_window.document.scene.terrain.spacing == 3.5  # not replaced by the dialog's default
    assert "11 × 9 samples" in shown[0].header.text() and "ridge.png" in shown[0].header.text()
    # A damaged file is reported before any question is asked, and the scene stays.
    terrain = main_window.document.scene.terrain
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 5)
    answer_dialogs.update(path=tmp_path / "bad.png")
    main_window.run_importer(importer)
    assert len(shown) == 1 and len(errors) == 1 and "bad.png" in errors[0][1]
    assert main_window.document.scene.terrain is terrain


def test_terrain_tools_draw_the_brush_ring_under_the_pointer(main_window, editor, qtbot) -> None:
    viewport = main_window.viewport
    cursor = viewport.overlays.brush_cursor
    editor.toolbox.activate("raise")
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    hover = QMouseEvent(QEvent.Type.MouseMove, QPointF(centre), QPointF(viewport.mapToGlobal(centre)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(viewport, hover)  # no button held
    x, z = editor.toolbox.world_at(centre.x(), centre.y())
    assert cursor.visible and cursor.radius == editor.toolbox.brush.radius
    assert cursor.falloff == editor.toolbox.brush.falloff
    assert np.allclose(cursor.center, [x, main_window.document.scene.terrain.height_at(x, z), z])
    editor.toolbox.set_brush(Brush(radius=3.0, strength=0.5, falloff=0.25))  # ] / [ resize it in place
    assert cursor.visible and cursor.radius == 3.0 and cursor.falloff == 0.25
    lines = viewport.overlays.lines

    def hover_with(modifiers) -> None:
        event = QMouseEvent(QEvent.Type.MouseMove, QPointF(centre), QPointF(viewport.mapToGlobal(centre)),
                            Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, modifiers)
        QApplication.sendEvent(viewport, event)

    mark = "terrain_remove_brush"
    assert mark not in lines.sets  # raising: the plain ring
    hover_with(Qt.KeyboardModifier.ControlModifier)  # Ctrl lowers: a red rim and a minus sign
    assert mark in lines.sets and cursor.visible
    hover_with(Qt.KeyboardModifier.NoModifier)
    assert mark not in lines.sets
    editor.toolbox.activate("erase_layer")  # picked by key with the pointer resting: shows at once
    assert cursor.visible and mark in lines.sets
    editor.toolbox.activate("smooth")
    assert cursor.visible and mark not in lines.sets
    editor.toolbox.activate(None)
    assert not cursor.visible and mark not in lines.sets


def test_picking_a_terrain_tool_brings_its_settings_forward(main_window, editor, qtbot) -> None:
    main_window.show()
    qtbot.waitExposed(main_window)
    editor.toolbox.activate("smooth")
    dock = main_window.tool_docks["terrain_tools"]
    assert dock.isVisible() and main_window.actions_by_key["tool_terrain_tools"].isChecked()
    assert dock in main_window.tabifiedDockWidgets(main_window.docks["tool_settings"])
    panel = main_window.tool_widget("terrain_tools")  # inside the dock's scroll area
    assert "red" in panel.layer.text()  # the layer Paint Layer works on
    editor.panel.select("blue")
    assert "blue" in panel.layer.text()
    settings = main_window.docks["tool_settings"]
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty() and settings.visibleRegion().isEmpty())
    main_window.foliage_editor.toolset.activate("paint")  # a foliage tool: its settings come back
    qtbot.waitUntil(lambda: dock.visibleRegion().isEmpty() and not settings.visibleRegion().isEmpty())


def test_a_square_raw_file_offers_its_size_and_leaves_it_editable(main_window, answer_dialogs, errors,
                                                                   tmp_path, monkeypatch) -> None:
    from widgets.heightmap_dialog import HeightmapOptionsDialog

    heights = np.linspace(0, 20, 13 * 13, dtype=np.float32).reshape(13, 13)
    write_heightmap(tmp_path / "tile.r16", heights, offset=0.0, scale=20.0)
    shown: list[HeightmapOptionsDialog] = []
    original = HeightmapOptionsDialog.__init__

    def record(self, *args, **kwargs):
        original(self, *args, **kwargs)
        shown.append(self)

    monkeypatch.setattr(HeightmapOptionsDialog, "__init__", record)
    answer_dialogs.update(path=tmp_path / "tile.r16", options={"scale": 20.0})
    (importer,) = terrain_extension.IMPORTERS
    main_window.run_importer(importer)
    dialog = shown[0]
    assert (dialog.columns.value(), dialog.rows.value()) == (13, 13) and dialog.columns.isEnabled()
    assert "338 bytes" in dialog.header.text()
    terrain = main_window.document.scene.terrain
    assert errors == [] and terrain.heights.shape == (13, 13)
    assert np.abs(terrain.heights - heights).max() <= 20.0 / 65535
