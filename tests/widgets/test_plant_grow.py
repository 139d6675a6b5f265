"""File ▸ Import ▸ Grow a Forest from a Zone over several zones: the batch job `boscage plants grow
--zones` runs, on a real local cluster, with a progress dialog whose Cancel stops the workers and
changes nothing, and a finished run that writes the command line's bytes."""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

import psutil
import pytest

from app.extensions import importers
from model.zones import write_zone
from model.zones.sample import sample_zone

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "plants"
PASSES, SEED = 60, 4
ZONES = ((3, 1), (7, 2), (12, 3), (20, 4))


@pytest.fixture(scope="module")
def zones(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("zones")
    for zone_id, seed in ZONES:  # 256² at 60 passes: a fraction of a second each
        write_zone(sample_zone(zone_id, 256, seed=seed), folder)
    return folder


@pytest.fixture(scope="module")
def big_last(tmp_path_factory) -> Path:
    """Two small zones, then a 1024² one that grows for seconds: a Cancel lands while it runs."""
    folder = tmp_path_factory.mktemp("big_last")
    for zone_id, size in ((3, 128), (7, 128), (12, 1024)):
        write_zone(sample_zone(zone_id, size, seed=zone_id), folder)
    return folder


@pytest.fixture()
def dask_offload_thread():
    """Dask's one process-wide offload thread, started before the window fixture counts threads:
    it lives as long as the process, like Qt's own, and is no job's leftover."""
    from distributed.utils import _offload_executor

    _offload_executor.submit(lambda: None).result()


def digest(folder: Path) -> dict[str, str]:
    files = sorted(p for p in folder.iterdir() if p.is_file())
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def _drive(qtbot, zones: Path, out: Path, cancel_after: int | None, seen: dict) -> None:
    """Fill the real Grow dialog (every zone, into `out`) and press OK; then watch the progress
    dialog and, with `cancel_after`, press its Cancel once that many zones are done."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDialogButtonBox, QProgressDialog, QPushButton

    from widgets.plant_grow import ALL_ZONES, GrowForestDialog

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, GrowForestDialog):
            QTimer.singleShot(20, fill)
            return
        try:
            assert not dialog.out_edit.isEnabled()  # one zone opens as a scene: no folder asked
            dialog.zone_edit.setText(str(zones))
            dialog.rules_edit.setText(str(SAMPLE))
            dialog.zones.setCurrentIndex(dialog.zones.findData(ALL_ZONES))
            assert dialog.out_edit.isEnabled() and not dialog.ids_edit.isEnabled()
            dialog.out_edit.setText(str(out))
            dialog.passes.setValue(PASSES)
            dialog.seed.setValue(SEED)
        except Exception:
            dialog.reject()
            raise
        dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok).click()
        QTimer.singleShot(20, watch)

    def watch() -> None:
        progress = next((w for w in QApplication.topLevelWidgets()
                         if isinstance(w, QProgressDialog) and w.isVisible()), None)
        if progress is not None:
            seen["labels"].add(progress.labelText())
            seen["maximum"] = progress.maximum()
            if cancel_after is not None and progress.value() >= cancel_after and "cancelled_at" not in seen:
                seen["cancelled_at"] = progress.value()
                button = next(b for b in progress.findChildren(QPushButton) if b.text() == "Cancel")
                button.click()
                return
        if seen.get("running", True):
            QTimer.singleShot(10, watch)

    QTimer.singleShot(0, fill)


def _workers() -> set[int]:
    """Worker processes (multiprocessing's resource tracker stays for the process's life)."""
    found = set()
    for p in psutil.Process().children(recursive=True):
        try:
            if "spawn_main" in " ".join(p.cmdline()):
                found.add(p.pid)
        except psutil.Error:  # gone while we looked
            pass
    return found


def record_asks(monkeypatch) -> list[tuple]:
    """Every look a job takes at its progress dialog, in order: ("step", done, total, went on) and
    ("cancelled", cancelled). Cancel is prompt when the job stops at the first look that sees it,
    whatever the machine's speed: the dialog is asked every POLL_S while tasks run, so a job that
    waited for its running tasks would look again and again, and count them done."""
    from widgets.progress import BatchProgress

    asks: list[tuple] = []
    step, cancelled = BatchProgress.step, BatchProgress.cancelled

    def recorded_step(self, done: int, total: int) -> bool:
        went_on = step(self, done, total)
        asks.append(("step", done, total, went_on))
        return went_on

    def recorded_cancelled(self) -> bool:
        stop = cancelled(self)
        asks.append(("cancelled", stop))
        return stop

    monkeypatch.setattr(BatchProgress, "step", recorded_step)
    monkeypatch.setattr(BatchProgress, "cancelled", recorded_cancelled)
    return asks


def asks_after_cancel(asks: list[tuple]) -> list[tuple]:
    """The looks taken after the first one that saw Cancel."""
    seen = next(i for i, a in enumerate(asks) if a[-1] is (a[0] == "cancelled"))
    return asks[seen + 1:]


def test_growing_every_zone_cancels_the_workers_then_writes_the_command_lines_bytes(
        qtbot, dask_offload_thread, main_window, zones, big_last, tmp_path, monkeypatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    from app.cli import run_cli

    infos, errors, warned = [], [], []
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.information", lambda p, t, text: infos.append(text))
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.critical", lambda p, t, text: errors.append(text))
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.warning",
                        lambda p, t, text, *a: warned.append(text) or QMessageBox.StandardButton.Ok)
    importer = next(i for i in importers() if i.key == "plant_forest")
    scene, undo = main_window.document.scene, main_window.document.undo_stack
    steps, clean = undo.count(), undo.isClean()
    children = _workers()

    # Cancel while the workers start: heard then (the dialog is asked every 0.1 s), nothing is left.
    seen: dict = {"labels": set()}
    _drive(qtbot, big_last, tmp_path / "early", 0, seen)
    main_window.run_importer(importer)
    seen["running"] = False
    assert seen["cancelled_at"] == 0 and not errors and not infos
    assert any("starting the worker processes" in text for text in seen["labels"])
    assert not _workers() - children and not (tmp_path / "early").exists()

    # Cancel once a zone is grown, while the big one grows: the workers stop at once (not when the
    # zone is done), nothing is written, the open scene stays as it was.
    out = tmp_path / "grown"
    seen = {"labels": set()}
    _drive(qtbot, big_last, out, 1, seen)
    asks = record_asks(monkeypatch)
    main_window.run_importer(importer)
    seen["running"] = False
    assert not errors and not infos
    done = seen["cancelled_at"]
    assert 1 <= done < 3 and seen["maximum"] == 3
    # stopped at the first look after Cancel, the big zone never done: not when the zone was grown
    assert asks_after_cancel(asks) == [] and max(a[1] for a in asks if a[0] == "step") < 3, asks[-5:]
    assert any("of 3 zones done" in text for text in seen["labels"])
    deadline = time.monotonic() + 10
    while _workers() - children and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _workers() - children, [psutil.Process(p).cmdline() for p in _workers() - children]
    assert not out.exists() or not any(out.iterdir())
    assert main_window.document.scene is scene and undo.count() == steps and undo.isClean() == clean

    # Run to the end: the same files, byte for byte, as the command line's one-process run.
    seen = {"labels": set()}
    _drive(qtbot, zones, out, None, seen)
    main_window.run_importer(importer)
    seen["running"] = False
    assert not errors and len(infos) == 1 and f"Grew {len(ZONES)} zones" in infos[0]
    # plants without a rule were said before growing, zone by zone, in the single zone's words
    said = warned[-1]
    first = rf"{re.escape(str(SAMPLE))} has no rule for 1 plant type on zone 3: GrassB [\d,]+ tiles\.\n"
    assert re.match(first, said), said
    assert said.count(" has no rule for ") == len(ZONES) and "They will be kept as they are" in said
    assert any("zones/s" in text and "left" in text for text in seen["labels"])  # rate and time left
    assert main_window.document.scene is scene and undo.count() == steps
    cli = tmp_path / "cli"
    assert run_cli(["plants", "grow", "--zones", str(zones), "--all", "--rules", str(SAMPLE), "--passes",
                    str(PASSES), "--seed", str(SEED), "--out", str(cli), "--workers", "1"]) == 0
    assert digest(out) == digest(cli) and len(digest(cli)) == len(digest(zones))


def test_listed_zones_are_checked_before_any_worker_starts(qtbot, zones, tmp_path, monkeypatch) -> None:
    from widgets.plant_grow import LISTED_ZONES, GrowForestDialog, grow_zones_to_folder

    errors: list[str] = []
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.critical", lambda p, t, text: errors.append(text))
    assert grow_zones_to_folder(None, zones, SAMPLE, tmp_path / "o", [3, 5, 99], passes=1) is None
    assert errors[-1] == f"{zones}: no zone 5, 99 with altitude and plants layers here (it has 3, 7, 12, 20)"
    assert grow_zones_to_folder(None, zones, SAMPLE, zones, [3], passes=1) is None
    assert "would replace the originals" in errors[-1]
    assert grow_zones_to_folder(None, zones, SAMPLE, "", [3], passes=1) is None
    assert errors[-1] == "choose a folder for the grown layers"
    # plants without a rule: said first; Cancel there grows nothing and starts no worker
    from PySide6.QtWidgets import QMessageBox

    warned: list[str] = []
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.warning",
                        lambda p, t, text, *a: warned.append(text) or QMessageBox.StandardButton.Cancel)
    before = _workers()
    assert grow_zones_to_folder(None, zones, SAMPLE, tmp_path / "o", [3, 7], passes=1) is None
    assert "has no rule for 1 plant type on zone 3: GrassB" in warned[-1] and "on zone 7: " in warned[-1]
    assert not (tmp_path / "o").exists() and _workers() == before
    dialog = GrowForestDialog()
    qtbot.addWidget(dialog)
    dialog.zones.setCurrentIndex(dialog.zones.findData(LISTED_ZONES))
    dialog.ids_edit.setText("12, 3;3")
    assert dialog.zone_ids() == [3, 12]
    dialog.ids_edit.setText("3, x7")
    with pytest.raises(ValueError, match="not 'x7'"):
        dialog.zone_ids()


def test_one_listed_zone_grows_here_and_matches_the_command_line(qtbot, zones, tmp_path, monkeypatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    from app.cli import run_cli
    from widgets.plant_grow import grow_zones_to_folder

    monkeypatch.setattr("widgets.plant_grow.QMessageBox.information", lambda *a: None)
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.warning", lambda *a: QMessageBox.StandardButton.Ok)
    before = _workers()
    written = grow_zones_to_folder(None, zones, SAMPLE, tmp_path / "gui", [7], passes=3, seed=2)
    assert written and all(".0007." in p.name for p in written)
    assert _workers() == before  # one zone: no cluster is worth starting
    assert run_cli(["plants", "grow", "--zones", str(zones), "--id", "7", "--rules", str(SAMPLE), "--passes",
                    "3", "--seed", "2", "--out", str(tmp_path / "cli")]) == 0
    assert digest(tmp_path / "gui") == digest(tmp_path / "cli")


def test_one_zone_grown_as_a_scene_counts_passes_with_rate_and_cancels(qtbot, big_last, monkeypatch) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox, QProgressDialog, QPushButton

    from widgets.plant_grow import grow_forest_scene

    monkeypatch.setattr("widgets.plant_grow.QMessageBox.warning", lambda *a: QMessageBox.StandardButton.Ok)
    monkeypatch.setattr("widgets.zone_open.QInputDialog.getItem", lambda *a: ("12", True))  # the big zone
    seen: dict = {"labels": []}

    def watch() -> None:
        progress = next((w for w in QApplication.topLevelWidgets()
                         if isinstance(w, QProgressDialog) and w.isVisible()), None)
        if progress is not None:
            seen["labels"].append(progress.labelText())
            if progress.value() >= 4:
                seen["at"] = progress.value()
                next(b for b in progress.findChildren(QPushButton) if b.text() == "Cancel").click()
                return
        QTimer.singleShot(10, watch)

    QTimer.singleShot(0, watch)
    assert grow_forest_scene(None, big_last, SAMPLE, passes=400, seed=1) is None
    assert 4 <= seen["at"] < 400
    assert any(" of 400 passes done · " in t and "passes/s" in t and "left" in t for t in seen["labels"])


def test_a_broken_rule_chain_is_left_out_and_named_before_growing(qtbot, zones, tmp_path,
                                                                  monkeypatch) -> None:
    import shutil

    from PySide6.QtWidgets import QMessageBox

    from app.cli import run_cli
    from widgets.plant_grow import grow_zones_to_folder

    rules = tmp_path / "rules"
    shutil.copytree(SAMPLE, rules)
    (rules / "electroplant_t2.txt").write_text("source=$electroplant_hi.txt\nindex=n14\n")
    asked: list[str] = []
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.information", lambda *a: None)
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.critical",
                        lambda p, t, text: asked.append("ERROR " + text))
    monkeypatch.setattr("widgets.plant_grow.QMessageBox.warning",
                        lambda p, t, text, *a: asked.append(text) or QMessageBox.StandardButton.Ok)
    written = grow_zones_to_folder(None, zones, rules, tmp_path / "gui", [7], passes=3, seed=2)
    assert written and len(asked) == 1
    assert "electroplant_t2.txt (missing rule file 'electroplant_hi.txt'" in asked[0]
    assert "plants left without a rule: ElectroPlant (type 14" in asked[0]
    # the rest grows as the sample folder alone does
    assert run_cli(["plants", "grow", "--zones", str(zones), "--id", "7", "--rules", str(SAMPLE), "--passes",
                    "3", "--seed", "2", "--out", str(tmp_path / "cli")]) == 0
    assert digest(tmp_path / "gui") == digest(tmp_path / "cli")
