"""Every write goes through here: temp file, flush, fsync, replace.

A write the disk refuses is one `WriteError` naming the file ("no space left on device while
writing FILE", "FILE: folder is read-only"), and the previous file stays whole.

Every temp file or folder lives beside its target under one pattern,
`.<target>.~<pid>.<8 random>.tmp` (files; a library that picks its format from the name gets
`.tmp.<ext>`) or `.tmpdir` (folders), so a process killed mid-write leaves something the next
writer in that folder recognises: the first write of a process into a folder removes the
leftovers there whose process is gone (`sweep_leftovers`).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from model.errors import WriteError

_NO_SPACE = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}
# mkstemp's names: prefix (target, writer's pid), 8 characters from its alphabet, suffix
_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.~(?P<pid>[0-9]{1,10})\.[a-z0-9_]{8}"
                        r"\.tmp(?:dir|\.[A-Za-z0-9]{1,8})?")
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")  # numpy's words for a short write
# what earlier builds named their temp files (no pid): a leftover once older than OLD_TEMP_AGE_S
_OLD_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")
OLD_TEMP_AGE_S = 3600.0
_swept: set[str] = set()
_swept_guard = threading.Lock()


def write_error(path: str | Path, error: OSError) -> WriteError:
    """The one sentence for an OS error while writing `path`."""
    if isinstance(error, WriteError):
        return error
    code = error.errno
    if code is None and _SHORT_WRITE.search(str(error)):
        code = errno.ENOSPC  # numpy's "N requested and M written": the disk took only part of it
    if code in _NO_SPACE:
        return WriteError(path, "no space left on device", code,
                          f"no space left on device while writing {path}")
    if code in _READ_ONLY:
        return WriteError(path, "folder is read-only", code)
    return WriteError(path, f"cannot write: {error.strerror or error}", code)


def retarget(error: OSError, path: str | Path) -> WriteError:
    """The refusal of a write that was part of writing `path` (a scene's side file, a file in a
    folder being filled), said of `path` itself: the user's target, not a file they never named."""
    code = error.errno
    if code is None and _SHORT_WRITE.search(str(error)):
        code = errno.ENOSPC
    if code in _NO_SPACE or code in _READ_ONLY:
        return write_error(path, OSError(code, os.strerror(code)))
    reason = error.reason if isinstance(error, WriteError) else f"cannot write: {error.strerror or error}"
    return WriteError(path, reason, code)


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


def _temp_prefix(path: Path) -> str:
    return f".{path.name}.~{os.getpid()}."


def atomic_write(path: str | Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write `data` (bytes, or a callable given the open file) so `path` is old or new, never torn."""
    path = Path(path)
    make_folder(path.parent, path)
    sweep_leftovers(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=path.parent)
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
    """The file name a temp file or folder called `name` was for; None for any other name."""
    found = _TEMP_NAME.fullmatch(name) or _OLD_TEMP_NAME.fullmatch(name)
    return found.group("name") if found else None


def _process_gone(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, OSError):  # alive under another user, or not ours to ask
        return False
    return False


def is_leftover(entry: Path) -> bool:
    """Whether `entry` is a temp file or folder whose writer is gone (killed mid-write)."""
    found = _TEMP_NAME.fullmatch(entry.name)
    if found is not None:
        return _process_gone(int(found.group("pid")))
    old = _OLD_TEMP_NAME.fullmatch(entry.name)
    if old is not None:  # no pid to ask: only beside the file it was for, and only once it is old
        try:
            return (entry.with_name(old.group("name")).exists()
                    and time.time() - entry.lstat().st_mtime > OLD_TEMP_AGE_S)
        except OSError:
            return False
    return False


def _remove(entry: Path) -> bool:
    try:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
        return True
    except OSError:  # a leftover is harmless; the next writer tries again
        return False


def sweep_leftovers(folder: str | Path, again: bool = False) -> list[Path]:
    """Remove the temp files and folders in `folder` whose writing process is gone; once per
    process and folder (`again` to look anew). Any other name is never touched."""
    folder = Path(folder)
    key = os.path.abspath(folder)
    with _swept_guard:
        if key in _swept and not again:
            return []
        _swept.add(key)
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return [e for e in entries if temp_target(e.name) is not None and is_leftover(e) and _remove(e)]


@contextmanager
def temp_folder(path: str | Path) -> Iterator[Path]:
    """A scratch folder beside `path` under the temp pattern, removed when the block ends (and by
    the next writer in that folder, should this process be killed first)."""
    path = Path(path)
    make_folder(path.parent, path)
    sweep_leftovers(path.parent)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=_temp_prefix(path), suffix=".tmpdir", dir=path.parent))
    except OSError as e:
        raise write_error(path, e) from None
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def atomic_folder(path: str | Path, fill: Callable[[Path], None]) -> None:
    """Fill a temp folder beside `path` with `fill(folder)`, then make it `path`: renamed whole
    where no folder is there yet, else each file renamed into the existing folder (whose other
    files stay). A killed or failed fill leaves the earlier folder as it was, or none: never a
    partial one under the final name."""
    path = Path(path)
    make_folder(path.parent, path)
    sweep_leftovers(path.parent)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=_temp_prefix(path), suffix=".tmpdir", dir=path.parent))
    except OSError as e:
        raise write_error(path, e) from None
    try:
        fill(tmp)
        _fsync_dir(tmp)
        if path.is_dir():
            for entry in sorted(tmp.iterdir()):
                os.replace(entry, path / entry.name)
            _fsync_dir(path)
            tmp.rmdir()
        else:
            if path.exists() or path.is_symlink():
                raise WriteError(path, "cannot write: a file has that name, not a folder", errno.ENOTDIR)
            os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700
            os.replace(tmp, path)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise retarget(e, path) from None
        raise
    _fsync_dir(path.parent)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
    sweep_leftovers(path.parent)
    try:
        ending = ".tmp" if suffix == ".tmp" else ".tmp" + suffix  # still our pattern, the library's suffix
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=ending, dir=path.parent)
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
