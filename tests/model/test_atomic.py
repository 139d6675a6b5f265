"""Atomic writes: all or nothing, and files readable like any other the user makes."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from model import atomic
from model.atomic import atomic_write, make_folder, remove_stale_temps, temp_target
from model.errors import WriteError


def test_new_file_gets_the_umask_mode_not_mkstemp_0600(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "a.bin", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.bin").stat().st_mode) == 0o644


def test_rewrite_keeps_the_existing_mode(tmp_path) -> None:
    target = tmp_path / "b.bin"
    target.write_bytes(b"old")
    target.chmod(0o640)
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_failing_writer_leaves_the_old_file_and_no_temporary(tmp_path) -> None:
    target = tmp_path / "c.bin"
    target.write_bytes(b"old")

    def broken(f) -> None:
        f.write(b"partial")
        raise OSError("disk full")

    with pytest.raises(OSError):
        atomic_write(target, broken)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.bin"]


# ---- a disk that refuses the write ---------------------------------------------------------
# Tests run as root, where chmod does not make a folder read-only; the OS call that fails on a
# full or read-only disk is made to fail the same way (same errno) instead.

def _refusing(monkeypatch, name: str, code: int, module=os) -> None:
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(module, name, refuse)


@pytest.mark.parametrize("call", ["write", "fsync", "replace", "mkstemp"])
def test_a_full_disk_is_one_sentence_and_the_old_file_stays_whole(tmp_path, monkeypatch, call) -> None:
    import tempfile

    target = tmp_path / "d.bin"
    target.write_bytes(b"old")
    if call == "write":
        def data(f) -> None:
            f.write(b"par")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    else:
        data = b"new"
        _refusing(monkeypatch, call, errno.ENOSPC, tempfile if call == "mkstemp" else atomic.os)
    with pytest.raises(WriteError) as caught:
        atomic_write(target, data)
    monkeypatch.undo()
    assert str(caught.value) == f"no space left on device while writing {target}"
    assert isinstance(caught.value, OSError) and caught.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.bin"]


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_a_read_only_folder_is_one_sentence(tmp_path, monkeypatch, code) -> None:
    import tempfile

    target = tmp_path / "r.bin"
    target.write_bytes(b"old")
    _refusing(monkeypatch, "mkstemp", code, tempfile)
    with pytest.raises(WriteError) as caught:
        atomic_write(target, b"new")
    monkeypatch.undo()
    assert str(caught.value) == f"{target}: folder is read-only"
    assert target.read_bytes() == b"old"


def test_a_folder_that_cannot_be_made_is_one_sentence(tmp_path, monkeypatch) -> None:
    from pathlib import Path

    _refusing(monkeypatch, "mkdir", errno.EROFS, Path)
    with pytest.raises(WriteError, match="folder is read-only"):
        atomic_write(tmp_path / "new" / "x.bin", b"x")
    with pytest.raises(WriteError) as caught:
        make_folder(tmp_path / "new")
    assert str(caught.value) == f"{tmp_path / 'new'}: folder is read-only"
    monkeypatch.undo()
    assert not (tmp_path / "new").exists()


def test_any_other_refusal_names_the_file_and_the_os_reason(tmp_path) -> None:
    (tmp_path / "a-folder").mkdir()
    with pytest.raises(WriteError) as caught:
        atomic_write(tmp_path / "a-folder", b"x")  # a folder where the file should go
    assert str(caught.value).startswith(f"{tmp_path / 'a-folder'}: cannot write: ")
    assert [p.name for p in tmp_path.iterdir()] == ["a-folder"]


def test_stale_temps_are_recognised_by_our_own_pattern_only(tmp_path) -> None:
    import tempfile

    fd, name = tempfile.mkstemp(prefix=".x.bin.", suffix=".tmp", dir=tmp_path)
    os.close(fd)
    assert temp_target(os.path.basename(name)) == "x.bin"
    for other in (".x.bin.tmp", "x.bin.abcdefgh.tmp", ".x.bin.ABCDEFGH.tmp", ".x.bin.abcdefg.tmp"):
        assert temp_target(other) is None
    (tmp_path / ".y.bin.abcdefgh.tmp").write_bytes(b"")
    removed = remove_stale_temps(tmp_path, lambda n: n == "x.bin")
    assert [p.name for p in removed] == [os.path.basename(name)]
    assert [p.name for p in tmp_path.iterdir()] == [".y.bin.abcdefgh.tmp"]


def test_a_file_where_the_folder_should_be_names_the_file_being_written(tmp_path) -> None:
    (tmp_path / "a-file").write_bytes(b"x")
    target = tmp_path / "a-file" / "sub" / "out.bin"
    with pytest.raises(WriteError) as caught:
        atomic_write(target, b"new")
    assert str(caught.value) == f"{target}: cannot write: {tmp_path / 'a-file'} is a file, not a folder"
    assert (tmp_path / "a-file").read_bytes() == b"x"


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "no space left on device while writing"),
                                         (errno.EROFS, "folder is read-only")])
def test_a_writer_by_path_reports_a_refused_write_as_one_sentence(tmp_path, code, words) -> None:
    target = tmp_path / "forest.usdc"
    target.write_bytes(b"old")

    def refused(temp_path) -> None:  # as a library writing by name meets a full or read-only disk
        temp_path.write_bytes(b"half")
        raise OSError(code, os.strerror(code), str(temp_path))

    with pytest.raises(WriteError) as e:
        atomic.atomic_write_path(target, refused, ".usdc")
    assert str(target) in str(e.value) and words in str(e.value) and ".tmp" not in str(e.value)
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["forest.usdc"]
