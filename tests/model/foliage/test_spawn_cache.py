"""A whole spawner re-run with nothing changed since the last is skipped (the remembered result
stands, the change is empty); any change to what the run reads runs it again, with the bytes a
scene that never skips has."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from model.foliage import spawner_section
from model.foliage.section import foliage_of
from model.foliage.spawner_section import (
    bake_to_painted,
    run_and_apply,
    run_only,
    spawners_of,
    undo_change,
)
from tests.model.foliage.test_spawner import hilly_scene, volume_bytes


@pytest.fixture
def runs(monkeypatch):
    """How many times the spawner really ran."""
    count = [0]
    real = spawner_section.run_spawner

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(spawner_section, "run_spawner", counted)
    return count


def _run(scene, remember: bool = True):
    section = spawners_of(scene)
    if not remember:
        section.last_run.clear()
    return run_and_apply(scene, section.spawners[0])


def _owned(scene) -> dict:
    return {t: k.tobytes() for t, k in spawners_of(scene).owned[spawners_of(scene).spawners[0].name].items()}


def test_a_rerun_with_nothing_changed_is_skipped_and_changes_nothing(runs):
    scene = hilly_scene()
    first, change = _run(scene)
    assert runs[0] == 1 and change.changed
    before, owned = volume_bytes(scene), _owned(scene)
    again, nothing = _run(scene)
    assert runs[0] == 1 and again is first
    assert not nothing.changed and not nothing.changes_scene
    assert volume_bytes(scene) == before and _owned(scene) == owned
    # the editor's path: a run on a helper thread, applied after
    spawner = spawners_of(scene).spawners[0]
    assert run_only(scene, spawner) is first and runs[0] == 1
    undo_change(scene, nothing)  # the empty change undoes to the same state
    assert volume_bytes(scene) == before and _owned(scene) == owned


def _raise_heights(scene):
    scene.terrain.heights[40:55, 60:75] += 25.0  # written in place, no event


def _announce_heights(scene):
    t = scene.terrain
    t.heights[10:20, 10:20] -= 8.0
    t.heights_changed.emit(slice(10, 20), slice(10, 20))


def _paint_layer(scene):
    scene.terrain.layers[0].weights[60:90, 60:90] = 0


def _respace_type(scene):
    palette = foliage_of(scene).palette
    palette.replace(dataclasses.replace(palette["conifer"], spacing=4.0))


def _paint_foliage(scene):
    foliage_of(scene).volume.add("conifer", np.array([[60.0, 0, 90.0, 0, 0, 0, 1]], np.float32))


def _delete_one_by_hand(scene):
    volume = foliage_of(scene).volume
    key, _ = next(iter(volume.chunks("conifer")))
    volume.remove({key: np.array([0])})


def _reseed(scene):
    section = spawners_of(scene)
    section.spawners[0] = dataclasses.replace(section.spawners[0], seed=section.spawners[0].seed + 1)


def _bake(scene):
    bake_to_painted(scene, spawners_of(scene).spawners[0].name)


@pytest.mark.parametrize("edit", [_raise_heights, _announce_heights, _paint_layer, _respace_type,
                                  _paint_foliage, _delete_one_by_hand, _reseed, _bake])
def test_any_change_to_what_the_run_reads_runs_it_again(runs, edit):
    scene, plain = hilly_scene(), hilly_scene()  # `plain` never skips: the bytes to match
    for s, remember in ((scene, True), (plain, False)):
        _run(s, remember)
        _run(s, remember)
    assert runs[0] == 3
    for s in (scene, plain):
        edit(s)
    _, change = _run(scene)
    assert runs[0] == 4, "the run after the edit was skipped"
    _run(plain, remember=False)
    assert volume_bytes(scene) == volume_bytes(plain) and _owned(scene) == _owned(plain)
    _run(scene)  # and nothing changed since that run: skipped again
    assert runs[0] == 5


def test_undoing_the_run_makes_the_next_one_run(runs):
    scene = hilly_scene()
    _, change = _run(scene)
    placed = volume_bytes(scene)
    undo_change(scene, change)
    assert not volume_bytes(scene)
    _, again = _run(scene)
    assert runs[0] == 2 and again.changed and volume_bytes(scene) == placed
