"""Fixtures for the widget tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def viewport(qtbot):
    """A shown 320 x 240 viewport with a real OpenGL context (Xvfb + Mesa)."""
    from widgets.viewport import Viewport

    v = Viewport()
    qtbot.addWidget(v)
    v.resize(320, 240)
    v.show()
    qtbot.waitExposed(v)
    return v
