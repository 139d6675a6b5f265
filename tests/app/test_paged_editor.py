"""A paged (version 2) scene in the real editor: every path — open, frames, hover, sculpt and paint
drags, undo and redo, save, inspector, Layers panel, overlays, grass — reads only the tiles and
windows it needs, and none of them assembles the whole grid."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from app.bench.scene_tiles import big_scene
from model import paged
from model.brush import Brush
from model.foliage import FoliageType, LayerFilter, foliage_of
from model.formats import tiles
from model.formats.scene_file import load_scene, save_scene
from rendering import grass_renderer
from tests.gui_helpers import render
from widgets.inspector_panel import InspectorPanel

SAMPLES, TILE = 769, 128  # 1.5 km at 2 m in 7 x 7 tiles: drawn with level of detail (over 513²)


@pytest.fixture
def scene_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tiles, "TILE", TILE)
    path = tmp_path / "paged.boscage"
    scene = big_scene(SAMPLES)
    grass = FoliageType("grass", mesh="builtin:grass", storage="derived", density=200.0,
                        layer=LayerFilter("grass", 0.3), cull=(40.0, 60.0))
    foliage_of(scene).palette.add(grass)
    save_scene(scene, path)
    return path


@pytest.fixture
def counts() -> dict:
    return {}


@pytest.fixture
def small_scene(scene_path: Path, counts: dict):
    """What the `main_window` fixture opens: the saved scene, paged (whole grids assembled so far
    in this process counted first: building the window must not add one)."""
    counts["before_window"] = paged.assemblies
    scene = load_scene(scene_path)
    assert scene.terrain.paged_heights is not None
    return scene


def assert_paged(terrain, assemblies: int) -> None:
    assert paged.assemblies == assemblies, "an editor path assembled a whole grid"
    assert terrain.paged_heights is not None and not terrain.paged_heights.grid.is_full
    assert all(layer.paged is not None and not layer.paged.grid.is_full for layer in terrain.layers)


def test_no_editor_path_assembles_a_paged_terrain(main_window, qtbot, monkeypatch, scene_path,
                                                  counts) -> None:
    monkeypatch.setattr(grass_renderer, "WHOLE_TEXELS", 64 * 64)  # grass textures hold a window here too
    monkeypatch.setattr(grass_renderer, "WINDOW_MARGIN", 16)
    assemblies = counts["before_window"]
    window = main_window
    terrain = window.document.scene.terrain
    everything = slice(0, terrain.rows), slice(0, terrain.columns)
    original = terrain.read_heights(*everything)
    window.resize(900, 700)
    window.show()
    qtbot.waitExposed(window.viewport)
    viewport = window.viewport
    viewport.frame_all()
    first = render(viewport, qtbot, timeout_ms=20000)
    renderer = viewport.terrain_renderer
    assert not renderer.full_detail and renderer.drawn and max(k[0] for k in renderer.drawn) > 0
    assert (first.astype(int).std(axis=(0, 1)) > 1.0).any()  # the terrain is drawn, not just sky
    assert_paged(terrain, assemblies)

    # hover and pick: the ray walks the tiles under it
    centre = QPoint(viewport.width() // 2, viewport.height() // 2)
    QTest.mouseMove(viewport, centre)
    hit = viewport.pick_terrain(centre.x(), centre.y())
    assert hit is not None and abs(hit[1] - float(terrain.height_at(hit[0], hit[2]))) < 0.05

    # close to the ground: finer tiles, and grass from windowed textures
    cam = viewport.camera
    cam.target = np.array([700.0, float(terrain.height_at(700.0, 800.0)), 800.0])
    cam.pitch, cam.distance = math.radians(35.0), 40.0
    render(viewport, qtbot, timeout_ms=20000)
    assert viewport.stats.grass > 0
    g = viewport.grass_renderer
    r0, r1, c0, c1 = g._window
    assert (r1 - r0) * (c1 - c0) < terrain.rows * terrain.columns / 4
    assert_paged(terrain, assemblies)

    # a Raise drag and a Paint Layer drag with the mouse, each one undo step
    editor = window.terrain_editor
    editor.toolbox.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.5))
    editor.toolbox.activate("raise")
    pts = [centre + QPoint(6 * i, 3 * i) for i in range(5)]
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pts[0])
    for p in pts[1:]:
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pts[-1])
    render(viewport, qtbot, timeout_ms=20000)
    raised = terrain.read_heights(*everything)
    assert (raised > original).sum() > 20
    editor.toolbox.set_current_layer("rock")
    editor.toolbox.set_brush(Brush(radius=40.0, strength=1.0, falloff=0.2))
    editor.toolbox.activate("paint_layer")
    editor.toolbox.drag([(700.0, 800.0), (706.0, 800.0), (712.0, 803.0)])
    render(viewport, qtbot, timeout_ms=20000)
    rock = terrain.layer("rock")
    painted = rock.read(*everything)
    assert painted.sum(dtype=np.int64) > 0
    stack = window.document.undo_stack
    assert stack.count() == 2
    assert_paged(terrain, assemblies)

    # the panels that summarise the terrain
    inspector = window.findChild(InspectorPanel)
    inspector.refresh()
    assert "Heights" in [inspector.tree.topLevelItem(0).child(k).text(0)
                         for k in range(inspector.tree.topLevelItem(0).childCount())]
    editor.panel.refresh()
    share = painted.sum(dtype=np.int64) / (255.0 * terrain.rows * terrain.columns)
    assert editor.panel.list.item(1).text() == f"rock   {share * 100:.1f} %" and share > 0.001
    for name in ("show_grid", "show_chunk_bounds", "show_collision"):
        viewport.overlays.set_toggle(name, True)
    render(viewport, qtbot, timeout_ms=20000)
    assert viewport.overlays.flat is False
    assert_paged(terrain, assemblies)

    # undo both, redo both, save: only the touched tiles are written
    stack.undo()
    stack.undo()
    render(viewport, qtbot, timeout_ms=20000)
    assert terrain.read_heights(*everything).tobytes() == original.tobytes()
    assert int(rock.weight_sum()) == 0
    stack.redo()
    stack.redo()
    render(viewport, qtbot, timeout_ms=20000)
    assert terrain.read_heights(*everything).tobytes() == raised.tobytes()
    before = {p.name for p in scene_path.parent.iterdir()}
    window.document.save(scene_path)
    written = {p.name for p in scene_path.parent.iterdir()} - before
    assert 0 < len(written) <= 8  # the raised and the painted tiles (a drag may cross a tile edge)
    render(viewport, qtbot, timeout_ms=20000)
    assert_paged(terrain, assemblies)
    assert window.document.scene.terrain is terrain
