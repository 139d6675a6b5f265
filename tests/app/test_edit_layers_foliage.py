"""Showing, hiding or deleting an edit layer and running one from the editor: the stored foliage keeps
its height above the new ground and the spawners re-run there, in the same undo step (exact)."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QUndoStack

from app.edit_layer_commands import (
    EditLayerOpacityCommand,
    EditLayerVisibilityCommand,
    RemoveEditLayerCommand,
    RunEditLayerCommand,
)
from model.demo import build_demo_scene
from model.edit_layers import grid_from
from model.foliage import foliage_of
from model.foliage.spawner import Spawner, Species
from model.foliage.spawner_section import run_and_apply, spawners_of

ROWS, COLS = slice(100, 300), slice(150, 350)


def grow_woods(scene, density: float = 20.0):
    """`scene` with the spawner 'woods' (broadleaves at `density` per 100 m²) added and run."""
    spawner = Spawner("woods", seed=7, species=(Species("broadleaf", density=density),))
    spawners_of(scene).spawners.append(spawner)
    run_and_apply(scene, spawner)
    return scene


def exact(scene) -> dict:
    vol = foliage_of(scene).volume
    return {key: vol.records(*key).tobytes() for key, _ in vol.chunks()}


def above_ground(scene, name: str) -> np.ndarray:
    rec = foliage_of(scene).volume.all_records(name).astype(np.float64)
    return rec[:, 1] - scene.terrain.height_at(rec[:, 0], rec[:, 2])


def test_layer_changes_carry_the_foliage_and_undo_exactly(qapp) -> None:
    scene = grow_woods(build_demo_scene(foliage=True))
    t = scene.terrain
    offsets = above_ground(scene, "conifer")
    bump = np.full((ROWS.stop - ROWS.start, COLS.stop - COLS.start), 15.0, np.float32)
    stack = QUndoStack()
    states = [exact(scene)]
    run = RunEditLayerCommand(t, "raise", "stamp", {}, grid_from(bump, ROWS, COLS, (t.rows, t.columns)),
                              "Raise", scene=scene)
    stack.push(run)
    assert run.follows and run.follows[0].regrounded > 10 and run.follows[0].respawned == 1
    assert np.abs(above_ground(scene, "conifer") - offsets).max() < 1e-3  # not buried 15 m deep
    states.append(exact(scene))
    for make in (lambda: EditLayerOpacityCommand(t.edits, "raise", 0.5, scene=scene),
                 lambda: EditLayerVisibilityCommand(t.edits, "raise", False, scene=scene),
                 lambda: EditLayerVisibilityCommand(t.edits, "raise", True, scene=scene),
                 lambda: RemoveEditLayerCommand(t.edits, "raise", scene=scene)):
        command = make()
        stack.push(command)
        if isinstance(command, EditLayerOpacityCommand):
            command.finish()  # the end of the drag
        assert command.follows, command.text()
        assert np.abs(above_ground(scene, "conifer") - offsets).max() < 1e-3, command.text()
        states.append(exact(scene))
    assert states[-1] != states[1]
    for k in range(len(states) - 1, 0, -1):
        stack.undo()
        assert exact(scene) == states[k - 1], stack.text(k - 1)
    for k in range(1, len(states)):
        stack.redo()
        assert exact(scene) == states[k], stack.text(k - 1)


def test_an_opacity_drag_moves_the_foliage_once_when_it_ends(qapp) -> None:
    scene = build_demo_scene(foliage=True)
    t = scene.terrain
    offsets = above_ground(scene, "conifer")
    stack = QUndoStack()
    bump = np.full((ROWS.stop - ROWS.start, COLS.stop - COLS.start), 15.0, np.float32)
    stack.push(RunEditLayerCommand(t, "raise", "stamp", {}, grid_from(bump, ROWS, COLS, (t.rows, t.columns)),
                                   "Raise", scene=scene))
    raised = exact(scene)
    for opacity in (0.9, 0.7, 0.4):  # one drag: one step
        stack.push(EditLayerOpacityCommand(t.edits, "raise", opacity, drag=3, scene=scene))
    assert stack.count() == 2 and exact(scene) == raised  # not yet: the slider is still held
    drag = stack.command(1)
    drag.finish()
    assert len(drag.follows) == 1 and np.abs(above_ground(scene, "conifer") - offsets).max() < 1e-3
    faded = exact(scene)
    stack.undo()
    assert exact(scene) == raised
    stack.redo()
    assert exact(scene) == faded
    # a drag back to where it started leaves no step and the foliage where it was
    for opacity in (0.6, 0.4):
        stack.push(EditLayerOpacityCommand(t.edits, "raise", opacity, drag=4, scene=scene))
    assert stack.count() == 2 and exact(scene) == faded


def _heights(scene) -> bytes:
    t = scene.terrain
    return t.read_heights(slice(0, t.rows), slice(0, t.columns)).tobytes()


def _rerun_changes(scene) -> bool:
    """Whether running the scene's spawners afresh (wholly) would change the forest; undone again."""
    from model.foliage.spawner_section import undo_change

    changed = False
    for spawner in spawners_of(scene).spawners:
        _, change = run_and_apply(scene, spawner)
        changed |= change.changes_scene
        undo_change(scene, change)
    return changed


