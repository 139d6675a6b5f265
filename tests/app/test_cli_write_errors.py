"""Every command that writes, on a full disk and into a read-only folder: one sentence naming the
file, exit 1, no traceback, the previous files byte for byte as they were and no temp file left.

Tests run as root, where chmod does not make a folder read-only, so the disk is simulated at the
one place every write goes through (`model.atomic`): a file object that takes only so many bytes
before the OS's ENOSPC, and a folder whose `mkstemp`/`mkdir` answer EROFS, as the OS would.
"""

from __future__ import annotations

import errno
import json
import os
import re
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest

from app.cli import run_cli
from model import atomic
from model.foliage import FoliageType, foliage_of
from model.formats.scene_file import save_scene
from model.scene import Scene
from model.terrain import Terrain


class _FullFile:
    """A file on a disk with `disk.free` bytes left: a write past that fails with ENOSPC."""

    def __init__(self, f, disk) -> None:
        self._f, self._disk = f, disk

    def write(self, data) -> int:
        n = memoryview(data).nbytes
        if n > self._disk.free:
            self._f.write(bytes(memoryview(data).cast("B")[:self._disk.free]))
            self._disk.free = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._disk.free -= n
        return self._f.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._f.close()

    def __getattr__(self, name):
        return getattr(self._f, name)


def _full_disk(monkeypatch, free: int) -> None:
    disk = types.SimpleNamespace(free=free)
    proxy = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
    proxy.fdopen = lambda fd, mode="r", *a, **kw: _FullFile(os.fdopen(fd, mode, *a, **kw), disk)
    monkeypatch.setattr(atomic, "os", proxy)


