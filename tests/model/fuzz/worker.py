"""The fuzz child: reads job lines on stdin, runs one reader per job, answers one JSON line each.

Limits: the address space is capped (RLIMIT_AS) once the readers are imported, and each job gets a
CPU-time budget (RLIMIT_CPU's soft limit moved forward per job; SIGXCPU raises in Python code,
and the parent's wall-clock watchdog kills a child stuck in C code). An audit hook refuses every
`open`, `os.listdir` and `os.scandir` outside the job's folder, apart from the interpreter's own
files, and every open for writing. Libraries that open files from C (pxr) pass the audit hook by:
an inotify watch on the `outside/` folder beside the inputs (where every link and path trick
points) reports any open there during a job, whoever made it.

Usage (by `runner.Worker`): python -m tests.model.fuzz.worker CPU_SECONDS MEMORY_MIB
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import struct
import sys
import traceback
from pathlib import Path

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class OutsideRead(BaseException):
    """A reader opened a path outside its input folder (BaseException: no reader may swallow it)."""


class CpuTimeout(BaseException):
    """The job ran past its CPU budget."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class Guard:
    """The audit hook: which folder the running job may read, and what it tried beyond it."""

    def __init__(self, project: str) -> None:
        self.folder: str | None = None
        self.busy = False
        self.project = project
        libs = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
        libs |= {os.path.realpath(p) for p in sys.path if p and "site-packages" in p}
        self.libs = sorted(libs)
        self.seen: list[str] = []

    def allowed(self, path: str, writing: bool) -> bool:
        real = os.path.realpath(path)
        if self.folder is not None and _inside(real, self.folder):
            return not writing
        if writing:
            return False
        if real.startswith(("/proc/self/", f"/proc/{os.getpid()}/", "/sys/")):  # its own (a fork's too)
            return True
        if any(_inside(real, lib) for lib in self.libs):
            return True
        # the project's own code (lazy imports), never its data
        return _inside(real, self.project) and (real.endswith((".py", ".pyc")) or os.path.isdir(real))

    def __call__(self, event: str, args: tuple) -> None:
        if self.folder is None or self.busy or event not in ("open", "os.listdir", "os.scandir"):
            return
        path = args[0] if args else None
        if isinstance(path, int) or path is None:
            return  # an fd already open, or the current directory (never used by readers)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        writing = False
        if event == "open":
            mode, flags = args[1], args[2]
            writing = bool(mode and any(c in mode for c in "wax+")) or bool(flags and flags & WRITE_FLAGS)
        self.busy = True
        try:
            ok = self.allowed(os.fspath(path), writing)
        finally:
            self.busy = False
        if not ok:
            what = f"{'write' if writing else 'read'} {event} {path} (really {os.path.realpath(path)})"
            self.seen.append(what)
            raise OutsideRead(what)


class OutsideWatch:
    """inotify on `outside/` and its folders: the files opened there since `arm`, from any code."""

    IN_OPEN = 0x20
    FLAGS = 0o4000 | 0o2000000  # IN_NONBLOCK | IN_CLOEXEC

    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(self.FLAGS)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed: the fuzz worker cannot watch outside/")
        self.folders: dict[int, str] = {}

    def arm(self, outside: str) -> None:
        if not os.path.isdir(outside):
            return
        for folder, _, _ in os.walk(outside):
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(folder), self.IN_OPEN)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"cannot watch {folder}")
            self.folders[wd] = folder
        self.opened()  # the walk itself, and what the parent wrote there

    def opened(self) -> list[str]:
        out = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            pos = 0
            while pos + 16 <= len(data):
                wd, mask, _, n = struct.unpack_from("iIII", data, pos)
                name = data[pos + 16:pos + 16 + n].split(b"\0", 1)[0].decode(errors="replace")
                pos += 16 + n
                if mask & self.IN_OPEN:
                    out.append(os.path.join(self.folders.get(wd, "?"), name))


def _on_cpu(signum, frame) -> None:
    raise CpuTimeout("CPU time limit")


