"""Fixtures for the editor window's tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def shown(main_window, qtbot, request: pytest.FixtureRequest):
    """The editor window shown and its camera looking down on the whole scene. A module sets
    `SHOWN_SIZE` (pixels) or `SHOWN_VIEW` ((yaw radians, pitch degrees), or None to leave the
    camera alone) where its pictures need another window or view."""
    from tests.gui_helpers import show_editor

    return show_editor(main_window, qtbot, getattr(request.module, "SHOWN_SIZE", (1000, 760)),
                       getattr(request.module, "SHOWN_VIEW", (0.0, 80.0)))
