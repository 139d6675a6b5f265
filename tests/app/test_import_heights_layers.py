"""Importing a heightmap into a terrain with edit layers, in memory or paged alike: the import replaces
the base beneath the layers (the selected layer keeps its deltas), the composite follows, and the
foliage follows the new ground in the same step (stored instances keep their height above it, the
spawners re-run over it), all of it undone and redone exactly. Imported layer weights re-run the
spawners that read the layer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.terrain_commands import ReplaceGridCommand
from model.demo import build_demo_scene
from model.edit_layers import grid_from, stack_of
from model.foliage import foliage_of
from model.foliage.spawner import Spawner, Species
from model.foliage.spawner_section import run_and_apply, spawners_of
from model.formats.scene_file import load_scene, save_scene
from model.sculpt import HEIGHTS
from tests.app.test_edit_layers_foliage import grow_woods

BUMP = (slice(100, 160), slice(200, 280))


def _exact(scene) -> dict:
    vol = foliage_of(scene).volume
    return {key: vol.records(*key).tobytes() for key, _ in vol.chunks()}


def _above_ground(scene, name: str) -> np.ndarray:
    rec = foliage_of(scene).volume.all_records(name).astype(np.float64)
    return rec[:, 1] - scene.terrain.height_at(rec[:, 0], rec[:, 2])


def _heights(scene) -> bytes:
    t = scene.terrain
    return t.read_heights(slice(0, t.rows), slice(0, t.columns)).tobytes()


def _made():
    """The demo in memory with a spawned wood and a stamp layer (+5 m over BUMP), selected."""
    scene = grow_woods(build_demo_scene(foliage=True))
    t = scene.terrain
    stack = stack_of(t, create=True)
    layer = stack.new_layer("bump", "stamp")
    layer.deltas = grid_from(np.full((60, 80), 5.0, np.float32), *BUMP, (t.rows, t.columns))
    stack.insert(layer)
    return scene


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("import") / "d.boscage"
    save_scene(_made(), path)
    return path


def _scene(saved: Path, paged: bool):
    scene = load_scene(saved) if paged else _made()
    stack = stack_of(scene.terrain)
    assert isinstance(stack.base, np.ndarray) != paged
    stack.selected = "bump"  # a brush paints into the layer; an import replaces the ground beneath
    return scene


@pytest.mark.parametrize("paged", [False, True], ids=["in-memory", "paged"])
def test_an_import_replaces_the_base_beneath_the_layers_and_the_foliage_follows(saved: Path,
                                                                               paged: bool) -> None:
    scene = _scene(saved, paged)
    t = scene.terrain
    stack = stack_of(t)
    deltas = stack.layer("bump").read(slice(0, t.rows), slice(0, t.columns)).tobytes()
    offsets = _above_ground(scene, "conifer")
    before = (_heights(scene), _exact(scene))
    rows = np.arange(t.rows, dtype=np.float32)[:, None]
    new = (np.array(stack.base[0:t.rows, 0:t.columns]) * np.float32(0.5) + rows * np.float32(0.1)
           + np.float32(20.0)).astype(np.float32)
    command = ReplaceGridCommand(t, HEIGHTS, new, "Import heightmap", scene=scene)
    command.redo()
    want = new.copy()
    want[BUMP] = (new[BUMP].astype(np.float64) + 5.0).astype(np.float32)
    assert _heights(scene) == want.tobytes()  # the new base with the layer on it
    assert stack.layer("bump").read(slice(0, t.rows), slice(0, t.columns)).tobytes() == deltas
    assert np.abs(_above_ground(scene, "conifer") - offsets).max() < 1e-3  # stored: re-grounded
    assert command.follow is not None and command.follow.respawned == 1
    after = (_heights(scene), _exact(scene))
    # the wood is what its spawner grows on the new ground: running it again changes nothing
    _, change = run_and_apply(scene, spawners_of(scene).get("woods"))
    assert not change.changed
    command.undo()
    assert (_heights(scene), _exact(scene)) == before
    command.redo()
    assert (_heights(scene), _exact(scene)) == after


def test_in_memory_and_paged_imports_give_the_same_bytes(saved: Path) -> None:
    results = []
    for paged in (False, True):
        scene = _scene(saved, paged)
        t = scene.terrain
        new = np.full((t.rows, t.columns), 12.5, np.float32)
        ReplaceGridCommand(t, HEIGHTS, new, "Import heightmap", scene=scene).redo()
        results.append((_heights(scene), _exact(scene)))
    assert results[0] == results[1]


def test_imported_weights_re_run_the_spawners_that_read_the_layer_in_the_same_step() -> None:
    from model.foliage.spawner import Area

    scene = build_demo_scene(foliage=True)
    meadow = Spawner("meadow", seed=2, area=Area(layer="grass"), species=(Species("bush", density=20.0),))
    spawners_of(scene).spawners.append(meadow)
    run_and_apply(scene, meadow)
    t = scene.terrain
    grown = spawners_of(scene).owned_count("meadow")
    assert grown > 50
    before = _exact(scene)
    weights = np.zeros((t.rows, t.columns), np.uint8)
    weights[:, : t.columns // 2] = 255  # grass on the west half only
    command = ReplaceGridCommand(t, "grass", weights, "Import weights of 'grass'", scene=scene)
    command.redo()
    assert command.follow is not None and len(command.follow.changes) == 1
    _, change = run_and_apply(scene, meadow)  # what the spawner grows on the new weights: no change
    assert not change.changed
    bushes = foliage_of(scene).volume.all_records("bush")
    owned = spawners_of(scene).owned_count("meadow")
    assert 0 < owned < grown
    after = _exact(scene)
    command.undo()
    assert _exact(scene) == before and spawners_of(scene).owned_count("meadow") == grown
    command.redo()
    assert _exact(scene) == after and len(foliage_of(scene).volume.all_records("bush")) == len(bushes)
