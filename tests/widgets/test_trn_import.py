"""File ▸ Import ▸ TRN as Scene with the batch jobs' progress dialog: tiles done, rate and time left,
in memory and written tile by tile (on worker processes too), and Cancel that stops the workers at
once, leaves nothing written and the open scene as it was."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.widgets.test_plant_grow import (  # noqa: F401 (a fixture)
    _workers,
    asks_after_cancel,
    dask_offload_thread,
    record_asks,
)
from widgets import import_target

TILES = re.compile(r"(\d+) of (\d+) tiles done · [\d.,]+ tiles/s · about \d+ (s|min \d+ s) left")
COUNT = re.compile(r"(\d+) of (\d+) tiles done")


@pytest.fixture(scope="module")
def planet(tmp_path_factory) -> Path:
    from model.trn.synthetic import realistic_stack

    path = tmp_path_factory.mktemp("trn") / "planet.trn"
    path.write_bytes(realistic_stack(24, seed=5, extent=1500.0).to_bytes())
    return path


def _watch(cancel_at: int | None, seen: dict) -> None:
    """Record the progress dialog's labels; press its Cancel once `cancel_at` tiles are done."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QProgressDialog, QPushButton

    def watch() -> None:
        progress = next((w for w in QApplication.topLevelWidgets()
                         if isinstance(w, QProgressDialog) and w.isVisible()
                         and w.labelText().startswith("Importing")), None)
        if progress is not None:
            seen["labels"].append(progress.labelText())
            cancel = next((b for b in progress.findChildren(QPushButton) if b.text() == "Cancel"), None)
            # the job runs on other threads: the first look at or past `cancel_at` presses Cancel
            if cancel_at is not None and progress.value() >= cancel_at and "at" not in seen and cancel:
                seen["at"] = progress.value()
                cancel.click()
                return
        if seen.get("running", True):
            QTimer.singleShot(5, watch)

    QTimer.singleShot(0, watch)


def _state(main_window) -> tuple:
    doc = main_window.document
    return doc.scene, doc.undo_stack.count(), doc.undo_stack.isClean(), doc.path


def test_an_import_in_memory_shows_tiles_rate_and_time_left_and_cancels(qtbot, main_window, planet) -> None:
    from model.trn.evaluator import Region
    from widgets.trn_import import import_trn_scene

    before = _state(main_window)
    seen: dict = {"labels": []}
    _watch(2, seen)
    region = Region.from_bounds(-512, -512, 512, 512, 1.0)  # 1,025² poles: 3 x 3 tiles of 512²
    assert import_trn_scene(main_window, planet, region) is None
    seen["running"] = False
    assert 2 <= seen["at"] < 9  # cancelled on the way, at the first look past two tiles
    found = [TILES.search(t) for t in seen["labels"]]
    assert any(m and m.group(2) == "9" for m in found), seen["labels"][:4]
    assert all(t.startswith(f"Importing {planet.name}: evaluating") for t in seen["labels"])
    assert _state(main_window) == before


def test_a_written_import_cancels_its_workers_at_once_and_leaves_nothing(
        qtbot, dask_offload_thread, main_window, planet, tmp_path, monkeypatch) -> None:  # noqa: F811
    from PySide6.QtWidgets import QFileDialog

    from model.formats import tiles
    from model.trn.evaluator import Region
    from widgets import trn_import

    monkeypatch.setattr(import_target, "LARGE_IMPORT_CELLS", 100)  # written tile by tile
    monkeypatch.setattr(tiles, "TILE", 128)
    # each tile takes a while, as on a busy machine: on a quiet one the 49 small tiles were all
    # evaluated before the first look at the dialog could press Cancel
    from model.batch import releases_gil
    from model.trn import to_scene

    real_tile = to_scene.scene_tile

    @releases_gil
    def slow_tile(*args):
        time.sleep(0.02)
        return real_tile(*args)

    monkeypatch.setattr(to_scene, "scene_tile", slow_tile)
    out = tmp_path / "scene" / "planet.boscage"
    out.parent.mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    region = Region.from_bounds(-400, -400, 400, 400, 1.0)  # 801² poles: 7 x 7 scene tiles
    before, children = _state(main_window), _workers()

    # in this process: the tiles, their rate and the time left; Cancel removes what was written
    seen: dict = {"labels": []}
    _watch(3, seen)
    assert trn_import.import_trn_scene(main_window, planet, region) is None
    seen["running"] = False
    # the rate and time left come once two tiles are in (the in-memory test reads them); a Cancel
    # at the first look past three may come before that
    assert any((m := COUNT.search(t)) and m.group(2) == "49" for t in seen["labels"]), seen["labels"][:4]
    assert list(out.parent.iterdir()) == [] and _state(main_window) == before

    # on one worker thread per core (nothing to start); Cancel once a tile is in stops them at once
    monkeypatch.setattr(trn_import, "BATCH_POLES", 1)
    seen = {"labels": []}
    _watch(1, seen)
    asks = record_asks(monkeypatch)
    assert trn_import.import_trn_scene(main_window, planet, region) is None
    seen["running"] = False
    # stopped at the first look that saw Cancel; only tiles already computing when it was pressed
    # (one per worker thread) may have reported before that look
    from model.batch import default_workers

    # only the tiles computing when it was pressed may still report; when the batch's own listener
    # (between tiles) saw Cancel before any look at the dialog, no look came after it
    saw = any(a[-1] is (a[0] == "cancelled") for a in asks)
    late = asks_after_cancel(asks) if saw else []
    assert all(a[0] == "step" for a in late) and len(late) <= default_workers(), asks[-5:]
    # progress reaches the dialog in batches (every 20 ms), so the count can jump past the mark by
    # more than the workers; what holds is that the import stopped short of the whole region
    assert max(a[1] for a in asks if a[0] == "step") < 49, asks[-5:]
    assert not any("starting" in t for t in seen["labels"])
    deadline = time.monotonic() + 10
    while _workers() - children and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _workers() - children
    assert list(out.parent.iterdir()) == [] and _state(main_window) == before
