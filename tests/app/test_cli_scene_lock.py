"""Two writers of one scene at the same moment: one is refused (naming the other) or waits, and the
scene always opens with the other's work whole; the editor saving under a CLI's lock is refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from model.foliage.section import foliage_of
from model.foliage.spawner import spawners_from_toml
from model.foliage.spawner_section import spawners_of
from model.formats.scene_file import load_scene, save_scene

ROOT = Path(__file__).resolve().parents[2]
TRIES = 30
# Two spawners far apart: each one's result is the same whether the other ran before it or not.
RECIPE = """
[[spawners]]
name = "west"
seed = 3
area = { polygon = [[-400, -150], [-100, -150], [-100, 150], [-400, 150]] }
[[spawners.species]]
type = "bush"
density = 1.0
[[spawners]]
name = "east"
seed = 4
area = { polygon = [[100, -150], [400, -150], [400, 150], [100, 150]] }
[[spawners.species]]
type = "bush"
density = 1.0
"""
REFUSAL = "is being written by pid "


def boscage(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def copy_scene(source: Path, folder: Path) -> Path:
    folder.mkdir()
    for item in source.parent.iterdir():
        if item.is_file():
            shutil.copy2(item, folder / item.name)
    return folder / source.name


def owned(scene_path: Path, name: str) -> dict[str, np.ndarray]:
    return spawners_of(load_scene(scene_path)).owned.get(name, {})


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """The demo scene with both spawners in its manifest, neither run yet."""
    folder = tmp_path_factory.mktemp("base")
    scene = folder / "demo.boscage"
    assert finish(boscage("scene", "new-demo", str(scene)))[0] == 0
    loaded = load_scene(scene)
    spawners_of(loaded).spawners = spawners_from_toml(tomllib.loads(RECIPE)["spawners"], None, "spawners")
    save_scene(loaded, scene)
    assert len(spawners_of(load_scene(scene)).spawners) == 2
    return scene


@pytest.fixture(scope="module")
def alone(base, tmp_path_factory) -> dict[str, dict[str, np.ndarray]]:
    """What each spawner owns when it runs by itself: the work a concurrent run must keep whole."""
    out = {}
    for name in ("west", "east"):
        scene = copy_scene(base, tmp_path_factory.mktemp("alone") / name)
        code, err = finish(boscage("spawn", str(scene), "--name", name, "--save"))
        assert code == 0, err
        out[name] = owned(scene, name)
        assert sum(len(k) for k in out[name].values()) > 100
    return out


def test_two_concurrent_spawns_never_lose_work(base, alone, tmp_path) -> None:
    contended = 0
    for attempt in range(TRIES):
        scene = copy_scene(base, tmp_path / f"try{attempt}")
        wait = ["--wait"] if attempt % 2 else []
        procs = {name: boscage("spawn", str(scene), "--name", name, "--save", *wait)
                 for name in ("west", "east")}
        results = {name: finish(proc) for name, proc in procs.items()}
        final = load_scene(scene)  # the scene always opens
        assert foliage_of(final).volume.counts()["bush"] > 0
        for name, (code, err) in results.items():
            other_pid = procs["east" if name == "west" else "west"].pid
            if code == 0:
                mine = spawners_of(final).owned.get(name, {})
                assert mine.keys() == alone[name].keys(), (attempt, name, err)
                for type_name, keys in alone[name].items():
                    assert np.array_equal(mine[type_name], keys), (attempt, name)
                contended += "waiting for pid" in err
            else:
                assert not wait, (attempt, name, err)  # a waiting writer is never refused
                assert code == 1, err
                line = err.strip()
                assert "\n" not in line and "Traceback" not in line
                assert f"{REFUSAL}{other_pid} " in line and "--save" in line and "--wait" in line
                assert name not in spawners_of(final).owned  # refused before it changed anything
                contended += 1
        assert any(code == 0 for code, _ in results.values()), attempt
        if wait:
            assert all(code == 0 for code, _ in results.values()), (attempt, results)
    assert contended > 0  # the two runs did meet, so the lock was what kept the work whole


def test_wait_without_save_is_a_usage_error(base) -> None:
    code, err = finish(boscage("spawn", str(base), "--wait"))
    assert code == 2 and "--wait goes with --save" in err


def test_the_editor_saving_under_a_cli_lock_is_refused_with_a_message(main_window, base, tmp_path,
                                                                     monkeypatch) -> None:
    from app import main_window as mw_module

    scene = copy_scene(base, tmp_path / "edited")
    assert main_window.open_file(scene)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom model.scene_lock import scene_lock\n"
         "with scene_lock(sys.argv[1], command='boscage spawn demo.boscage --save'):\n"
         "    print('locked', flush=True)\n    sys.stdin.read()\n", str(scene)],
        cwd=ROOT, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    shown = []
    monkeypatch.setattr(mw_module.QMessageBox, "critical",
                        lambda parent, title, text, *a, **k: shown.append((title, text)))
    try:
        assert holder.stdout.readline().strip() == "locked"
        before = scene.read_bytes()
        assert main_window.save() is False
        assert scene.read_bytes() == before
    finally:
        holder.communicate("")
    assert len(shown) == 1
    title, text = shown[0]
    assert title == "Could not save scene"
    assert text.startswith(f"{scene} {REFUSAL}{holder.pid} (boscage spawn demo.boscage --save)")
    assert "--wait" not in text  # the editor has no such option to offer
    assert main_window.save() is True  # the holder is gone: the save goes through
