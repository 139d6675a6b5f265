"""Every writer on a full disk or into a read-only folder: one sentence naming the target, exit 1,
no partial file under the final name, an earlier file intact, no temp file left.

Tests run as root, where chmod stops no write: the refusals come from the OS calls themselves,
patched to fail for paths in the output folder (creating a file or folder: read-only; fsync or
pwrite: full disk)."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from app.cli import run_cli
from tests.app.test_cli_spawn import RECIPE
from tests.app.test_cli_trn import _hill_file


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    assert run_cli(["scene", "new-demo", str(folder / "demo.boscage")]) == 0
    return folder / "demo.boscage"


def _refuse(monkeypatch, folder: Path, how: str) -> None:
    """Make the OS refuse writes into `folder`: 'read-only' (EROFS on create), 'denied' (EACCES on
    create) or 'full' (ENOSPC when data is flushed to disk or written at an offset)."""
    folder = os.path.realpath(folder)

    def inside(path) -> bool:
        try:
            return os.path.realpath(os.fsdecode(path)).startswith(folder + os.sep)
        except TypeError:  # a descriptor
            return False

    code = {"read-only": errno.EROFS, "denied": errno.EACCES, "full": errno.ENOSPC}[how]
    if how == "full":
        real_fsync, real_pwrite = os.fsync, os.pwrite

        def fsync(fd):
            if os.path.realpath(f"/proc/self/fd/{fd}").startswith(folder + os.sep):
                raise OSError(code, os.strerror(code))
            return real_fsync(fd)

        def pwrite(fd, data, offset):
            if os.path.realpath(f"/proc/self/fd/{fd}").startswith(folder + os.sep):
                return real_pwrite(fd, data[: len(data) // 3], offset)  # the disk took a third
            return real_pwrite(fd, data, offset)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "pwrite", pwrite)
        return
    real_open, real_mkdir = os.open, os.mkdir

    def open_(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and inside(path):
            raise OSError(code, os.strerror(code), os.fsdecode(path))
        return real_open(path, flags, *args, **kwargs)

    def mkdir(path, *args, **kwargs):
        if inside(path):
            raise OSError(code, os.strerror(code), os.fsdecode(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "mkdir", mkdir)


def _commands(demo: Path, src: Path, out: Path) -> dict[str, tuple[list[str], Path]]:
    """Each writer's command line and its target, writing into `out`."""
    recipe = src / "forest.toml"
    recipe.write_text(RECIPE)
    heights = src / "hill.npy"
    np.save(heights, np.linspace(0, 30, 33 * 33, dtype=np.float32).reshape(33, 33))
    trn = _hill_file(src)
    scene = out / "demo.boscage"
    return {
        "spawn --save": (["spawn", str(scene), "--recipe", str(recipe), "--save"], scene),
        "export glTF": (["export", str(demo), str(out / "forest.glb"), "--terrain-step", "8"],
                        out / "forest.glb"),
        "export USD": (["export", str(demo), str(out / "forest.usda"), "--terrain-step", "8"],
                       out / "forest.usda"),
        "export CSV": (["export", str(demo), str(out / "forest.csv")], out / "forest.csv"),
        "heightmap export": (["heightmap", "export", str(demo), str(out / "h.png")], out / "h.png"),
        "heightmap import": (["heightmap", "import", str(heights), str(out / "hill.boscage")],
                             out / "hill.boscage"),
        "trn bake": (["trn", "bake", str(trn), "--region", "-8,-8,8,8", "--spacing", "4", "--out",
                      str(out / "bake")], out / "bake"),
        "trn to-scene": (["trn", "to-scene", str(trn), "--region", "-64,-64,64,64", "--spacing", "2",
                          "--out", str(out / "hill.boscage")], out / "hill.boscage"),
    }


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.endswith(".lock")}


WRITERS = ["spawn --save", "export glTF", "export USD", "export CSV", "heightmap export", "heightmap import",
           "trn bake", "trn to-scene"]


@pytest.mark.parametrize("how", ["read-only", "denied", "full"])
@pytest.mark.parametrize("writer", WRITERS)
def test_a_refused_write_is_one_sentence_naming_the_target(demo, tmp_path, monkeypatch, capsys, writer, how):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    shutil.copytree(demo.parent, out)
    argv, target = _commands(demo, src, out)[writer]
    if writer == "trn bake":  # an earlier bake that must stay whole
        assert run_cli(argv) == 0
    elif not target.exists():
        target.write_bytes(b"an earlier file")
    before = _files(out)
    capsys.readouterr()
    _refuse(monkeypatch, out, how)
    code = run_cli(argv)
    monkeypatch.undo()
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 1, err
    assert len(lines) == 1 and lines[0].startswith("boscage: error: "), err
    assert str(target) in lines[0] and "Traceback" not in err
    words = {"read-only": "read-only", "denied": "read-only", "full": "no space left on device"}[how]
    assert words in lines[0], err
    assert ".tmp" not in lines[0] and "~" not in lines[0]  # the target, never a temp file
    assert _files(out) == before  # nothing partial, the earlier file intact, no temp file left
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".") and not p.name.endswith(".lock")]
    assert leftovers == [], leftovers
