"""The Spawners panel: the scene's spawners, the selected one's area and species, each species'
conditions, and what the last run decided (a bar per refusal, per species).

A plain widget: it shows `Spawner` values and emits the edited value (`edited(index, spawner,
text)`); the editor turns that into an undoable command and re-runs. Buttons ask the editor to
run, bake or preview through signals.
"""

from __future__ import annotations

import math
from dataclasses import replace

import tomli_w
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.foliage.spawn_conditions import Altitude, Condition, Far, Layer, Near, Noise, Slope
from model.foliage.spawn_run import SpawnResult
from model.foliage.spawner import Area, Spawner, Species, spawner_from_toml, spawner_to_toml

BAR_COLOUR = "#3b82c4"
OK_CANCEL = QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
PLACED_COLOUR = "#3f9b4a"
RUN_STEPS = 1000


def _spin(lo: float, hi: float, value: float, step: float = 1.0, decimals: int = 2, suffix: str = "",
          tip: str = "") -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(lo, hi)
    box.setDecimals(decimals)
    box.setSingleStep(step)
    box.setValue(value)
    box.setSuffix(suffix)
    box.setToolTip(tip)
    box.setKeyboardTracking(False)  # one edit per value typed, not per keystroke
    box.setMinimumWidth(60)  # sized for its largest value it would widen the 240 px column
    return box


