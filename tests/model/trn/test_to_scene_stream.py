"""A TRN region written as a scene tile by tile: the bytes the whole-array import saves, in this
process or on workers, with nothing left behind on a cancel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model.formats import tiles
from model.formats.scene_file import load_scene, save_scene
from model.trn import build
from model.trn.evaluator import Region
from model.trn.to_scene import ImportCancelled, trn_to_scene, write_trn_scene
from tests.model.test_scene_file import files_of
from tests.model.trn.helpers import circle, doc_of, height_const
from tests.model.trn.test_to_scene import _doc


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    from model.trn import to_scene

    monkeypatch.setattr(tiles, "TILE", 16)
    monkeypatch.setattr(to_scene, "_FLORA_CHUNK", 37)  # instances placed in several chunks


def _holes():
    return doc_of([build.layer("base", [height_const(5)]),
                   build.layer("hole", [circle(0, 0, 6), height_const(float("nan"))]),
                   build.layer("spike", [circle(20, 0, 3), height_const(float("inf"))]),
                   build.layer("pit", [circle(-20, 0, 3), height_const(float("-inf"))]),
                   build.layer("hill", [circle(0, 20, 4), height_const(25)])])


def _same_as_whole(doc, region: Region, tmp_path: Path, foliage: bool = True, **kw) -> list[str]:
    whole_warnings: list[str] = []
    save_scene(trn_to_scene(doc, region, name="t", foliage=foliage, warnings=whole_warnings),
               tmp_path / "a" / "t.boscage")
    warnings: list[str] = []
    heard: list[tuple[int, int, str]] = []
    scene = write_trn_scene(doc, region, tmp_path / "b" / "t.boscage", name="t", foliage=foliage,
                            warnings=warnings, progress=lambda d, t, w: heard.append((d, t, w)), **kw)
    assert files_of(tmp_path / "b") == files_of(tmp_path / "a")
    assert warnings == whole_warnings
    assert scene.terrain.paged_heights is not None
    assert [d for d, _, _ in heard] == list(range(heard[-1][1] + 1))  # every tile of both passes
    return warnings


@pytest.mark.parametrize("foliage", [True, False])
def test_layers_and_flora_are_the_bytes_of_the_whole_import(tmp_path: Path, foliage: bool) -> None:
    _same_as_whole(_doc(), Region.from_bounds(-50, -50, 70, 50, 2.0), tmp_path, foliage)


def test_non_finite_heights_get_the_same_stand_ins_and_warning(tmp_path: Path) -> None:
    warnings = _same_as_whole(_holes(), Region.from_bounds(-30, -30, 30, 30, 2.0), tmp_path)
    assert len(warnings) == 1 and "not finite" in warnings[0]
    assert np.isfinite(load_scene(tmp_path / "b" / "t.boscage").terrain.heights).all()


def test_a_region_of_one_tile(tmp_path: Path) -> None:
    _same_as_whole(_doc(), Region.from_bounds(-10, -10, 10, 10, 2.0), tmp_path)


def test_cancel_in_either_pass_leaves_nothing(tmp_path: Path) -> None:
    region = Region.from_bounds(-50, -50, 70, 50, 2.0)
    for stop in (3, 20):  # while evaluating; while writing the layers (4 x 4 tiles a pass)
        with pytest.raises(ImportCancelled):
            write_trn_scene(_doc(), region, tmp_path / "t.boscage",
                            progress=lambda d, t, w, stop=stop: d < stop)
        assert files_of(tmp_path) == {}


def test_on_worker_processes_the_same_bytes(tmp_path: Path) -> None:
    from model.trn.synthetic import realistic_stack

    doc = realistic_stack(12, seed=3, extent=600.0)
    _same_as_whole(doc, Region.from_bounds(-100, -100, 100, 60, 4.0), tmp_path, workers=2)


def test_cancel_on_worker_processes_stops_them_and_leaves_nothing(tmp_path: Path) -> None:
    region = Region.from_bounds(-50, -50, 70, 50, 2.0)
    with pytest.raises(ImportCancelled):
        write_trn_scene(_doc(), region, tmp_path / "t.boscage", progress=lambda d, t, w: d < 3, workers=2)
    assert files_of(tmp_path) == {}


CHILD = """
import json, sys
from pathlib import Path
sys.path.insert(0, ".")
from tests.model.trn.test_to_scene import _doc
from model.trn.evaluator import Region, warm_up
from model.trn.to_scene import write_trn_scene

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
doc = _doc()
warm_up()  # the compiled kernels: a fixed cost (LLVM's), whatever the region
base = hwm()
write_trn_scene(doc, Region(-1024, -1024, 2049, 2049, 0.05), sys.argv[1], foliage=False)
print(json.dumps({"growth_mb": hwm() - base}))
"""


def test_a_big_region_holds_a_tile_of_evaluation_not_the_region(tmp_path: Path) -> None:
    """2049² poles: one evaluation of the region holds ~250 MB of grids (heights, colour, ids);
    the import holds one 512² tile's evaluation (~60 MB) and a tile of output."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "t.boscage")], capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parents[3])
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    print(figures)
    assert figures["growth_mb"] < 110, figures
    assert load_scene(tmp_path / "t.boscage").terrain.rows == 2049
