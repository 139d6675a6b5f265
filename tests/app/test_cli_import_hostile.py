"""`boscage import-foliage` on hostile input: one sentence and exit 1, the scene untouched; and a
scene that opened before `--save` always opens after it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import run_cli
from model.foliage import foliage_of
from model.formats.scene_file import load_scene, save_scene
from tests.model.interchange.conftest import small_scene


@pytest.fixture
def scene_path(tmp_path):
    path = tmp_path / "forest.boscage"
    save_scene(small_scene(), path)
    return path


def folder_bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_random_bytes_as_glb_are_not_gltf(scene_path, tmp_path, capsys) -> None:
    source = tmp_path / "noise.glb"
    source.write_bytes(np.random.default_rng(1).integers(0, 256, 10_000, np.uint8).tobytes())
    before = folder_bytes(scene_path.parent)
    assert run_cli(["import-foliage", str(scene_path), str(source), "--save"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"boscage: error: {source} @ offset 0: not a glTF file: a binary glTF (.glb) starts "
                   "with 'glTF'")
    assert folder_bytes(scene_path.parent) == before


PINE = {"type": "pine", "position": [1, 0, 1]}


@pytest.mark.parametrize("instances, place", [
    ([PINE, {"type": "pine\ud800", "position": [2, 0, 2]}], "instances[1]"),
    ([PINE, {"type": "pine", "position": [-3.4e38, 0, 2]}], "instances[1]"),
    ([{"type": " ", "position": [1, 0, 1]}], "instances[0]"),
])
def test_a_refused_import_leaves_the_scene_as_it_was(scene_path, tmp_path, capsys, instances, place) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps({"instances": instances}))
    before = folder_bytes(scene_path.parent)
    assert run_cli(["import-foliage", str(scene_path), str(source), "--save"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"boscage: error: {source}: {place}: ") and "\n" not in err
    assert folder_bytes(scene_path.parent) == before
    load_scene(scene_path)


def test_an_accepted_import_saves_a_scene_that_opens(scene_path, tmp_path, capsys) -> None:
    source = tmp_path / "in.csv"
    names = ["Fichte 2", "\U0001f332", "a" * 255]
    rows = [f"{name},{9.5e6 * (k - 1)},0,{k},0,0,0,2\n" for k, name in enumerate(names)]
    source.write_text("type,x,y,z,yaw_deg,pitch_deg,roll_deg,scale\n" + "".join(rows))
    assert run_cli(["import-foliage", str(scene_path), str(source), "--save"]) == 0
    capsys.readouterr()
    volume = foliage_of(load_scene(scene_path)).volume
    for name in names:
        assert len(volume.all_records(name)) == 1


def test_a_package_holding_a_damaged_crate_is_one_sentence(scene_path, tmp_path, capsys) -> None:
    import zipfile
    from pathlib import Path

    bomb = (Path(__file__).resolve().parents[1] / "model" / "fuzz" / "regressions" / "usdc"
            / "crate_count_allocates_gigabytes" / "files" / "s.usdc")
    source = tmp_path / "trees.usdz"
    with zipfile.ZipFile(source, "w", zipfile.ZIP_STORED) as z:  # pxr aborted reading it in-process
        z.writestr("scene.usdc", bomb.read_bytes())
    before = folder_bytes(scene_path.parent)
    assert run_cli(["import-foliage", str(scene_path), str(source), "--save"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"boscage: error: {source}: reading it needs more than 512 MiB (a size or count in it "
                   "is damaged)")
    assert folder_bytes(scene_path.parent) == before
