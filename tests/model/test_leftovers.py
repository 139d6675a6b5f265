"""What a killed or refused writer leaves: temp files and folders beside their target under one
pattern (the writer's pid in the name), removed by the next writer in that folder once their
process is gone; a folder written whole or not at all; refusals that name the target."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from model import atomic
from model.atomic import atomic_folder, atomic_write, sweep_leftovers, temp_target, write_error
from model.errors import WriteError
from model.formats.scene_writer import SceneWriter
from model.formats.tiles import tile_path


def dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temp_names_carry_the_writer_and_keep_the_target(tmp_path, monkeypatch):
    seen = []
    real = tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, name = real(*args, **kwargs)
        seen.append(Path(name))
        return fd, name

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    atomic_write(tmp_path / "scene.boscage", b"x")
    atomic.atomic_write_path(tmp_path / "out.usdc", lambda p: p.write_bytes(b"usd"), ".usdc")
    assert [p.parent for p in seen] == [tmp_path, tmp_path]
    assert seen[0].name.startswith(f".scene.boscage.~{os.getpid()}.") and seen[0].name.endswith(".tmp")
    assert seen[1].name.endswith(".tmp.usdc")  # the library still sees its suffix
    assert [temp_target(p.name) for p in seen] == ["scene.boscage", "out.usdc"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.usdc", "scene.boscage"]


def test_the_next_writer_removes_leftovers_of_gone_processes_only(tmp_path):
    gone, alive = dead_pid(), os.getppid()
    leftovers = [tmp_path / f".a.bin.~{gone}.abcdefgh.tmp", tmp_path / f".b.usdc.~{gone}.x1y2z3w4.tmp.usdc"]
    for p in leftovers:
        p.write_bytes(b"partial")
    folder = tmp_path / f".bake.~{gone}.k2j3h4g5.tmpdir"
    folder.mkdir()
    (folder / "heights.png").write_bytes(b"half")
    live = tmp_path / f".c.bin.~{alive}.abcdefgh.tmp"  # a writer still at work
    live.write_bytes(b"busy")
    old = tmp_path / ".d.bin.qwertyui.tmp"  # an earlier build's name, no pid: by age, beside its file
    old.write_bytes(b"old")
    (tmp_path / "d.bin").write_bytes(b"d")
    young = tmp_path / ".e.bin.asdfghjk.tmp"
    young.write_bytes(b"young")
    (tmp_path / "e.bin").write_bytes(b"e")
    lone = tmp_path / ".notes.mydraft1.tmp"  # the same shape, but no file it was for: someone else's
    lone.write_bytes(b"draft")
    past = time.time() - 2 * atomic.OLD_TEMP_AGE_S
    for p in (old, lone):
        os.utime(p, (past, past))
    mine = tmp_path / ".keep.tmp"  # not our pattern: never touched
    mine.write_bytes(b"user's")
    atomic_write(tmp_path / "new.bin", b"new")  # any writer's first write into the folder sweeps it
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [live.name, young.name, mine.name, lone.name, "d.bin", "e.bin", "new.bin"])
    assert sweep_leftovers(tmp_path) == []  # once per process and folder


def test_a_folder_is_written_whole_or_not_at_all(tmp_path):
    out = tmp_path / "bake"

    def fill(folder: Path) -> None:
        atomic_write(folder / "a.png", b"a")
        atomic_write(folder / "b.npy", b"b")

    atomic_folder(out, fill)
    assert sorted(p.name for p in out.iterdir()) == ["a.png", "b.npy"]
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~mask  # a folder like any other, not mkdtemp's 0700
    (out / "notes.txt").write_text("the user's")

    def fails(folder: Path) -> None:
        atomic_write(folder / "a.png", b"A2")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(WriteError) as caught:
        atomic_folder(out, fails)
    assert str(caught.value) == f"no space left on device while writing {out}"
    assert (out / "a.png").read_bytes() == b"a" and (out / "notes.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bake"]  # no temp folder stays
    atomic_folder(out, lambda folder: atomic_write(folder / "a.png", b"A3"))
    assert (out / "a.png").read_bytes() == b"A3" and (out / "b.npy").read_bytes() == b"b"
    assert (out / "notes.txt").read_text() == "the user's"
    with pytest.raises(WriteError, match="a file has that name"):
        atomic_folder(out / "a.png", fill)
    assert (out / "a.png").read_bytes() == b"A3"


def test_a_short_write_is_a_full_disk_naming_the_target(tmp_path):
    error = OSError("789507 requested and 250848 written")
    target = tmp_path / "bake"
    assert str(write_error(target, error)) == f"no space left on device while writing {target}"


def test_an_import_killed_before_its_manifest_leaves_nothing_the_next_keeps(tmp_path):
    manifest = tmp_path / "island.boscage"
    orphans = [tile_path(manifest, "heights", 0, 0, 0x12345678),
               tile_path(manifest, "heights", 3, 1, 0xABCDEF01)]
    for p in orphans:
        p.write_bytes(b"tile of a killed import")
    other = tmp_path / "other.heights_0_0.12345678.bin"  # another scene's: not ours to touch
    other.write_bytes(b"x")
    with SceneWriter(manifest, 3, 3) as writer:
        assert not any(p.exists() for p in orphans)
        writer.put_heights(0, 0, np.zeros((3, 3), np.float32))
        writer.finish("island")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert other.name in names and manifest.name in names
    assert not [n for n in names if n.startswith(".") and not n.endswith(".lock")]


def test_an_import_over_an_existing_scene_keeps_it_until_its_manifest(tmp_path):
    manifest = tmp_path / "island.boscage"
    with SceneWriter(manifest, 3, 3) as writer:
        writer.put_heights(0, 0, np.ones((3, 3), np.float32))
        writer.finish("island")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.startswith(".")}
    with pytest.raises(RuntimeError), SceneWriter(manifest, 3, 3) as writer:
        writer.put_heights(0, 0, np.full((3, 3), 2.0, np.float32))
        raise RuntimeError("stopped")
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.startswith(".")}
    assert after == before


def test_a_usd_export_works_beside_its_target_not_in_tmp(tmp_path, monkeypatch):
    pytest.importorskip("pxr")
    from model.interchange import export_scene
    from tests.model.interchange.conftest import small_scene

    made = []
    real = tempfile.mkdtemp

    def spy(*args, **kwargs):
        made.append(Path(real(*args, **kwargs)))
        return str(made[-1])

    monkeypatch.setattr(tempfile, "mkdtemp", spy)
    target = tmp_path / "out" / "scene.usdz"  # a package: the crate layer is staged in the folder
    export_scene(small_scene(), target)
    assert made and all(p.parent == target.parent for p in made), made
    assert made[0].name.startswith(f".scene.usdz.~{os.getpid()}.") and made[0].name.endswith(".tmpdir")
    assert sorted(p.name for p in target.parent.iterdir()) == ["scene.usdz"]  # nothing left
