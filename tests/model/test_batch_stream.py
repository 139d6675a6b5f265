"""`stream_tasks`: results in task order, whoever finishes first, and a closed stream stops."""

from __future__ import annotations

import time

import numpy as np

from model.batch import Task, stream_tasks


def slow_square(scale: float, n: int, wait: float) -> dict[str, np.ndarray]:
    """A task whose time is given: later tasks may finish first on several workers."""
    time.sleep(wait)
    return {"value": np.array([n * n * scale])}


def _tasks(waits) -> list[Task]:
    return [Task(f"t{n:03d}", (n, w)) for n, w in enumerate(waits)]


def test_in_this_process_results_come_in_task_order() -> None:
    got = [(t.key, float(a["value"][0])) for t, a in stream_tasks(slow_square, _tasks([0] * 5), shared=(2.0,),
                                                                  workers=1)]
    assert got == [(f"t{n:03d}", 2.0 * n * n) for n in range(5)]


def test_on_workers_results_come_in_task_order_and_closing_stops_them() -> None:
    waits = [0.6, 0.0, 0.3, 0.0, 0.5, 0.0, 0.0, 0.2]  # the first is the slowest
    stream = stream_tasks(slow_square, _tasks(waits), shared=(1.0,), workers=2, ahead=3)
    got = [t.key for t, _ in stream]
    assert got == [f"t{n:03d}" for n in range(len(waits))]
    stream = stream_tasks(slow_square, _tasks([0.1] * 50), shared=(1.0,), workers=2)
    first = next(stream)
    stream.close()  # a cancel: the cluster and its queued tasks go
    assert first[0].key == "t000"


def test_a_listener_stops_a_job_between_tasks_wherever_it_was_started() -> None:
    import pytest

    from model.batch import BatchCancelled, listening, run_tasks

    asked = []
    with listening(lambda: asked.append(1) or len(asked) < 3), pytest.raises(BatchCancelled):
        run_tasks(slow_square, _tasks([0] * 5), shared=(1.0,), workers=1)
    with listening(lambda: False), pytest.raises(BatchCancelled):
        next(stream_tasks(slow_square, _tasks([0] * 5), shared=(1.0,), workers=1))
    assert len(asked) == 3
    assert len(run_tasks(slow_square, _tasks([0] * 2), shared=(1.0,), workers=1)) == 2  # none outside
