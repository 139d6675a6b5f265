"""A panel's usage hint: secondary text that is still easy to read.

Qt's disabled text (what a greyed label gets) is meant for controls that do nothing; as body
text it falls to about 1.5:1 contrast. A hint is drawn instead in the window's own text colour
eased a little towards the background (keeping at least WCAG AA's 4.5:1) and a size smaller.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QWidget

TEXT_SHARE = 0.72  # how much of the text colour the hint keeps (the rest is background)


def luminance(colour: QColor) -> float:
    """WCAG relative luminance of an sRGB colour."""
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = channel(colour.redF()), channel(colour.greenF()), channel(colour.blueF())
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def hint_colour(palette: QPalette) -> QColor:
    text = palette.color(QPalette.ColorRole.WindowText)
    back = palette.color(QPalette.ColorRole.Window)
    share = TEXT_SHARE
    while True:
        mixed = QColor.fromRgbF(*(share * t + (1.0 - share) * b for t, b in
                                  zip(text.getRgbF()[:3], back.getRgbF()[:3], strict=True)))
        if share >= 1.0 or contrast(mixed, back) >= 4.5:
            return mixed
        share = min(1.0, share + 0.05)


def hint_label(text: str, parent: QWidget | None = None) -> QLabel:
    """A word-wrapped hint, a size smaller than the panel's text and readable."""
    label = QLabel(text, parent)
    label.setObjectName("tool_hint")
    label.setWordWrap(True)
    font = label.font()
    if font.pointSizeF() > 0:
        font.setPointSizeF(max(font.pointSizeF() - 1.0, 7.0))
    label.setFont(font)
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, hint_colour(palette))
    label.setPalette(palette)
    return label
