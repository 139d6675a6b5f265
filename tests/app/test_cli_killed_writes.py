"""An export and a heightmap import killed (SIGKILL) at random moments: what was there before is whole
every time (the earlier export byte for byte, or no scene at all), a later run gives the bytes of a
run nobody interrupted, and nothing the killed run left (temp files and folders, tiles of a scene
that never got its manifest, its lock) survives that later run. 10 tries each; 50 with --runslow."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from model.formats.scene_file import load_scene

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.fixture
def tries(request) -> int:
    return 50 if request.config.getoption("--runslow") else 10


def boscage(*args: str) -> float:
    """Run to the end; the seconds it took."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=ENV)
    assert done.returncode == 0, done.stderr
    return time.monotonic() - start


def killed(args: list[str], after: float) -> int:
    proc = subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=ENV)
    time.sleep(after)
    os.kill(proc.pid, signal.SIGKILL)
    return proc.wait()


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file and folder, hidden ones included (a folder as the files it holds)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"<folder>")
            for p in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    boscage("scene", "new-demo", str(folder / "demo.boscage"))
    # the earlier export, which a killed one must leave whole
    boscage("export", str(folder / "demo.boscage"), str(folder / "out.usdc"), "--no-terrain")
    return folder


def test_an_export_killed_at_random_moments(demo, tmp_path, tries):
    clean = tmp_path / "clean"
    shutil.copytree(demo, clean)
    earlier = (demo / "out.usdc").read_bytes()
    args = ["export", "{folder}/demo.boscage", "{folder}/out.usdc", "--terrain-step", "2"]
    took = boscage(*(a.format(folder=clean) for a in args))
    expected = files_of(clean)
    assert (clean / "out.usdc").read_bytes() != earlier
    rng = random.Random(20261206)
    codes = []
    for attempt in range(tries):
        folder = tmp_path / f"try{attempt}"
        shutil.copytree(demo, folder)
        codes.append(killed([a.format(folder=folder) for a in args], rng.uniform(0.2, 1.1) * took))
        out = (folder / "out.usdc").read_bytes()
        assert out in (earlier, expected["out.usdc"]), attempt  # the earlier file whole, or the new one
        boscage(*(a.format(folder=folder) for a in args))
        assert files_of(folder) == expected, attempt  # the same bytes, no temp file or folder left
    assert any(code == -signal.SIGKILL for code in codes)


def test_a_heightmap_import_to_a_new_name_killed_at_random_moments(tmp_path, tries):
    source = tmp_path / "source"
    source.mkdir()
    j, i = np.mgrid[0:1025, 0:1025]
    np.save(source / "big.npy", (np.sin(i / 50.0) * np.cos(j / 70.0) * 40).astype(np.float32))
    (source / "notes.txt").write_text("another file in the folder")
    clean = tmp_path / "clean"
    shutil.copytree(source, clean)
    args = ["heightmap", "import", "{folder}/big.npy", "{folder}/big.boscage"]
    took = boscage(*(a.format(folder=clean) for a in args))
    expected = files_of(clean)
    rng = random.Random(20261207)
    codes, whole = [], 0
    for attempt in range(tries):
        folder = tmp_path / f"try{attempt}"
        shutil.copytree(source, folder)
        codes.append(killed([a.format(folder=folder) for a in args], rng.uniform(0.2, 1.1) * took))
        if (folder / "big.boscage").exists():
            load_scene(folder / "big.boscage")  # a manifest is only ever in place over every tile
            whole += 1
        boscage(*(a.format(folder=folder) for a in args))
        assert files_of(folder) == expected, attempt  # no orphan tile, temp file or lock left
    assert any(code == -signal.SIGKILL for code in codes)
