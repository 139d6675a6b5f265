"""A one-line progress bar on stderr for long commands (silent when stderr is not a terminal)."""

from __future__ import annotations

import sys
import time


class TerminalProgress:
    """`bar(fraction)` or, as a model progress callback, `bar.step(done, total) -> True`."""

    def __init__(self, total: int, label: str = "growing", unit: str = "passes") -> None:
        self.total = total
        self.label = label
        self.unit = unit
        self.live = sys.stderr.isatty()
        self._last = 0.0

    def __call__(self, fraction: float) -> None:
        if self.live:
            done = int(fraction * 30)
            sys.stderr.write(f"\r{self.label} [{'#' * done}{'.' * (30 - done)}] "
                             f"{round(fraction * self.total)}/{self.total} {self.unit}")
            sys.stderr.flush()

    def step(self, done: int, total: int) -> bool:
        """Progress callback for the model (`progress(done, total)`); redraws at most 20 times a second."""
        self.total = total
        now = time.monotonic()
        if done >= total or now - self._last >= 0.05:
            self._last = now
            self(done / total if total else 1.0)
        return True

    def close(self) -> None:
        if self.live:
            sys.stderr.write("\n")
