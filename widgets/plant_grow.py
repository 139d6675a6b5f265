"""Grow a forest: growth passes over a zone with a rules folder, then the grown zone as a scene."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
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
        form = QFormLayout(self)
        if with_zone:
            form.addRow("Zone folder:", self.zone_edit.parentWidget())
        else:
            self.zone_edit.parentWidget().hide()
        form.addRow("Rules folder:", self.rules_edit.parentWidget())
        form.addRow("Passes:", self.passes)
        form.addRow("Seed:", self.seed)
        form.addRow("Fertility:", self.fertility)
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
                      seed: int = 1, fertility: float = 10.0) -> Scene | None:
    """Ask what to grow (unless given), grow it with progress and cancel, and return the scene."""
    from model.plants.growth import Cancelled, GrowthOptions
    from model.plants.loader import load_rules
    from model.plants.zone_growth import grow_zone
    from model.zones.scene_import import zone_to_scene
    from widgets.zone_open import ask_zone

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
    try:
        if not Path(rules_folder).is_dir():
            raise FormatError(rules_folder, None, "plant rules folder not found")
        rules = load_rules(rules_folder)
        zone = ask_zone(parent, zone_folder)
        if zone is None:
            return None
        try:
            with ModalProgress(parent, f"Growing zone {zone.zone_id}…", passes) as progress:
                grown = grow_zone(zone, rules, passes, seed, GrowthOptions(fertility=fertility),
                                  progress=progress.step, cancelled=progress.cancelled)
        except Cancelled:
            return None
        return zone_to_scene(grown, rules=rules, name=f"zone {zone.zone_id:04d} grown")
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot grow a forest", str(e))
        return None


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
