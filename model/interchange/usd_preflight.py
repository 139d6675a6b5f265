"""A crate (binary USD) layer read once in a child process whose memory is capped, before this
process opens it: pxr sizes its buffers from counts in the file, so a damaged count (one flipped
byte) can make it allocate tens of gigabytes, or abort, from C++ where nothing can stop it.

The child reads every value the layer holds (as the import later asks for them) under an address
space limit of what it already maps plus 4 × the file's size and CRATE_MEMORY_CAP, with pxr's
work run serially, and a time limit; a child that dies or overruns makes the layer one
FormatError, and so does one pxr refuses (with pxr's reason: the parent never opens what the
child could not).

A `.usdz` package (`usdz_package` checks its zip structure first) is read the same way, each
layer in it (`pkg.usdz[inner.usdc]`) in one child capped by the package's size.

The command line and the fuzz workers fork: the child starts at once. The editor (Qt's, pxr's and
its batch threads, any of which may hold a lock at the moment of a fork, leaving the child waiting
on it) calls `use_fresh_interpreter()` at start: its checks run in a fresh interpreter instead
(`python -m model.interchange.usd_preflight FILE`, about a second to load pxr).
"""

from __future__ import annotations

import faulthandler
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from model.errors import FormatError

CRATE_MAGIC = b"PXR-USDC"
CRATE_MEMORY_CAP = 512 << 20  # pxr's working set reading a small crate file, beyond 4 × its size
SECONDS_PER_MB = 2.0
MIN_SECONDS = 30.0
MAX_DEPTH = 1000


def is_crate(path: Path) -> bool:
    """Whether `path` (a regular file) starts as a crate file does (any suffix: .usd may be either)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(CRATE_MAGIC)) == CRATE_MAGIC
    except OSError:
        return False


def mapped_bytes() -> int:
    """This process's address space (VmSize): what an RLIMIT_AS cap is measured against."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _read_everything(path: Path, entries: tuple[str, ...] = ()) -> None:
    """Open the layer (each of a package's `entries`) and ask for every value, metadatum and time
    sample in it."""
    from pxr import Work

    Work.SetConcurrencyLimit(1)
    for entry in entries:
        try:
            _read_layer(f"{path}[{entry}]")
        except MemoryError:
            raise
        except Exception as e:  # noqa: BLE001 - pxr's reason, said of the entry
            raise ValueError(f"{entry}: {_last_line(e)}") from None
    if not entries:
        _read_layer(str(path))


def _last_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[-1] if text else "unreadable"


def _info(spec, key: str) -> None:
    """Read one metadatum; a value pxr reads but cannot hand to Python (sublayer offsets) is read."""
    try:
        spec.GetInfo(key)
    except TypeError as e:
        if "converter" not in str(e):
            raise


def _read_layer(identifier: str) -> None:
    from pxr import Sdf

    layer = Sdf.Layer.OpenAsAnonymous(identifier)  # the file as it is now, never a cached layer
    if layer is None:
        raise ValueError("unreadable")
    stack = [(layer.pseudoRoot, 0)]
    while stack:
        spec, depth = stack.pop()
        if depth > MAX_DEPTH:
            return  # the import refuses it by name
        for key in spec.ListInfoKeys():
            _info(spec, key)
        for prop in spec.properties:
            for key in prop.ListInfoKeys():
                _info(prop, key)
            for t in layer.ListTimeSamplesForPath(prop.path):
                layer.QueryTimeSample(prop.path, t)
        stack += [(child, depth + 1) for child in spec.nameChildren]
        for variant_set in spec.variantSets:
            stack += [(v.primSpec, depth + 1) for v in variant_set.variantList if v.primSpec]


def _read_capped(path: Path, size: int, report: Callable[[bytes], object],
                 entries: tuple[str, ...] = ()) -> int:
    """In the child: cap the address space, read the layer; the exit code (0 read, 4 out of memory,
    5 refused by pxr with its reason sent to `report`, 3 anything else)."""
    try:
        limit = mapped_bytes() + 4 * size + CRATE_MEMORY_CAP
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        _read_everything(path, entries)
        return 0
    except MemoryError:
        return 4
    except BaseException as e:  # noqa: BLE001 - pxr refused it: its reason goes to the parent
        try:
            text = _last_line(e)
        except BaseException:  # noqa: BLE001 - a message quoting bytes that are not UTF-8
            text = "it holds bytes that are not UTF-8 text"
        report(text.encode("utf-8", "replace")[:500])
        return 5


