"""Atomic writes: all or nothing, and files readable like any other the user makes."""

from __future__ import annotations

import os
import stat

import pytest

from model.atomic import atomic_write


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
