"""Erosion, terraces and stamps run as edit layers: the stored foliage stands on the new ground and the
spawners re-run there, in the same step (undo gives the same bytes back)."""

from __future__ import annotations

import numpy as np

from model.demo import build_demo_scene
from model.edit_layers import stack_of
from model.foliage import foliage_of
from model.foliage.spawner import Spawner, Species
from model.foliage.spawner_section import run_and_apply, spawners_of
from model.terrain_edits import region_window, run_layer_following, undo_run
from model.terrain_shapes import terrace_deltas

REGION = (-300.0, -300.0, 300.0, 300.0)


def exact(scene) -> dict:
    vol = foliage_of(scene).volume
    return {key: vol.records(*key).tobytes() for key, _ in vol.chunks()}


def grounded(scene, type_name: str) -> np.ndarray:
    """Each instance's height above the ground beneath it."""
    rec = foliage_of(scene).volume.all_records(type_name).astype(np.float64)
    return rec[:, 1] - scene.terrain.height_at(rec[:, 0], rec[:, 2])


def terrace(scene):
    t = scene.terrain
    area = region_window(t, REGION)
    def make(beneath):
        return terrace_deltas(beneath, (t.rows, t.columns), 6.0, 1.0, area, None)

    return run_layer_following(scene, "terrace", "terrace", {"step": 6.0, "sharpness": 1.0}, make)


def test_a_terrace_run_regrounds_stored_foliage_and_reruns_the_spawners() -> None:
    scene = build_demo_scene(foliage=True)
    spawner = Spawner("woods", seed=7, species=(Species("broadleaf", density=20.0),))
    spawners_of(scene).spawners.append(spawner)
    run_and_apply(scene, spawner)
    painted = {name: grounded(scene, name) for name in ("conifer", "rock")}
    spawned = grounded(scene, "broadleaf")
    start = exact(scene)
    applied, follow = terrace(scene)
    assert follow.regrounded > 100 and follow.respawned == 1
    for name, before in painted.items():  # each keeps its height above the terraced ground
        assert np.abs(grounded(scene, name) - before).max() < 1e-3, name
    assert np.abs(grounded(scene, "broadleaf")).max() <= np.abs(spawned).max() + 1e-3
    # the spawner's instances: as a run on the terraced ground from the start
    fresh = build_demo_scene(foliage=True)
    terrace(fresh)
    spawners_of(fresh).spawners.append(spawner)
    run_and_apply(fresh, spawner)
    got, want = (np.sort(foliage_of(s).volume.all_records("broadleaf")[:, (0, 2)], axis=0)
                 for s in (scene, fresh))
    assert np.array_equal(got, want)
    follow.undo()
    undo_run(scene.terrain.edits, applied)
    assert exact(scene) == start and stack_of(scene.terrain).names() == []
