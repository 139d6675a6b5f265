"""`boscage --screenshot PNG --camera EX,EY,EZ,TX,TY,TZ SCENE`: a picture from a given viewpoint."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from app.gui_entry import parse_camera
from model.formats.scene_file import save_scene
from tests.app.test_screenshot import run_app
from tests.conftest import make_small_scene
from tests.gui_helpers import pixels


def centre_colour(png) -> np.ndarray:
    img = pixels(QImage(str(png))).astype(int)
    h, w, _ = img.shape  # the viewport is the window's central widget
    return img[int(h * 0.4):int(h * 0.6), int(w * 0.4):int(w * 0.6)].reshape(-1, 3).mean(axis=0)


def test_the_camera_looks_where_it_is_told(tmp_path) -> None:
    scene = tmp_path / "small.boscage"
    save_scene(make_small_scene(), scene)  # red paint west of x = 0, blue east of it
    colours = {}
    for side, x in (("west", -22.0), ("east", 22.0)):
        out = tmp_path / f"{side}.png"
        result = run_app("--screenshot", str(out), "--size", "900x700",
                         f"--camera={x},30,1,{x},0,0", str(scene))
        assert result.returncode == 0, result.stderr
        colours[side] = centre_colour(out)
    r, g, b = colours["west"]
    assert r > b + 60, colours
    r, g, b = colours["east"]
    assert b > r + 60, colours


@pytest.mark.parametrize("value", ["1,2,3", "1,2,3,4,5,six", "1,2,3,4,5,6,7", "nan,0,0,1,1,1",
                                   "0,5,0,0,5,0", "1e30,0,0,0,0,0", ""])
def test_a_malformed_camera_is_a_usage_error(tmp_path, value) -> None:
    result = run_app("--screenshot", str(tmp_path / "x.png"), f"--camera={value}", timeout=60)
    assert result.returncode == 2, result.stderr
    assert "--camera" in result.stderr
    assert not (tmp_path / "x.png").exists()


def test_camera_needs_a_screenshot_and_excludes_frame_all(tmp_path) -> None:
    assert run_app("--camera=0,10,0,1,0,1", timeout=60).returncode == 2
    result = run_app("--screenshot", str(tmp_path / "x.png"), "--frame-all", "--camera=0,10,0,1,0,1",
                     timeout=60)
    assert result.returncode == 2 and "--frame-all" in result.stderr


def test_parse_camera_reads_six_numbers() -> None:
    assert parse_camera(" -10, 5.5,0,1e2,0,-3 ") == ((-10.0, 5.5, 0.0), (100.0, 0.0, -3.0))
    with pytest.raises(ValueError, match="six numbers"):
        parse_camera("1,2,3,4,5")


def test_no_terrain_cache_needs_a_screenshot() -> None:
    result = run_app("--no-terrain-cache", timeout=60)
    assert result.returncode == 2 and "--no-terrain-cache" in result.stderr
