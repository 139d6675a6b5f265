"""Local workers of a job that releases the GIL are threads of this process: nothing to start,
load or pickle; results in task order, a cancel stops the rest, and one task runs in this thread."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from model.batch import BatchCancelled, Task, listening, releases_gil, run_tasks, stream_tasks


@releases_gil
def where(scale: float, n: int, wait: float) -> dict[str, np.ndarray]:
    time.sleep(wait)  # sleeps release the GIL as compiled kernels do
    return {"value": np.array([n * scale]), "pid": np.array([os.getpid()]),
            "thread": np.array([threading.get_ident()], np.uint64)}


def _tasks(waits) -> list[Task]:
    return [Task(f"t{n:03d}", (n, w)) for n, w in enumerate(waits)]


def test_two_workers_are_two_threads_of_this_process_and_results_keep_their_order() -> None:
    waits = [0.3, 0.0, 0.2, 0.0, 0.1, 0.0]
    results = run_tasks(where, _tasks(waits), shared=(2.0,), workers=2)
    assert [float(results[f"t{n:03d}"]["value"][0]) for n in range(6)] == [2.0 * n for n in range(6)]
    assert {int(a["pid"][0]) for a in results.values()} == {os.getpid()}
    threads = {int(a["thread"][0]) for a in results.values()}
    assert len(threads) == 2 and threading.get_ident() not in threads
    streamed = [t.key for t, _ in stream_tasks(where, _tasks(waits), shared=(1.0,), workers=2)]
    assert streamed == [f"t{n:03d}" for n in range(6)]  # the slow first task is still yielded first


def test_a_job_of_one_task_runs_in_this_thread() -> None:
    results = run_tasks(where, _tasks([0.0]), shared=(1.0,), workers=2)
    assert int(results["t000"]["thread"][0]) == threading.get_ident()


def test_a_cancel_stops_the_threads_queue() -> None:
    started = []

    @releases_gil
    def counted(n: int) -> dict[str, np.ndarray]:
        started.append(n)
        time.sleep(0.05)
        return {"n": np.array([n])}

    tasks = [Task(f"t{n:03d}", (n,)) for n in range(40)]
    with pytest.raises(BatchCancelled):
        run_tasks(counted, tasks, workers=2, progress=lambda done, total: done < 3)
    time.sleep(0.3)  # the tasks that were running end; none queued after the cancel starts
    assert len(started) <= 3 + 4
    asked = []
    with listening(lambda: asked.append(1) or len(asked) < 2), pytest.raises(BatchCancelled):
        run_tasks(where, _tasks([0.5, 0.5]), shared=(1.0,), workers=2)  # heard while tasks run
    assert len(asked) == 2


def test_a_bake_on_two_threads_is_the_bake_on_one() -> None:
    from model.trn.bake_batch import evaluate_in_tiles
    from model.trn.evaluator import FLORA_SLOTS, Region
    from model.trn.synthetic import realistic_stack

    doc = realistic_stack(12, seed=3, extent=600.0)
    region = Region.from_bounds(-300, -250, 280, 200, 4.0)
    one = evaluate_in_tiles(doc, region, tile=40, workers=1)
    two = evaluate_in_tiles(doc, region, tile=40, workers=2)
    for name in ("heights", "color", "shader", "shader_child", "environment", "exclude", "passable"):
        assert getattr(one, name).tobytes() == getattr(two, name).tobytes(), name
    for slot in FLORA_SLOTS:
        assert one.flora[slot].tobytes() == two.flora[slot].tobytes()
        assert one.flora_child[slot].tobytes() == two.flora_child[slot].tobytes()
    assert one.warnings == two.warnings
