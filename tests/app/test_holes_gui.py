"""Holes are not drawn: the real OpenGL viewport shows the sky through a hole painted in the
ground, and the ground again once the hole is erased."""

from __future__ import annotations

import numpy as np

from model.holes import apply_patch, hole_at, paint_holes
from tests.gui_helpers import is_sky, render


def test_a_hole_shows_the_sky_through_the_ground_and_its_undo_the_ground(shown, qtbot) -> None:
    viewport = shown.viewport
    terrain = shown.document.scene.terrain
    x0, z0, x1, z1 = terrain.bounds()
    cx, cz = (x0 + x1) / 2, (z0 + z1) / 2
    radius = (x1 - x0) / 8
    at = viewport.world_to_screen([[cx, float(terrain.height_at(cx, cz)), cz]])[0]
    sx, sy = int(round(at[0])), int(round(at[1]))
    ground = render(viewport, qtbot)
    assert not is_sky(ground[sy - 2:sy + 3, sx - 2:sx + 3]).any()
    patch = paint_holes(terrain, cx, cz, radius)
    holed = render(viewport, qtbot)
    assert is_sky(holed[sy - 2:sy + 3, sx - 2:sx + 3]).all()
    # the ground beyond the hole is drawn as before
    far = cx + radius * 2.5
    edge = viewport.world_to_screen([[far, float(terrain.height_at(far, cz)), cz]])[0]
    ex, ey = int(round(edge[0])), int(round(edge[1]))
    assert not is_sky(holed[ey - 1:ey + 2, ex - 1:ex + 2]).any()
    assert np.abs(holed[ey, ex].astype(int) - ground[ey, ex].astype(int)).max() <= 3
    apply_patch(terrain, patch, undo=True)
    back = render(viewport, qtbot)
    assert not is_sky(back[sy - 2:sy + 3, sx - 2:sx + 3]).any()


# ---- the Holes tool in the editor ---------------------------------------------------------------
def _mask(terrain) -> bytes | None:
    return None if terrain.holes is None else terrain.holes[0:terrain.rows, 0:terrain.columns].tobytes()


def _drag(viewport, pixels, modifiers=None) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    mods = Qt.KeyboardModifier.NoModifier if modifiers is None else modifiers
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, mods, pixels[0])
    for p in pixels[1:]:
        QTest.mouseMove(viewport, p)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, mods, pixels[-1])


def _holes_tool(window):
    from app.terrain_editor import install
    from model.brush import Brush

    toolbox = install(window).toolbox
    toolbox.set_brush(Brush(radius=6.0, strength=1.0, falloff=0.3))
    action = toolbox.actions["holes"]
    assert action.shortcut().toString() == "H" and "— H" in action.toolTip()
    action.trigger()
    assert toolbox.active.tool_key == "holes"
    return toolbox


def _screen(viewport, terrain, x: float, z: float):
    from PySide6.QtCore import QPoint

    sx, sy = viewport.world_to_screen([[x, float(terrain.height_at(x, z)), z]])[0]
    return QPoint(int(round(sx)), int(round(sy)))


def test_a_holes_drag_cuts_the_mask_shows_the_sky_and_is_one_exact_step(shown, qtbot) -> None:
    viewport, stack = shown.viewport, shown.document.undo_stack
    terrain = shown.document.scene.terrain
    _holes_tool(shown)
    path = [_screen(viewport, terrain, x, 0.0) for x in (-8.0, -4.0, 0.0, 4.0, 8.0)]
    centre = path[2]
    ground = render(viewport, qtbot)
    assert not is_sky(ground[centre.y() - 2:centre.y() + 3, centre.x() - 2:centre.x() + 3]).any()
    _drag(viewport, path)
    assert stack.count() == 1 and stack.text(0) == "Cut holes"
    assert bool(hole_at(terrain, 0.0, 0.0)) and bool(hole_at(terrain, 8.0, 0.0))
    assert not hole_at(terrain, 0.0, 20.0)  # beyond the brush
    cut = _mask(terrain)
    holed = render(viewport, qtbot)
    assert is_sky(holed[centre.y() - 2:centre.y() + 3, centre.x() - 2:centre.x() + 3]).all()
    stack.undo()
    assert terrain.holes is None  # the terrain had no mask: undo takes it away again
    back = render(viewport, qtbot)
    assert not is_sky(back[centre.y() - 2:centre.y() + 3, centre.x() - 2:centre.x() + 3]).any()
    stack.redo()
    assert _mask(terrain) == cut
    assert is_sky(render(viewport, qtbot)[centre.y(), centre.x()])


