"""Options for File ▸ Export ▸ glTF / USD / CSV: target engine, axes and units, types, region, terrain."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from model.interchange.conventions import ENGINE_PRESETS, HANDEDNESS, UNITS, UP_AXES, Conventions
from model.interchange.options import ExportOptions

CUSTOM = "Custom"
KINDS = {"gltf": "glTF 2.0", "usd": "USD", "csv": "CSV / JSON"}
DEFAULT_PRESET = {"gltf": "glTF", "usd": "Omniverse", "csv": "Unity"}
UNIT_TITLES = {"m": "metres", "cm": "centimetres"}


class ExportOptionsDialog(QDialog):
    """`options()` → ExportOptions; `remember()` stores the choices in `settings` under export/<kind>/."""

    def __init__(self, kind: str, path: str | Path, type_counts: dict[str, int],
                 bounds: tuple[float, float, float, float], settings: QSettings | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.settings = settings
        self.setWindowTitle(f"Export {KINDS[kind]}")
        self.setMinimumWidth(420)
        layout = QVBoxLayout(self)
        header = QLabel(f"<b>{html.escape(Path(path).name)}</b><br>{sum(type_counts.values()):,} instances "
                        f"of {len(type_counts)} type{'s' if len(type_counts) != 1 else ''} stored", self)
        header.setTextFormat(Qt.TextFormat.RichText)
        header.setToolTip(str(path))
        self.header = header
        layout.addWidget(header)

        # ---- target engine ------------------------------------------------------------------
        target = QGroupBox("Target", self)
        form = QFormLayout(target)
        self.preset = QComboBox(target)
        self.preset.addItems([*ENGINE_PRESETS, CUSTOM])
        self.preset.setToolTip("The engine the file is for: sets the up axis, handedness and units it "
                               "expects")
        self.up = QComboBox(target)
        self.up.addItems([a.upper() for a in UP_AXES])
        self.up.setToolTip("Which axis points up in the file")
        self.handedness = QComboBox(target)
        self.handedness.addItems(list(HANDEDNESS))
        self.handedness.setToolTip("USD and glTF are right-handed by definition; left-handed (Unity, "
                                   "Unreal) applies to CSV/JSON, and their importers convert the others")
        self.units = QComboBox(target)
        self.units.addItems([UNIT_TITLES[u] for u in UNITS])
        self.units.setToolTip("Length unit of positions and meshes")
        form.addRow("Engine preset", self.preset)
        form.addRow("Up axis", self.up)
        form.addRow("Handedness", self.handedness)
        form.addRow("Units", self.units)
        notes = {"gltf": "glTF is +Y up, right-handed and in metres by definition: every engine's "
                         "importer converts from it.",
                 "usd": "USD is right-handed: the file keeps the up axis and unit, and Unity's and "
                        "Unreal's USD importers change the handedness themselves."}
        if kind == "gltf":  # glTF fixes its frame: +Y up, right-handed, metres
            for w in (self.preset, self.up, self.handedness, self.units):
                w.setEnabled(False)
        self._note = notes.get(kind, "")
        if kind in notes:
            self.note = QLabel(notes[kind], target)
            self.note.setWordWrap(True)
            form.addRow(self.note)
        layout.addWidget(target)

        # ---- what goes in -------------------------------------------------------------------
        content = QGroupBox("Content", self)
        cform = QFormLayout(content)
        self.types = QListWidget(content)
        self.types.setToolTip("Foliage types to export (unchecked types are left out)")
        for name, count in sorted(type_counts.items()):
            item = QListWidgetItem(f"{name} ({count:,})", self.types)
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
        self.types.setMaximumHeight(120)
        if type_counts:
            cform.addRow("Types", self.types)
        else:  # an empty list box would look like a fault
            self.types.setVisible(False)
            cform.addRow("Types", QLabel("none: this scene has no stored foliage", content))
        self.types.itemChanged.connect(self._sync)
        self.region_on = QCheckBox("Only a region (X0, Z0 – X1, Z1)", content)
        self.region_on.setToolTip("Export only instances and terrain inside a box, in scene metres")
        cform.addRow(self.region_on)
        row = QHBoxLayout()
        self.region = []
        for value in bounds:
            box = QDoubleSpinBox(content)
            box.setRange(-1e7, 1e7)
            box.setDecimals(2)
            box.setSuffix(" m")
            box.setValue(value)
            row.addWidget(box)
            self.region.append(box)
        cform.addRow(row)
        self.terrain = QCheckBox("Include the terrain", content)
        self.terrain.setChecked(True)
        self.terrain.setToolTip("The terrain as a mesh, with normals and its paint layers' weights")
        self.step = QSpinBox(content)
        self.step.setRange(1, 64)
        self.step.setToolTip("Keep every Nth height sample (1: full resolution)")
        self.step.setPrefix("every ")
        self.step.setSuffix(" samples")
        self.step.setSpecialValueText("every sample (full detail)")
        if kind != "csv":  # a CSV/JSON holds instances only: no terrain to offer
            cform.addRow(self.terrain)
            cform.addRow("Terrain resolution", self.step)
        self.plain = QCheckBox("Plain nodes (no EXT_mesh_gpu_instancing)", content)
        self.plain.setToolTip("One node per instance, for importers without the instancing extension")
        self.matrix = QCheckBox("Add a 4×4 matrix per instance", content)
        self.matrix.setToolTip("A column of the full transform for engine-side import scripts")
        if kind == "usd":
            self.plain.setText("One prim per instance (no PointInstancer)")
            self.plain.setToolTip("An instanceable Xform per instance with full-precision transforms, for "
                                  "importers that read instancer rotations at half precision (Blender "
                                  "4.5); for thousands of instances, not millions")
        if kind in ("gltf", "usd"):
            cform.addRow(self.plain)
        if kind == "csv":
            cform.addRow(self.matrix)
        # an option this format does not take is not shown (a child outside the layout would sit
        # on top of the group's title)
        self.plain.setVisible(kind in ("gltf", "usd"))
        self.matrix.setVisible(kind == "csv")
        self.terrain.setVisible(kind != "csv")
        self.step.setVisible(kind != "csv")
        layout.addWidget(content)

        ok_cancel = QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        buttons = QDialogButtonBox(ok_cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        self.nothing = QLabel("", self)
        self.nothing.setObjectName("export_nothing")
        self.nothing.setWordWrap(True)
        self.nothing.setStyleSheet("color: #c0392b")
        layout.addWidget(self.nothing)
        layout.addWidget(buttons)

        self._syncing = False
        self.preset.currentTextChanged.connect(self._apply_preset)
        self.preset.currentTextChanged.connect(self._sync)
        for w in (self.up, self.handedness, self.units):
            w.currentIndexChanged.connect(self._match_preset)
        self.region_on.toggled.connect(self._sync)
        self.terrain.toggled.connect(self._sync)
        self._restore()
        self._sync()

    # ---- presets ------------------------------------------------------------------------------
    def conventions(self) -> Conventions:
        if self.kind == "gltf":
            return Conventions()
        return Conventions(self.up.currentText().lower(), self.handedness.currentText(),
                           list(UNITS)[self.units.currentIndex()])

    def _show(self, conv: Conventions) -> None:
        self._syncing = True
        self.up.setCurrentText(conv.up.upper())
        self.handedness.setCurrentText(conv.handedness)
        self.units.setCurrentIndex(list(UNITS).index(conv.units))
        self._syncing = False

    def _apply_preset(self, name: str) -> None:
        if name in ENGINE_PRESETS and self.kind != "gltf":
            self._show(ENGINE_PRESETS[name])

    def _match_preset(self) -> None:
        if self._syncing:
            return
        conv = self.conventions()
        if self.preset.currentText() in ENGINE_PRESETS and ENGINE_PRESETS[self.preset.currentText()] == conv:
            return
        match = next((n for n, c in ENGINE_PRESETS.items() if c == conv), CUSTOM)
        self.preset.blockSignals(True)
        self.preset.setCurrentText(match)
        self.preset.blockSignals(False)
        self._sync()

    def _sync(self, *_) -> None:
        if self.kind == "usd":
            hint = (" Blender 4.5 reads an instancer's rotations at half precision (about 0.05°): tick "
                    "One prim per instance for exact transforms." if self.preset.currentText() == "Blender"
                    else "")
            self.note.setText(self._note + hint)
        for box in self.region:
            box.setEnabled(self.region_on.isChecked())
        self.step.setEnabled(self.terrain.isChecked())
        # Export stays off while the file would hold nothing, and says why
        terrain = self.kind != "csv" and self.terrain.isChecked()
        why = "" if self.selected_types() or terrain else (
            "Nothing to export: " + ("no stored foliage" if not self.types.count() else "no type is ticked")
            + ("" if self.kind == "csv" else " and the terrain is left out") + ".")
        self.nothing.setText(why)
        self.nothing.setVisible(bool(why))
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not why)

    # ---- values -------------------------------------------------------------------------------
    def selected_types(self) -> tuple[str, ...]:
        return tuple(self.types.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.types.count())
                     if self.types.item(i).checkState() == Qt.CheckState.Checked)

    def options(self) -> ExportOptions:
        """The export asked for (ValueError for an empty region, as ExportOptions says)."""
        everything = len(self.selected_types()) == self.types.count()
        region = tuple(b.value() for b in self.region) if self.region_on.isChecked() else None
        types = None if everything else self.selected_types()
        return ExportOptions(conventions=self.conventions(), types=types, region=region,
                             terrain=self.terrain.isChecked(), terrain_step=self.step.value(),
                             gpu_instancing=not self.plain.isChecked(), matrix=self.matrix.isChecked())

    def _key(self, name: str) -> str:
        return f"export/{self.kind}/{name}"

    def _restore(self) -> None:
        s = self.settings
        preset = str(s.value(self._key("preset"), DEFAULT_PRESET[self.kind])) if s is not None \
            else DEFAULT_PRESET[self.kind]
        self.preset.setCurrentText(preset if preset in ENGINE_PRESETS or preset == CUSTOM
                                   else DEFAULT_PRESET[self.kind])
        self._apply_preset(self.preset.currentText())
        if s is None:
            return
        if preset == CUSTOM:
            try:
                self._show(Conventions(str(s.value(self._key("up"), "y")),
                                       str(s.value(self._key("handedness"), "right")),
                                       str(s.value(self._key("units"), "m"))))
            except ValueError:  # a hand-edited settings file: keep the preset's
                pass
        self.terrain.setChecked(_bool(s.value(self._key("terrain"), True)))
        self.step.setValue(_int(s.value(self._key("terrain_step"), 1), 1))
        self.plain.setChecked(_bool(s.value(self._key("plain_nodes"), False)))
        self.matrix.setChecked(_bool(s.value(self._key("matrix"), False)))

    def remember(self) -> None:
        s = self.settings
        if s is None:
            return
        conv = self.conventions()
        s.setValue(self._key("preset"), self.preset.currentText())
        s.setValue(self._key("up"), conv.up)
        s.setValue(self._key("handedness"), conv.handedness)
        s.setValue(self._key("units"), conv.units)
        s.setValue(self._key("terrain"), self.terrain.isChecked())
        s.setValue(self._key("terrain_step"), self.step.value())
        s.setValue(self._key("plain_nodes"), self.plain.isChecked())
        s.setValue(self._key("matrix"), self.matrix.isChecked())


def _bool(value) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("true", "1", "yes")


def _int(value, default: int) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return default
