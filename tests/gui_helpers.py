"""Helpers for the GUI tests: read the viewport's real pixels, show the editor window ready to draw."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication


def pixels(image: QImage) -> np.ndarray:
    """(h, w, 3) uint8 RGB copy of a QImage."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    w, h, stride = image.width(), image.height(), image.bytesPerLine()
    raw = np.frombuffer(image.constBits(), np.uint8, count=stride * h).reshape(h, stride)
    return raw[:, : w * 3].reshape(h, w, 3).copy()


def is_sky(rgb: np.ndarray, tol: int = 6) -> np.ndarray:
    """Pixels of the viewport's clear colour."""
    from widgets.viewport import SKY_COLOUR

    sky = np.array([round(c * 255) for c in SKY_COLOUR[:3]])
    return np.all(np.abs(rgb.astype(int) - sky) <= tol, axis=-1)


def render(viewport, qtbot, timeout_ms: int = 10000) -> np.ndarray:
    """The viewport's next frame, drawn by OpenGL and read back as (h, w, 3) RGB."""
    before = viewport.frames_rendered
    viewport.update()
    qtbot.waitUntil(lambda: viewport.frames_rendered > before, timeout=timeout_ms)
    return pixels(viewport.grabFramebuffer())


def settle(passes: int = 5) -> None:
    """Docks, scroll areas and their bars lay out over a few passes of the event loop."""
    for _ in range(passes):
        QApplication.processEvents()


def show_editor(window, qtbot, size: tuple[int, int] = (1000, 760),
                view: tuple[float, float] | None = (0.0, 80.0)):
    """`window` shown at `size` with its viewport exposed; with `view` (yaw in radians, pitch in
    degrees) the camera looks down that way and frames the whole scene."""
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window.viewport)
    if view is not None:
        viewport = window.viewport
        viewport.camera.yaw, viewport.camera.pitch = view[0], math.radians(view[1])
        viewport.frame_all()
    settle()
    return window
