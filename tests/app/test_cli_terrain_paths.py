"""`boscage terrain spline|holes`: a road through the demo as an edit layer, saved atomically; holes
painted and erased; bad paths named by file and place."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.app.demo_cli import boscage, files


def write(tmp_path: Path, doc: object, name: str = "path.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


ROAD = {"points": [[-300, -200], [-100, -60], [100, 40], [300, 220]]}


def test_a_road_is_added_saved_and_recomputed_in_place(demo: Path, tmp_path: Path) -> None:
    from model.formats.scene_file import load_scene

    before = files(demo)
    path = write(tmp_path, ROAD)
    done = boscage("terrain", "spline", demo, path, "--width", "8", "--max-grade", "8", "--paint", "road",
                   "--clear-foliage", "--name", "main road", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["created"] and doc["kind"] == "road" and doc["samples_changed"] > 1000 and not doc["saved"]
    assert files(demo) == before  # nothing written without --save
    done = boscage("terrain", "spline", demo, path, "--width", "8", "--max-grade", "8", "--paint", "road",
                   "--clear-foliage", "--name", "main road", "--save", "--json")
    assert done.returncode == 0, done.stderr
    scene = load_scene(demo)
    layer = scene.terrain.edits.layer("main road")
    assert layer.kind == "spline" and layer.params["max_grade"] == 8.0 and layer.params["paint"] == "road"
    assert scene.terrain.layer_weight_at("road", np.array([0.0]), np.array([-10.0])) is not None
    # the same path again: recomputed in place, the same heights
    heights = scene.terrain.heights.tobytes()
    again = boscage("terrain", "spline", demo, path, "--width", "8", "--max-grade", "8", "--paint", "road",
                    "--name", "main road", "--save", "--json")
    assert again.returncode == 0 and not json.loads(again.stdout)["created"]
    assert load_scene(demo).terrain.heights.tobytes() == heights
    off = boscage("terrain", "edit-layers", demo, "--disable", "main road", "--json")
    assert off.returncode == 0


def test_points_with_heights_and_a_river(demo: Path, tmp_path: Path) -> None:
    path = write(tmp_path, [[-200, 5.0, 100], [0, 4.0, 150], [200, 3.0, 120]])
    done = boscage("terrain", "spline", demo, path, "--width", "12", "--kind", "river", "--depth", "2",
                   "--paint", "water", "--polyline", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["parameters"]["type"] == "river" and doc["parameters"]["smooth"] is False
    assert doc["parameters"]["points"][0] == [-200.0, 5.0, 100.0]


@pytest.mark.parametrize("doc, code, text", [
    ('{"points": [[0, 0], [10, 0]', 1, "line 1 column"),
    ({"points": [[0, 0], [10, "a"]]}, 1, "points[1][1]"),
    ({"points": [[0, 0]]}, 1, "at least 2 points"),
    ({"points": [[0, 0], [1, 2, 3, 4]]}, 1, "points[1]"),
    ({"points": [[0, 0], [10, 0]], "widths": [1]}, 1, "one value per point"),
    ({"points": [[5000, 5000], [6000, 5000]]}, 2, "misses the terrain"),
    ({"paths": []}, 1, "points"),
])
def test_bad_paths_get_one_clear_error(demo: Path, tmp_path: Path, doc, code: int, text: str) -> None:
    before = files(demo)
    path = write(tmp_path, doc)
    done = boscage("terrain", "spline", demo, path, "--width", "8", "--save")
    assert done.returncode == code, done.stderr
    assert text in done.stderr and "Traceback" not in done.stderr
    if code == 1 and "misses" not in text:
        assert "path.json" in done.stderr
    assert files(demo) == before


def test_a_spline_cannot_take_another_kind_of_layer(demo: Path, tmp_path: Path) -> None:
    assert boscage("terrain", "terrace", demo, "--step", "4", "--save").returncode == 0
    done = boscage("terrain", "spline", demo, write(tmp_path, ROAD), "--width", "8", "--name", "terrace")
    assert done.returncode == 1 and "terrace layer" in done.stderr


def test_holes_are_painted_saved_and_erased(demo: Path) -> None:
    from model.formats.scene_file import load_scene
    from model.holes import hole_at

    done = boscage("terrain", "holes", demo, "--paint", "10,20", "--paint", "30,20", "--radius", "6",
                   "--save", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["changed"] > 20 and doc["holes"] == doc["changed"]
    terrain = load_scene(demo).terrain
    assert hole_at(terrain, np.array([10.0, 30.0, 200.0]), np.array([20.0, 20.0, 20.0])).tolist() == [
        True, True, False]
    done = boscage("terrain", "holes", demo, "--paint", "10,20", "--paint", "30,20", "--radius", "6",
                   "--erase", "--save", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["holes"] == 0
    assert load_scene(demo).terrain.holes is None
    assert not any(".holes_" in name for name in files(demo))
    bad = boscage("terrain", "holes", demo, "--paint", "10,20", "--radius", "0")
    assert bad.returncode == 2 and "--radius" in bad.stderr


def test_a_hole_removes_the_stored_foliage_standing_in_it(demo: Path) -> None:
    from model.foliage.section import foliage_of
    from model.formats.scene_file import load_scene
    from model.holes import hole_at

    volume = foliage_of(load_scene(demo)).volume
    name = volume.type_names()[0]
    x, _y, z = (float(v) for v in volume.all_records(name)[0, :3])
    done = boscage("terrain", "holes", demo, f"--paint={x},{z}", "--radius", "4", "--save", "--json")
    assert done.returncode == 0, done.stderr
    removed = json.loads(done.stdout)["foliage_removed"]
    scene = load_scene(demo)
    after = foliage_of(scene).volume
    assert removed >= 1 and len(after) == len(volume) - removed
    for kind in after.type_names():
        rec = after.all_records(kind)
        assert not hole_at(scene.terrain, rec[:, 0].astype(float), rec[:, 2].astype(float)).any()


def test_a_road_moved_on_the_command_line_lets_the_spawned_forest_regrow(demo: Path, tmp_path: Path) -> None:
    from model.foliage.section import foliage_of
    from model.foliage.spawner_section import spawners_of
    from model.formats.scene_file import load_scene, save_scene
    from model.splines import Spline, centreline
    from tests.app.test_edit_layers_foliage import grow_woods

    scene = grow_woods(load_scene(demo), 40.0)
    save_scene(scene, demo)
    laid = [[-200, -100], [0, -90], [200, -100]]
    away = [[x, z + 70] for x, z in laid]

    def on_bed(scene, points) -> int:
        x, z, *_ = centreline(Spline(np.array([(a, np.nan, b) for a, b in points]), 8.0, 6.0, "road"), 0.5)
        rec = foliage_of(scene).volume.all_records("broadleaf")
        d = np.sqrt((rec[:, 0, None] - x[None]) ** 2 + (rec[:, 2, None] - z[None]) ** 2).min(axis=1)
        return int(np.count_nonzero(d < 5.0))

    grown = on_bed(scene, laid)
    assert grown > 5
    for points in (laid, away):
        done = boscage("terrain", "spline", demo, write(tmp_path, {"points": points}), "--width", "8",
                       "--clear-foliage", "--name", "road", "--save", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["spawners_rerun"] == 1
        scene = load_scene(demo)
        assert on_bed(scene, points) == 0
        assert not any(len(k) for k in spawners_of(scene).removed.get("woods", {}).values())
    assert on_bed(scene, laid) > 5  # the old bed grew back (the painted foliage the road cleared stays gone)


def _spawned_demo(demo: Path):
    """The demo with a seeded broadleaf wood spawned over it, saved; (scene, the wood's records sorted)."""
    from model.formats.scene_file import load_scene, save_scene
    from tests.app.test_edit_layers_foliage import grow_woods

    scene = grow_woods(load_scene(demo), 40.0)
    save_scene(scene, demo)
    return load_scene(demo)


def _sorted(records: np.ndarray) -> np.ndarray:
    return records[np.lexsort(records.T[::-1])]


def test_holes_cut_through_a_spawned_wood_and_filled_on_the_command_line_let_it_grow_back(demo: Path) -> None:
    from model.foliage.section import foliage_of
    from model.foliage.spawner_section import spawners_of
    from model.formats.scene_file import load_scene
    from model.holes import hole_at

    volume = foliage_of(load_scene(demo)).volume
    painted = np.concatenate([volume.all_records(k) for k in volume.type_names()])[:, (0, 2)].astype(float)
    scene = _spawned_demo(demo)
    grown = _sorted(foliage_of(scene).volume.all_records("broadleaf"))
    owned = spawners_of(scene).owned_count("woods")
    # in the wood, away from the painted foliage (a painted tree the hole removed would stay gone, and
    # the wood would grow back around its empty place differently)
    clear = np.array([np.hypot(*(painted - p).T).min() for p in grown[:, (0, 2)].astype(float)])
    x, z = (float(v) for v in grown[int(np.argmax(clear)), (0, 2)])
    assert clear.max() > 15.0
    dabs = (f"--paint={x},{z}", f"--paint={x + 3},{z}")
    cut = boscage("terrain", "holes", demo, *dabs, "--radius", "5", "--save", "--json")
    assert cut.returncode == 0, cut.stderr
    doc = json.loads(cut.stdout)
    assert doc["spawners_rerun"] == 1 and doc["foliage_regrounded"] == 0 and doc["foliage_removed"] == 0
    scene = load_scene(demo)
    holed = foliage_of(scene).volume.all_records("broadleaf")
    assert len(holed) < len(grown)
    assert not hole_at(scene.terrain, holed[:, 0].astype(float), holed[:, 2].astype(float)).any()
    # they left as the spawner's own: its count went down with them, none counted as deleted by hand
    assert spawners_of(scene).owned_count("woods") < owned
    assert not any(len(k) for k in spawners_of(scene).removed.get("woods", {}).values())
    filled = boscage("terrain", "holes", demo, *dabs, "--radius", "5", "--erase", "--save", "--json")
    assert filled.returncode == 0, filled.stderr
    doc = json.loads(filled.stdout)
    assert doc["holes"] == 0 and doc["spawners_rerun"] == 1 and doc["foliage_removed"] == 0
    scene = load_scene(demo)
    assert _sorted(foliage_of(scene).volume.all_records("broadleaf")).tobytes() == grown.tobytes()
    assert spawners_of(scene).owned_count("woods") == owned
