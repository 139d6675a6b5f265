"""Plant rule inspector: a rules folder as a list; per rule its merged fields and their origins, the raw
text with lint marks, the state machine as a graph, Markov figures and a simulated survival curve."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from model.errors import FormatError
from model.plants.genxy import plain
from model.plants.lints import ERROR, Lint, lint_folder
from model.plants.loader import FolderLoad, load_folder, no_rules_error
from model.plants.markov import figures, survival_curve
from model.plants.rule import FIELDS, PlantRule, field_spec
from widgets.plant_graph import StateGraphView

ERROR_COLOR = QColor(200, 70, 70)
WARNING_COLOR = QColor(200, 160, 50)
INHERITED_COLOR = QColor(120, 150, 210)
DEFAULT_COLOR = QColor(140, 140, 140)
NAME_ROLE = Qt.ItemDataRole.UserRole
LINE_ROLE = Qt.ItemDataRole.UserRole + 1
SURVIVAL_PLANTS, SURVIVAL_TICKS = 2000, 300


def _short(value: Any) -> str:
    # Defaults are tuples; show every list the way the files' values show ("[]", not "()").
    text = str(list(value) if isinstance(value, tuple) else value)
    return text if len(text) <= 60 else text[:57] + "…"


class PlantInspector(QWidget):
    """Open a rules folder and inspect each rule; nothing here edits the files."""

    ruleSelected = Signal(object)  # PlantRule or None

    def __init__(self, main_window: Any = None, folder: str | Path | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("plant_inspector")
        self.main_window = main_window
        self.load: FolderLoad | None = None
        self.lints: dict[str, list[Lint]] = {}
        self.error_text = ""
        self._build()
        if folder is not None:
            self.open_folder(folder)

    # ---- layout ---------------------------------------------------------------------------------
    def _build(self) -> None:
        self.folder_label = QLabel("No rules folder open")
        self.folder_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        open_button = QPushButton("Open folder…")
        open_button.setToolTip("Open a folder of plant rule files (*.txt) (Ctrl+O)")
        open_button.clicked.connect(self.choose_folder)
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Read the folder again (F5)")
        self.reload_button.clicked.connect(self.reload)
        self.reload_button.setEnabled(False)
        QShortcut(QKeySequence("F5"), self, self.reload, context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.Open, self, self.choose_folder, context=Qt.WidgetWithChildrenShortcut)
        top = QHBoxLayout()
        top.addWidget(self.folder_label, 1)
        top.addWidget(open_button)
        top.addWidget(self.reload_button)

        self.rule_list = QListWidget()
        self.rule_list.setToolTip("Rule files in the folder; marks show errors (✖) and warnings (⚠)")
        self.rule_list.currentItemChanged.connect(self._on_current)

        self.fields = QTableWidget(0, 5)
        self.fields.setHorizontalHeaderLabels(["Key", "Value", "Type", "From", "Default"])
        self.fields.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.fields.setEditTriggers(QTableWidget.NoEditTriggers)
        self.fields.setToolTip("Merged settings: blue rows are inherited through source=, grey rows are "
                               "absent and take their default")

        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFont("Monospace", 9))
        self.text.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.text.setToolTip("The rule file as written; lines with lints are marked")
        self.lint_list = QListWidget()
        self.lint_list.setToolTip("Lints of the selected rule; click one to show its line")
        self.lint_list.itemActivated.connect(self._go_to_lint)
        self.lint_list.itemClicked.connect(self._go_to_lint)
        text_split = QSplitter(Qt.Vertical)
        text_split.addWidget(self.text)
        text_split.addWidget(self.lint_list)
        text_split.setSizes([300, 120])

        self.graph = StateGraphView()

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.shares = QTableWidget(0, 4)
        self.shares.setHorizontalHeaderLabels(["State", "Long-run share", "Health", "Blocking height"])
        self.shares.setEditTriggers(QTableWidget.NoEditTriggers)
        self.shares.setToolTip("Share of a tile's time spent in each state, with dead plants replaced")
        self.survival = pg.PlotWidget(background=(30, 30, 30))
        self.survival.setLabel("bottom", "cube ticks")
        self.survival.setLabel("left", "still alive")
        self.survival.setYRange(0, 1.02)
        self.survival.setToolTip(f"Simulated survival of {SURVIVAL_PLANTS} plants started in state 0 "
                                 "(dying or turning into another type ends a life)")
        self.survival_curve = self.survival.plot(pen=pg.mkPen((120, 200, 120), width=2))
        fig_box = QWidget()
        fig_layout = QVBoxLayout(fig_box)
        fig_layout.addWidget(self.summary)
        fig_split = QSplitter(Qt.Vertical)
        fig_split.addWidget(self.shares)
        fig_split.addWidget(self.survival)
        fig_layout.addWidget(fig_split, 1)

        self.tabs = QTabWidget()
        self.tabs.addTab(self.fields, "Fields")
        self.tabs.addTab(text_split, "Text && lints")
        self.tabs.addTab(self.graph, "State machine")
        self.tabs.addTab(fig_box, "Figures")

        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.rule_list)
        split.addWidget(self.tabs)
        split.setSizes([200, 700])
        self.status = QLabel()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        layout.addWidget(self.status)

    # ---- folder ---------------------------------------------------------------------------------
    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open plant rules folder")
        if folder:
            self.open_folder(folder)

    def open_folder(self, folder: str | Path) -> bool:
        """Load every rule in `folder`; a bad folder is reported in the status line."""
        try:
            load = load_folder(folder)
        except FormatError as e:
            self.error_text = str(e)
            self.status.setText(f"✖ {e}")
            return False
        self.load = load
        self.lints = lint_folder(load)
        self.error_text = ""
        self.folder_label.setText(str(load.folder))
        self.reload_button.setEnabled(True)
        self._fill_list()
        return True

    def reload(self) -> None:
        if self.load is not None:
            current = self.current_name()
            self.open_folder(self.load.folder)
            if current:
                self.select_rule(current)

    def _fill_list(self) -> None:
        assert self.load is not None
        self.rule_list.blockSignals(True)
        self.rule_list.clear()
        names = sorted(set(self.load.files) | set(self.load.errors))
        n_err = n_warn = 0
        for name in names:
            lints = self.lints.get(name, [])
            errors = sum(lint.severity == ERROR for lint in lints)
            warnings = len(lints) - errors
            n_err += errors
            n_warn += warnings
            rule = self.load.rules.get(name)
            label = f"{name} — {rule.type_name} ({rule.index})" if rule else name
            mark = " ✖" if errors else " ⚠" if warnings else ""
            item = QListWidgetItem(label + mark)
            item.setData(NAME_ROLE, name)
            if errors:
                item.setForeground(ERROR_COLOR)
            elif warnings:
                item.setForeground(WARNING_COLOR)
            item.setToolTip("\n".join(str(lint) for lint in lints) or "no lints")
            self.rule_list.addItem(item)
        self.rule_list.blockSignals(False)
        self.status.setText(f"{len(names)} rules, {n_err} errors, {n_warn} warnings" if names
                            else f"✖ {no_rules_error(self.load.folder)}")
        if names:
            self.rule_list.setCurrentRow(0)
        else:
            self._show(None)

    # ---- selection ------------------------------------------------------------------------------
    def names(self) -> list[str]:
        return [self.rule_list.item(i).data(NAME_ROLE) for i in range(self.rule_list.count())]

    def current_name(self) -> str | None:
        item = self.rule_list.currentItem()
        return item.data(NAME_ROLE) if item is not None else None

    def select_rule(self, name: str) -> bool:
        for i in range(self.rule_list.count()):
            if self.rule_list.item(i).data(NAME_ROLE) == name:
                self.rule_list.setCurrentRow(i)
                return True
        return False

    def _on_current(self, current: QListWidgetItem | None, _previous: Any = None) -> None:
        self._show(current.data(NAME_ROLE) if current is not None else None)

    def _show(self, name: str | None) -> None:
        rule = self.load.rules.get(name) if (self.load and name) else None
        self._fill_fields(name)
        self._fill_text(name)
        self.graph.set_rule(rule)
        self._fill_figures(rule, name)
        self.ruleSelected.emit(rule)

    def _fill_fields(self, name: str | None) -> None:
        self.fields.setRowCount(0)
        if self.load is None or name is None:
            return
        settings = self.load.settings.get(name, {})
        own = self.load.files[name].path if name in self.load.files else None
        rows: list[tuple[str, str, str, str, str, QColor | None]] = []
        for key, s in settings.items():
            spec = field_spec(key)
            default = "" if spec is None or spec.default is None else _short(spec.default)
            color = None if s.path == own else INHERITED_COLOR
            origin = f"{s.path.name}:{s.line}"
            rows.append((key, _short(plain(s.value)), s.value.kind, origin, default, color))
        for spec in FIELDS:
            if spec.key not in settings and spec.key != "source":
                rows.append((spec.key, _short(spec.default), " / ".join(spec.kinds), "(default)",
                             _short(spec.default), DEFAULT_COLOR))
        self.fields.setRowCount(len(rows))
        for r, (key, value, kind, origin, default, color) in enumerate(rows):
            spec = field_spec(key)
            for c, text in enumerate((key, value, kind, origin, default)):
                item = QTableWidgetItem(text)
                item.setToolTip(spec.help if spec else "unknown key: the game ignores it")
                if color is not None:
                    item.setForeground(color)
                self.fields.setItem(r, c, item)
        self.fields.resizeColumnsToContents()

    def _fill_text(self, name: str | None) -> None:
        self.lint_list.clear()
        self.text.setExtraSelections([])
        if self.load is None or name is None:
            self.text.setPlainText("")
            return
        rf = self.load.files.get(name)
        self.text.setPlainText(rf.text if rf is not None else "")
        marks = []
        own = rf.path if rf is not None else None
        for lint in self.lints.get(name, []):
            where = f"{lint.path.name if lint.path else '-'}:{lint.line or '-'}"
            item = QListWidgetItem(f"{'✖' if lint.severity == ERROR else '⚠'} {where}  "
                                   f"{lint.key + ': ' if lint.key else ''}{lint.message}")
            item.setForeground(ERROR_COLOR if lint.severity == ERROR else WARNING_COLOR)
            item.setData(LINE_ROLE, lint.line if lint.path == own else None)
            self.lint_list.addItem(item)
            if lint.line and lint.path == own:
                marks.append(self._line_mark(lint.line, lint.severity))
        if not self.lint_list.count():
            item = QListWidgetItem("✔ no lints: the file reads cleanly")
            item.setForeground(DEFAULT_COLOR)
            self.lint_list.addItem(item)
        self.text.setExtraSelections(marks)

    def _line_mark(self, line: int, severity: str) -> QTextEdit.ExtraSelection:
        mark = QTextEdit.ExtraSelection()
        color = QColor(ERROR_COLOR if severity == ERROR else WARNING_COLOR)
        color.setAlpha(70)
        mark.format.setBackground(color)
        mark.format.setProperty(QTextFormat.FullWidthSelection, True)
        cursor = QTextCursor(self.text.document().findBlockByNumber(line - 1))
        mark.cursor = cursor
        return mark

    def _go_to_lint(self, item: QListWidgetItem) -> None:
        line = item.data(LINE_ROLE)
        if line:
            cursor = QTextCursor(self.text.document().findBlockByNumber(int(line) - 1))
            self.text.setTextCursor(cursor)
            self.text.centerCursor()

    def _fill_figures(self, rule: PlantRule | None, name: str | None) -> None:
        self.shares.setRowCount(0)
        if rule is None:
            error = self.load.errors.get(name) if (self.load and name) else None
            self.summary.setText(f"✖ {error}" if error else "")
            self.survival_curve.setData([], [])
            return
        f = figures(rule)
        fruit = ("never fruits" if f.ticks_to_fruit is None else
                 "fruit never reached" if np.isinf(f.ticks_to_fruit) else
                 f"first fruit after {f.ticks_to_fruit:.1f} ticks on average")
        life = "lives forever" if np.isinf(f.lifetime) else (
            f"expected lifetime {f.lifetime:.1f} ticks, ended by death {f.death_share:.0%} of the time")
        self.summary.setText(f"<b>{rule.rule_name}</b> — {rule.type_name} ({rule.index}), "
                             f"{rule.state_count} states, a roll every {rule.grow_rate + 1} ticks.<br>"
                             f"{life}; {fruit}.")
        self.shares.setRowCount(rule.state_count)
        for s in range(rule.state_count):
            for c, text in enumerate((str(s), f"{f.stationary[s]:.3f}", str(rule.health[s]),
                                      str(rule.blocking_height_at(s)))):
                self.shares.setItem(s, c, QTableWidgetItem(text))
        curve = survival_curve(rule, SURVIVAL_PLANTS, SURVIVAL_TICKS, seed=rule.index)
        self.survival_curve.setData(np.arange(curve.size), curve)
