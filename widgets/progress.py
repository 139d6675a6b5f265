"""A window-modal progress dialog with Cancel, shaped as the callbacks long model work takes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget


class ModalProgress:
    """`step(fraction)` moves the bar, `cancelled()` says whether Cancel was pressed; close on exit."""

    def __init__(self, parent: QWidget | None, label: str, steps: int = 1000,
                 minimum_duration_ms: int = 300) -> None:
        self.steps = max(1, int(steps))
        self.dialog = QProgressDialog(label, "Cancel", 0, self.steps, parent)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(minimum_duration_ms)

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
                 minimum_duration_ms: int = 0) -> None:
        from model.batch import RateMeter

        self.label, self.unit, self.starting = label, unit, starting  # `starting`: said until one is done
        self.meter = RateMeter()
        self.dialog = QProgressDialog(label, "Cancel", 0, 1, parent)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setAutoReset(False)  # the bar stays full until the job's results are written
        self.dialog.setAutoClose(False)
        self.dialog.setMinimumDuration(minimum_duration_ms)
        self.dialog.setValue(0)

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