def _read_only(monkeypatch, root: Path) -> None:
    """Every folder under `root` refuses new entries, as on a read-only mount."""
    def refused(path) -> bool:
        return Path(path).resolve().is_relative_to(root.resolve())

    real_mkstemp, real_mkdir = tempfile.mkstemp, Path.mkdir

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and refused(dir):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_mkstemp(*args, dir=dir, **kwargs)

    def mkdir(self, mode=0o777, parents=False, exist_ok=False):
        if refused(self) and not self.is_dir():
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real_mkdir(self, mode, parents, exist_ok)

    monkeypatch.setattr(atomic.tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(Path, "mkdir", mkdir)


def _small_scene(path: Path) -> Path:
    xs = np.arange(33, dtype=np.float64)
    heights = np.add.outer(xs, xs).astype(np.float32) * 0.1
    terrain = Terrain(heights, 1.0, (0.0, 0.0))
    terrain.add_layer("grass", (0, 200, 0), np.full(heights.shape, 255, np.uint8))
    scene = Scene(terrain, "Small")
    foliage_of(scene).palette.add(FoliageType("oak", density=4.0, spacing=1.0))
    save_scene(scene, path)
    return path


def _trn(path: Path) -> Path:
    from model.trn import build
    from tests.model.trn.builders import kitchen_sink

    path.write_bytes(build.to_bytes(kitchen_sink("0015")))
    return path


def _hill(path: Path) -> Path:
    from model.trn import build
    from tests.model.trn.helpers import circle, doc_of, height_const

    doc = doc_of([build.layer("hill", [circle(0, 0, 50, 3, 0.5), height_const(40)])])
    path.write_bytes(doc.to_bytes())
    return path


def _zone(folder: Path) -> Path:
    from model.zones import write_zone
    from model.zones.sample import sample_zone

    write_zone(sample_zone(106, 32, seed=2), folder, gz=True)
    return folder


def _command(name: str, tmp_path: Path) -> tuple[list[str], Path]:
    """(argv, the folder it writes into); the inputs live outside that folder."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    if name == "scene new-demo":
        return ["scene", "new-demo", str(out / "demo.boscage")], out
    if name == "scatter --save":
        scene = _small_scene(out / "s.boscage")
        return ["scatter", str(scene), "--type", "oak", "--at", "16,16", "--radius", "6", "--save"], out
    if name == "trn roundtrip":
        return ["trn", "roundtrip", str(_trn(inputs / "k.trn")), str(out / "k.trn")], out
    if name == "heightmap export":
        return ["heightmap", "export", str(_small_scene(inputs / "s.boscage")), str(out / "h.png")], out
    if name == "trn bake":
        return ["trn", "bake", str(_hill(inputs / "h.trn")), "--region", "-8,-8,8,8", "--spacing", "4",
                "--out", str(out / "bake")], out
    if name == "zone to-scene":
        return ["zone", "to-scene", str(_zone(inputs / "zone")), "--id", "106", "--tile", "2",
                "--out", str(out / "zone.boscage")], out
    raise AssertionError(name)


COMMANDS = ["scene new-demo", "scatter --save", "trn roundtrip", "heightmap export", "trn bake",
            "zone to-scene"]


def _writes_new_bytes(name: str, argv: list[str]) -> None:
    """The second run made to write other bytes than the first (a scene writer leaves a file that
    already holds the bytes it would write as it is, so an identical run writes nothing)."""
    if name == "scatter --save":  # the next stamp places more
        argv[argv.index("--at") + 1] = "20,12"
    if name == "zone to-scene":  # other tiles: another spacing in the manifest
        argv[argv.index("--tile") + 1] = "3"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _demo_is_small(monkeypatch) -> None:
    """`scene new-demo` at a 65-sample size: the same code path, a fraction of the time."""
    from model import demo

    real = demo.build_demo_scene
    monkeypatch.setattr(demo, "build_demo_scene", lambda **kw: real(size=65, spacing=16.0, **kw))


@pytest.mark.parametrize("share", [0.0, 0.5], ids=["no-space", "space-for-half"])
@pytest.mark.parametrize("name", COMMANDS)
def test_a_full_disk_is_one_sentence_and_the_previous_files_stay_whole(
        tmp_path: Path, monkeypatch, capsys, name: str, share: float) -> None:
    _demo_is_small(monkeypatch)
    argv, out = _command(name, tmp_path)
    assert run_cli(argv) == 0, capsys.readouterr().err  # the previous version of every file
    _writes_new_bytes(name, argv)
    capsys.readouterr()
    before = _files(out)
    # space for none, or for half of what the command writes: it fails part-way through a file
    # (a save writes only the files whose bytes changed: half of the smallest file is sure to fail)
    _full_disk(monkeypatch, int(share * min(len(b) for b in before.values())))
    code = run_cli(argv + ["--json"])
    monkeypatch.undo()
    captured = capsys.readouterr()
    assert code == 1
    err = captured.err.splitlines()
    assert len(err) == 1 and "Traceback" not in captured.err
    assert re.fullmatch(rf"boscage: error: no space left on device while writing {re.escape(str(out))}/\S+",
                        err[0]), err
    assert json.loads(captured.out, parse_constant=_no_constant)["error"] == err[0].removeprefix(
        "boscage: error: ")
    assert _files(out) == before  # nothing torn, nothing half-written, no temp file left


@pytest.mark.parametrize("name", COMMANDS)
def test_a_read_only_folder_is_one_sentence_and_the_previous_files_stay_whole(
        tmp_path: Path, monkeypatch, capsys, name: str) -> None:
    _demo_is_small(monkeypatch)
    argv, out = _command(name, tmp_path)
    assert run_cli(argv) == 0, capsys.readouterr().err
    _writes_new_bytes(name, argv)
    capsys.readouterr()
    before = _files(out)
    _read_only(monkeypatch, out)
    code = run_cli(argv)
    monkeypatch.undo()
    captured = capsys.readouterr()
    assert code == 1 and "Traceback" not in captured.err
    err = captured.err.splitlines()
    assert len(err) == 1
    assert re.fullmatch(rf"boscage: error: {re.escape(str(out))}/\S+: folder is read-only", err[0]), err
    assert _files(out) == before


def test_a_read_only_parent_refuses_a_new_bake_folder(tmp_path: Path, monkeypatch, capsys) -> None:
    hill = _hill(tmp_path / "h.trn")
    (tmp_path / "ro").mkdir()  # the mount point exists; nothing new may be made inside it
    _read_only(monkeypatch, tmp_path / "ro")
    code = run_cli(["trn", "bake", str(hill), "--region", "-8,-8,8,8", "--spacing", "4",
                    "--out", str(tmp_path / "ro" / "bake")])
    monkeypatch.undo()
    assert code == 1
    assert capsys.readouterr().err == f"boscage: error: {tmp_path / 'ro' / 'bake'}: folder is read-only\n"
    assert list((tmp_path / "ro").iterdir()) == []


def _no_constant(name: str):
    raise ValueError(f"not JSON (RFC 8259): {name}")
