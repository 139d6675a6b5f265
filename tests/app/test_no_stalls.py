"""Long work in the editor never freezes the window: the event loop turns at least every quarter of
a second around it (what runs after the job too: building the scene, its first view), and an editor
left alone afterwards uses no processor.

A stall is the processor time the GUI thread spends between two turns of its loop (see
tests/stalls.py: the wall clock of a shared machine also counts other programs). Frames do not
count (`StallMeter(frames_of=viewport)`): under Mesa's software OpenGL one frame of a big scene
takes seconds that a GPU draws in milliseconds; the window is kept at 640 × 480 so they stay few.
Compiled kernels are loaded before the clock: their first load in a process holds the interpreter
for about half a second, once per session."""

from __future__ import annotations

import time

import pytest
from PySide6.QtWidgets import QApplication

from tests.stalls import LONGEST_STALL_S, StallMeter, idle_cpu_seconds

IDLE_CPU_S = 0.05  # of one second: timers that keep firing or a repaint loop use far more


@pytest.fixture
def shown(main_window):
    main_window.resize(640, 480)
    main_window.show()
    for _ in range(5):
        QApplication.processEvents()
    return main_window


def settled_idle_cpu(window, timeout_s: float = 60.0) -> float:
    """Processor use over an idle second once the scene's background work is done (its layer
    textures decoded, their far ground's base colour baked: the editor's work, asked for by frames
    it draws until then), not an idle loop's."""
    deadline = time.monotonic() + timeout_s
    while window.viewport.textures_pending() and time.monotonic() < deadline:
        idle_cpu_seconds(0.2)
    idle_cpu_seconds(0.5)
    return idle_cpu_seconds(1.0)


def settle(seconds: float = 1.0) -> None:
    """Let the editor draw what the work left (the first frames of a new scene)."""
    idle_cpu_seconds(seconds)


def test_trn_as_scene_keeps_the_window_drawn_and_then_idles(shown, tmp_path):
    from model.trn.evaluator import Region, warm_up
    from model.trn.synthetic import planet_stack
    from widgets.trn_import import import_trn_scene

    path = tmp_path / "planet.trn"
    path.write_bytes(planet_stack().to_bytes())
    warm_up()
    region = Region.from_bounds(-2048, -2048, 2048, 2048, 8.0)  # a 4 km TRN at 8 m
    with StallMeter(frames_of=shown.viewport) as meter:
        scene = import_trn_scene(shown, path, region)
        shown.open_scene(scene)
        settle()
    assert scene is not None and len(scene.sections["foliage"].volume.keys()) > 1000
    assert meter.longest_busy <= LONGEST_STALL_S, meter.gaps
    assert settled_idle_cpu(shown) <= IDLE_CPU_S


def test_growing_a_forest_keeps_the_window_drawn_and_then_idles(shown):
    from pathlib import Path

    from model.demo import demo_resource_path
    from model.formats.scene_file import load_scene
    from widgets.plant_grow import grow_forest_on_scene

    rules = Path(__file__).resolve().parents[2] / "resources" / "plants"
    shown.open_scene(load_scene(demo_resource_path()))
    settle()
    with StallMeter(frames_of=shown.viewport) as meter:
        scene = grow_forest_on_scene(shown, rules, passes=12, seed=2, fertility=15)
        shown.open_scene(scene)
        settle()
    assert scene is not None and scene.sections["foliage"].volume.count() > 0
    assert meter.longest_busy <= LONGEST_STALL_S, meter.gaps
    assert settled_idle_cpu(shown) <= IDLE_CPU_S


def test_a_spawner_run_keeps_the_window_drawn_and_then_idles(shown):
    from model.demo import demo_resource_path
    from model.foliage.spawner import Area, Spawner, Species
    from model.foliage.spawner_section import spawners_of
    from model.formats.scene_file import load_scene

    shown.open_scene(load_scene(demo_resource_path()))
    shown.set_tool_window_visible("spawners", True)
    editor = shown.spawner_editor
    # dense: about 100,000 candidates a species over the demo's terrain
    spawners_of(shown.document.scene).spawners = [Spawner("dense", 5, Area(), (
        Species("bush", 40.0), Species("rock", 20.0, 1)))]
    editor.refresh()
    settle()
    with StallMeter(frames_of=shown.viewport) as meter:
        editor.panel.run_button.click()
        deadline = time.monotonic() + 120.0
        while editor.running and time.monotonic() < deadline:  # the run goes on a helper thread
            settle(0.2)
        settle()
    assert editor.results and editor.results[0].placed > 1000
    assert meter.longest_busy <= LONGEST_STALL_S, meter.gaps
    assert settled_idle_cpu(shown) <= IDLE_CPU_S


def test_opening_a_big_paged_world_keeps_the_window_drawn_and_then_idles(shown, tmp_path, monkeypatch):
    from app.bench.scene_tiles import big_scene
    from model.formats import tiles
    from model.formats.scene_file import save_scene

    monkeypatch.setattr(tiles, "TILE", 256)
    path = tmp_path / "world.boscage"
    save_scene(big_scene(4097), path)  # 8 km at 2 m, 17 x 17 tiles
    with StallMeter(frames_of=shown.viewport) as meter:
        assert shown.open_file(path)
        settle()
    assert shown.document.scene.terrain.paged_heights is not None
    assert meter.longest_busy <= LONGEST_STALL_S, meter.gaps
    assert settled_idle_cpu(shown) <= IDLE_CPU_S