class ConditionDialog(QDialog):
    """Ask the numbers of one condition of a given kind (slope, altitude, layer, noise, near, far)."""

    def __init__(self, kind: str, layers: list[str], types: list[str], parent: QWidget | None = None,
                 current: Condition | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setWindowTitle(f"{kind.capitalize()} condition")
        form = QFormLayout(self)
        self.fields: dict[str, QWidget] = {}
        if kind in ("slope", "altitude"):
            lo, hi, unit = (0.0, 90.0, "°") if kind == "slope" else (-10000.0, 10000.0, " m")
            known = isinstance(current, (Slope, Altitude))
            a = current.low if known else 0.0
            b = current.high if known else (30.0 if kind == "slope" else 100.0)
            self.fields["low"] = _spin(lo, hi, a, 1.0, 1, unit, "lowest value that passes")
            self.fields["high"] = _spin(lo, hi, b, 1.0, 1, unit, "highest value that passes")
            form.addRow("From", self.fields["low"])
            form.addRow("To", self.fields["high"])
        elif kind == "layer":
            combo = QComboBox()
            combo.setEditable(True)  # a layer that does not exist yet may be named; the run says so
            combo.addItems(layers)
            if isinstance(current, Layer):
                combo.setCurrentText(current.name)
            self.fields["name"] = combo
            self.fields["mode"] = mode = QComboBox()
            mode.addItems(["at least", "at most"])
            weight = 0.5
            if isinstance(current, Layer):
                mode.setCurrentIndex(0 if current.min_weight is not None else 1)
                weight = current.min_weight if current.min_weight is not None else current.max_weight
            self.fields["weight"] = _spin(0.0, 1.0, weight, 0.05, 2, "", "layer weight 0..1")
            form.addRow("Layer", combo)
            form.addRow("Weight", mode)
            form.addRow("", self.fields["weight"])
        elif kind == "noise":
            c = current if isinstance(current, Noise) else Noise(60.0, 0.5, 0)
            self.fields["scale"] = _spin(0.1, 100000.0, c.scale, 5.0, 1, " m", "size of a noise blob")
            self.fields["threshold"] = _spin(0.0, 1.0, c.threshold, 0.05, 2, "",
                                             "passes where the noise is at least this (0..1)")
            seed = QSpinBox()
            seed.setRange(0, 2_147_483_647)
            seed.setValue(c.seed)
            self.fields["seed"] = seed
            form.addRow("Scale", self.fields["scale"])
            form.addRow("Threshold", self.fields["threshold"])
            form.addRow("Seed", seed)
        else:  # near / far
            combo = QComboBox()
            combo.setEditable(True)
            combo.addItems(types)
            distance = 8.0
            if isinstance(current, (Near, Far)):
                combo.setCurrentText(current.type)
                distance = current.within if isinstance(current, Near) else current.beyond
            self.fields["type"] = combo
            self.fields["distance"] = _spin(0.0, 10000.0, distance, 1.0, 1, " m")
            form.addRow("Type", combo)
            form.addRow("Within" if kind == "near" else "Beyond", self.fields["distance"])
        buttons = QDialogButtonBox(OK_CANCEL)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def condition(self) -> Condition | None:
        f = self.fields
        if self.kind in ("slope", "altitude"):
            lo, hi = sorted((f["low"].value(), f["high"].value()))
            return Slope(lo, hi) if self.kind == "slope" else Altitude(lo, hi)
        if self.kind == "layer":
            name = f["name"].currentText().strip()
            if not name:
                return None
            w = f["weight"].value()
            return Layer(name, w, None) if f["mode"].currentIndex() == 0 else Layer(name, None, w)
        if self.kind == "noise":
            return Noise(f["scale"].value(), f["threshold"].value(), f["seed"].value())
        name = f["type"].currentText().strip()
        if not name:
            return None
        return Near(name, f["distance"].value()) if self.kind == "near" else Far(name, f["distance"].value())


class TomlDialog(QDialog):
    """The spawner as TOML, for what the form does not reach (`any`, `not`, polygons)."""

    def __init__(self, spawner: Spawner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Spawner '{spawner.name}' as TOML")
        self.resize(560, 480)
        layout = QVBoxLayout(self)
        self.text = QPlainTextEdit(tomli_w.dumps({"spawners": [spawner_to_toml(spawner)]}))
        self.text.setObjectName("spawner_toml")
        self.error = QLabel("")
        self.error.setStyleSheet("color: #c0392b")
        self.error.setWordWrap(True)
        layout.addWidget(self.text)
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(OK_CANCEL)
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.result_spawner: Spawner | None = None

    def _check(self) -> None:
        self.result_spawner = parse_spawner_text(self.text.toPlainText())
        if isinstance(self.result_spawner, str):
            self.error.setText(self.result_spawner)
            self.result_spawner = None
            return
        self.accept()


def parse_spawner_text(text: str) -> Spawner | str:
    """One spawner from TOML text, or the sentence saying what is wrong with it."""
    import tomllib

    from model.errors import FormatError

    try:
        doc = tomllib.loads(text)
        items = doc.get("spawners")
        if not isinstance(items, list) or len(items) != 1:
            return "expected exactly one [[spawners]] table"
        return spawner_from_toml(items[0], None, "spawners[0]")
    except tomllib.TOMLDecodeError as e:
        return f"bad TOML: {e}"
    except RecursionError:
        return "bad TOML: nested too deeply"
    except FormatError as e:
        return f"{e.place}: {e.reason}"


class SpeciesResult(QWidget):
    """One species' outcome: its sentence and a clickable bar per refusal reason."""

    reason_clicked = Signal(int, str)  # species index, reason text

    def __init__(self, outcome, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 2, 0, 2)
        title = QLabel(f"<b>{outcome.type}</b> — {outcome.candidates:,} candidate"
                       f"{'' if outcome.candidates == 1 else 's'}, {outcome.placed:,} placed")
        title.setWordWrap(True)  # on two lines rather than wider than the right column
        grid.addWidget(title, 0, 0, 1, 3)
        n = max(outcome.candidates, 1)
        rows = list(outcome.counts()) + [("placed", outcome.placed)]
        self.buttons: list[QPushButton] = []
        for r, (label, count) in enumerate(rows, 1):
            button = QPushButton(label)
            button.setFlat(True)
            button.setStyleSheet("text-align: left; padding: 0 2px")
            # a long condition text is cut rather than widening the narrow dock; the tooltip has it all
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setMinimumWidth(60)
            button.setToolTip(f"{label}: show these candidates in the viewport" if label != "placed"
                              else "Placed: show them in the viewport")
            button.clicked.connect(lambda _=False, t=label: self.reason_clicked.emit(outcome.index, t))
            bar = QProgressBar()
            bar.setRange(0, n)
            bar.setValue(count)
            bar.setTextVisible(False)
            bar.setFixedHeight(7)
            colour = PLACED_COLOUR if label == "placed" else BAR_COLOUR
            bar.setStyleSheet(f"QProgressBar::chunk {{ background: {colour}; }}")
            share = QLabel(f"{count:,} ({100.0 * count / n:.0f} %)")
            share.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            # the reason on a line of its own, over its bar: beside it, a 240 px column cut it to
            # "outside coni" (the tooltip still has it whole)
            grid.addWidget(button, 2 * r - 1, 0, 1, 2)
            grid.addWidget(bar, 2 * r, 0)
            grid.addWidget(share, 2 * r, 1)
            self.buttons.append(button)
        grid.setColumnStretch(0, 1)
        grid.setVerticalSpacing(1)


class RunStrip(QWidget):
    """A background re-run's line, bar and Cancel; hidden while none goes. `compact`: on one line,
    for the status bar."""

    cancel_requested = Signal()

    def __init__(self, compact: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("spawner_run_status" if compact else "spawner_run_box")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel("")
        self.label.setObjectName("spawner_run_label")
        self.label.setWordWrap(not compact)
        self.bar = QProgressBar()
        self.bar.setObjectName("spawner_run_progress")
        self.bar.setRange(0, RUN_STEPS)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(10)
        if compact:
            self.bar.setFixedWidth(120)
        self.cancel = QToolButton()
        self.cancel.setText("Cancel")
        self.cancel.setObjectName("spawner_run_cancel")
        self.cancel.setToolTip("Stop the re-run: the recipe stays changed, the forest as it was (Run brings "
                               "it up to date)")
        self.cancel.clicked.connect(lambda _=False: self.cancel_requested.emit())
        if compact:
            grid.addWidget(self.label, 0, 0)
            grid.addWidget(self.bar, 0, 1)
            grid.addWidget(self.cancel, 0, 2)
        else:
            grid.addWidget(self.label, 0, 0, 1, 2)
            grid.addWidget(self.bar, 1, 0)
            grid.addWidget(self.cancel, 1, 1)
            grid.setColumnStretch(0, 1)
        self.hide()

    def show_running(self, text: str, fraction: float | None) -> None:
        """`fraction` None or 0: nothing decided yet, a busy bar."""
        self.label.setText(text)
        if fraction is None or fraction <= 0.0:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, RUN_STEPS)
            self.bar.setValue(round(min(fraction, 1.0) * RUN_STEPS))
        self.show()


class SpawnerPanel(QWidget):
    """Edit the spawners; `edited(index, spawner, text)` for a changed one, `index = -1` to add."""

    edited = Signal(int, object, str)
    removed = Signal(int)
    run_requested = Signal(int)  # -1: all
    bake_requested = Signal(int)
    preview_requested = Signal(int)
    reason_clicked = Signal(int, str)  # species index, reason text
    cancel_requested = Signal()  # stop the re-run going in the background

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("spawner_panel")
        self.spawners: list[Spawner] = []
        self.layers: list[str] = []
        self.types: list[str] = []
        self._loading = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)  # a tab of the 240 px right column

        self.list = QListWidget()
        self.list.setObjectName("spawner_list")
        self.list.setMaximumHeight(110)
        self.list.currentRowChanged.connect(self._show_current)
        outer.addWidget(self.list)
        row = QHBoxLayout()  # short labels: the panel is a tab of the narrow right column
        self.add_button = self._button("Add", "Add a spawner covering the whole terrain", self._add)
        self.remove_button = self._button("Remove", "Remove the spawner and the instances it placed",
                                          lambda: self.removed.emit(self.current()))
        self.toml_button = self._button("TOML…",
                                        "Edit as TOML: everything the form does not reach (any, not, "
                                        "polygons)",
                                        self._edit_toml)
        for b in (self.add_button, self.remove_button, self.toml_button):
            row.addWidget(b)
        row.addStretch(1)
        outer.addLayout(row)
        # a re-run goes in the background: its progress here (and in the status bar), the form usable
        self.run_strip = RunStrip()
        self.run_strip.cancel_requested.connect(self.cancel_requested)
        self.run_label, self.run_progress = self.run_strip.label, self.run_strip.bar
        self.run_cancel, self.run_box = self.run_strip.cancel, self.run_strip
        outer.addWidget(self.run_strip)
        self.empty_hint = QLabel("No spawners yet. Add makes one that fills the whole terrain with the "
                                 "first palette type; add species and conditions to shape it (big trees "
                                 "first, the understory around them).")
        self.empty_hint.setObjectName("spawner_empty_hint")
        self.empty_hint.setWordWrap(True)
        outer.addWidget(self.empty_hint)

        self.form_box = QGroupBox("Spawner")
        form = QFormLayout(self.form_box)
        form.setContentsMargins(4, 4, 4, 4)
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("spawner_name")
        self.name_edit.editingFinished.connect(self._name_edited)
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 2_147_483_647)
        self.seed_box.setToolTip("Same seed, same forest: change it for another arrangement")
        self.seed_box.setKeyboardTracking(False)
        self.seed_box.valueChanged.connect(self._seed_edited)
        self.area_kind = QComboBox()
        self.area_kind.setObjectName("spawner_area_kind")
        self.area_kind.addItems(["Whole terrain", "Painted layer", "Polygon"])
        self.area_kind.setToolTip("Where the spawner may place anything (a polygon is edited as TOML)")
        self.area_kind.activated.connect(self._area_edited)
        self.area_layer = QComboBox()
        self.area_layer.setObjectName("spawner_area_layer")
        self.area_layer.activated.connect(self._area_edited)
        self.area_weight = _spin(0.0, 1.0, 0.5, 0.05, 2, "", "least layer weight inside the area")
        self.area_weight.valueChanged.connect(self._area_edited)
        form.addRow("Name", self.name_edit)
        form.addRow("Seed", self.seed_box)
        form.addRow("Area", self.area_kind)
        form.addRow("Layer", self.area_layer)
        form.addRow("Min weight", self.area_weight)
        outer.addWidget(self.form_box)

        self.species_box = QGroupBox("Species, in growth order")  # a longer title widens the column
        self.species_box.setToolTip("The species grow in this order: later ones respect the earlier ones")
        sp = QVBoxLayout(self.species_box)
        sp.setContentsMargins(4, 4, 4, 4)
        self.species_list = QListWidget()
        self.species_list.setObjectName("species_list")
        self.species_list.setMaximumHeight(100)
        self.species_list.currentRowChanged.connect(self._show_species)
        sp.addWidget(self.species_list)
        srow = QHBoxLayout()
        self.add_species_button = self._button("Add", "Add a palette type to this spawner as a species",
                                               self._add_species)
        self.remove_species_button = self._button("Remove", "Remove the selected species",
                                                  self._remove_species)
        self.up_button = self._button("↑", "Grow earlier (later species respect earlier ones)",
                                      lambda: self._move_species(-1))
        self.down_button = self._button("↓", "Grow later", lambda: self._move_species(1))
        for b in (self.up_button, self.down_button):
            b.setFixedWidth(32)
        for b in (self.add_species_button, self.remove_species_button, self.up_button, self.down_button):
            srow.addWidget(b)
        srow.addStretch(1)
        sp.addLayout(srow)
        sform = QFormLayout()
        self.type_combo = QComboBox()
        self.type_combo.setObjectName("species_type")
        self.type_combo.activated.connect(lambda _: self._species_edited(type=self.type_combo.currentText()))
        self.density_box = _spin(0.0, 10000.0, 1.0, 0.1, 2, " /100 m²",
                                 "candidates per 100 m² before conditions")
        self.density_box.setObjectName("species_density")
        self.density_box.valueChanged.connect(lambda v: self._species_edited(density=float(v)))
        self.exclusion_box = _spin(0.0, 10000.0, 0.0, 0.5, 1, " m", "later species may not grow this close")
        self.exclusion_box.valueChanged.connect(lambda v: self._species_edited(exclusion=float(v)))
        sform.addRow("Type", self.type_combo)
        sform.addRow("Density", self.density_box)
        sform.addRow("Exclusion", self.exclusion_box)
        sp.addLayout(sform)
        sp.addWidget(QLabel("Conditions (all must hold):"))
        self.conditions = QListWidget()
        self.conditions.setObjectName("species_conditions")
        self.conditions.setMaximumHeight(90)
        self.conditions.itemDoubleClicked.connect(lambda _: self._edit_condition())
        sp.addWidget(self.conditions)
        crow = QHBoxLayout()
        self.add_condition_button = QToolButton()
        self.add_condition_button.setText("Add condition")
        self.add_condition_button.setObjectName("add_condition")
        self.add_condition_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_condition_button)
        for kind in ("slope", "altitude", "layer", "noise", "near", "far"):
            menu.addAction(kind.capitalize(), lambda k=kind: self._add_condition(k))
        self.add_condition_button.setMenu(menu)
        self.remove_condition_button = self._button("Remove", "Remove the selected condition",
                                                    self._remove_condition)
        crow.addWidget(self.add_condition_button)
        crow.addWidget(self.remove_condition_button)
        crow.addStretch(1)
        sp.addLayout(crow)
        outer.addWidget(self.species_box)

        arow = QGridLayout()
        self.run_button = self._button("Run", "Run this spawner over its whole area (Ctrl+Return)",
                                       lambda: self.run_requested.emit(self.current()))
        self.run_button.setShortcut("Ctrl+Return")
        self.run_all_button = self._button("Run All", "Run every spawner in order",
                                           lambda: self.run_requested.emit(-1))
        self.preview_button = self._button("Preview Area", "Show where this spawner may place",
                                           lambda: self.preview_requested.emit(self.current()))
        self.bake_button = self._button("Bake to Painted", "Detach its instances: they stay as painted "
                                        "foliage and re-runs no longer touch them",
                                        lambda: self.bake_requested.emit(self.current()))
        for i, b in enumerate((self.run_button, self.run_all_button, self.preview_button, self.bake_button)):
            arow.addWidget(b, i // 2, i % 2)
        outer.addLayout(arow)

        self.summary = QLabel("No run yet.")
        self.summary.setObjectName("spawner_summary")
        self.summary.setWordWrap(True)
        outer.addWidget(self.summary)
        self.results = QVBoxLayout()
        outer.addLayout(self.results)
        outer.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self._show_current(-1)

    def _button(self, text: str, tip: str, slot) -> QToolButton:
        # tool buttons: push buttons are at least 80 px each, too wide four a row in a 240 px column
        b = QToolButton()
        b.setText(text)
        b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        b.setToolTip(tip)
        b.clicked.connect(lambda _=False: slot())
        return b

    # ---- showing ---------------------------------------------------------------------------
    def set_context(self, layers: list[str], types: list[str]) -> None:
        """Terrain layer names and stored palette type names the form offers."""
        self.layers, self.types = list(layers), list(types)
        self._show_current(self.current())

    def set_spawners(self, spawners: list[Spawner], select: int | None = None) -> None:
        keep = self.current() if select is None else select
        self.spawners = list(spawners)
        self._loading = True
        # rebuilt quietly: a cleared list would say "no spawner", clearing the species selection, and
        # the next number typed into the focused Density would edit the first species
        self.list.blockSignals(True)
        self.list.clear()
        for s in self.spawners:
            self.list.addItem(f"{s.name}  ({len(s.species)} species)")
        if self.spawners:
            self.list.setCurrentRow(min(max(keep, 0), len(self.spawners) - 1))
        self.list.blockSignals(False)
        self._loading = False
        self._show_current(self.list.currentRow())

    def current(self) -> int:
        return self.list.currentRow() if self.spawners else -1

    def show_running(self, text: str, fraction: float | None) -> None:
        self.run_strip.show_running(text, fraction)

    def hide_running(self) -> None:
        self.run_strip.hide()

    def _spawner(self) -> Spawner:
        return self.spawners[self.current()]

    def _show_current(self, row: int) -> None:
        has = 0 <= row < len(self.spawners)
        for w in (self.form_box, self.species_box, self.remove_button, self.toml_button, self.run_button,
                  self.preview_button, self.bake_button):
            w.setEnabled(has)
        self.run_all_button.setEnabled(bool(self.spawners))
        self.empty_hint.setVisible(not self.spawners)
        if not has:
            self.species_list.clear()
            self.conditions.clear()
            return
        s = self.spawners[row]
        self._loading = True
        self.name_edit.setText(s.name)
        self.seed_box.setValue(s.seed)
        self.area_layer.clear()
        self.area_layer.addItems(self.layers + ([s.area.layer] if s.area.layer and s.area.layer not in
                                                self.layers else []))
        if s.area.layer is not None:
            self.area_kind.setCurrentIndex(1)
            self.area_layer.setCurrentText(s.area.layer)
            self.area_weight.setValue(s.area.min_weight)
        else:
            self.area_kind.setCurrentIndex(2 if s.area.polygon is not None else 0)
        self.area_layer.setEnabled(s.area.layer is not None)
        self.area_weight.setEnabled(s.area.layer is not None)
        keep = self.species_list.currentRow()
        self.species_list.clear()
        for sp in s.species:
            self.species_list.addItem(f"{sp.type} — {sp.density:g}/100 m², {len(sp.conditions)} condition"
                                      f"{'' if len(sp.conditions) == 1 else 's'}")
        self._loading = False
        if s.species:
            self.species_list.setCurrentRow(min(max(keep, 0), len(s.species) - 1))
        self._show_species(self.species_list.currentRow())

    def _show_species(self, row: int) -> None:
        if self._loading or not (0 <= self.current() < len(self.spawners)):
            return
        species = self._spawner().species
        has = 0 <= row < len(species)
        for w in (self.type_combo, self.density_box, self.exclusion_box, self.conditions,
                  self.add_condition_button, self.remove_condition_button, self.remove_species_button,
                  self.up_button, self.down_button):
            w.setEnabled(has)
        self.conditions.clear()
        if not has:
            return
        sp = species[row]
        self._loading = True
        self.type_combo.clear()
        self.type_combo.addItems(self.types + ([sp.type] if sp.type not in self.types else []))
        self.type_combo.setCurrentText(sp.type)
        self.density_box.setValue(sp.density)
        self.exclusion_box.setValue(sp.exclusion)
        for i, c in enumerate(sp.conditions, 1):
            self.conditions.addItem(f"{i}. {c.text}")
        self._loading = False

    def show_result(self, results: list[SpawnResult], note: str = "") -> None:
        """The last run's outcome per species, with a bar per reason."""
        while self.results.count():
            item = self.results.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        if not results:
            self.summary.setText(note or "No run yet.")
            return
        lines = [f"{r.spawner}: {r.candidates:,} candidates, {r.placed:,} placed" for r in results]
        self.summary.setText("\n".join(lines) + (f"\n{note}" if note else ""))
        for r in results:
            for outcome in r.species:
                widget = SpeciesResult(outcome)
                widget.reason_clicked.connect(self.reason_clicked)
                if outcome.missing_layers:
                    widget.setToolTip("No terrain layer named " + ", ".join(sorted(outcome.missing_layers)))
                self.results.addWidget(widget)

    # ---- editing ---------------------------------------------------------------------------
    def _edit(self, spawner: Spawner, what: str) -> None:
        if self._loading or self.current() < 0 or spawner == self._spawner():
            return
        self.edited.emit(self.current(), spawner, f"Change spawner '{spawner.name}' {what}")

    def _seed_edited(self, value: int) -> None:
        if not self._loading and self.current() >= 0:
            self._edit(replace(self._spawner(), seed=int(value)), "seed")

    def _name_edited(self) -> None:
        name = self.name_edit.text().strip()
        if self._loading or self.current() < 0:
            return
        if not name or any(s.name == name for i, s in enumerate(self.spawners) if i != self.current()):
            self.name_edit.setText(self._spawner().name)  # blank or taken: keep the old name
            return
        self._edit(replace(self._spawner(), name=name), "name")

    def _area_edited(self, *_) -> None:
        if self._loading or self.current() < 0:
            return
        kind = self.area_kind.currentIndex()
        s = self._spawner()
        if kind == 0:
            area = Area()
        elif kind == 1:
            layer = self.area_layer.currentText() or (self.layers[0] if self.layers else "")
            if not layer:
                return
            area = Area(layer=layer, min_weight=round(self.area_weight.value(), 4))
        else:
            if s.area.polygon is None:  # a polygon is drawn as TOML; start from the terrain's square
                self._edit_toml()
                return
            area = s.area
        self._edit(replace(s, area=area), "area")

    def _add(self) -> None:
        taken = {s.name for s in self.spawners}
        name = next(f"spawner {i}" for i in range(1, len(taken) + 2) if f"spawner {i}" not in taken)
        first = self.types[0] if self.types else "conifer"
        spawner = Spawner(name, seed=len(self.spawners) + 1, species=(Species(first, 1.0),))
        self.edited.emit(-1, spawner, f"Add spawner '{name}'")

    def _edit_toml(self) -> None:
        if self.current() < 0:
            return
        dialog = TomlDialog(self._spawner(), self)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.result_spawner is not None:
            self._edit(dialog.result_spawner, "recipe")

    def _species(self) -> tuple[int, Species] | None:
        row = self.species_list.currentRow()
        if self.current() < 0 or not 0 <= row < len(self._spawner().species):
            return None
        return row, self._spawner().species[row]

    def _with_species(self, row: int, species: Species | None, what: str) -> None:
        items = list(self._spawner().species)
        if species is None:
            del items[row]
        elif row >= len(items):
            items.append(species)
        else:
            items[row] = species
        self._edit(replace(self._spawner(), species=tuple(items)), what)

    def _species_edited(self, **changes) -> None:
        found = self._species()
        if self._loading or found is None:
            return
        row, sp = found
        if any(isinstance(v, float) and not math.isfinite(v) for v in changes.values()):
            return
        new = replace(sp, **changes)
        if new != sp:
            self._with_species(row, new, f"species {new.type}")

    def _add_species(self) -> None:
        if self.current() < 0:
            return
        used = {sp.type for sp in self._spawner().species}
        name = next((t for t in self.types if t not in used), self.types[0] if self.types else "conifer")
        order = max((sp.order for sp in self._spawner().species), default=-1) + 1
        self._with_species(len(self._spawner().species), Species(name, 1.0, order), f"add species {name}")

    def _remove_species(self) -> None:
        found = self._species()
        if found is not None:
            self._with_species(found[0], None, f"remove species {found[1].type}")

    def _move_species(self, step: int) -> None:
        found = self._species()
        if found is None:
            return
        row, _ = found
        items = list(self._spawner().species)
        other = row + step
        if not 0 <= other < len(items):
            return
        items[row], items[other] = items[other], items[row]
        items = [replace(sp, order=i) for i, sp in enumerate(items)]  # the list order is the growth order
        self._edit(replace(self._spawner(), species=tuple(items)), "species order")
        self.species_list.setCurrentRow(other)

    def _add_condition(self, kind: str) -> None:
        found = self._species()
        if found is None:
            return
        dialog = ConditionDialog(kind, self.layers, self.types, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        condition = dialog.condition()
        if condition is not None:
            row, sp = found
            self._with_species(row, replace(sp, conditions=sp.conditions + (condition,)),
                               f"condition {condition.text}")

    def _edit_condition(self) -> None:
        found = self._species()
        index = self.conditions.currentRow()
        if found is None or not 0 <= index < len(found[1].conditions):
            return
        row, sp = found
        current = sp.conditions[index]
        kind = {Slope: "slope", Altitude: "altitude", Layer: "layer", Noise: "noise", Near: "near",
                Far: "far"}.get(type(current))
        if kind is None:  # any / not: the TOML view edits those
            self._edit_toml()
            return
        dialog = ConditionDialog(kind, self.layers, self.types, self, current)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.condition() is not None:
            items = list(sp.conditions)
            items[index] = dialog.condition()
            self._with_species(row, replace(sp, conditions=tuple(items)), f"condition {items[index].text}")

    def _remove_condition(self) -> None:
        found = self._species()
        index = self.conditions.currentRow()
        if found is None or not 0 <= index < len(found[1].conditions):
            return
        row, sp = found
        items = list(sp.conditions)
        gone = items.pop(index)
        self._with_species(row, replace(sp, conditions=tuple(items)), f"remove condition {gone.text}")

