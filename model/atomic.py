"""Every write goes through here: temp file, flush, fsync, replace.

A write the disk refuses is one `WriteError` naming the file ("no space left on device while
writing FILE", "FILE: folder is read-only"), and the previous file stays whole.
"""

from __future__ import annotations

import errno
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from model.errors import WriteError

_NO_SPACE = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}
# mkstemp's names: prefix, 8 characters from its alphabet, suffix (see `temp_target`).
_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")


def write_error(path: str | Path, error: OSError) -> WriteError:
    """The one sentence for an OS error while writing `path`."""
    if isinstance(error, WriteError):
        return error
    code = error.errno
    if code in _NO_SPACE:
        return WriteError(path, "no space left on device", code,
                          f"no space left on device while writing {path}")
    if code in _READ_ONLY:
        return WriteError(path, "folder is read-only", code)
    return WriteError(path, f"cannot write: {error.strerror or error}", code)


def make_folder(folder: str | Path, for_file: str | Path | None = None) -> None:
    """`mkdir -p`, with a refused folder reported like a refused write (of `for_file` if given)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # a file stands where a folder must be
        blocking = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), folder)
        raise WriteError(for_file or folder, f"cannot write: {blocking} is a file, not a folder",
                         errno.ENOTDIR) from None
    except OSError as e:
        raise write_error(for_file or folder, e) from None


def atomic_write(path: str | Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write `data` (bytes, or a callable given the open file) so `path` is old or new, never torn."""
    path = Path(path)
    make_folder(path.parent, path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise write_error(path, e) from None
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), _mode_for(path))  # mkstemp makes 0600; keep the file's or the umask's mode
            if callable(data):
                data(f)
            else:
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise write_error(path, e) from None
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write(path, text.encode("utf-8"))


def temp_target(name: str) -> str | None:
    """The file name an `atomic_write` temp file called `name` was for; None for any other name."""
    found = _TEMP_NAME.fullmatch(name)
    return found.group("name") if found else None


def remove_stale_temps(folder: str | Path, is_ours: Callable[[str], bool]) -> list[Path]:
    """Delete the temp files an interrupted `atomic_write` left in `folder` for the file names
    `is_ours` accepts; returns those removed. Files of any other name are never touched."""
    removed: list[Path] = []
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for entry in entries:
        target = temp_target(entry.name)
        if target is None or not is_ours(target):
            continue
        try:
            if entry.is_file() and not entry.is_symlink():
                entry.unlink()
                removed.append(entry)
        except OSError:  # a leftover temp file is harmless; the next save tries again
            pass
    return removed


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_path(path: str | Path, write: Callable[[Path], None], suffix: str = ".tmp") -> None:
    """As `atomic_write`, for writers that want a file name rather than an open file (a library
    that writes by path, such as USD): `write(temp_path)` fills a temp file beside `path` (ending
    in `suffix`, so a library that picks its format from the name sees the right one)."""
    path = Path(path)
    make_folder(path.parent, path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    except OSError as e:
        raise write_error(path, e) from None
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, _mode_for(path))
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):  # a full disk or a read-only folder: one sentence naming `path`
            raise write_error(path, e) from None
        raise
    _fsync_dir(path.parent)
