"""The Qt binding must not drop references to None (PySide6 6.12.0 did, on every void call)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QImage, QPainter, QPolygonF


def test_painter_calls_keep_none_alive(qtbot) -> None:
    image = QImage(32, 32, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    triangle = QPolygonF([QPointF(0, 0), QPointF(9, 0), QPointF(0, 9)])
    before = sys.getrefcount(None)
    for _ in range(5000):
        painter.setPen(QColor(10, 20, 30))
        painter.drawPolygon(triangle)
    after = sys.getrefcount(None)
    painter.end()
    assert after >= before - 500  # 6.12.0 lost 10,000 here, and None's count reaching 0 aborts
