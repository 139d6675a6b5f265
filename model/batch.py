"""Tiled batch jobs, in this process or on Dask, with the same bytes whatever runs them.

A job is a pure, module-level function and a list of tasks (one per tile or zone). Workers only
compute; this process is the single writer: it stores each finished task's arrays as they come
(atomically, with a CRC-32 in a manifest, so `resume` skips what is already done) and the caller
assembles results in task order — never in completion order — so tile size, worker count and
scheduling cannot change the output.

`workers=1` runs in this process. `workers=N` runs a job whose function releases the GIL
(`releases_gil`: compiled kernels with `nogil`) on N threads of this process — no process to
start, no kernels to load again, no arrays to pickle — and any other job on a
`dask.distributed.LocalCluster` of N single-threaded worker processes; `scheduler="tcp://HOST:PORT"`
uses a running cluster (started with `dask scheduler` and `dask worker`), whose workers must be
able to import this package. A job with fewer tasks to compute than workers gets fewer workers,
and one task runs in this process.
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from model.atomic import atomic_write, atomic_write_text, remove_stale_temps
from model.errors import FormatError
from model.json_doc import read_json_file

Arrays = dict[str, np.ndarray]
MANIFEST = "manifest.json"
MAX_TASKS = 1 << 16  # tiles in one job: a tile size that makes more is a mistake, refused before any list
MAX_MANIFEST_BYTES = 64 << 20  # parameters and tile names: far less in any real job
MANIFEST_FORMAT = "boscage-batch"


POLL_S = 0.1  # while tasks run on Dask, progress is asked this often (so a GUI's Cancel is prompt)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc mallopt parameters (malloc.h)
MMAP_THRESHOLD_MAX = 32 << 20  # glibc's ceiling for its dynamic mmap threshold on 64-bit


class BatchCancelled(Exception):
    """The progress callback asked to stop; finished tasks stay stored for a resume."""


# asked every POLL_S while a job waits on Dask (and after each task in this process), wherever the
# job is started from: a GUI's Cancel reaches jobs that model code starts without a callback of its
# own (a TRN import's tile stream); False stops the job (BatchCancelled)
_listener: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar(
    "boscage_batch_listener", default=None)


@contextlib.contextmanager
def listening(callback: Callable[[], bool]) -> Iterator[None]:
    """Within the block, every batch job asks `callback()` while it waits; False stops it."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


def _listen() -> None:
    callback = _listener.get()
    if callback is not None and callback() is False:
        raise BatchCancelled("stopped while waiting for a task")


@dataclass(frozen=True)
class Task:
    key: str  # file-name safe, unique within the job
    args: tuple


def releases_gil(func: Callable) -> Callable:
    """Mark a task function whose work runs with the GIL released (numba `nogil` kernels, large
    numpy operations): local workers for it are threads of this process. It must not change its
    arguments (the threads share them)."""
    func.releases_gil = True
    return func


