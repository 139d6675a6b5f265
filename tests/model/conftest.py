"""With BOSCAGE_BLOCK_GUI=1 the model's tests run where GUI libraries cannot be imported."""

from __future__ import annotations

import importlib.abc
import os
import sys

FORBIDDEN = ("PySide6", "shiboken6", "OpenGL", "pyqtgraph", "widgets", "rendering", "app")


class _Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in FORBIDDEN:
            raise ImportError(f"the model must not import {fullname}")
        return None


if os.environ.get("BOSCAGE_BLOCK_GUI"):
    already = sorted(m for m in sys.modules if m.split(".")[0] in FORBIDDEN)
    if already:
        raise RuntimeError(f"GUI modules imported before the model tests: {already}")
    sys.meta_path.insert(0, _Blocker())
