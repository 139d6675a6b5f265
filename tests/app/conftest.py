"""Fixtures for the editor window's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def shown(main_window, qtbot, request: pytest.FixtureRequest):
    """The editor window shown and its camera looking down on the whole scene. A module sets
    `SHOWN_SIZE` (pixels) or `SHOWN_VIEW` ((yaw radians, pitch degrees), or None to leave the
    camera alone) where its pictures need another window or view."""
    from tests.gui_helpers import show_editor

    return show_editor(main_window, qtbot, getattr(request.module, "SHOWN_SIZE", (1000, 760)),
                       getattr(request.module, "SHOWN_VIEW", (0.0, 80.0)))


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory) -> Path:
    """The demo written once per module by `boscage scene new-demo` (textures included); a module
    may define its own `demo`."""
    folder = tmp_path_factory.mktemp("demo") / "demo"
    folder.mkdir()
    from tests.app.demo_cli import boscage

    assert boscage("scene", "new-demo", folder / "demo.boscage").returncode == 0
    return folder


@pytest.fixture
def demo(demo_folder: Path, tmp_path: Path) -> Path:
    """A copy of it for one test."""
    folder = tmp_path / "scene"
    shutil.copytree(demo_folder, folder)
    return folder / "demo.boscage"
