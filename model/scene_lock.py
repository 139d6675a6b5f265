"""One writer at a time: a scene is locked while a process reads, changes and saves it.

The lock is an OS file lock (`flock`) on `.<scene file>.lock` beside the manifest, so the OS
releases it when the holding process ends, however it ends: a lock left by a killed process is
free for the next writer. The holder writes its pid, host, command and start time into the file,
so a refused writer can say who holds the scene. A process may take the same scene's lock again
(nested: the CLI holds it around load and save, `save_scene` takes it for its write).
"""

from __future__ import annotations

import errno
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import tomli_w

from model.atomic import write_error
from model.errors import FormatError, WriteError, parse_toml

try:
    import fcntl
except ImportError:  # Windows: msvcrt's byte-range lock, also released when the process ends
    fcntl = None  # type: ignore[assignment]
    import msvcrt

POLL_S = 0.1
MAX_INFO_BYTES = 4096
# File systems without flock (some network mounts): the save goes ahead unlocked, as before.
_NO_LOCKING = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}

_command: str | None = None


def set_process_command(text: str) -> None:
    """What this process calls itself in a lock ("Boscage editor"); default: its command line."""
    global _command
    _command = text


def process_command() -> str:
    if _command is not None:
        return _command
    return " ".join(["boscage", *sys.argv[1:]])[:300]


def lock_path(manifest: str | Path) -> Path:
    manifest = Path(manifest)
    return manifest.with_name(f".{manifest.name}.lock")


@dataclass(frozen=True)
class Holder:
    """Who holds a scene's lock, as it wrote itself into the lock file."""

    pid: int
    host: str
    command: str
    started: str

    def describe(self) -> str:
        where = "" if self.host in ("", socket.gethostname()) else f" on {self.host}"
        since = f", since {self.started}" if self.started else ""
        command = f" ({self.command})" if self.command else ""
        return f"pid {self.pid}{where}{command}{since}"


class SceneLocked(WriteError):
    """Another process is writing the scene: one sentence naming it (`hint`: what else to do)."""

    def __init__(self, manifest: str | Path, holder: Holder | None, hint: str = "") -> None:
        self.holder, self.hint = holder, hint
        who = holder.describe() if holder is not None else "another process"
        super().__init__(manifest, "locked", errno.EWOULDBLOCK,
                         f"{manifest} is being written by {who}; try again when it has finished{hint}")

    def __reduce__(self):
        return (type(self), (self.path, self.holder, self.hint))


def read_holder(manifest: str | Path) -> Holder | None:
    """The lock file's holder, or None when it says nothing readable (being written, or absent)."""
    try:
        with open(lock_path(manifest), "rb") as f:
            data = f.read(MAX_INFO_BYTES)
        doc = parse_toml(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, FormatError):
        return None
    pid = doc.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool):  # empty: its holder is writing it now
        return None
    texts = [doc.get(k) for k in ("host", "command", "started")]
    return Holder(pid, *(t if isinstance(t, str) else "" for t in texts))


def _try_lock(fd: int) -> bool:
    """Take the OS lock on `fd` without waiting: True when taken, False when another holds it."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError as e:
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, errno.EDEADLK):
            return False
        raise
    return True


def _same_file(fd: int, path: Path) -> bool:
    """Whether `fd` is still the file at `path` (a holder removes it on release while it holds it)."""
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class SceneLock:
    """The lock of one scene; `acquire` and `release`, or use `scene_lock`."""

    def __init__(self, manifest: str | Path, command: str | None = None) -> None:
        self.manifest = Path(manifest)
        self.path = lock_path(self.manifest)
        self.command = command
        self.fd: int | None = None
        self.unlocked = False  # the file system has no locking: held in name only

    def acquire(self, wait: bool = False, on_wait: Callable[[Holder | None], None] | None = None) -> None:
        """Take the lock, or raise SceneLocked (with `wait`, poll until it is free; `on_wait` hears
        the holder once, when the wait starts)."""
        told = False
        while True:
            if self._attempt():
                return
            holder = self._holder()
            if holder is None and self._attempt():  # it let go while we looked
                return
            if not wait:
                raise SceneLocked(self.manifest, holder)
            if not told and on_wait is not None:
                on_wait(holder)
            told = True
            time.sleep(POLL_S)

    def _holder(self) -> Holder | None:
        for _ in range(20):  # the holder writes its details just after taking the lock
            holder = read_holder(self.manifest)
            if holder is not None:
                return holder
            time.sleep(0.005)
        return None

    def _attempt(self) -> bool:
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            except OSError as e:
                raise write_error(self.manifest, e) from None
            try:
                if not _try_lock(fd):
                    os.close(fd)
                    return False
            except OSError as e:
                if e.errno in _NO_LOCKING:
                    self.fd, self.unlocked = fd, True
                    return True
                os.close(fd)
                raise write_error(self.manifest, e) from None
            if _same_file(fd, self.path):
                break
            os.close(fd)  # removed by the holder we waited for as it let go: lock the next file
        self.fd = fd
        self._write_info()
        return True

    def _write_info(self) -> None:
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "command": self.command if self.command is not None else process_command(),
                "started": datetime.now().astimezone().isoformat(timespec="seconds")}
        data = tomli_w.dumps(info).encode("utf-8")[:MAX_INFO_BYTES]
        try:
            os.ftruncate(self.fd, 0)
            os.write(self.fd, data)
        except OSError:  # the details are for messages only; the lock itself is held
            pass

    def release(self) -> None:
        if self.fd is None:
            return
        try:  # removed while still held, so no waiter locks a file that is about to vanish
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)  # closing the last descriptor releases the OS lock
        self.fd = None


_held: dict[Path, tuple[SceneLock, int]] = {}
_guard = threading.Lock()


def _key(manifest: Path) -> Path:
    try:
        return lock_path(manifest).resolve()
    except (OSError, RuntimeError):
        return lock_path(manifest).absolute()


def holds_lock(manifest: str | Path) -> bool:
    """Whether this process holds the scene's lock."""
    with _guard:
        return _key(Path(manifest)) in _held


@contextmanager
def scene_lock(manifest: str | Path, wait: bool = False, command: str | None = None,
               on_wait: Callable[[Holder | None], None] | None = None) -> Iterator[SceneLock]:
    """Hold the scene's lock for the block (taken again by this process: nested, kept until the
    outermost block ends); SceneLocked when another process holds it and `wait` is False."""
    manifest = Path(manifest)
    key = _key(manifest)
    with _guard:
        entry = _held.get(key)
        if entry is not None:
            _held[key] = (entry[0], entry[1] + 1)
    if entry is None:
        lock = SceneLock(manifest, command)
        lock.acquire(wait, on_wait)
        with _guard:
            _held[key] = (lock, 1)
    else:
        lock = entry[0]
    try:
        yield lock
    finally:
        with _guard:
            held, depth = _held[key]
            if depth > 1:
                _held[key] = (held, depth - 1)
            else:
                del _held[key]
                held.release()