def test_collapsing_a_layer_is_one_exact_step_its_foliage_what_the_spawners_grow(qapp) -> None:
    from app.edit_layer_commands import CollapseEditLayerCommand

    scene = grow_woods(build_demo_scene(foliage=True))
    t = scene.terrain
    rng = np.random.default_rng(3)
    bump = rng.uniform(0.0, 9.0, (ROWS.stop - ROWS.start, COLS.stop - COLS.start)).astype(np.float32)
    stack = QUndoStack()
    stack.push(RunEditLayerCommand(t, "raise", "stamp", {}, grid_from(bump, ROWS, COLS, (t.rows, t.columns)),
                                   "Raise", scene=scene))
    stack.push(EditLayerOpacityCommand(t.edits, "raise", 0.37, scene=scene))
    stack.command(1).finish()
    offsets = above_ground(scene, "conifer")
    before = (_heights(scene), exact(scene))
    collapse = CollapseEditLayerCommand(t.edits, "raise", scene=scene)
    stack.push(collapse)
    assert t.edits.get("raise") is None and stack.count() == 3
    assert collapse.follows  # the foliage followed over the layer's ground, in the same step
    assert np.abs(above_ground(scene, "conifer") - offsets).max() < 1e-3
    assert not _rerun_changes(scene)
    after = (_heights(scene), exact(scene))
    stack.undo()
    assert (_heights(scene), exact(scene)) == before and t.edits.get("raise") is not None
    stack.redo()
    assert (_heights(scene), exact(scene)) == after


def test_a_collapsed_road_stops_keeping_the_spawners_off_and_its_cleared_foliage_stays_gone(qapp) -> None:
    from app.edit_layer_commands import CollapseEditLayerCommand
    from model.spline_edits import apply_spline
    from model.splines import Spline, centreline

    scene = grow_woods(build_demo_scene(foliage=True), 40.0)
    road = Spline(np.array([(-200.0, np.nan, -100.0), (0.0, np.nan, -90.0), (200.0, np.nan, -100.0)]),
                  8.0, 4.0, "road", clear_foliage=True)
    apply_spline(scene, "road", road, full=True)
    x, z, *_ = centreline(road, 0.5)

    def on_bed() -> int:
        rec = foliage_of(scene).volume.all_records("broadleaf").astype(np.float64)
        d = np.sqrt((rec[:, 0, None] - x[None]) ** 2 + (rec[:, 2, None] - z[None]) ** 2).min(axis=1)
        return int(np.count_nonzero(d < 4.0))

    def painted() -> int:
        return len(foliage_of(scene).volume) - spawners_of(scene).owned_count("woods")

    assert on_bed() == 0
    kept = painted()
    before = (_heights(scene), exact(scene))
    stack = QUndoStack()
    collapse = CollapseEditLayerCommand(scene.terrain.edits, "road", scene=scene)
    stack.push(collapse)
    # the road is ground now: the spawner grows on it, as any later re-run there would
    assert collapse.respawned == 1 and on_bed() > 5
    assert not _rerun_changes(scene)
    assert painted() == kept  # the stored foliage the road cleared does not come back
    after = (_heights(scene), exact(scene))
    stack.undo()
    assert (_heights(scene), exact(scene)) == before and on_bed() == 0
    stack.redo()
    assert (_heights(scene), exact(scene)) == after
