"""A real Dask scheduler and workers on the loopback interface, started as a user would start them
(`dask scheduler`, `dask worker`), bounded in time and always stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask() -> list[str]:
    return [sys.executable, "-m", "distributed.cli.dask_scheduler"], [sys.executable, "-m",
                                                                      "distributed.cli.dask_worker"]


@contextlib.contextmanager
def local_cluster(workers: int = 2, timeout: float = 60.0) -> Iterator[str]:
    """Yield the scheduler's address while `workers` single-threaded workers are connected."""
    from distributed import Client

    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    scheduler_cmd, worker_cmd = _dask()
    procs = [subprocess.Popen([*scheduler_cmd, "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    try:
        for _ in range(workers):
            procs.append(subprocess.Popen([*worker_cmd, address, "--nthreads", "1", "--nworkers", "1",
                                           "--no-dashboard", "--host", "127.0.0.1"],
                                          cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
        deadline = time.monotonic() + timeout
        while True:
            try:
                with Client(address, timeout=5) as client:
                    client.wait_for_workers(workers, timeout=max(1.0, deadline - time.monotonic()))
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield address
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=10)


def square(x: int) -> dict:
    """A batch task small enough to say only that a job ran."""
    import numpy as np

    return {"y": np.array(x * x)}


def fresh_mmaps() -> tuple[str | None, int]:
    """Run on a worker: its MALLOC_TRIM_THRESHOLD_, and how many of eight 1 MiB numpy arrays glibc
    gave their own mmap (`mallinfo2().hblks`) once one such array was freed (glibc's dynamic
    threshold then rises above 1 MiB; a fixed one stays at 128 KiB)."""
    import ctypes

    import numpy as np

    class Mallinfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                          "usmblks", "fsmblks", "uordblks", "fordblks",
                                                          "keepcost")]

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = Mallinfo2
    np.ones(1 << 17).sum()  # warm-up: one 1 MiB block allocated and freed
    before = libc.mallinfo2().hblks
    arrays = [np.ones(1 << 17) for _ in range(8)]
    mapped = libc.mallinfo2().hblks - before
    del arrays
    return os.environ.get("MALLOC_TRIM_THRESHOLD_"), int(mapped)
