import numpy as np
import pytest

from model.batch import BatchCancelled, Task, TileStore, run_tasks
from model.errors import FormatError
from model.foliage import foliage_of
from model.foliage.spawn_batch import spawn_in_tiles, spawn_tile, tile_boxes
from model.foliage.spawner_section import run_and_apply, spawners_of
from tests.model.foliage.test_spawner import hilly_scene, volume_bytes


def one_run() -> tuple:
    scene = hilly_scene()
    result, _ = run_and_apply(scene, spawners_of(scene).spawners[0])
    return scene, result


@pytest.mark.parametrize("tile", [40.0, 97.0])
def test_tiles_give_the_bytes_and_counts_of_one_run(tile):
    reference, ref_result = one_run()
    scene = hilly_scene()
    result, _ = spawn_in_tiles(scene, spawners_of(scene).spawners[0], tile=tile, workers=1)
    assert volume_bytes(scene) == volume_bytes(reference)
    for a, b in zip(result.species, ref_result.species, strict=True):
        assert a.candidates == b.candidates and a.counts() == b.counts() and a.placed == b.placed


def test_tile_boxes_cover_every_edge_once():
    boxes = tile_boxes((0.0, 0.0, 100.0, 50.0), 30.0)
    assert len(boxes) == 4 * 2
    pts = np.array([[0, 0], [30, 0], [99.9, 49.9], [100, 50], [60, 30]], float)
    for x, z in pts:
        inside = [b for b in boxes if b[0] <= x < b[2] and b[1] <= z < b[3]]
        assert len(inside) == 1


def test_a_resume_skips_stored_tiles_and_ends_with_the_same_bytes(tmp_path):
    reference, _ = one_run()
    scene = hilly_scene()
    spawner = spawners_of(scene).spawners[0]
    calls = []

    def stop_after_three(done, total):
        calls.append(done)
        return done < 3

    folder = tmp_path / "tiles"
    with pytest.raises(BatchCancelled):
        spawn_in_tiles(scene, spawner, tile=40.0, store_folder=folder, progress=stop_after_three)
    assert len(list(folder.glob("tile_*.*.npz"))) == 3
    assert len(foliage_of(scene).volume) == 0  # a stopped job changes nothing
    seen = []
    spawn_in_tiles(scene, spawner, tile=40.0, store_folder=folder, resume=True,
                   progress=lambda d, t: seen.append(d) or True)
    assert seen[0] == 3  # the stored tiles were not computed again
    assert volume_bytes(scene) == volume_bytes(reference)
    assert not folder.exists()  # a finished job leaves nothing behind


def test_a_resume_with_other_parameters_is_refused(tmp_path):
    scene = hilly_scene()
    spawner = spawners_of(scene).spawners[0]
    with pytest.raises(BatchCancelled):
        spawn_in_tiles(scene, spawner, tile=40.0, store_folder=tmp_path, progress=lambda d, t: d < 2)
    with pytest.raises(FormatError, match="another job or other parameters"):
        spawn_in_tiles(hilly_scene(), spawner, tile=50.0, store_folder=tmp_path, resume=True)


def test_a_damaged_stored_tile_is_computed_again(tmp_path):
    store = TileStore(tmp_path, "job", {"a": 1})
    store.open(False)
    store.save("t0", {"v": np.arange(5)})
    path = next(tmp_path.glob("t0.*.npz"))
    path.write_bytes(path.read_bytes()[:-3])
    store2 = TileStore(tmp_path, "job", {"a": 1})
    store2.open(True)
    assert store2.load("t0") is None
    out = run_tasks(_double, [Task("t0", (3,)), Task("t1", (4,))], store=store2, workers=1)
    assert out["t0"]["v"].tolist() == [6] and out["t1"]["v"].tolist() == [8]


def _double(x):
    return {"v": np.array([2 * x])}


def test_spawn_tile_works_from_plain_values():
    scene = hilly_scene()
    from model.foliage.spawn_batch import _tile_inputs, _world

    spawner = spawners_of(scene).spawners[0]
    box, window = _tile_inputs(scene, spawner, True)(Task("t", ((0.0, 0.0, 60.0, 60.0),)))
    arrays = spawn_tile(_world(scene, spawner), box, window)
    assert int(arrays["species"]) == 3 and arrays["records_0"].shape[1] == 7
    t = scene.terrain
    assert window["heights"].shape[1:] != (t.rows, t.columns)  # its window only, not the whole grid


def test_a_paged_scene_runs_in_windows_without_assembling_its_grids(tmp_path):
    """Each tile reads its window of the tiles (never the whole grid), with the bytes of one run."""
    from model import paged
    from model.foliage.spawn_batch import scatter_in_tiles, scene_inputs
    from model.formats.scene_file import load_scene, save_scene

    reference, _ = one_run()
    save_scene(hilly_scene(), tmp_path / "hills.boscage")
    scene = load_scene(tmp_path / "hills.boscage")
    assert scene.terrain.paged_heights is not None
    before = paged.assemblies
    assert scene_inputs(scene) == scene_inputs(hilly_scene())  # content, however it is held
    spawn_in_tiles(scene, spawners_of(scene).spawners[0], tile=60.0, workers=1, store_folder=tmp_path / "t")
    assert volume_bytes(scene) == volume_bytes(reference)
    scatter_in_tiles(scene, "bush", seed=2, tile=60.0, workers=1)
    assert paged.assemblies == before and scene.terrain.paged_heights is not None
    assert all(la.paged is not None for la in scene.terrain.layers)


def test_a_resume_over_an_edited_scene_is_refused_naming_what_changed(tmp_path):
    from model.foliage.spawn_batch import scatter_in_tiles

    spawner = spawners_of(hilly_scene()).spawners[0]

    def stopped(scene, folder):
        with pytest.raises(BatchCancelled):
            spawn_in_tiles(scene, spawner, tile=40.0, store_folder=folder, progress=lambda d, t: d < 2)

    window = (slice(5, 7), slice(5, 7))
    edits = {
        "the terrain's heights": lambda s: s.terrain.heights_grid().__setitem__(window, 99.0),
        "the terrain's layers": lambda s: s.terrain.layers[1].grid().__setitem__(window, 7),
        "the foliage": lambda s: scatter_in_tiles(s, "bush", seed=1, tile=400.0),
        "the spawners": lambda s: spawners_of(s).spawners.append(spawner_named(spawner, "other")),
    }
    for n, (what, edit) in enumerate(edits.items()):
        folder = tmp_path / f"t{n}"
        stopped(hilly_scene(), folder)
        edited = hilly_scene()
        edit(edited)
        with pytest.raises(FormatError, match=f"{what} changed since the stopped run"):
            spawn_in_tiles(edited, spawner, tile=40.0, store_folder=folder, resume=True)
        assert len(list(folder.glob("tile_*.npz"))) == 2  # refused: the stopped run's tiles stay


def spawner_named(spawner, name):
    from dataclasses import replace

    return replace(spawner, name=name)