_fresh_interpreter = False


def use_fresh_interpreter() -> None:
    """Run the checks of this process in a fresh interpreter, never a fork (a process whose other
    threads may hold locks: the editor)."""
    global _fresh_interpreter
    _fresh_interpreter = True


def check_crate(path: Path, entries: Sequence[str] = ()) -> None:
    """FormatError when the crate layer at `path` (with `entries`, those layers of the package at
    `path`) cannot be read (pxr's reason), or reading it needs more memory or time than its size
    allows; nothing when every value in it reads."""
    size = path.stat().st_size
    seconds = max(MIN_SECONDS, SECONDS_PER_MB * size / 1e6)
    entries = tuple(entries)
    if _fresh_interpreter:
        code, reason = _spawned(path, seconds, entries)
    else:
        code, reason = _forked(path, size, seconds, entries)
    if code == 0:
        return
    if code == 5:
        raise FormatError(path, None, f"not a readable USD file: {reason or 'unreadable'}")
    raise FormatError(path, None, f"reading it needs more than {(4 * size + CRATE_MEMORY_CAP) >> 20} MiB "
                      "(a size or count in it is damaged)")


def _forked(path: Path, size: int, seconds: float, entries: tuple[str, ...] = ()) -> tuple[int, str]:
    from pxr import Sdf, Work  # noqa: F401 - loaded here: loading them under the child's cap fails

    read_end, write_end = os.pipe()
    unread, sink = os.pipe()  # not os.devnull: opening a file may be refused (an audit hook)
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        os.close(unread)
        code = 3
        try:
            _quiet(sink)
            code = _read_capped(path, size, lambda text: os.write(write_end, text), entries)
        finally:
            os._exit(code)
    os.close(write_end)
    os.close(sink)
    try:
        status = _wait(pid, seconds, path)
        reason = os.read(read_end, 1000).decode("utf-8", "replace")
    finally:
        os.close(read_end)
        os.close(unread)
    return (os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1), reason


def _quiet(sink: int) -> None:
    """In a forked child: pxr's abort on a refused allocation, and a fault report, go to `sink` (a
    pipe nobody reads, non-blocking: past its buffer writes are dropped), not to the user."""
    faulthandler.disable()
    os.set_blocking(sink, False)
    os.dup2(sink, 2)


def _spawned(path: Path, seconds: float, entries: tuple[str, ...] = ()) -> tuple[int, str]:
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    try:
        done = subprocess.run([sys.executable, "-m", "model.interchange.usd_preflight", str(path),
                               *entries],
                              capture_output=True, timeout=seconds, env=env, cwd=root, check=False)
    except subprocess.TimeoutExpired:
        raise FormatError(path, None, f"reading it takes more than {seconds:g} s; damaged?") from None
    except OSError as e:
        raise FormatError(path, None, f"cannot start the reader's check: {e.strerror or e}") from None
    return (done.returncode if done.returncode >= 0 else -1), done.stdout[-1000:].decode("utf-8", "replace")


def _wait(pid: int, seconds: float, path: Path) -> int:
    deadline = time.monotonic() + seconds
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise FormatError(path, None, f"reading it takes more than {seconds:g} s; damaged?")
        time.sleep(0.005)


def main(argv: list[str]) -> int:
    """The fresh interpreter's side of `check_crate`: read FILE (its package ENTRY... when given)
    under the cap, exit with its code."""
    path = Path(argv[0])
    from pxr import Sdf, Usd, Work  # noqa: F401 - loaded before the cap, as in a fork of an importer

    Sdf.Layer.CreateAnonymous("preflight.usdc")  # the crate format's plug-in, loaded before the cap too

    return _read_capped(path, path.stat().st_size, sys.stdout.buffer.write, tuple(argv[1:]))


if __name__ == "__main__":
    sys.stdout.flush()
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # no teardown of what the capped read left
