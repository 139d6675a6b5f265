"""`boscage --screenshot PNG [SCENE]` in a real process: lit, multi-coloured terrain in the viewport."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from model.formats.scene_file import save_scene
from tests.conftest import make_small_scene
from tests.gui_helpers import is_sky, pixels

ROOT = Path(__file__).resolve().parents[2]


def run_app(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    if not os.environ.get("DISPLAY"):
        pytest.fail("GUI tests need a display: run them under xvfb-run (scripts/dev.sh test does)")
    env = dict(os.environ)
    env.pop("QT_QPA_PLATFORM", None)  # a real xcb window: offscreen has no OpenGL
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_screenshot_of_the_demo_shows_lit_multicoloured_terrain(tmp_path) -> None:
    out = tmp_path / "shot.png"
    result = run_app("--screenshot", str(out), "--size", "1200x800")
    assert result.returncode == 0, result.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    img = pixels(image).astype(int)
    # The viewport is the central widget: the middle of the window is inside it.
    h, w, _ = img.shape
    centre = img[int(h * 0.3):int(h * 0.7), int(w * 0.3):int(w * 0.7)]
    ground = ~is_sky(centre)
    assert ground.mean() > 0.5
    rgb = centre[ground]
    r, g, b = rgb[:, 0], rgb[:, 1], rgb[:, 2]
    greenish = (g > r + 15) & (g > b + 15)
    greyish = (np.abs(r - g) < 12) & (np.abs(g - b) < 12)
    sandy = (r > b + 30) & (g > b + 20) & (r + g + b > 450)
    brownish = (r > b + 10) & (r + g + b < 330) & ~greenish
    for name, mask in (("green", greenish), ("grey rock", greyish), ("sand", sandy), ("brown", brownish)):
        assert mask.mean() > 0.002, name
    # Lit: the same grass shows a real range of brightness across the relief.
    grass_brightness = rgb[greenish].sum(axis=1)
    assert np.percentile(grass_brightness, 95) - np.percentile(grass_brightness, 5) > 40


def test_screenshot_of_a_given_scene(tmp_path) -> None:
    save_scene(make_small_scene(), tmp_path / "small.boscage")
    out = tmp_path / "small.png"
    result = run_app("--screenshot", str(out), str(tmp_path / "small.boscage"))
    assert result.returncode == 0, result.stderr
    img = pixels(QImage(str(out))).astype(int)
    assert ((img[..., 0] - img[..., 2]) > 80).any() and ((img[..., 2] - img[..., 0]) > 80).any()


def test_screenshot_of_a_bad_scene_exits_1_naming_the_file(tmp_path) -> None:
    bad = tmp_path / "bad.boscage"
    bad.write_text("not toml [")
    result = run_app("--screenshot", str(tmp_path / "x.png"), str(bad))
    assert result.returncode == 1
    assert "bad.boscage" in result.stderr and "TOML" in result.stderr
    assert not (tmp_path / "x.png").exists()


def test_usage_error_exits_2(tmp_path) -> None:
    result = run_app("--no-such-flag")
    assert result.returncode == 2


def test_without_a_display_it_says_so_and_exits_1(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run([sys.executable, "-m", "app", "--screenshot", str(tmp_path / "x.png")],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "no display" in result.stderr


@pytest.mark.parametrize("size", ["0x0", "100x80", "99999x800", "wide"])
def test_a_window_size_that_cannot_show_a_frame_is_a_usage_error(tmp_path, size) -> None:
    result = run_app("--screenshot", str(tmp_path / "x.png"), "--size", size, timeout=60)
    assert result.returncode == 2 and "--size" in result.stderr
    assert not (tmp_path / "x.png").exists()
