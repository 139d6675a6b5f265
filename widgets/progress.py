"""A window-modal progress dialog with Cancel, shaped as the callbacks long model work takes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget

T = TypeVar("T")
PUMP_S = 0.02  # how often the event loop is served while a helper thread works


class Background(Generic[T]):
    """`work()` started now on a helper thread; `result()` waits for it, this (GUI) thread drawing
    and handling events meanwhile (timers, repaints, a progress dialog's Cancel), and returns its
    result or raises its exception. `work` must not touch widgets, and nothing may edit what it
    reads meanwhile: callers show a window-modal progress dialog, which keeps the user's edits out."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._box: dict = {}

        def run() -> None:
            try:
                self._box["value"] = work()
            except BaseException as e:  # handed to the caller's thread
                self._box["error"] = e

        self._thread = threading.Thread(target=run, name="boscage-background", daemon=True)
        self._thread.start()

    def result(self) -> T:
        while self._thread.is_alive():
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, round(PUMP_S * 1000))
            self._thread.join(PUMP_S)
        if "error" in self._box:
            raise self._box["error"]
        return self._box["value"]


def in_background(work: Callable[[], T]) -> T:
    """`work()` on a helper thread, waited for as `Background.result` does."""
    return Background(work).result()


class Relay:
    """A progress callback for work on a helper thread: each call (on that thread) keeps its
    arguments and says whether to go on; this thread hands the latest to `callback` every `PUMP_S`
    (widgets are touched here only), and once `callback` returns False or `cancelled()` is true
    every later call returns False."""

    def __init__(self, callback: Callable[..., object],
                 cancelled: Callable[[], bool] = lambda: False) -> None:
        self.callback, self.cancelled = callback, cancelled
        self._latest: tuple | None = None
        self.stopped = False

    def __call__(self, *args) -> bool:
        self._latest = args
        return not self.stopped

    def alive(self) -> bool:
        """For `model.batch.listening` on the helper thread."""
        return not self.stopped

    def serve(self) -> None:
        if self.stopped:  # the job stops at its next report: the dialog is not asked again
            return
        args, self._latest = self._latest, None
        if args is not None and self.callback(*args) is False:
            self.stopped = True
        self.stopped = self.stopped or bool(self.cancelled())

    def run(self, work: Callable[[Relay], T]) -> T:
        """`work(self)` on a helper thread (`in_background`), this relay served meanwhile."""
        timer = QTimer()
        timer.timeout.connect(self.serve)
        timer.start(round(PUMP_S * 1000))
        try:
            return in_background(lambda: work(self))
        finally:
            timer.stop()
            self.serve()


class ModalProgress:
    """`step(fraction)` moves the bar, `cancelled()` says whether Cancel was pressed; close on exit."""

    def __init__(self, parent: QWidget | None, label: str, steps: int = 1000,
                 minimum_duration_ms: int = 300, at_once: bool = False) -> None:
        self.steps = max(1, int(steps))
        self.dialog = QProgressDialog(label, "Cancel", 0, self.steps, parent)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(0 if at_once else minimum_duration_ms)
        self._fraction: float | None = None
        self._stop = False
        if at_once:  # work whose first step may be seconds away: say so now, not then
            self.dialog.setValue(0)
            self.dialog.show()
            QApplication.processEvents()

    def run(self, work: Callable[[Callable[[float], bool]], T]) -> T:
        """`work(report)` on a helper thread (`in_background`), the window drawn meanwhile;
        `report(fraction)` moves the bar and returns False once Cancel is pressed."""

        def report(fraction: float) -> bool:  # on the helper thread: no widget touched here
            self._fraction = fraction
            return not self._stop

        def serve() -> None:  # on this thread, from the event loop
            if self._fraction is not None:
                self.dialog.setValue(round(min(max(self._fraction, 0.0), 1.0) * self.steps))
                self._fraction = None
            self._stop = self._stop or self.dialog.wasCanceled()

        timer = QTimer()
        timer.timeout.connect(serve)
        timer.start(round(PUMP_S * 1000))
        try:
            return in_background(lambda: work(report))
        finally:
            timer.stop()

    def step(self, fraction: float) -> None:
        self.dialog.setValue(round(min(max(fraction, 0.0), 1.0) * self.steps))
        QApplication.processEvents()

    def cancelled(self) -> bool:
        QApplication.processEvents()
        return self.dialog.wasCanceled()

    def __enter__(self) -> ModalProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.dialog.close()


class BatchProgress:
    """A batch job's progress (`model.batch.run_tasks`): `step(done, total)` shows the tasks done,
    the rate and the time left, and returns False once Cancel is pressed (which stops the job)."""

    def __init__(self, parent: QWidget | None, label: str, unit: str = "zones", starting: str = "",
                 minimum_duration_ms: int = 0, at_once: bool = False) -> None:
        from model.batch import RateMeter

        self.label, self.unit, self.starting = label, unit, starting  # `starting`: said until one is done
        self.meter = RateMeter()
        self.dialog = QProgressDialog(label, "Cancel", 0, 1, parent)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setAutoReset(False)  # the bar stays full until the job's results are written
        self.dialog.setAutoClose(False)
        self.dialog.setMinimumDuration(minimum_duration_ms)
        self.dialog.setValue(0)
        if at_once:  # the first report may be seconds away
            self.dialog.show()
            QApplication.processEvents()

    def text(self, done: int, total: int) -> str:
        rate, left = self.meter.update(done, total)
        line = f"{done:,} of {total:,} {self.unit} done"
        if rate is not None:
            line += f" · {rate:.2f} {self.unit}/s" if rate < 10 else f" · {rate:,.0f} {self.unit}/s"
            if done < total:
                line += f" · about {_duration(left)} left"
        elif done == 0 and self.starting:
            line += f" · {self.starting}"
        return f"{self.label}\n{line}"

    def step(self, done: int, total: int) -> bool:
        if self.dialog.wasCanceled():
            return False
        self.dialog.setMaximum(max(total, 1))
        self.dialog.setValue(min(done, max(total, 1)))
        self.dialog.setLabelText(self.text(done, total))
        QApplication.processEvents()
        return not self.dialog.wasCanceled()

    def passes(self, total: int) -> tuple:
        """`(progress, cancelled)` callbacks for work that reports a fraction of `total` steps (a
        growth's passes), counted, with rate and time left, like a job's tasks."""
        self.step(0, total)
        return (lambda fraction: self.step(round(fraction * total), total)), self.cancelled

    def cancelled(self) -> bool:
        QApplication.processEvents()
        return self.dialog.wasCanceled()

    def __enter__(self) -> BatchProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.dialog.close()


def _duration(seconds: float) -> str:
    """'8 s', '3 min 20 s', '2 h 05 min'."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class TextureProgress(QWidget):
    """The status bar's "Layer textures 5/16" bar while a scene's layer textures load in the
    background (the scene is drawn meanwhile, layers in their colours); hidden when none are coming."""

    def __init__(self, parent: QWidget | None = None) -> None:
        from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar

        super().__init__(parent)
        self.setObjectName("texture_progress")
        self.label = QLabel("Layer textures", self)
        self.bar = QProgressBar(self)
        self.bar.setMaximumWidth(140)
        self.bar.setTextVisible(True)
        self.bar.setFormat("%v/%m")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        self.setToolTip("The layers' texture maps load in the background; until a layer's maps are in, "
                        "it shows its colour")
        self.hide()

    def show_progress(self, done: int, total: int) -> None:
        if total <= 0 or done >= total:
            self.hide()
            return
        self.bar.setRange(0, total)
        self.bar.setValue(done)
        self.show()
