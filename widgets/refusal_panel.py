"""Why the last stroke placed what it placed: a thin bar and a count per refusal reason, and one
plain sentence. Compact, so the dock stays a short strip under the viewport.

Clicking a reason highlights those candidates in the viewport (through `highlight`, a callable
the editor connects to the viewport's refusal overlay).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from model.foliage.report import (
    EMPTY_STROKE,
    PLACED_COLOUR,
    REASON_COLOURS,
    REASON_TITLES,
    BrushTally,
    ReasonLine,
    plural,
    reason_lines,
    stroke_sentence,
    tally_sentence,
)
from model.foliage.scatter import Refusal, StrokeResult

BAR_HEIGHT = 7
COLUMNS = 4  # reasons per row: two rows keep the strip short


class RefusalPanel(QWidget):
    """Shows a StrokeResult; `reason_clicked(Refusal | None)` when a bar is clicked (None: cleared)."""

    reason_clicked = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("refusal_panel")
        self.sentence = QLabel("No stroke yet: paint, fill or place one to see what the brush decided.", self)
        self.sentence.setObjectName("refusal_sentence")
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.missing = QLabel("", self)
        self.missing.setObjectName("refusal_missing")
        self.missing.setStyleSheet("color: #c0392b; font-weight: bold")
        self.missing.setWordWrap(True)
        self.missing.hide()
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(0)
        self.buttons: dict[Refusal | None, QPushButton] = {}
        self.bars: dict[Refusal | None, QProgressBar] = {}
        self.count_labels: dict[Refusal | None, QLabel] = {}
        rows: list[Refusal | None] = [None, *Refusal]  # None: placed
        for i, reason in enumerate(rows):
            button = QPushButton("Placed" if reason is None else REASON_TITLES[reason], self)
            button.setCheckable(reason is not None)
            button.setFlat(True)
            button.setStyleSheet("text-align: left; padding: 1px 4px")
            button.setToolTip("Placed instances" if reason is None else
                              f"Click to show the candidates refused for {REASON_TITLES[reason].lower()}")
            if reason is not None:
                button.clicked.connect(lambda on, r=reason: self._clicked(r, on))
            bar = QProgressBar(self)
            bar.setRange(0, 1)
            bar.setValue(0)
            bar.setFormat("%v")
            rgb = ",".join(str(round(c * 255)) for c in (REASON_COLOURS[reason] if reason is not None
                                                           else PLACED_COLOUR)[:3])
            bar.setStyleSheet("QProgressBar { border: 1px solid palette(mid); border-radius: 2px; "
                              "background: palette(base) } "
                              f"QProgressBar::chunk {{ background: rgb({rgb}) }}")
            bar.setFixedHeight(BAR_HEIGHT)
            bar.setMinimumWidth(30)
            bar.setTextVisible(False)  # the count stands beside the bar, readable at any height
            count = QLabel("0", self)
            count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            count.setMinimumWidth(count.fontMetrics().horizontalAdvance("00000"))
            count.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Preferred)
            row, col = i // COLUMNS, 3 * (i % COLUMNS)
            grid.addWidget(button, row, col)
            grid.addWidget(bar, row, col + 1)
            grid.addWidget(count, row, col + 2)
            grid.setColumnStretch(col + 1, 1)
            self.buttons[reason] = button
            self.bars[reason] = bar
            self.count_labels[reason] = count
            bar.valueChanged.connect(lambda value, label=count: label.setText(f"{max(value, 0):,}"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(2)
        layout.addWidget(self.sentence)
        layout.addWidget(self.missing)
        layout.addLayout(grid)
        layout.addStretch(1)
        self.lines: list[ReasonLine] = []
        self.result: StrokeResult | None = None
        self.heights = None  # callable (x, z) -> y for highlighted positions
        self.highlighted: Refusal | None = None

    def text(self) -> str:
        return self.sentence.text()

    def set_result(self, result: StrokeResult | None, terrain, palette=None, tally: BrushTally | None = None,
                   erased: int | None = None) -> None:
        """Show a stroke's outcome: its candidates, or (an Erase or Reapply drag) what its brush met."""
        self.result = result
        self.highlighted = None
        for button in self.buttons.values():
            button.setChecked(False)
        if result is None or not result.candidates:
            self.lines = []
            if tally is not None:
                text = tally_sentence(tally)
            elif erased is not None:
                text = f"Erased {plural(erased, 'instance')}"
            else:
                text = EMPTY_STROKE if result is not None else ""
            self.sentence.setText(text)
            for bar in self.bars.values():
                bar.setRange(0, 1)
                bar.setValue(0)
            self.missing.hide()
            self.reason_clicked.emit(None)
            return
        self.lines = reason_lines(result, terrain, palette)
        text = stroke_sentence(result, terrain, palette)
        if tally is not None and tally.total:  # a Paint drag that erased with Ctrl part of the way
            text += " · " + tally_sentence(tally)
        self.sentence.setText(text)
        total = max(1, result.candidates)
        self.bars[None].setRange(0, total)
        self.bars[None].setValue(result.placed)
        for line in self.lines:
            self.bars[line.reason].setRange(0, total)
            self.bars[line.reason].setValue(line.count)
            self.buttons[line.reason].setEnabled(line.count > 0)
            # The sentence carries the phrases; the button keeps its short title and the phrase as a tip.
            self.buttons[line.reason].setToolTip(
                f"{line.count:,} {line.phrase} — click to show them in the viewport" if line.count
                else f"No candidate refused for {REASON_TITLES[line.reason].lower()}")
        missing = result.missing_layers
        self.missing.setVisible(bool(missing))
        self.missing.setText("".join(f"Type '{name}' filters on layer '{layer}', which this terrain does not "
                                     f"have: add or rename a layer, or change the type's filter.\n"
                                     for name, layer in missing.items()).strip())
        self.reason_clicked.emit(None)

    def count(self, reason: Refusal) -> int:
        return next((line.count for line in self.lines if line.reason == reason), 0)

    def positions(self, reason: Refusal) -> np.ndarray:
        """(n, 2) x, z of the candidates refused for `reason` in the shown stroke."""
        return next((line.xz for line in self.lines if line.reason == reason), np.empty((0, 2)))

    def highlight(self, reason: Refusal | None) -> None:
        """Select a reason (as a click does); None clears."""
        for r, button in self.buttons.items():
            if r is not None:
                button.setChecked(r == reason)
        self._clicked(reason, reason is not None)

    def _clicked(self, reason: Refusal | None, on: bool) -> None:
        for r, button in self.buttons.items():
            if r is not None and r != reason:
                button.setChecked(False)
        self.highlighted = reason if on else None
        self.reason_clicked.emit(self.highlighted)
