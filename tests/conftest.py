"""Shared fixtures: --runslow, and an OpenGL 3.3 core default format before any QApplication."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", help="also run tests marked slow")


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("BOSCAGE_BLOCK_GUI"):
        return
    try:
        from app.gl_format import install_default_format
    except ImportError:
        return
    install_default_format()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow benchmark: use --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


# ---- editor fixtures (Qt is imported inside them, so the model's tests never touch it) ------

@pytest.fixture(autouse=True)
def _private_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """No test reads or writes the user's real editor settings."""
    folder = tmp_path_factory.mktemp("settings")
    monkeypatch.setenv("BOSCAGE_SETTINGS_DIR", str(folder))
    return folder


@pytest.fixture
def settings_folder(_private_settings):
    """The temporary folder that holds `boscage.ini` for this test."""
    return _private_settings


def make_small_scene(rows: int = 33, cols: int = 41, spacing: float = 2.0):
    """A hill with two layers: 'red' on the west half, 'blue' on the east half."""
    import numpy as np

    from model.scene import Scene
    from model.terrain import Terrain

    z, x = np.mgrid[0:rows, 0:cols].astype(np.float64)
    heights = 12.0 * np.clip(1.0 - ((x - cols / 2) ** 2 + (z - rows / 2) ** 2) / (rows * rows / 4), 0, 1)
    origin = (-(cols - 1) * spacing / 2, -(rows - 1) * spacing / 2)
    terrain = Terrain(heights.astype(np.float32), spacing, origin)
    west = np.zeros((rows, cols), np.uint8)
    west[:, : cols // 2] = 255
    terrain.add_layer("red", (220, 40, 30), west)
    terrain.add_layer("blue", (30, 60, 220), 255 - west)
    return Scene(terrain=terrain, name="Small")


@pytest.fixture
def small_scene():
    return make_small_scene()


@pytest.fixture
def main_window(qtbot, settings_folder, small_scene):
    """The editor window, hidden, on a small scene; closed afterwards, and no window may leak."""
    import threading

    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow

    before = {id(w) for w in QApplication.topLevelWidgets()}
    threads_before = set(threading.enumerate())
    window = MainWindow(small_scene)
    yield window
    window.document.undo_stack.setClean()  # no "unsaved changes" question on teardown
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QApplication.processEvents()
    leaked = [w for w in QApplication.topLevelWidgets() if id(w) not in before and w.isVisible()]
    for w in leaked:
        w.close()
    assert leaked == [], f"windows left open: {[type(w).__name__ for w in leaked]}"
    threads = [t.name for t in set(threading.enumerate()) - threads_before if t.is_alive()]
    assert threads == [], f"threads left running: {threads}"
