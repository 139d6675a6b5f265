"""`boscage terrain`: erosion, stamps and terraces as edit layers, saved atomically, shown and hidden."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.app.demo_cli import boscage, files


def heights(scene: Path) -> np.ndarray:
    from model.formats.scene_file import load_scene

    return load_scene(scene).terrain.heights.copy()


def test_erode_without_save_changes_nothing_and_with_save_adds_a_layer(demo: Path) -> None:
    before = files(demo)
    done = boscage("terrain", "erode", demo, "--thermal", "--iterations", "20", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["layer"] == "erode-thermal" and doc["created"] and not doc["saved"]
    assert doc["max_fall"] > 1.0 and abs(doc["mean_change"]) < 0.02
    assert files(demo) == before  # a run without --save is its own undo
    done = boscage("terrain", "erode", demo, "--thermal", "--iterations", "20", "--save", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(boscage("terrain", "edit-layers", demo, "--json").stdout)["edit_layers"]
    assert [(la["name"], la["kind"], la["visible"]) for la in listed] == [("erode-thermal", "erosion", True)]
    assert listed[0]["params"]["talus"] == 35.0


def test_switching_a_layer_off_gives_back_the_heights_bit_for_bit(demo: Path) -> None:
    original = heights(demo)
    assert boscage("terrain", "terrace", demo, "--step", "4", "--save").returncode == 0
    terraced = heights(demo)
    assert not np.array_equal(terraced, original)
    done = boscage("terrain", "edit-layers", demo, "--disable", "terrace", "--save", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["edit_layers"][0]["visible"] is False
    assert heights(demo).tobytes() == original.tobytes()
    assert boscage("terrain", "edit-layers", demo, "--enable", "terrace", "--save").returncode == 0
    assert heights(demo).tobytes() == terraced.tobytes()


def test_hydraulic_erosion_writes_its_outputs_and_recomputes_in_place(demo: Path) -> None:
    done = boscage("terrain", "erode", demo, "--hydraulic", "--seed", "4", "--outputs", "flow,wear",
                   "--region=100,100,600,600", "--save", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["output_layers"] == ["erosion_flow", "erosion_wear"] and doc["max_fall"] > 1.0
    first = files(demo)
    again = boscage("terrain", "erode", demo, "--hydraulic", "--seed", "4", "--outputs", "flow,wear",
                    "--region=100,100,600,600", "--save", "--json")
    assert json.loads(again.stdout)["created"] is False
    assert files(demo) == first  # the same seed: the same bytes


def test_stamp_adds_its_relief(demo: Path, tmp_path: Path) -> None:
    image = np.zeros((33, 33), np.float32)
    image[12:21, 12:21] = 1.0
    np.save(tmp_path / "block.npy", image)
    done = boscage("terrain", "stamp", demo, tmp_path / "block.npy", "--at", "500,500", "--radius", "40",
                   "--height", "12", "--save", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["max_rise"] == pytest.approx(12.0, abs=0.01) and doc["max_fall"] == 0.0


@pytest.mark.parametrize("args, code, text", [
    (("erode", "{scene}", "--thermal", "--mask", "nope"), 1, "no paint layer named 'nope'"),
    (("erode", "{scene}", "--hydraulic", "--talus", "30"), 2, "--talus is a thermal setting"),
    (("erode", "{scene}"), 2, "needs --thermal or --hydraulic"),
    (("erode", "{scene}", "--thermal", "--talus", "95"), 2, "talus angle"),
    (("edit-layers", "{scene}", "--disable", "ghost"), 1, "no edit layer named 'ghost'"),
    (("terrace", "{scene}", "--step", "0"), 2, "--step must be a positive"),
    (("erode", "{scene}", "--thermal", "--region=5000,5000,6000,6000"), 1, "fewer than 2 x 2 samples"),
    (("stamp", "{scene}", "{scene}", "--at", "900,0", "--radius", "50"), 2, "misses the terrain"),
])
def test_bad_requests_get_one_clear_error(demo: Path, args, code: int, text: str) -> None:
    before = files(demo)
    done = boscage("terrain", *(a.format(scene=demo) for a in args))
    assert done.returncode == code, done.stderr
    assert text in done.stderr and "Traceback" not in done.stderr
    assert files(demo) == before


def test_erode_terrace_and_stamp_with_save_carry_the_stored_foliage_with_the_ground(demo: Path,
                                                                                    tmp_path: Path) -> None:
    from model.foliage.section import foliage_of
    from model.formats.scene_file import load_scene

    def offsets(scene) -> np.ndarray:
        rec = np.concatenate([foliage_of(scene).volume.all_records(n) for n in ("conifer", "broadleaf")])
        order = np.lexsort((rec[:, 2], rec[:, 0]))
        rec = rec[order].astype(np.float64)
        return rec[:, 1] - scene.terrain.height_at(rec[:, 0], rec[:, 2])

    before = offsets(load_scene(demo))
    cone = np.clip(1.0 - np.hypot(*np.mgrid[-1:1:65j, -1:1:65j]), 0.0, 1.0).astype(np.float32)
    np.save(tmp_path / "cone.npy", cone)
    for command in (("erode", "--thermal", "--talus", "20", "--region=-300,-300,300,300"),
                    ("terrace", "--step", "6", "--sharpness", "1", "--region=-300,-300,300,300"),
                    ("stamp", tmp_path / "cone.npy", "--at=-100,50", "--radius", "150", "--height", "20")):
        done = boscage("terrain", *command[:1], demo, *command[1:], "--save", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["foliage_regrounded"] > 100
        # each instance keeps its height above the new ground (it was left floating or buried)
        assert np.abs(offsets(load_scene(demo)) - before).max() < 1e-3
