"""`boscage heightmap export|import` with float EXR, TIFF and RAW R32: exact, and bad files exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import run_cli
from model.formats.heightmap import read_heightmap
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.terrain import Terrain


@pytest.fixture()
def scene_path(tmp_path: Path) -> Path:
    z, x = np.mgrid[0:33, 0:41].astype(np.float32)
    t = Terrain(20 * np.sin(x / 5) + z * 0.5 - 3 + np.float32(1e-6) * x, spacing=2.0)
    path = tmp_path / "s.boscage"
    save_scene(Scene(t, "s"), path)
    return path


@pytest.mark.parametrize(("suffix", "fmt"), [(".exr", None), (".tif", None), (".r32", None), (".bin", "r32"),
                                             (".data", "exr")])
def test_export_then_import_is_bit_for_bit(scene_path: Path, tmp_path: Path, capsys, suffix, fmt) -> None:
    out = tmp_path / f"h{suffix}"
    extra = ["--format", fmt] if fmt else []
    assert run_cli(["heightmap", "export", str(scene_path), str(out), "--json", *extra]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["offset"] is None and doc["scale"] is None  # no 16-bit mapping
    args = ["heightmap", "import", str(out), str(tmp_path / "new.boscage"), "--json", *extra]
    if (fmt or suffix.lstrip(".")) == "r32":
        args += ["--spacing", "2", "--size", "41x33"]
    assert run_cli(args) == 0
    assert json.loads(capsys.readouterr().out)["spacing"] == 2.0  # EXR and TIFF carry it
    original = load_scene(scene_path).terrain.heights
    imported = load_scene(tmp_path / "new.boscage").terrain.heights
    np.testing.assert_array_equal(imported.view(np.uint32), original.view(np.uint32))


def test_r32_size_is_inferred_or_given(scene_path: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "h.r32"
    assert run_cli(["heightmap", "export", str(scene_path), str(out)]) == 0
    capsys.readouterr()
    assert run_cli(["heightmap", "import", str(out), str(tmp_path / "n.boscage")]) == 1  # 41 x 33: not square
    assert "not a square grid of 32-bit float samples; give the size" in capsys.readouterr().err
    assert run_cli(["heightmap", "import", str(out), str(tmp_path / "n.boscage"), "--size", "41x33"]) == 0
    np.testing.assert_array_equal(read_heightmap(out, size=(41, 33)).heights,
                                  load_scene(tmp_path / "n.boscage").terrain.heights)
    assert run_cli(["heightmap", "import", str(out), str(tmp_path / "n.boscage"), "--size", "40x33"]) == 1
    assert "expected 40 x 33 x 4 = 5280 bytes, file holds 5412" in capsys.readouterr().err


def test_a_non_float_or_broken_file_exits_1(tmp_path: Path, capsys) -> None:
    (tmp_path / "bad.exr").write_bytes(b"\x76\x2f\x31\x01" + bytes(40))
    assert run_cli(["heightmap", "import", str(tmp_path / "bad.exr"), str(tmp_path / "n.boscage")]) == 1
    err = capsys.readouterr().err
    assert "bad.exr" in err and "Traceback" not in err
    assert not (tmp_path / "n.boscage").exists()