def in_threads(func: Callable, scheduler: str | None) -> bool:
    """Whether local workers for `func` are threads of this process (else Dask processes)."""
    return scheduler is None and bool(getattr(func, "releases_gil", False))


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class TileStore:
    """Finished tasks of one job in a folder, each `<key>.<crc32>.npz` (its name carries its own
    checksum, so nothing else is rewritten per tile), and a manifest naming the job, its
    parameters and the content of its inputs (`inputs`: a name each → a checksum, e.g. the CRC-32s
    of a scene's terrain tiles): a resume with other parameters, or over inputs changed since the
    stopped run, is refused rather than mixing two jobs' tiles.

    Refused, not started over: `--resume` asks to finish *that* run; inputs edited in between are
    more often a mistake (a scene saved from the editor mid-bake, the wrong file) than an intent,
    and a silent restart would turn a resume of minutes into a whole job without saying why. The
    refusal names what changed; running without `--resume` starts over."""

    def __init__(self, folder: Path, job: str, parameters: dict,
                 inputs: dict[str, str] | None = None) -> None:
        self.folder = Path(folder)
        self.job, self.parameters = job, parameters
        self.inputs = dict(inputs or {})

    def open(self, resume: bool) -> None:
        path = self.folder / MANIFEST
        if resume and path.is_file():
            doc = read_json_file(path, MAX_MANIFEST_BYTES, "batch manifest")
            if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
                raise FormatError(path, "format", "not a Boscage batch manifest")
            if doc.get("job") != self.job or doc.get("parameters") != self.parameters:
                was = doc.get("parameters") if isinstance(doc.get("parameters"), dict) else {}
                differ = sorted(k for k in set(was) | set(self.parameters)
                                if was.get(k) != self.parameters.get(k))
                which = f" (different: {', '.join(differ)})" if doc.get("job") == self.job and differ else ""
                raise FormatError(path, "parameters", "these finished tiles belong to another job or other "
                                  f"parameters{which}; run without --resume (or into another folder)")
            stored = doc.get("inputs") if isinstance(doc.get("inputs"), dict) else {}
            changed = sorted(set(stored) | set(self.inputs), key=lambda k: (k not in self.inputs, k))
            changed = [k for k in changed if stored.get(k) != self.inputs.get(k)]
            if changed:
                raise FormatError(path, "inputs", f"{_listed(changed)} changed since the stopped run, so "
                                  "its finished tiles would mix with new ones; run without --resume to "
                                  "start over")
            return
        self.clear()
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps({"format": MANIFEST_FORMAT, "job": self.job,
                                            "parameters": self.parameters, "inputs": self.inputs}, indent=1))

    @staticmethod
    def _ours(name: str) -> bool:
        return name == MANIFEST or (name.endswith(".npz") and name.count(".") == 2)

    def clear(self) -> None:
        """Forget every stored tile (and the folder, when nothing else is in it), with the temp
        files of a tile whose write a killed job left unfinished."""
        if not self.folder.is_dir():
            return
        remove_stale_temps(self.folder, self._ours)
        for p in self.folder.iterdir():
            if self._ours(p.name):
                p.unlink(missing_ok=True)
        try:
            self.folder.rmdir()
        except OSError:
            pass

    def load(self, key: str) -> Arrays | None:
        """A finished task's arrays, or None when it is not stored whole."""
        for path in sorted(self.folder.glob(f"{key}.*.npz")):
            data = path.read_bytes()
            if path.name != f"{key}.{zlib.crc32(data) & 0xFFFFFFFF:08x}.npz":
                continue  # damaged: computed again
            try:
                with np.load(io.BytesIO(data), allow_pickle=False) as z:
                    return {name: z[name] for name in z.files}
            except (ValueError, OSError, zlib.error):
                continue
        return None

    def save(self, key: str, arrays: Arrays) -> None:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        data = buf.getvalue()
        atomic_write(self.folder / f"{key}.{zlib.crc32(data) & 0xFFFFFFFF:08x}.npz", data)


def run_tasks(func: Callable[..., Arrays], tasks: Sequence[Task], *, shared: tuple = (),
              workers: int | None = None, scheduler: str | None = None, store: TileStore | None = None,
              progress: Callable[[int, int], bool] | None = None,
              prepare: Callable[[Task], tuple] | None = None,
              on_result: Callable[[Task, Arrays], None] | None = None) -> dict[str, Arrays]:
    """`func(*shared, *task.args)` for every task → {key: arrays}, by any executor.

    `shared` is sent to each worker once (the parsed input file, say). `progress(done, total)`
    returning False stops the job (BatchCancelled; on Dask the running tasks are cancelled and a
    local cluster is closed); stored tasks survive for a resume. In this process it is asked after
    each task, on Dask also every `POLL_S` while waiting (the same `done` again).

    `prepare(task)`, when given, makes a task's arguments just before it is sent (its window of a
    big grid, say) in place of `task.args`: then at most two tasks per worker are out at a time, so
    this process holds a few tasks' arguments, never all of them (and a stored task needs none).

    `on_result(task, arrays)`, when given, takes each task's result as it arrives (in any order)
    instead of the returned dict: a caller pasting tiles into its output does so while the workers
    still compute, and holds no finished tile."""
    results: dict[str, Arrays] = {}
    done = 0
    todo = []

    def keep(task: Task, arrays: Arrays) -> None:
        nonlocal done
        done += 1
        if on_result is None:
            results[task.key] = arrays
        else:
            on_result(task, arrays)

    for task in tasks:
        stored = store.load(task.key) if store is not None else None
        if stored is not None:
            keep(task, stored)
        else:
            todo.append(task)
    total = len(tasks)

    def finished(task: Task, arrays: Arrays) -> None:
        if store is not None:
            store.save(task.key, arrays)
        keep(task, arrays)
        if progress is not None and progress(done, total) is False:
            raise BatchCancelled(f"stopped after {done} of {total} tasks")

    if progress is not None and progress(done, total) is False:
        raise BatchCancelled("stopped before the first task")
    if not todo:
        return results
    def args_of(task: Task) -> tuple:
        return task.args if prepare is None else prepare(task)

    workers = min(workers or default_workers(), len(todo))
    if scheduler is None and workers == 1:
        for task in todo:
            _listen()
            finished(task, func(*shared, *args_of(task)))
        return results
    def waiting() -> None:
        _listen()
        if progress is not None and progress(done, total) is False:
            raise BatchCancelled(f"stopped after {done} of {total} tasks")

    if in_threads(func, scheduler):
        _run_on_threads(func, todo, shared, workers, finished, waiting, args_of)
        return results
    _run_on_dask(func, todo, shared, workers, scheduler, finished, waiting, args_of,
                 None if prepare is None else 0)
    return results


