"""Spawners in the editor: the Spawners window (Tools ▸ Spawners), its undoable edits and runs,
viewport previews of the area and of refused candidates, and re-runs after terrain strokes.

`install(main_window)` is idempotent and returns the window's `SpawnerEditor`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QObject
from shiboken6 import isValid

from app.spawner_commands import BakeSpawnerCommand, RunSpawnersCommand, SetSpawnersCommand
from app.spawner_rerun import BackgroundRun
from app.tools import host_of
from model.foliage.section import foliage_of
from model.foliage.spawn_run import SpawnResult
from model.foliage.spawner import Spawner
from model.foliage.spawner_section import apply_result, move_ownership, run_and_apply, spawners_of
from widgets.spawner_panel import RunStrip, SpawnerPanel

AREA_MARKERS = "spawner_area"
REFUSED_MARKERS = "spawner_refused"
AREA_COLOUR = (0.25, 0.85, 0.95, 1.0)
REFUSED_COLOUR = (0.95, 0.35, 0.25, 1.0)
MAX_MARKERS = 20_000


class SpawnerEditor(QObject):
    def __init__(self, main_window) -> None:
        super().__init__(main_window)
        self.window = main_window
        self.document = main_window.document
        self.viewport = main_window.viewport
        self.panel = SpawnerPanel()
        self.auto_run = True  # a recipe edit re-runs its spawner in the same undo step
        self.results: list[SpawnResult] = []
        # a whole run per spawner name, with the undo step it ended in: while that step is the
        # stack's current one the scene is as the run saw it, and an edit re-runs only the
        # species from the edited one on
        self._last_runs: dict[str, tuple[SpawnResult, int, object]] = {}
        self._palette = self._terrain = self._volume = None
        self.job: BackgroundRun | None = None  # the edit's re-run going in the background
        # edits whose re-runs come after the job going, in order (one superseding it comes first)
        self._waiting: list[SetSpawnersCommand] = []
        self._pushing = False
        self.panel.edited.connect(self.edit)
        self.panel.cancel_requested.connect(self.cancel_rerun)
        # in the status bar too: the panel may be behind another tab or scrolled to its species
        self.status_strip = RunStrip(compact=True)
        self.status_strip.cancel_requested.connect(self.cancel_rerun)
        main_window.statusBar().addPermanentWidget(self.status_strip)
        self.panel.removed.connect(self.remove)
        self.panel.run_requested.connect(self.run)
        self.panel.bake_requested.connect(self.bake)
        self.panel.preview_requested.connect(self.preview)
        self.panel.reason_clicked.connect(self.highlight)
        self.document.undo_stack.indexChanged.connect(self._on_index_changed)
        self.document.scene_replaced.connect(self._on_scene_replaced)
        self._on_scene_replaced(self.document.scene)
        host_of(main_window).refusals.append(self.busy_sentence)
        autosave = getattr(main_window, "autosave", None)
        if autosave is not None:  # a recovery copy waits for the re-run: its recipe with its forest
            busy = autosave.is_busy
            autosave.is_busy = lambda: busy() or self.running

    @property
    def scene(self):
        return self.document.scene

    def _on_scene_replaced(self, scene) -> None:
        self.stop()
        if self._palette is not None:
            self._palette.changed.disconnect(self.refresh)
            self._terrain.layers_changed.disconnect(self.refresh)
            for event in self._read_events():
                event.disconnect(self._scene_edited)
        self._palette, self._terrain = foliage_of(scene).palette, scene.terrain
        self._volume = foliage_of(scene).volume
        self._palette.changed.connect(self.refresh)
        self._terrain.layers_changed.connect(self.refresh)
        for event in self._read_events():
            event.connect(self._scene_edited)
        self.results = []
        self._last_runs = {}
        self.panel.show_result([])
        self._clear_markers()
        self.refresh()

    def _read_events(self) -> list:
        """What a run reads: a change to any while it goes makes its result stale."""
        t = self._terrain
        return [self._volume.changed, self._palette.changed, t.heights_changed, t.layer_weights_changed,
                t.layers_changed, t.holes_changed]

    def _scene_edited(self, *_) -> None:
        if self.job is not None:
            self.job.stale = True

    def refresh(self, *_) -> None:
        self.panel.set_context([layer.name for layer in self.scene.terrain.layers],
                               [t.name for t in self._palette if t.stored])
        self.panel.set_spawners(spawners_of(self.scene).spawners)

    # ---- running ------------------------------------------------------------------------------
    def run(self, index: int) -> None:
        """Run spawner `index` (-1: every one, in order) on a helper thread, the editor usable
        meanwhile (progress and Cancel in the panel and the status bar). Each run is applied as it
        lands; together they are one undo step. A run (or an edit's re-run) going is stopped first."""
        self.stop()
        section = spawners_of(self.scene)
        chosen = list(section.spawners if index < 0 else section.spawners[index:index + 1])
        if not chosen:
            return
        text = "Run all spawners" if index < 0 else f"Run spawner '{chosen[0].name}'"
        stack = self.document.undo_stack
        self._start_queued(_RunQueue(chosen, text, stack.index(), stack.count(), self._top()))

    def _top(self):
        stack = self.document.undo_stack
        return stack.command(stack.index() - 1) if stack.index() > 0 else None

    def _queue_current(self, queue: _RunQueue) -> bool:
        """Whether the scene is still at the step the queue's runs were applied on (no undo, redo
        or other step since), so the next run may land in that step."""
        stack = self.document.undo_stack
        return stack.index() == queue.index and stack.count() == queue.count and self._top() is queue.top

    def _push(self, command) -> None:
        """Push a step the editor already applied (`_on_index_changed` leaves the work as it is)."""
        self._pushing = True
        try:
            self.document.undo_stack.push(command)
        finally:
            self._pushing = False

    def _start_queued(self, queue: _RunQueue) -> None:
        self._run_job(queue.spawners[len(queue.results)], queue, None)

    def _run_job(self, spawner: Spawner, owner: SetSpawnersCommand | _RunQueue,
                 earlier: SpawnResult | None) -> None:
        """Start the helper thread's run of `spawner` for `owner` (an edit's step or a Run)."""
        self.job = BackgroundRun(self.scene, spawner, owner, earlier, self)
        self.job.progressed.connect(lambda _: self._show_running())
        self.job.finished.connect(self._on_finished)
        self.job.start()
        self._show_running()

    def _run_landed(self, job: BackgroundRun) -> None:
        """A Run's spawner finished: apply it, then run the next one (or say why it stopped)."""
        queue: _RunQueue = job.command
        name = job.spawner.name
        kept = (f" The {len(queue.results)} spawner{'s' if len(queue.results) != 1 else ''} run before it "
                "stay run (one undo step).") if queue.results else " Nothing changed."
        if job.error is not None:
            self._end_queue(queue, f"'{name}' cannot run: {job.error}.{kept}")
            return
        if job.cancelled or job.result is None or not self._queue_current(queue):
            why = "cancelled" if self._queue_current(queue) else "stopped: the history moved meanwhile"
            self._end_queue(queue, f"Run of '{name}' {why}.{kept}")
            return
        if job.stale:  # the scene changed under the run: run again over what it is now
            self._start_queued(queue)
            return
        change = apply_result(self.scene, job.result, whole=True)
        queue.results.append(job.result)
        if queue.command is None:
            queue.command = RunSpawnersCommand(self.scene, queue.text, job.result, change)
            self._push(queue.command)
            stack = self.document.undo_stack
            queue.index, queue.count, queue.top = stack.index(), stack.count(), queue.command
        else:
            queue.command.add(job.result, change)
        if len(queue.results) < len(queue.spawners):
            self._start_queued(queue)
            return
        if len(queue.spawners) == 1:
            self._remember(job.result)
        self._end_queue(queue, "")

    def _end_queue(self, queue: _RunQueue, note: str) -> None:
        if queue.results:
            self.results = list(queue.results)
        self.panel.show_result(self.results, note)
        self._hide_running()

    # ---- editing -----------------------------------------------------------------------------
    def edit(self, index: int, spawner: Spawner, text: str) -> None:
        """Change the recipe at once (one undo step); its re-run goes in the background and lands in
        that step. An edit during a re-run supersedes it: only the latest recipe is run."""
        section = spawners_of(self.scene)
        old = list(section.spawners)
        new = list(old)
        renamed = None
        if index < 0:
            new.append(spawner)
            index = len(new) - 1
        else:
            if old[index].name != spawner.name:
                renamed = (old[index].name, spawner.name)
            new[index] = spawner
        section.spawners = new
        if renamed:
            move_ownership(section, *renamed)
        command = SetSpawnersCommand(self.scene, old, new, text, [], renamed)
        command.pending = spawner if self.auto_run else None
        self._push(command)
        # an edit of the spawner whose re-run has not landed joins that step (`mergeWith`)
        command = self._top()
        self.panel.set_spawners(new, select=index)
        if command.pending is not None:
            self._start(command)

    # ---- the background re-run ---------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether an edit's re-run is going (or waiting for a cancelled one to stop)."""
        return self.job is not None

    def busy_sentence(self) -> str | None:
        """Why the viewport refuses edits now (a run or re-run reads the scene), or None."""
        if self.job is None:
            return None
        name, _, _ = self._running_now()
        doing = "running" if isinstance(self.job.command, _RunQueue) and not self._waiting else "re-running"
        return (f"The spawner '{name}' is {doing}: the viewport edits again when it ends "
                "(Cancel in the Spawners panel stops it)")

    def _running_now(self) -> tuple[str, float | None, int]:
        """(the spawner the work is on, its fraction or None, how many edits wait after it)."""
        job = self.job
        if job.cancelled and self._waiting:  # superseded: what runs next is what the artist waits for
            return self._waiting[0].pending.name, None, len(self._waiting) - 1
        return job.spawner.name, job.fraction, len(self._waiting)

    def _landable(self, command) -> bool:
        """Whether a re-run may still land in `command`'s step: the step is done (not undone), and
        every step after it, done or undone, is a recipe edit whose own re-run has not landed (so
        nothing after it has read the forest the re-run changes)."""
        stack = self.document.undo_stack
        at = next((i for i in range(stack.index() - 1, -1, -1) if stack.command(i) is command), None)
        if at is None:
            return False
        return all(isinstance(c, SetSpawnersCommand) and not c.changes
                   for c in (stack.command(i) for i in range(at + 1, stack.count())))

    @staticmethod
    def _same_spawner(running: str, command: SetSpawnersCommand) -> bool:
        """Whether `command` edits the spawner named `running` (under that name before the edit)."""
        return (command.renamed[0] if command.renamed else command.pending.name) == running

    def _start(self, command: SetSpawnersCommand) -> None:
        """Re-run an edit's spawner in the background, or after the work going: an edit of the same
        spawner supersedes its re-run (and a Run), another spawner's waits for it to land."""
        if self.job is None:
            self._launch(command)
            return
        if command not in self._waiting and self.job.command is not command:
            running = self.job.command
            if isinstance(running, _RunQueue) or self._same_spawner(self.job.spawner.name, command):
                self.job.cancel()  # the running one stops at its next check
            self._waiting = [c for c in self._waiting if not self._same_spawner(c.pending.name, command)]
            self._waiting.append(command)
        elif self.job.command is command:  # an edit joined the running one's step: run it again
            self.job.cancel()
            self._waiting.insert(0, command)
        self._show_running()

    def _launch(self, command: SetSpawnersCommand) -> None:
        spawner = command.pending
        earlier = self._earlier(command.renamed[0] if command.renamed else spawner.name)
        self._run_job(spawner, command, earlier)

    def _show_running(self) -> None:
        job = self.job
        if job is None:
            self._hide_running()
            return
        if not self._waiting and isinstance(job.command, _RunQueue):
            queue, name = job.command, job.spawner.name
            done, total = len(queue.results), len(queue.spawners)
            of = f" ({done + 1} of {total})" if total > 1 else ""
            fraction = (done + job.fraction) / total
            self.panel.show_running(f"Running '{name}'{of}…", fraction)
            self.status_strip.show_running(f"Spawner '{name}' running{of}", fraction)
            return
        name, fraction, more = self._running_now()
        then = f", {more} more waiting" if more else ""
        self.panel.show_running(f"Re-running '{name}'{then}…", fraction)
        self.status_strip.show_running(f"Spawner '{name}' re-running{then}", fraction)

    def _hide_running(self) -> None:
        self.panel.hide_running()
        self.status_strip.hide()

    def cancel_rerun(self) -> None:
        """Stop the re-run (and those waiting): the recipes stay edited, the forest as it was."""
        if self.job is not None:
            self._waiting = []
            self.job.cancel()

    def stop(self) -> None:
        """Cancel the re-run and wait for it (the scene or the window closes, or a run must read
        the scene alone)."""
        job, self.job, self._waiting = self.job, None, []
        if job is not None:
            job.finished.disconnect(self._on_finished)
            job.wait()
            job.deleteLater()
        self._hide_running()

    def finish(self) -> None:
        """Let the re-run going land now, and those waiting after it (a save writes the forest the
        saved recipes make)."""
        while self.job is not None:
            job = self.job
            job.finished.disconnect(self._on_finished)
            job.join()
            self._on_finished(job)

    def _on_finished(self, job: BackgroundRun) -> None:
        self.job = None
        job.deleteLater()
        if isinstance(job.command, _RunQueue):
            if not self._waiting:
                self._run_landed(job)
                return
            self._end_queue(job.command, f"Run of '{job.spawner.name}' stopped by a recipe edit.")
        else:
            self._land(job)
        while self.job is None and self._waiting:
            command = self._waiting.pop(0)
            if self._landable(command):
                self._launch(command)
        if self.job is None:
            self._hide_running()

    def _land(self, job: BackgroundRun) -> None:
        """An edit's re-run ended: its change joins the edit's step, or the panel says why not."""
        name = job.spawner.name
        if job.error is not None:
            self.panel.show_result(self.results, f"'{name}' cannot run: {job.error}")
            return
        if self.scene is not job.scene:
            return
        if job.cancelled and any(self._same_spawner(name, c) or c is job.command for c in self._waiting):
            return  # superseded: the edit after it runs
        if not self._landable(job.command):
            self.panel.show_result(self.results, f"Re-run of '{name}' stopped: its step was undone or "
                                                 "another edit came after it (Run brings the forest up to "
                                                 "date).")
            return
        if job.cancelled or job.result is None:
            self.panel.show_result(self.results, f"Re-run of '{name}' cancelled: the recipe is changed, the "
                                                 "forest is as it was (Run brings it up to date).")
            return
        if job.stale:  # the scene changed under the run: run again over what it is now
            self._waiting.insert(0, job.command)
            return
        change = apply_result(self.scene, job.result, whole=True)
        job.command.changes.append(change)
        job.command.pending = None
        self.results = [job.result]
        self._remember(job.result)
        self.panel.show_result(self.results)

    def _on_index_changed(self, _index: int) -> None:
        self.refresh()
        if self._pushing or not isValid(self.document.undo_stack):  # pushing, or the stack going away
            return
        self._waiting = [c for c in self._waiting if self._landable(c)]
        if self.job is not None:
            command = self.job.command
            queued = isinstance(command, _RunQueue)
            if not (self._queue_current(command) if queued else self._landable(command)):
                self.job.cancel()  # its step was undone (or another came after it): its result is not wanted
        top = self._top()
        # an edit whose re-run was cancelled by an undo runs again when it is redone
        if isinstance(top, SetSpawnersCommand) and top.pending is not None \
                and not top.changes and self._landable(top) and top not in self._waiting \
                and (self.job is None or self.job.command is not top or self.job.cancelled):
            self._start(top)
        self._show_running()

    def _remember(self, result: SpawnResult) -> None:
        self._last_runs = {result.spawner: (result, self.document.undo_stack.index(), self._top())}

    def _earlier(self, name: str) -> SpawnResult | None:
        """The last whole run of spawner `name`, if nothing changed the scene since (no undo, and no
        step but recipe edits whose re-runs were superseded): its species before an edited one are
        decided the same way again."""
        found = self._last_runs.get(name)
        stack = self.document.undo_stack
        if found is None or found[1] > stack.index() or stack.command(found[1] - 1) is not found[2]:
            return None
        between = [stack.command(i) for i in range(found[1], stack.index())]
        if not all(isinstance(c, SetSpawnersCommand) and not c.changes for c in between):
            return None
        return found[0]

    def remove(self, index: int) -> None:
        self.stop()
        section = spawners_of(self.scene)
        if not 0 <= index < len(section.spawners):
            return
        old = list(section.spawners)
        gone = old[index]
        count = section.owned_count(gone.name)
        # an empty recipe of the same name takes back exactly what it placed
        _, change = run_and_apply(self.scene, Spawner(gone.name, gone.seed, gone.area, ()))
        section.removed.pop(gone.name, None)
        change.overrides_after = {}  # a removed spawner keeps no overrides, on redo either
        new = old[:index] + old[index + 1:]
        section.spawners = new
        text = f"Remove spawner '{gone.name}' and its {count:,} instance{'s' if count != 1 else ''}"
        self.document.undo_stack.push(SetSpawnersCommand(self.scene, old, new, text, [change]))
        self.panel.set_spawners(new, select=max(index - 1, 0))

    def bake(self, index: int) -> None:
        self.stop()
        section = spawners_of(self.scene)
        if 0 <= index < len(section.spawners):
            self.document.undo_stack.push(BakeSpawnerCommand(self.scene, section.spawners[index].name))
            self.panel.show_result(self.results, f"'{section.spawners[index].name}' baked: its instances "
                                                 "are painted foliage now.")

    # ---- viewport ----------------------------------------------------------------------------
    def _overlays(self):
        return getattr(self.viewport, "overlays", None)

    def _on_ground(self, xz: np.ndarray) -> np.ndarray:
        y = np.nan_to_num(self.scene.terrain.height_at(xz[:, 0], xz[:, 1]))
        return np.stack([xz[:, 0], y + 0.2, xz[:, 1]], axis=-1)

    def preview(self, index: int) -> None:
        """Markers over the ground the spawner may place on (its area, sampled)."""
        section = spawners_of(self.scene)
        overlays = self._overlays()
        if overlays is None or not 0 <= index < len(section.spawners):
            return
        area = section.spawners[index].area
        t = self.scene.terrain
        step = max(1, int(np.ceil(np.sqrt(t.rows * t.columns / MAX_MARKERS))))
        j, i = np.mgrid[0:t.rows:step, 0:t.columns:step]
        xz = np.stack([t.origin[0] + i.ravel() * t.spacing, t.origin[1] + j.ravel() * t.spacing], axis=-1)
        inside = np.ones(len(xz), bool)
        if area.layer is not None:
            w = t.layer_weight_at(area.layer, xz[:, 0], xz[:, 1])
            inside = np.zeros(len(xz), bool) if w is None else w >= area.min_weight
        elif area.polygon is not None:
            from model.foliage.volume import points_in_polygon

            inside = points_in_polygon(xz[:, 0], xz[:, 1], np.asarray(area.polygon, np.float64))
        overlays.points.set(AREA_MARKERS, self._on_ground(xz[inside]), AREA_COLOUR, 4.0)
        share = 100.0 * inside.mean() if len(inside) else 0.0
        self.window.statusBar().showMessage(f"'{section.spawners[index].name}' may place on {share:.0f} % of "
                                            "the terrain (shown in cyan)", 6000)

    def highlight(self, species_index: int, label: str) -> None:
        """Show the last run's candidates that one reason refused (or those placed)."""
        overlays = self._overlays()
        if overlays is None:
            return
        for result in self.results:
            for outcome in result.species:
                if outcome.index != species_index:
                    continue
                if label == "placed":
                    xz = outcome.xz[outcome.refusals == 0]
                elif label in outcome.labels:
                    xz = outcome.xz[outcome.refusals == outcome.labels.index(label)]
                else:
                    continue
                overlays.points.set(REFUSED_MARKERS, self._on_ground(xz[:MAX_MARKERS]), REFUSED_COLOUR, 6.0)
                self.window.statusBar().showMessage(f"{outcome.type}: {len(xz):,} candidates {label}", 6000)
                return

    def _clear_markers(self) -> None:
        overlays = self._overlays()
        if overlays is not None:
            overlays.points.remove(AREA_MARKERS)
            overlays.points.remove(REFUSED_MARKERS)


@dataclass
class _RunQueue:
    """A Run's spawners, those run so far and the undo step they went into."""

    spawners: list[Spawner]
    text: str
    index: int  # the undo stack's index and count the runs land at
    count: int
    top: object  # the command at that index (None at the bottom)
    results: list[SpawnResult] = field(default_factory=list)
    command: RunSpawnersCommand | None = None


def install(main_window) -> SpawnerEditor:
    """The window's spawner editor, created on first call."""
    editor = getattr(main_window, "spawner_editor", None)
    if editor is None:
        editor = SpawnerEditor(main_window)
        main_window.spawner_editor = editor
    return editor
