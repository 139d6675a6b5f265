"""`spawn --save` killed (SIGKILL) at random moments: the scene always opens whole, as it was or as
the run left it, and a later run gives the same bytes as on a scene nobody interrupted."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from model.formats.scene_file import load_scene

ROOT = Path(__file__).resolve().parents[2]
TRIES, SLOW_TRIES = 10, 50  # kills per run; with --runslow
RECIPE = """
[[spawners]]
name = "forest"
seed = {seed}
area = {{ polygon = [[-400, -300], [300, -300], [300, 300], [-400, 300]] }}
[[spawners.species]]
type = "bush"
density = 1.0
"""


def boscage(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    if check:
        assert done.returncode == 0, done.stderr
    return done


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def put(files: dict[str, bytes], folder: Path) -> Path:
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder / "demo.boscage"


@pytest.fixture(scope="module")
def recipes(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("recipes")
    old, new = folder / "old.toml", folder / "new.toml"
    old.write_text(RECIPE.format(seed=3))
    new.write_text(RECIPE.format(seed=11))
    return old, new


@pytest.fixture(scope="module")
def base(recipes, tmp_path_factory) -> dict[str, bytes]:
    """The demo scene with the spawner run and saved: what every try starts from."""
    scene = tmp_path_factory.mktemp("base") / "demo.boscage"
    boscage("scene", "new-demo", str(scene))
    boscage("spawn", str(scene), "--recipe", str(recipes[0]), "--save")
    return files_of(scene.parent)


def test_spawn_killed_at_random_moments_leaves_a_whole_scene(base, recipes, tmp_path, request) -> None:
    tries = SLOW_TRIES if request.config.getoption("--runslow") else TRIES
    # what a later run leaves, from the scene as it was and from the run's scene, uninterrupted
    expected = {}
    for label, extra in (("old", []), ("new", ["--recipe", str(recipes[1])])):
        scene = put(base, tmp_path / f"clean-{label}")
        start = time.monotonic()
        boscage("spawn", str(scene), *extra, "--save")
        took = time.monotonic() - start
        boscage("spawn", str(scene), "--save")
        expected[label] = files_of(scene.parent)
    assert expected["old"] != expected["new"]
    rng = random.Random(20240611)
    outcomes = []
    for attempt in range(tries):
        scene = put(base, tmp_path / f"try{attempt}")
        command = ["spawn", str(scene), "--recipe", str(recipes[1]), "--save"]
        proc = subprocess.Popen([sys.executable, "-m", "app", *command], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        time.sleep(rng.uniform(0.3, 1.1) * took)  # from start-up to past the manifest's write
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        load_scene(scene)  # opens whole: every side file the manifest names, checksums right
        label = "new" if "seed = 11" in scene.read_text() else "old"
        outcomes.append((label, proc.returncode))
        boscage("spawn", str(scene), "--save")  # takes over the killed run's lock, drops its leftovers
        assert files_of(scene.parent) == expected[label], (attempt, label)
    assert any(code == -signal.SIGKILL for _, code in outcomes)  # some tries did stop mid-run