def _run_on_threads(func, todo: list[Task], shared: tuple, workers: int,
                    finished: Callable[[Task, Arrays], None], waiting: Callable[[], None],
                    args_of: Callable[[Task], tuple]) -> None:
    """`run_tasks` on `workers` threads; at most two tasks per thread are out at a time. Results
    are taken (stored, pasted, reported) in this thread only."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="boscage-batch")
    queue = list(reversed(todo))
    pending: dict = {}
    try:
        while queue or pending:
            while queue and len(pending) < 2 * workers:
                task = queue.pop()
                pending[pool.submit(func, *shared, *args_of(task))] = task
            done, _ = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            if not done:
                waiting()  # nothing finished yet: the caller may still cancel
                continue
            for future in sorted(done, key=lambda f: pending[f].key):
                finished(pending.pop(future), future.result())
    finally:  # a cancel or a failed task: tasks not started are dropped; the running ones (a tile
        # each, a second at most) end before this returns, so nothing computes on after the job
        pool.shutdown(cancel_futures=True)


def _stream_on_threads(func, tasks: Sequence[Task], shared: tuple, workers: int,
                       ahead: int | None) -> Iterator[tuple[Task, Arrays]]:
    """`stream_tasks` on `workers` threads, yielded in task order."""
    from concurrent.futures import ThreadPoolExecutor, wait

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="boscage-batch")
    window = ahead or 2 * workers
    futures: dict[int, Any] = {}
    try:
        for n, task in enumerate(tasks):
            while len(futures) < window and n + len(futures) < len(tasks):
                m = n + len(futures)
                futures[m] = pool.submit(func, *shared, *tasks[m].args)
            future = futures.pop(n)
            while not wait([future], timeout=POLL_S).done:
                _listen()  # heard while a task runs, as on Dask
            yield task, future.result()
    finally:  # a generator closed early (a cancel): tasks not started are dropped
        pool.shutdown(cancel_futures=True)


def _connect(workers: int | None, scheduler: str | None, waiting: Callable[[], None] = lambda: None):
    """(client, cluster): a local cluster of `workers` (cluster is None for `scheduler`'s)."""
    import logging

    from dask.distributed import Client

    # Dask reports its own shutdown chatter (heartbeats to a closed scheduler) with tracebacks: a
    # failed task still arrives here as an exception, so its log says nothing a user needs
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if scheduler is None:
        cluster = _start_while_waiting(workers or default_workers(), waiting)
        return Client(cluster), cluster
    try:
        client = Client(scheduler, timeout=20)
    except OSError as e:
        raise FormatError(None, scheduler, f"no Dask scheduler answers there ({e})") from None
    try:
        register_malloc_fix(client)  # workers someone else started: undo their nanny's malloc setting
    except BaseException:
        client.close()
        raise
    return client, None


def _disconnect(client, cluster, cancel: list | None = None) -> None:
    """Close the client (and a local cluster); `cancel`: futures of a stopped job, ended now."""
    try:
        if cancel:
            client.cancel(cancel)
            if cluster is not None:
                _kill_workers(cluster)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run_on_dask(func, todo: list[Task], shared: tuple, workers: int | None, scheduler: str | None,
                 finished: Callable[[Task, Arrays], None], waiting: Callable[[], None],
                 args_of: Callable[[Task], tuple] = lambda t: t.args, ahead: int | None = None) -> None:
    """`ahead`: how many tasks may be out at once (0: two per worker; None: every task at once)."""
    from dask.distributed import wait

    client, cluster = _connect(workers, scheduler, waiting)
    by_future: dict = {}
    stopped = False
    try:
        # a list of one: scatter sends each element whole (a dict alone would be split by key)
        handles = [client.scatter([item], broadcast=True)[0] for item in shared]
        if ahead == 0:
            ahead = max(2, 2 * len(client.scheduler_info().get("workers", {}) or [0]))
        queue = list(reversed(todo))
        pending: set = set()

        def submit_more() -> None:
            while queue and (ahead is None or len(pending) < ahead):
                task = queue.pop()
                future = client.submit(func, *handles, *args_of(task),
                                       key=f"boscage-{os.getpid()}-{task.key}", pure=False)
                by_future[future] = task
                pending.add(future)

        submit_more()
        while pending:
            try:
                done, rest = wait(pending, timeout=POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                waiting()  # nothing finished yet: the caller may still cancel
                continue
            pending.clear()
            pending.update(rest)
            for future in sorted(done, key=lambda f: by_future[f].key):
                finished(by_future[future], future.result())
                del by_future[future]  # its result is kept by the caller: Dask may let it go
            submit_more()
    except BaseException:  # a cancel, Ctrl+C or a failed task: stop the rest now
        stopped = True
        raise
    finally:
        _disconnect(client, cluster, list(by_future) if stopped else None)


def stream_tasks(func: Callable[..., Arrays], tasks: Sequence[Task], *, shared: tuple = (),
                 workers: int | None = None, scheduler: str | None = None,
                 ahead: int | None = None) -> Iterator[tuple[Task, Arrays]]:
    """`func(*shared, *task.args)` for every task, yielded in task order as soon as a task and all
    before it are done, by the executors `run_tasks` uses; at most `ahead` tasks (default two per
    worker) are submitted and not yet yielded, so a caller that writes each result and drops it
    holds a bounded number of them however long the job. Closing the generator (a cancel) stops
    the workers."""
    workers = min(workers or default_workers(), len(tasks))
    if scheduler is None and workers <= 1:
        for task in tasks:
            _listen()
            yield task, func(*shared, *task.args)
        return
    if in_threads(func, scheduler):
        yield from _stream_on_threads(func, tasks, shared, workers, ahead)
        return
    from dask.distributed import wait

    client, cluster = _connect(workers, scheduler, _listen)  # a listener hears the start too
    pending: dict = {}
    try:
        handles = [client.scatter([item], broadcast=True)[0] for item in shared]
        window = ahead or max(2, 2 * len(client.scheduler_info().get("workers", {}) or [0]))
        index_of = {}

        def submit(n: int):
            future = client.submit(func, *handles, *tasks[n].args,
                                   key=f"boscage-{os.getpid()}-{tasks[n].key}", pure=False)
            index_of[future] = n
            pending[n] = future
            return future

        submitted = min(window, len(tasks))
        running = {submit(n) for n in range(submitted)}
        done: dict[int, Arrays] = {}
        next_up = 0
        while running:
            try:  # asked in turns, so a listener (a GUI's Cancel) is heard while a task runs
                finished, running = wait(running, timeout=POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                _listen()
                continue
            for future in finished:
                n = index_of.pop(future)
                done[n] = future.result()
                pending.pop(n, None)
            while next_up in done:
                yield tasks[next_up], done.pop(next_up)
                next_up += 1
                if submitted < len(tasks):
                    running.add(submit(submitted))
                    submitted += 1
    finally:  # a generator closed early (a cancel) ends the tasks still out
        _disconnect(client, cluster, list(pending.values()) or None)


def _start_while_waiting(workers: int, waiting: Callable[[], None]):
    """`start_local_cluster` in a helper thread, asking `waiting` every POLL_S meanwhile (a cluster
    takes seconds to start: a GUI stays drawn and hears its Cancel). A cancel waits for the start to
    end, then ends the workers, so nothing outlives the job."""
    import threading

    box: dict[str, Any] = {}

    def start() -> None:
        try:
            box["cluster"] = start_local_cluster(workers)
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    thread = threading.Thread(target=start, name="boscage-cluster-start", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(POLL_S)
            if thread.is_alive():
                waiting()
    except BaseException:
        thread.join()
        if "cluster" in box:
            _kill_workers(box["cluster"])
            box["cluster"].close()
        raise
    if "error" in box:
        raise box["error"]
    return box["cluster"]


def _kill_workers(cluster) -> None:
    """End a local cluster's worker processes at once: Dask cannot interrupt a running task, and a
    cluster's close waits for it (a zone that grows for a minute would hold a Cancel that long).
    Their results are not wanted; the nannies are closed right after."""
    import signal

    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(nanny, "pid", None)
        if hasattr(nanny, "close_gracefully"):
            nanny.close_gracefully()  # a nanny restarts a worker that dies, unless told it is closing
        if pid:
            try:
                os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
            except (ProcessLookupError, PermissionError):
                pass


def restore_malloc() -> bool:
    """Undo a Dask nanny's `MALLOC_TRIM_THRESHOLD_` in this (worker) process; True if it was set.

    Setting that variable switches off glibc's dynamic mmap threshold, so every numpy temporary
    over 128 KiB is a fresh mmap, page-faulted in and unmapped again (numpy work ran 2-3x slower).
    glibc cannot switch the dynamic threshold back on, so this fixes it where the dynamic one ends
    up for large arrays: mmap above 32 MiB, and trim the heap only past twice that."""
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return False
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc: the variable means nothing there
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX)) and bool(
        mallopt(M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD_MAX))


def register_malloc_fix(client) -> None:
    """Run `restore_malloc` on every worker of `client`'s cluster, now and as workers join (a
    Dask worker plugin)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class RestoreMalloc(WorkerPlugin):
        name = "boscage-restore-malloc"

        def setup(self, worker) -> None:
            restore_malloc()

    client.register_plugin(RestoreMalloc(), name=RestoreMalloc.name)


class RateMeter:
    """Rate and time left of a job that reports `done` of `total` tasks (counted from the first
    report, so a resumed job's rate is its own)."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        import time

        self.clock = clock or time.monotonic
        self.start: tuple[float, int] | None = None

    def update(self, done: int, total: int) -> tuple[float | None, float | None]:
        """(tasks per second, seconds left); None where not known yet."""
        now = self.clock()
        if self.start is None:
            self.start = (now, done)
        t0, d0 = self.start
        if done <= d0 or now <= t0:
            return None, None
        rate = (done - d0) / (now - t0)
        return rate, max(total - done, 0) / rate


def start_local_cluster(workers: int):
    """A `LocalCluster` of single-threaded worker processes, set up for numpy work.

    Dask's nannies set MALLOC_TRIM_THRESHOLD_ in their workers, which stops glibc from raising its
    mmap threshold: every large numpy temporary is then a fresh mmap (TRN tiles ran 3x slower).
    The thread caps stay; the workers' profiler is off (its sampling costs the GIL)."""
    import logging

    import dask
    from dask.distributed import LocalCluster

    environ = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ").items()
               if k != "MALLOC_TRIM_THRESHOLD_"}
    with dask.config.set({"distributed.worker.profile.enabled": False,
                          "distributed.nanny.pre-spawn-environ": environ}):
        # no dashboard; the scheduler's own HTTP routes on a free loopback port (by default they take
        # 8787 on every interface, and warn when another cluster has it)
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                            silence_logs=logging.CRITICAL)


def tiles_of(rows: int, cols: int, tile: int) -> list[tuple[int, int, int, int]]:
    """(r0, c0, rows, cols) of `tile`-sized blocks covering a grid, row-major."""
    if tile < 1:
        raise ValueError("tile size must be at least 1")
    return [(r0, c0, min(tile, rows - r0), min(tile, cols - c0))
            for r0 in range(0, rows, tile) for c0 in range(0, cols, tile)]


def _listed(names: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def file_fingerprint(path: Path) -> str:
    """A file's size and CRC-32 (its content, whatever its name or time): what a resume compares."""
    from model.checksum import crc32

    crc, size = 0, 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            crc, size = crc32(chunk, crc), size + len(chunk)
    return f"{size}:{crc & 0xFFFFFFFF:08x}"


def parameters_of(**values: Any) -> dict:
    """A job's parameters as JSON-safe values (for the manifest's comparison on resume)."""
    return json.loads(json.dumps(values, default=str))
