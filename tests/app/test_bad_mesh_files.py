"""A mesh file that cannot be drawn: refused where it is chosen; a scene naming one opens with that
type drawn as a placeholder, the rest drawn, and one warning."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from model.foliage import FoliageType, foliage_of
from model.formats.scene_file import save_scene
from tests.app.test_screenshot import run_app
from tests.conftest import make_small_scene
from tests.gui_helpers import render, settle
from tests.model.foliage.test_mesh_check import junk


def scene_naming_junk(folder: Path) -> Path:
    junk(folder)
    scene = make_small_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("junk", mesh="junk.glb"))
    foliage.palette.add(FoliageType("pine", mesh="builtin:conifer"))
    rng = np.random.default_rng(3)
    for name in ("junk", "pine"):
        records = np.zeros((40, 7), np.float32)
        records[:, [0, 2]] = rng.uniform(-30, 30, (40, 2))
        records[:, 1] = 20.0
        records[:, 6] = 3.0
        foliage.volume.add(name, records)
    save_scene(scene, folder / "junk.boscage")
    return folder / "junk.boscage"


def test_a_scene_naming_a_bad_mesh_opens_with_one_warning_and_draws(shown, qtbot, tmp_path) -> None:
    warned: list[str] = []
    shown.warning_hook = lambda parent, title, text: warned.append(text)
    assert shown.open_file(scene_naming_junk(tmp_path))
    qtbot.waitUntil(lambda: len(warned) == 1, timeout=5000)
    assert "junk.glb: cannot read the mesh" in warned[0] and "placeholder" in warned[0]
    assert "pine" not in warned[0]
    shown.viewport.frame_all()
    render(shown.viewport, qtbot)
    render(shown.viewport, qtbot)
    settle()
    assert "junk" in shown.viewport.foliage_renderer.mesh_errors  # it met the file: a placeholder
    assert warned == warned[:1]  # the renderer meeting the file says nothing more
    assert shown.last_error is None  # nothing was switched off
    assert shown.viewport.foliage_renderer in shown.viewport.renderers


def test_a_screenshot_of_such_a_scene_exits_0_with_one_warning(tmp_path) -> None:
    out = tmp_path / "shot.png"
    result = run_app(str(scene_naming_junk(tmp_path)), "--screenshot", str(out), "--frame-all")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("boscage: warning:")]
    assert len(warnings) == 1 and "1 foliage type cannot draw its mesh" in warnings[0]
    assert "junk.glb: cannot read the mesh" in result.stderr and out.is_file()
