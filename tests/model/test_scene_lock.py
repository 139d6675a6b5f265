"""One writer at a time: a scene's lock refuses a second writer with its holder's name, waits when
asked, nests within one process, and is taken over from a process that was killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from model.formats.scene_file import load_scene, save_scene
from model.scene_lock import SceneLocked, holds_lock, lock_path, read_holder, scene_lock
from tests.conftest import make_small_scene

ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys
from model.scene_lock import scene_lock
with scene_lock(sys.argv[1], command="holder under test"):
    print("locked", flush=True)
    sys.stdin.read()
"""


def hold(manifest: Path) -> subprocess.Popen:
    """Another process holding the scene's lock until its stdin closes (or it is killed)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(manifest)], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def scene_path(tmp_path: Path) -> Path:
    path = tmp_path / "s.boscage"
    save_scene(make_small_scene(9, 11), path)
    return path


def test_a_second_writer_is_refused_naming_the_holder(scene_path: Path) -> None:
    before = scene_path.read_bytes()
    proc = hold(scene_path)
    try:
        scene = make_small_scene(9, 13)
        with pytest.raises(SceneLocked) as refused:
            save_scene(scene, scene_path)
        text = str(refused.value)
        assert text.startswith(f"{scene_path} is being written by pid {proc.pid}")
        assert "(holder under test)" in text and "\n" not in text
        assert refused.value.holder.pid == proc.pid
        assert scene_path.read_bytes() == before  # nothing was written
        assert load_scene(scene_path).terrain.columns == 11
    finally:
        proc.communicate("")
    assert proc.returncode == 0
    assert not lock_path(scene_path).exists()  # a clean release leaves no file behind
    save_scene(make_small_scene(9, 13), scene_path)
    assert load_scene(scene_path).terrain.columns == 13


def test_a_lock_left_by_a_killed_process_is_taken_over(scene_path: Path) -> None:
    proc = hold(scene_path)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert lock_path(scene_path).exists()  # the file stays, the OS lock went with the process
    assert read_holder(scene_path).pid == proc.pid
    save_scene(make_small_scene(9, 13), scene_path)
    assert load_scene(scene_path).terrain.columns == 13
    assert not lock_path(scene_path).exists()


def test_a_waiting_writer_goes_on_once_the_holder_finishes(scene_path: Path) -> None:
    proc = hold(scene_path)
    heard = []
    release = threading.Timer(0.5, lambda: proc.stdin.close())
    release.start()
    try:
        start = time.monotonic()
        with scene_lock(scene_path, wait=True, on_wait=heard.append):
            waited = time.monotonic() - start
            save_scene(make_small_scene(9, 13), scene_path)
    finally:
        release.join()
        proc.wait()
    assert len(heard) == 1 and heard[0].pid == proc.pid  # told once, with the holder
    assert waited > 0.3
    assert load_scene(scene_path).terrain.columns == 13


def test_the_lock_nests_within_one_process(scene_path: Path) -> None:
    with scene_lock(scene_path) as outer:
        assert holds_lock(scene_path)
        save_scene(make_small_scene(9, 13), scene_path)  # takes it again: no refusal
        assert holds_lock(scene_path) and outer.fd is not None
        assert read_holder(scene_path).pid == os.getpid()
    assert not holds_lock(scene_path) and not lock_path(scene_path).exists()

