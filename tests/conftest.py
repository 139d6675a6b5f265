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
