"""How long the editor's event loop is kept from running: the longest gap between the ticks of a
10 ms timer (a frozen window, a menu that takes seconds), and the processor an idle editor uses.

A gap is measured twice: on the wall clock (`longest`), and as the processor time the GUI thread
itself spent in it (`longest_busy`): the work that kept the loop from turning. Tests assert the
second: on a shared machine the wall clock also counts the time other programs had the processor
(and a helper thread the interpreter), which no code here can shorten."""

from __future__ import annotations

import time

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

LONGEST_STALL_S = 0.25  # the longest the window may go without handling input or drawing


class StallMeter:
    """Within the block, `longest` / `longest_busy` are the longest gaps (s) between two turns of
    the event loop, and `gaps` every gap whose busy time is over `LONGEST_STALL_S` (when it ended,
    its wall time, its busy time: to say what stalled)."""

    def __init__(self, interval_ms: int = 10, frames_of=None) -> None:
        """`frames_of`: a viewport whose frames (`paintGL`) do not count: under Mesa's software
        OpenGL a frame of a big scene takes seconds that a GPU draws in milliseconds."""
        self.frames_of = frames_of
        self._frames_wall = self._frames_cpu = 0.0  # frame time since the last tick
        self.frame_time = 0.0
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.longest = self.longest_busy = 0.0
        self.gaps: list[tuple[float, float, float]] = []
        self._last = self._start = self._last_cpu = 0.0

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gap = now - self._last - self._frames_wall
        busy = cpu - self._last_cpu - self._frames_cpu
        self._frames_wall = self._frames_cpu = 0.0
        self.longest = max(self.longest, gap)
        self.longest_busy = max(self.longest_busy, busy)
        if busy > LONGEST_STALL_S:
            self.gaps.append((round(now - self._start, 3), round(gap, 3), round(busy, 3)))
        self._last, self._last_cpu = now, cpu

    def _framed(self, paint):
        def timed(*args):
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                return paint(*args)
            finally:
                wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
                self._frames_wall += wall
                self._frames_cpu += cpu
                self.frame_time += wall
        return timed

    def __enter__(self) -> StallMeter:
        if self.frames_of is not None:
            self.frames_of.paintGL = self._framed(type(self.frames_of).paintGL.__get__(self.frames_of))
        self._last = self._start = time.perf_counter()
        self._last_cpu = time.thread_time()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._tick()  # the time since the last turn counts too (a call that returned just now)
        self.timer.stop()
        if self.frames_of is not None:
            del self.frames_of.paintGL


def idle_cpu_seconds(seconds: float = 1.0) -> float:
    """Processor time this process (all its threads: llvmpipe's too) uses over `seconds` of an
    event loop nobody touches (timers that keep firing, repaint loops show here): ~0 when idle."""
    QApplication.processEvents()
    loop = QEventLoop()
    QTimer.singleShot(round(seconds * 1000), loop.quit)
    c0 = time.process_time()
    loop.exec()
    return time.process_time() - c0
