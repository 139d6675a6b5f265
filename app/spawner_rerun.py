"""A spawner's re-run on a helper thread while the editor stays usable: the GUI thread is never
blocked, it looks at the run every `POLL_MS` and hears `progressed` and `finished` from it.

The run only reads the scene; the editor applies its result on the GUI thread, and drops it
when the scene changed meanwhile (`stale`).
"""

from __future__ import annotations

import threading
import traceback

from PySide6.QtCore import QObject, QTimer, Signal

from model.foliage.spawn_run import SpawnCancelled, SpawnError, SpawnResult
from model.foliage.spawner import Spawner
from model.foliage.spawner_section import run_only
from model.scene import Scene

POLL_MS = 20


class BackgroundRun(QObject):
    """One whole run of `spawner` over `scene`; `result` once finished, unless cancelled or failed."""

    progressed = Signal(float)  # fraction of the species decided
    finished = Signal(object)  # this run

    def __init__(self, scene: Scene, spawner: Spawner, command: object,
                 earlier: SpawnResult | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.scene, self.spawner, self.command, self.earlier = scene, spawner, command, earlier
        self.result: SpawnResult | None = None
        self.error: Exception | None = None  # a SpawnError: the recipe cannot run
        self.cancelled = False
        self.stale = False  # the scene changed while the run read it: its result is not the scene's
        self.fraction = 0.0
        self._stop = False
        self._thread = threading.Thread(target=self._work, name="boscage-spawner-rerun", daemon=True)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

    def start(self) -> None:
        self._thread.start()
        self._timer.start()

    def _report(self, done: int, total: int) -> bool:  # on the helper thread: no widget here
        self.fraction = done / max(total, 1)
        return not self._stop

    def _work(self) -> None:
        try:
            self.result = run_only(self.scene, self.spawner, None, self._report, self.earlier)
        except SpawnCancelled:
            self.cancelled = True
        except SpawnError as e:
            self.error = e
        except Exception as e:  # a stale read of a scene edited meanwhile may fail; else it is a bug
            if not (self._stop or self.stale):
                traceback.print_exc()
                self.error = e

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def cancel(self) -> None:
        """Ask the run to stop at its next check (between the rules of a species); `finished` still comes."""
        self._stop = True
        self.cancelled = True

    def wait(self) -> None:
        """Cancel and wait for the helper thread (closing the scene or the window); no `finished`."""
        self.cancel()
        self._timer.stop()
        if self._thread.ident is not None:
            self._thread.join()

    def join(self) -> None:
        """Wait for the run to end, not stopping it; the caller takes the result (no `finished`)."""
        self._timer.stop()
        if self._thread.ident is not None:
            self._thread.join()

    def _poll(self) -> None:
        if self._thread.is_alive():
            self.progressed.emit(self.fraction)
            return
        self._timer.stop()
        self.finished.emit(self)
