"""`boscage heightmap …` on scenes written by the project's own writer; the terrain bench."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.bench.terrain import CASES
from app.cli import run_cli
from model.formats.heightmap import read_heightmap, read_layer_png
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.terrain import Terrain


@pytest.fixture()
def scene_path(tmp_path: Path) -> Path:
    z, x = np.mgrid[0:33, 0:41].astype(np.float32)
    t = Terrain(20 * np.sin(x / 5) + z * 0.5 - 3, spacing=2.0)
    t.add_layer("rock", (120, 120, 120), (x * 6).astype(np.uint8))
    path = tmp_path / "s.boscage"
    save_scene(Scene(t, "s"), path)
    return path


@pytest.mark.parametrize("suffix", [".png", ".r16", ".npy"])
def test_export_then_import_round_trips(scene_path: Path, tmp_path: Path, capsys, suffix: str) -> None:
    out = tmp_path / f"h{suffix}"
    assert run_cli(["heightmap", "export", str(scene_path), str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["columns"], doc["rows"]) == (41, 33)
    args = ["heightmap", "import", str(out), str(tmp_path / "new.boscage"), "--spacing", "2"]
    if suffix == ".r16":
        args += ["--size", "41x33", "--offset", str(doc["offset"]), "--scale", str(doc["scale"])]
    assert run_cli(args) == 0
    assert "wrote" in capsys.readouterr().out
    original = load_scene(scene_path).terrain
    imported = load_scene(tmp_path / "new.boscage").terrain
    assert imported.spacing == 2.0 and imported.heights.shape == original.heights.shape
    step = 0.0 if suffix == ".npy" else doc["scale"] / 65535
    assert np.abs(imported.heights - original.heights).max() <= step / 2 + 1e-5


def test_export_layer_writes_its_weights(scene_path: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "rock.png"
    assert run_cli(["heightmap", "export-layer", str(scene_path), "rock", str(out)]) == 0
    np.testing.assert_array_equal(read_layer_png(out), load_scene(scene_path).terrain.layer("rock").weights)
    assert run_cli(["heightmap", "export-layer", str(scene_path), "moss", str(out)]) == 1
    assert "no layer named 'moss' (layers: 'rock')" in capsys.readouterr().err


def test_wrong_raw_size_exits_1_naming_expected_and_actual(scene_path: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "h.r16"
    assert run_cli(["heightmap", "export", str(scene_path), str(out)]) == 0
    capsys.readouterr()
    assert run_cli(["heightmap", "import", str(out), str(tmp_path / "n.boscage"), "--size", "40x33"]) == 1
    err = capsys.readouterr().err
    assert "h.r16" in err and "expected 40 x 33 x 2 = 2640 bytes, file holds 2706" in err
    assert not (tmp_path / "n.boscage").exists()


def test_usage_errors_exit_2(scene_path: Path, tmp_path: Path) -> None:
    assert run_cli(["heightmap", "export", str(scene_path), str(tmp_path / "h.bmp")]) == 2  # .tif: float TIFF
    assert run_cli(["heightmap", "import", "x.png", "y.boscage", "--size", "big"]) == 2
    assert run_cli(["heightmap", "import", "x.png", "y.boscage", "--spacing", "0"]) == 2


@pytest.mark.parametrize("options, words", [
    (["--offset", "1e38"], "--offset: must be a finite number of metres within 1e+07"),
    (["--offset", "nan"], "--offset: must be a finite number of metres"),
    (["--offset=-inf"], "--offset: must be a finite number of metres"),
    (["--scale", "1e38"], "--scale: must be a positive number of metres up to 2e+07"),
    (["--scale=-1"], "--scale: must be a positive number of metres"),
    (["--spacing", "1e9"], "--spacing: must be 0.001 to 1e+07"),
    (["--offset", "9e6", "--scale", "2e6"],
     "--scale: offset 9e+06 + scale 2e+06 gives heights up to 1.1e+07"),
])
def test_import_options_that_give_heights_or_sizes_out_of_range_are_refused_first(
        scene_path: Path, tmp_path: Path, capsys, options: list[str], words: str) -> None:
    source = tmp_path / "h.r16"
    assert run_cli(["heightmap", "export", str(scene_path), str(source)]) == 0
    capsys.readouterr()
    out = tmp_path / "n.boscage"
    assert run_cli(["heightmap", "import", str(source), str(out), "--size", "41x33", *options]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err, err
    assert not out.exists()


def test_a_png_offset_past_the_terrain_range_is_refused_before_reading(tmp_path: Path, capsys) -> None:
    from model.formats import png

    png.write_png(tmp_path / "h.png", np.zeros((4, 4), np.uint16), text={"boscage.height_offset": "1e38"})
    out = tmp_path / "n.boscage"
    assert run_cli(["heightmap", "import", str(tmp_path / "h.png"), str(out)]) == 1
    err = capsys.readouterr().err
    assert "h.png" in err and "height offset must be a finite number of metres within 1e+07" in err, err
    assert not out.exists()


def test_an_export_mapping_past_the_terrain_range_is_refused(scene_path: Path, tmp_path: Path,
                                                              capsys) -> None:
    assert run_cli(["heightmap", "export", str(scene_path), str(tmp_path / "h.png"), "--offset", "1e38"]) == 2
    assert run_cli(["heightmap", "export", str(scene_path), str(tmp_path / "h.png"),
                    "--offset", "9e6", "--scale", "2e6"]) == 2
    assert "gives heights up to" in capsys.readouterr().err
    assert not (tmp_path / "h.png").exists()


def test_a_png_export_carries_its_settings(scene_path: Path, tmp_path: Path) -> None:
    assert run_cli(["heightmap", "export", str(scene_path), str(tmp_path / "h.png"),
                    "--offset", "-50", "--scale", "200"]) == 0
    hm = read_heightmap(tmp_path / "h.png")
    assert hm.mapping == (-50.0, 200.0) and hm.spacing == 2.0


@pytest.mark.slow
def test_sculpt_bench_is_proportional_to_the_brush() -> None:
    (case,) = [c for c in CASES if c.name == "terrain.sculpt_stamp_4096_vs_512"]
    # A stamp that touched the whole grid would cost ~16x more on 2048² than on 512².
    ratio = case.run(True)
    assert case.ok(ratio, quick=True), ratio


def test_undo_memory_bench_is_proportional_to_the_brush() -> None:
    (case,) = [c for c in CASES if c.name == "terrain.stroke_undo_memory_4096_vs_512"]
    ratio = case.run(True)  # bytes kept, not time: the same on every machine
    assert ratio == 1.0 and case.ok(ratio, quick=True)  # the same tiles, however large the terrain


def test_import_writes_tiles_with_a_bar_and_ctrl_c_leaves_nothing(tmp_path: Path, capsys,
                                                                  monkeypatch) -> None:
    from app.cli import _progress
    from model.formats import tiles

    monkeypatch.setattr(tiles, "TILE", 16)
    np.save(tmp_path / "h.npy", np.arange(40 * 50, dtype=np.float32).reshape(40, 50))
    heard: list[tuple[int, int]] = []

    def step(self, done: int, total: int) -> bool:
        heard.append((done, total))
        if stop and done == 5:
            raise KeyboardInterrupt
        return True

    monkeypatch.setattr(_progress.TerminalProgress, "step", step)
    stop = True
    out = tmp_path / "out" / "s.boscage"
    assert run_cli(["heightmap", "import", str(tmp_path / "h.npy"), str(out)]) == 130
    assert "cancelled" in capsys.readouterr().err and list(out.parent.iterdir()) == []
    stop, heard[:] = False, []
    assert run_cli(["heightmap", "import", str(tmp_path / "h.npy"), str(out)]) == 0
    assert heard == [(d, 12) for d in range(13)]  # 3 x 4 tiles, each heard
    assert load_scene(out).terrain.heights.tobytes() == np.load(tmp_path / "h.npy").tobytes()