def test_ctrl_drag_fills_holes_in_one_undo_step_even_pressed_over_the_hole(shown, qtbot) -> None:
    from PySide6.QtCore import Qt

    viewport, stack = shown.viewport, shown.document.undo_stack
    terrain = shown.document.scene.terrain
    toolbox = _holes_tool(shown)
    toolbox.drag([(-6.0, 0.0), (0.0, 0.0), (6.0, 0.0)])
    cut = _mask(terrain)
    assert stack.count() == 1 and hole_at(terrain, 0.0, 0.0) and hole_at(terrain, 0.0, 6.0)
    centre = _screen(viewport, terrain, 0.0, 0.0)
    assert is_sky(render(viewport, qtbot)[centre.y(), centre.x()])  # the press lands on no ground
    _drag(viewport, [centre], Qt.KeyboardModifier.ControlModifier)
    assert stack.count() == 2 and stack.text(1) == "Fill holes"
    filled = _mask(terrain)
    assert not hole_at(terrain, 0.0, 0.0) and not hole_at(terrain, 0.0, 2.0)
    assert hole_at(terrain, -10.0, 0.0)  # beyond the Ctrl brush the holes stay
    stack.undo()
    assert _mask(terrain) == cut
    stack.redo()
    assert _mask(terrain) == filled


def test_the_stored_foliage_in_a_new_hole_goes_and_undo_brings_it_back_exactly(main_window) -> None:
    from model.foliage import foliage_of
    from tests.app.test_foliage_mode import snapshot

    scene, stack = main_window.document.scene, main_window.document.undo_stack
    terrain, volume = scene.terrain, foliage_of(scene).volume
    name = foliage_of(scene).palette.names()[0]
    xz = np.array([(0.0, 0.0), (1.5, -1.0), (-2.0, 2.5), (30.0, 20.0)])
    rec = np.zeros((len(xz), 7), np.float32)
    rec[:, 0], rec[:, 2], rec[:, 6] = xz[:, 0], xz[:, 1], 1.0
    rec[:, 1] = terrain.height_at(xz[:, 0], xz[:, 1])
    volume.add(name, rec)
    before = snapshot(volume)
    toolbox = _holes_tool(main_window)
    toolbox.drag([(0.0, 0.0)])
    assert stack.count() == 1 and volume.count() == 1  # only the far instance stands
    assert np.allclose(volume.all_records(name)[:, (0, 2)], [(30.0, 20.0)])
    after = snapshot(volume)
    stack.undo()
    assert snapshot(volume) == before and terrain.holes is None
    stack.redo()
    assert snapshot(volume) == after and hole_at(terrain, 0.0, 0.0)
    # a Ctrl stroke fills the hole but removes nothing more, and brings nothing back
    toolbox.drag([(0.0, 0.0)], _ctrl())
    assert snapshot(volume) == after and not hole_at(terrain, 0.0, 0.0)


def _ctrl():
    from PySide6.QtCore import Qt

    return Qt.KeyboardModifier.ControlModifier


def test_a_change_of_the_mask_alone_draws_a_new_frame(shown, qtbot) -> None:
    viewport = shown.viewport
    render(viewport, qtbot)
    while True:  # the opening frames (layer textures arrive over a few) are all drawn
        before = viewport.frames_rendered
        qtbot.wait(300)
        if viewport.frames_rendered == before:
            break
    paint_holes(shown.document.scene.terrain, 0.0, 0.0, 5.0)  # no tool, no update asked by anyone else
    qtbot.waitUntil(lambda: viewport.frames_rendered > before, timeout=5000)


def test_spawners_drop_their_trees_in_a_hole_and_grow_them_again_where_it_is_filled(main_window,
                                                                                     qtbot) -> None:
    from model.foliage import FoliageType, foliage_of
    from model.foliage.spawner import Area, Spawner, Species
    from model.foliage.spawner_section import spawners_of
    from tests.app.test_foliage_mode import snapshot

    scene, stack = main_window.document.scene, main_window.document.undo_stack
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("pine", spacing=1.5))
    main_window.set_tool_window_visible("spawners", True)
    spawners_of(scene).spawners = [Spawner("all", 1, Area(), (Species("pine", 6.0),))]
    main_window.spawner_editor.refresh()
    main_window.spawner_editor.panel.run_button.click()
    qtbot.waitUntil(lambda: not main_window.spawner_editor.running, timeout=60_000)
    volume = foliage.volume

    def trees() -> np.ndarray:  # every pine's record, in a fixed order
        rec = volume.all_records("pine")
        return rec[np.lexsort(rec.T[::-1])]

    terrain = scene.terrain
    grown, before = trees(), snapshot(volume)
    near = np.hypot(grown[:, 0], grown[:, 2]) < 4.0
    assert near.any()
    toolbox = _holes_tool(main_window)
    toolbox.drag([(0.0, 0.0)])
    assert stack.count() == 2  # the run, then the hole with the spawner's re-run in it
    holed = trees()
    assert not hole_at(terrain, holed[:, 0], holed[:, 2]).any() and len(holed) < len(grown)
    # they left as the spawner's own, none counted as deleted by hand
    assert not any(len(k) for k in spawners_of(scene).removed.get("all", {}).values())
    toolbox.drag([(0.0, 0.0)], _ctrl())
    assert np.array_equal(trees(), grown)  # the same seeded trees grow back
    stack.undo()
    assert np.array_equal(trees(), holed)
    stack.undo()
    assert snapshot(volume) == before and terrain.holes is None


