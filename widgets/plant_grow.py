"""Grow a forest: growth passes over a zone with a rules folder, then the grown zone as a scene."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
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
from widgets.progress import ModalProgress


class GrowForestDialog(QDialog):
    """Zone folder, rules folder, passes, seed and fertility."""

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
        form = QFormLayout(self)
        if with_zone:
            form.addRow("Zone folder:", self.zone_edit.parentWidget())
        else:
            self.zone_edit.parentWidget().hide()
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
    from model.plants.loader import load_rules
    from model.plants.zone_growth import grow_zone
    from model.zones.scene_import import zone_to_scene
    from widgets.zone_open import ask_zone, warn_left_out

    if zone_folder is None or rules_folder is None or passes is None:
        dialog = GrowForestDialog(parent)
        if zone_folder is not None:
            dialog.zone_edit.setText(str(zone_folder))
        if rules_folder is not None:
            dialog.rules_edit.setText(str(rules_folder))
        if dialog.exec() != QDialog.Accepted:
            return None
        zone_folder, rules_folder = dialog.zone_edit.text(), dialog.rules_edit.text()
        passes, seed, fertility = dialog.passes.value(), dialog.seed.value(), dialog.fertility.value()
        drop_unknown = dialog.drop_unknown.isChecked()
    try:
        if not Path(rules_folder).is_dir():
            raise FormatError(rules_folder, None, "plant rules folder not found")
        rules = load_rules(rules_folder)
        zone = ask_zone(parent, zone_folder, needs=("altitude", "plants"))  # what growth reads
        if zone is None:
            return None
        warn_left_out(parent, zone)
        if not confirm_missing_rules(parent, zone, rules, rules_folder, drop_unknown):
            return None
        options = GrowthOptions(fertility=fertility, drop_unknown=drop_unknown)
        try:
            with ModalProgress(parent, f"Growing zone {zone.zone_id}…", passes) as progress:
                grown = grow_zone(zone, rules, passes, seed, options,
                                  progress=progress.step, cancelled=progress.cancelled)
        except Cancelled:
            return None
        return zone_to_scene(grown, rules=rules, name=f"zone {zone.zone_id:04d} grown")
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot grow a forest", str(e))
        return None


def confirm_missing_rules(parent: QWidget | None, zone: Any, rules: dict, rules_folder: str | Path,
                          drop_unknown: bool) -> bool:
    """Before growing: say which plant types on the zone have no rule (tiles per type) and what
    growing does with them; True to go on."""
    from model.plants.zone_growth import missing_rules, missing_rules_text

    names = dict(zone.plant_names) | {i: r.name or r.type_name for i, r in rules.items()}
    missing = {names.get(k, f"#{k}"): n for k, n in missing_rules(zone, rules).items()}
    if not missing:
        return True
    fate = ("They will be removed (as the game's validation does)." if drop_unknown else
            "They will be kept as they are; tick “Remove plants that have no rule” to remove them.")
    answer = QMessageBox.warning(
        parent, "Plants without a rule",
        f"{rules_folder} has no rule for {len(missing)} plant type{'s' if len(missing) != 1 else ''} "
        f"on zone {zone.zone_id}: {missing_rules_text(missing)}.\n\n{fate}",
        QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Ok)
    return answer == QMessageBox.StandardButton.Ok


def grow_forest_on_scene(main_window: Any, rules_folder: str | Path | None = None,
                         passes: int | None = None, seed: int = 1, fertility: float = 10.0) -> Scene | None:
    """A new scene: the open scene's terrain with a forest grown on it (ground types from paint layers
    named after them, e.g. "LowlandA" or "sand")."""
    from model.plants.forest import grow_forest
    from model.plants.growth import Cancelled, GrowthOptions
    from model.plants.loader import load_rules

    parent = main_window if isinstance(main_window, QWidget) else None
    document = getattr(main_window, "document", None)
    scene = getattr(document, "scene", None)
    if scene is None:
        QMessageBox.critical(parent, "Cannot grow a forest", "Open a scene first: the forest grows on its "
                             "terrain.")
        return None
    if rules_folder is None or passes is None:
        dialog = GrowForestDialog(parent, with_zone=False)
        if dialog.exec() != QDialog.Accepted:
            return None
        rules_folder = dialog.rules_edit.text()
        passes, seed, fertility = dialog.passes.value(), dialog.seed.value(), dialog.fertility.value()
    try:
        if not Path(rules_folder).is_dir():
            raise FormatError(rules_folder, None, "plant rules folder not found")
        rules = load_rules(rules_folder)
        try:
            with ModalProgress(parent, f"Growing a forest on {scene.name}…", passes) as progress:
                return grow_forest(scene, rules, passes, seed, GrowthOptions(fertility=fertility),
                                   progress=progress.step, cancelled=progress.cancelled)
        except Cancelled:
            return None
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot grow a forest", str(e))
        return None
