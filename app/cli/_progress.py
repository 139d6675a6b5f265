"""A one-line progress bar on stderr for long commands (silent when stderr is not a terminal)."""

from __future__ import annotations

import sys
import time


class TerminalProgress:
    """`bar(fraction)` or, as a model progress callback, `bar.step(done, total) -> True`; with
    `step` it also shows the rate and the time left. Usable as a context manager (ends the line)."""

    def __init__(self, total: int, label: str = "growing", unit: str = "passes") -> None:
        self.total = total
        self.label = label
        self.unit = unit
        self.live = sys.stderr.isatty()
        self._last = 0.0
        self._start: tuple[float, int] | None = None  # (time, done) of the first step
        self._rate = ""

    def __call__(self, fraction: float) -> None:
        if self.live:
            done = int(fraction * 30)
            sys.stderr.write(f"\r{self.label} [{'#' * done}{'.' * (30 - done)}] "
                             f"{round(fraction * self.total)}/{self.total} {self.unit}{self._rate}   ")
            sys.stderr.flush()

    def step(self, done: int, total: int) -> bool:
        """Progress callback for the model (`progress(done, total)`); redraws at most 20 times a second."""
        self.total = total
        now = time.monotonic()
        if self._start is None:
            self._start = (now, done)  # a resumed job starts part-way: rate counts from here
        t0, d0 = self._start
        if done > d0 and now > t0:
            rate = (done - d0) / (now - t0)
            left = f", {(total - done) / rate:.0f} s left" if done < total else ""
            self._rate = f"  {rate:.1f}/s{left}"
        if done >= total or now - self._last >= 0.05:
            self._last = now
            self(done / total if total else 1.0)
        return True

    def close(self) -> None:
        if self.live:
            sys.stderr.write("\n")

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
