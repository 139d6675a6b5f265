"""Grow a forest: growth passes over a zone with a rules folder, then the grown zone as a scene."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from model.errors import FormatError
from model.scene import Scene
from widgets.progress import BatchProgress, Relay, in_background

ONE_ZONE, ALL_ZONES, LISTED_ZONES = "one", "all", "ids"
# What the Grow dialog was last given (this session): offered again, after an error too.
_LAST: dict[str, Any] = {}


class GrowForestDialog(QDialog):
    """Zone folder, which zones (one as a scene, or many into a folder), rules folder, passes, seed
    and fertility."""

    def __init__(self, parent: QWidget | None = None, with_zone: bool = True) -> None:
        super().__init__(parent)
        self.setWindowTitle("Grow a forest from a zone" if with_zone else "Grow a forest on this scene")
        self.zone_edit = self._folder_row("Zone folder holding {layer}.{id}.bin files")
        self.rules_edit = self._folder_row("Plant rules folder (*.txt)")
        self.passes = QSpinBox()
        self.passes.setRange(1, 10000)
        self.passes.setValue(20)
        self.passes.setToolTip("Nature passes to run over every cube of the zone")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(1)
        self.seed.setToolTip("The same seed grows the same forest")
        self.fertility = QDoubleSpinBox()
        self.fertility.setRange(0, 100)
        self.fertility.setValue(10)
        self.fertility.setSuffix(" %")
        self.fertility.setToolTip("Share of each cube's tiles the zone aims to fill with blocking plants")
        self.drop_unknown = QCheckBox("Remove plants that have no rule in the set")
        self.drop_unknown.setToolTip("Off: plants of types the rules folder does not cover are kept as they "
                                     "are. On: they are removed, as the game's validation does")
        self.zones = QComboBox()
        self.zones.addItem("One zone, opened as a scene", ONE_ZONE)
        self.zones.addItem("Every zone of the folder, into a folder", ALL_ZONES)
        self.zones.addItem("These zones, into a folder", LISTED_ZONES)
        self.zones.setToolTip("Several zones grow as one batch job (one worker process per core), as "
                              "`boscage plants grow --zones` does, and their grown layers are written to "
                              "a folder")
        self.ids_edit = QLineEdit()
        self.ids_edit.setPlaceholderText("3, 7, 12")
        self.ids_edit.setToolTip("Zone ids, separated by commas")
        self.out_edit = self._folder_row("Folder for the grown layers ({layer}.{id}.bin files)")
        self.zones.currentIndexChanged.connect(self._zones_changed)
        form = QFormLayout(self)
        if with_zone:
            form.addRow("Zone folder:", self.zone_edit.parentWidget())
            form.addRow("Grow:", self.zones)
            form.addRow("Zone ids:", self.ids_edit)
            form.addRow("Grown layers to:", self.out_edit.parentWidget())
        else:
            rows = (self.zone_edit.parentWidget(), self.zones, self.ids_edit, self.out_edit.parentWidget())
            for row in rows:
                row.hide()
            self.drop_unknown.hide()  # a forest grown on a scene starts with no plants
        form.addRow("Rules folder:", self.rules_edit.parentWidget())
        form.addRow("Passes:", self.passes)
        form.addRow("Seed:", self.seed)
        form.addRow("Fertility:", self.fertility)
        if with_zone:
            form.addRow("", self.drop_unknown)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._zones_changed()

    def mode(self) -> str:
        return self.zones.currentData()

    def fill(self, zone_folder=None, rules_folder=None) -> None:
        """The last values given; the folders open in their windows (given here) win over them."""
        last = _LAST
        self.zone_edit.setText(str(zone_folder or last.get("zone", "")))
        self.rules_edit.setText(str(rules_folder or last.get("rules", "")))
        self.out_edit.setText(str(last.get("out", "")))
        self.ids_edit.setText(str(last.get("ids", "")))
        for key in ("passes", "seed", "fertility"):
            if key in last:
                getattr(self, key).setValue(last[key])
        self.drop_unknown.setChecked(bool(last.get("drop", False)))

    def remember(self) -> None:
        """Keep what was given for the next Grow (whatever comes of this one)."""
        _LAST.update(zone=self.zone_edit.text(), rules=self.rules_edit.text(), out=self.out_edit.text(),
                     ids=self.ids_edit.text(), passes=self.passes.value(),
                     seed=self.seed.value(), fertility=self.fertility.value(),
                     drop=self.drop_unknown.isChecked())

    def _zones_changed(self) -> None:
        mode = self.mode()
        self.ids_edit.setEnabled(mode == LISTED_ZONES)
        self.out_edit.parentWidget().setEnabled(mode != ONE_ZONE)

    def zone_ids(self) -> list[int] | None:
        """The listed ids (None: every zone of the folder); ValueError naming a bad entry."""
        if self.mode() != LISTED_ZONES:
            return None
        ids = []
        for part in self.ids_edit.text().replace(";", ",").split(","):
            if part.strip():
                if not part.strip().isdigit():
                    raise ValueError(f"zone ids are whole numbers separated by commas, not {part.strip()!r}")
                ids.append(int(part))
        if not ids:
            raise ValueError("list the zones to grow (e.g. 3, 7, 12), or choose every zone of the folder")
        return sorted(set(ids))

    def _folder_row(self, tip: str) -> QLineEdit:
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        edit = QLineEdit()
        edit.setToolTip(tip)
        browse = QPushButton("Browse…")
        browse.clicked.connect(
            lambda: edit.setText(QFileDialog.getExistingDirectory(self, tip) or edit.text()))
        row.addWidget(edit, 1)
        row.addWidget(browse)
        return edit


def grow_forest_scene(parent: QWidget | None, zone_folder: str | Path | None = None,
                      rules_folder: str | Path | None = None, passes: int | None = None,
                      seed: int = 1, fertility: float = 10.0, drop_unknown: bool = False) -> Scene | None:
    """Ask what to grow (unless given), grow it with progress and cancel, and return the scene."""
    from model.plants.growth import Cancelled, GrowthOptions
    from model.plants.loader import load_growable_rules
    from model.plants.zone_growth import grow_zone
    from model.zones.scene_import import zone_to_scene
    from widgets.zone_open import ask_zone, warn_left_out

    if zone_folder is None or rules_folder is None or passes is None:
        dialog = GrowForestDialog(parent)
        dialog.fill(zone_folder, rules_folder)
        if dialog.exec() != QDialog.Accepted:
            return None
        dialog.remember()
        zone_folder, rules_folder = dialog.zone_edit.text(), dialog.rules_edit.text()
        passes, seed, fertility = dialog.passes.value(), dialog.seed.value(), dialog.fertility.value()
        drop_unknown = dialog.drop_unknown.isChecked()
        if dialog.mode() != ONE_ZONE:
            try:
                ids = dialog.zone_ids()
            except ValueError as e:
                QMessageBox.critical(parent, "Cannot grow a forest", str(e))
                return None
            grow_zones_to_folder(parent, zone_folder, rules_folder, dialog.out_edit.text(), ids, passes,
                                 seed, fertility, drop_unknown)
            return None  # the grown zones are files: the open scene stays as it is
    try:
        if not Path(rules_folder).is_dir():
            raise FormatError(rules_folder, None, "plant rules folder not found")
        growable = load_growable_rules(rules_folder)  # a broken file is left out, not the whole folder
        rules = growable.rules
        zone = ask_zone(parent, zone_folder, needs=("altitude", "plants"))  # what growth reads
        if zone is None:
            return None
        warn_left_out(parent, zone)
        broken = growable.broken_text(dict(zone.plant_names)
                                      | {i: r.name or r.type_name for i, r in rules.items()})
        if not confirm_missing_rules(parent, zone, rules, rules_folder, drop_unknown, broken):
            return None
        options = GrowthOptions(fertility=fertility, drop_unknown=drop_unknown)
        try:
            with BatchProgress(parent, f"Growing zone {zone.zone_id}…", "passes",
                               minimum_duration_ms=300) as progress:
                step, cancelled = progress.passes(passes)
                grown = grow_zone(zone, rules, passes, seed, options, progress=step, cancelled=cancelled)
        except Cancelled:
            return None
        return zone_to_scene(grown, rules=rules, name=f"zone {zone.zone_id:04d} grown")
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot grow a forest", str(e))
        return None


def grow_zones_to_folder(parent: QWidget | None, zone_folder: str | Path, rules_folder: str | Path,
                         out_folder: str | Path, ids: list[int] | None = None, passes: int = 20,
                         seed: int = 1, fertility: float = 10.0, drop_unknown: bool = False,
                         workers: int | None = None) -> list[Path] | None:
    """Grow several zones (`ids`, or every zone with altitude and plants) into `out_folder` as the
    batch job `boscage plants grow --zones` runs, with the same bytes: one task per zone, on one
    worker process per core when there are several (`workers` overrides), with a progress dialog
    counting zones, their rate and the time left. Cancel stops the workers and writes nothing.
    Returns the files written, or None when cancelled or refused (refusals are one message)."""
    from model.batch import BatchCancelled
    from model.plants.grow_batch import NEEDS, GrowJob, grow_zones, missing_rules_by_zone, workers_for
    from model.plants.growth import GrowthOptions
    from model.plants.loader import load_growable_rules
    from model.zones import no_zone_with, zone_ids
    from model.zones.names import PLANT_TYPES

    try:
        zones, rules, out = Path(zone_folder), Path(rules_folder), Path(out_folder)
        if not str(out_folder).strip():
            raise ValueError("choose a folder for the grown layers")
        if not zones.is_dir():
            raise FormatError(zones, None, "zone folder not found")
        if out.resolve() == zones.resolve():
            raise ValueError("the grown layers need another folder than the zones': they would replace "
                             "the originals")
        if not rules.is_dir():
            raise FormatError(rules, None, "plant rules folder not found")
        # a folder where no rule loads is refused here, before any worker starts
        growable = load_growable_rules(rules)
        broken = growable.broken_text(
            dict(PLANT_TYPES) | {i: r.name or r.type_name for i, r in growable.rules.items()})
        present = zone_ids(zones, NEEDS)
        if not present:
            raise no_zone_with(zones, NEEDS)
        if ids is None:
            ids = present
        missing = sorted(set(ids) - set(present))
        if missing:
            raise FormatError(zones, None, f"no zone {', '.join(map(str, missing))} with altitude and plants "
                                           f"layers here (it has {', '.join(map(str, present))})")
        options = GrowthOptions(fertility=fertility, drop_unknown=drop_unknown)
        job = GrowJob(zones, rules, passes, seed, options)
        # said before any worker starts, as for one zone; Cancel there grows nothing
        if not confirm_missing_rules_of_zones(parent, missing_rules_by_zone(job, ids), rules, drop_unknown,
                                              broken):
            return None
        workers = workers_for(len(ids), workers)
        label = f"Growing {len(ids)} zone{'s' if len(ids) != 1 else ''} for {passes} passes…"
        try:
            with BatchProgress(parent, label, "zones",
                               "starting the worker processes…" if workers != 1 else "") as progress:
                warnings = grow_zones(job, ids, out, workers, None, None, False, progress.step)
        except BatchCancelled:
            return None  # nothing was written: results are written once every zone is grown
        written = sorted(p for p in out.iterdir() if p.is_file() and any(f".{i:04d}." in p.name for i in ids))
        found = [f"zone {k}: {w}" for k, ws in warnings.items() for w in ws]
        text = (f"Grew {len(ids)} zone{'s' if len(ids) != 1 else ''} ({', '.join(map(str, ids))}) for "
                f"{passes} passes, seed {seed}, into {out}.")
        if found:
            text += "\n\nLeft out while reading:\n" + "\n".join(f"• {w}" for w in found)
        QMessageBox.information(parent, "Zones grown", text)
        return written
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot grow a forest", str(e))
        return None


def confirm_missing_rules(parent: QWidget | None, zone: Any, rules: dict, rules_folder: str | Path,
                          drop_unknown: bool, broken: str | None = None) -> bool:
    """Before growing: say which rule files are left out (`broken`), which plant types on the zone
    have no rule (tiles per type) and what growing does with them; True to go on."""
    from model.plants.zone_growth import missing_rules

    names = dict(zone.plant_names) | {i: r.name or r.type_name for i, r in rules.items()}
    missing = {names.get(k, f"#{k}"): n for k, n in missing_rules(zone, rules).items()}
    return confirm_missing_rules_of_zones(parent, {zone.zone_id: missing} if missing else {}, rules_folder,
                                          drop_unknown, broken)


def confirm_missing_rules_of_zones(parent: QWidget | None, missing: dict[int, dict[str, int]],
                                   rules_folder: str | Path, drop_unknown: bool,
                                   broken: str | None = None) -> bool:
    """`confirm_missing_rules` for many zones at once ({zone id: {plant type: tiles}}, the zones
    with any): the rule files left out, then one sentence per zone, in the single zone's words;
    True to go on."""
    from model.plants.zone_growth import missing_rules_text

    if not missing and broken is None:
        return True
    lines = [f"{broken}.", ""] if broken is not None else []
    lines += [f"{rules_folder} has no rule for {len(m)} plant type{'s' if len(m) != 1 else ''} "
             f"on zone {zone_id}: {missing_rules_text(m)}." for zone_id, m in sorted(missing.items())]
    fate = ("They will be removed (as the game's validation does)." if drop_unknown else
            "They will be kept as they are; tick “Remove plants that have no rule” to remove them.")
    if not missing:
        fate = "Every other rule grows."
    title = "Plants without a rule" if missing else "Rule files left out"
    answer = QMessageBox.warning(
        parent, title, "\n".join(lines) + f"\n\n{fate}",
        QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Ok)
    return answer == QMessageBox.StandardButton.Ok


def grow_forest_on_scene(main_window: Any, rules_folder: str | Path | None = None,
                         passes: int | None = None, seed: int = 1, fertility: float = 10.0) -> Scene | None:
    """A new scene: the open scene's terrain with a forest grown on it (ground types from paint layers
    named after them, e.g. "LowlandA" or "sand")."""
    from model.plants.forest import grow_forest
    from model.plants.growth import Cancelled, GrowthOptions
    from model.plants.loader import load_growable_rules

    parent = main_window if isinstance(main_window, QWidget) else None
    document = getattr(main_window, "document", None)
    scene = getattr(document, "scene", None)
    if scene is None:
        QMessageBox.critical(parent, "Cannot grow a forest", "Open a scene first: the forest grows on its "
                             "terrain.")
        return None
    if rules_folder is None or passes is None:
        dialog = GrowForestDialog(parent, with_zone=False)
        dialog.fill(None, rules_folder)
        if dialog.exec() != QDialog.Accepted:
            return None
        dialog.remember()
        rules_folder = dialog.rules_edit.text()
        passes, seed, fertility = dialog.passes.value(), dialog.seed.value(), dialog.fertility.value()
    try:
        if not Path(rules_folder).is_dir():
            raise FormatError(rules_folder, None, "plant rules folder not found")
        # a rules folder is hundreds of files: read on a helper thread, the window kept drawn
        growable = in_background(lambda: load_growable_rules(rules_folder))
        rules = growable.rules
        broken = growable.broken_text({i: r.name or r.type_name for i, r in rules.items()})
        if broken is not None and not confirm_missing_rules_of_zones(parent, {}, rules_folder, False, broken):
            return None
        try:
            with BatchProgress(parent, f"Growing a forest on {scene.name}…", "passes",
                               at_once=True) as progress:
                step, _ = progress.passes(passes)
                # on a helper thread, the growth and the scene built from it (its first view too):
                # the window stays drawn; the dialog keeps the open scene from being edited meanwhile
                relay = Relay(step, lambda: progress.dialog.wasCanceled())

                def work(report: Relay) -> Scene:
                    from widgets.viewport import prepare_opening

                    grown = grow_forest(scene, rules, passes, seed, GrowthOptions(fertility=fertility),
                                        progress=report, cancelled=lambda: not report.alive())
                    prepare_opening(grown)
                    return grown

                return relay.run(work)
        except Cancelled:
            return None
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot grow a forest", str(e))
        return None