def test_no_sliver_of_ground_stays_drawn_in_a_hole_cell(shown, qtbot) -> None:
    """A cell with a hole at one corner only is not drawn anywhere, up to its far corner (the mask's
    filtered value there is a few thousandths: a sliver of ground stayed drawn)."""
    import math

    from model.holes import mask_of

    viewport = shown.viewport
    terrain = shown.document.scene.terrain
    r, c = terrain.rows // 2, terrain.columns // 2
    mask = mask_of(terrain, create=True)
    mask[r:r + 1, c:c + 1] = 255  # one sample: the four cells around it are holes
    terrain.holes_changed.emit(slice(r, r + 1), slice(c, c + 1))
    s = terrain.spacing
    x, z = terrain.origin[0] + c * s, terrain.origin[1] + r * s
    camera = viewport.camera
    camera.yaw, camera.pitch = 0.3, math.radians(60)
    camera.target, camera.distance = np.array([x, float(terrain.height_at(x, z)), z]), 5.0 * s
    image = render(viewport, qtbot)

    def at(px: float, pz: float) -> np.ndarray:
        sx, sy = viewport.world_to_screen([[px, float(terrain.height_at(px, pz)), pz]])[0]
        return image[int(round(sy)), int(round(sx))].astype(int)

    through = at(x, z)  # what the hole shows at its sample
    inset = 0.02 * s  # 2 % of a cell inside the square of hole cells, near each far corner and edge
    for dx, dz in [(1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0.3), (-0.3, 1)]:
        px = x + dx * (s - inset) if abs(dx) == 1 else x + dx * s
        pz = z + dz * (s - inset) if abs(dz) == 1 else z + dz * s
        assert np.abs(at(px, pz) - through).max() <= 8, (dx, dz, at(px, pz), through)
    ground = at(x + 1.5 * s, z + 0.5 * s)  # a cell with no hole corner: drawn
    assert np.abs(ground - through).max() > 8


def test_the_editor_and_the_command_line_cut_the_same_hole_to_the_same_bytes(main_window, demo) -> None:
    import json

    from model.foliage import foliage_of
    from model.foliage.spawner import Spawner, Species
    from model.foliage.spawner_section import position_keys, run_and_apply, spawners_of
    from model.formats.scene_file import load_scene, save_scene
    from tests.app.demo_cli import boscage

    scene = load_scene(demo)
    spawner = Spawner("woods", seed=7, species=(Species("broadleaf", density=40.0),))
    spawners_of(scene).spawners.append(spawner)
    run_and_apply(scene, spawner)
    save_scene(scene, demo)
    records = foliage_of(scene).volume.all_records("broadleaf")
    spawned = records[np.isin(position_keys(records), spawners_of(scene).owned["woods"]["broadleaf"])]
    x, z = (float(v) for v in spawned[len(spawned) // 2, (0, 2)])  # a hole through the wood

    def state(scene) -> tuple:
        vol, section = foliage_of(scene).volume, spawners_of(scene)
        chunks = {key: vol.records(*key).tobytes() for key, _ in vol.chunks()}
        owned = {k: {c: np.sort(v).tobytes() for c, v in d.items()} for k, d in section.owned.items()}
        return chunks, owned, _mask(scene.terrain)

    main_window.open_scene(load_scene(demo))
    edited = main_window.document.scene
    toolbox = _holes_tool(main_window)  # a 6 m brush
    toolbox.drag([(x, z)])
    assert main_window.document.undo_stack.count() == 1
    done = boscage("terrain", "holes", demo, f"--paint={x},{z}", "--radius", "6", "--save", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["spawners_rerun"] == 1 and doc["changed"] > 20
    assert state(load_scene(demo)) == state(edited)
    assert state(edited) != state(scene)