def _cpu_used() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _frames(tb) -> list[str]:
    """The traceback's frames in the project (file:line function), innermost last."""
    out = []
    for fs in traceback.extract_tb(tb):
        if "/model/" in fs.filename or "/tests/model/fuzz/" in fs.filename:
            out.append(f"{fs.filename.split('/model/', 1)[-1]}:{fs.lineno} {fs.name}")
    return out


def _signature(e: BaseException, frames: list[str]) -> str:
    """What identifies a crash: its type and the innermost model frame, without the line number."""
    model = [f for f in frames if not f.startswith("fuzz/")] or frames[-1:]
    where = model[-1].split(":")[0] + " " + model[-1].split(" ", 1)[1] if model else "?"
    return f"{type(e).__name__} in {where}"


def run_job(job: dict, guard: Guard, readers, format_error, cpu_s: float,
            watch: OutsideWatch | None = None) -> dict:
    folder = Path(job["folder"])
    if watch is not None:
        watch.arm(str(folder.parent.parent / "outside"))
    guard.folder = os.path.realpath(folder)
    guard.seen = []
    soft = int(_cpu_used() + cpu_s) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.getrlimit(resource.RLIMIT_CPU)[1]))
    result: dict = {"id": job["id"]}
    try:
        readers[job["reader"]](folder, job["main"])
        result["status"] = "ok"
    except format_error as e:
        result.update(status="error", detail=str(e)[:300])
        if e.path is None:
            result.update(
                status="crash",
                signature="FormatError without a file",
                detail=f"FormatError names no file: {e}"[:300],
            )
    except OutsideRead as e:
        frames = [f for f in _frames(e.__traceback__) if not f.startswith("fuzz/worker.py")]
        where = _signature(e, frames).split(" in ", 1)[1]
        what = "writes a file" if str(e).startswith("write") else "reads outside its folder"
        result.update(status="violation", detail=str(e), frames=frames, signature=f"{what} in {where}")
    except CpuTimeout:
        result.update(status="timeout", detail=f"more than {cpu_s:g} s of CPU", signature="timeout")
    except MemoryError:
        result.update(
            status="memory",
            detail="memory limit reached",
            signature="memory",
            frames=_frames(sys.exc_info()[2]),
        )
    except BaseException as e:  # noqa: B036 - everything else is what the fuzzer is looking for
        frames = _frames(e.__traceback__)
        result.update(
            status="crash",
            detail=f"{type(e).__name__}: {e}"[:500],
            frames=frames,
            signature=_signature(e, frames),
        )
    finally:
        guard.folder = None
        resource.setrlimit(
            resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.getrlimit(resource.RLIMIT_CPU)[1])
        )
    if guard.seen and result["status"] in ("ok", "error"):  # swallowed by the reader, still a read outside
        result.update(status="violation", detail=guard.seen[0], signature="reads outside its folder")
    opened = watch.opened() if watch is not None else []
    if opened and result["status"] in ("ok", "error"):  # opened from C code, past the audit hook
        result.update(status="violation", detail=f"opened {opened[0]} (seen by inotify; "
                      f"{len(opened)} opens outside in all)", signature="opens a file outside its folder")
    return result


def main() -> None:
    cpu_s, memory_mib = float(sys.argv[1]), int(sys.argv[2])
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever a reader prints goes to stderr, never into the answers
    sys.dont_write_bytecode = True
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    import tests.model.conftest  # noqa: F401 - installs the GUI import blocker under BOSCAGE_BLOCK_GUI
    from model.errors import FormatError
    from tests.model.fuzz.readers import READERS

    project = str(Path(__file__).resolve().parents[3])
    from model.interchange.usd_preflight import mapped_bytes

    limit = mapped_bytes() + (memory_mib << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    signal.signal(signal.SIGXCPU, _on_cpu)
    guard = Guard(project)
    watch = OutsideWatch()
    sys.addaudithook(guard)
    out.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)
        result = run_job(job, guard, READERS, FormatError, cpu_s, watch)
        out.write(json.dumps(result) + "\n")
        if result["status"] in ("timeout", "memory"):
            return  # the state after such an interruption is not to be trusted: the parent starts another


if __name__ == "__main__":
    main()
