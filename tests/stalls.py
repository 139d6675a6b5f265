"""How long the editor's event loop is kept from running: the longest gap between the ticks of a
10 ms timer (a frozen window, a menu that takes seconds), and the processor an idle editor uses."""

from __future__ import annotations

import time

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

LONGEST_STALL_S = 0.25  # the longest the window may go without handling input or drawing


class StallMeter:
    """Within the block, `longest` is the longest time (s) between two turns of the event loop, and
    `gaps` every gap over `LONGEST_STALL_S` (when it ended, how long: to say what stalled)."""

    def __init__(self, interval_ms: int = 10) -> None:
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.longest = 0.0
        self.gaps: list[tuple[float, float]] = []
        self._last = self._start = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        gap = now - self._last
        self.longest = max(self.longest, gap)
        if gap > LONGEST_STALL_S:
            self.gaps.append((round(now - self._start, 3), round(gap, 3)))
        self._last = now

    def __enter__(self) -> StallMeter:
        self._last = self._start = time.perf_counter()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._tick()  # the time since the last turn counts too (a call that returned just now)
        self.timer.stop()


def idle_cpu_seconds(seconds: float = 1.0) -> float:
    """Processor time this process (all its threads: llvmpipe's too) uses over `seconds` of an
    event loop nobody touches (timers that keep firing, repaint loops show here): ~0 when idle."""
    QApplication.processEvents()
    loop = QEventLoop()
    QTimer.singleShot(round(seconds * 1000), loop.quit)
    c0 = time.process_time()
    loop.exec()
    return time.process_time() - c0
