"""model/ imports no Qt, no OpenGL, no pyqtgraph and none of the layers above it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.model.conftest import FORBIDDEN

ROOT = Path(__file__).resolve().parents[2]


def imported_roots(source: str) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)):
            roots.add(str(node.args[0].value).split(".")[0])
    return roots


def test_no_model_module_imports_gui_layers() -> None:
    offenders = []
    for path in sorted((ROOT / "model").rglob("*.py")):
        bad = imported_roots(path.read_text(encoding="utf-8")) & set(FORBIDDEN)
        if bad:
            offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert offenders == []


def test_guard_detects_a_forbidden_import() -> None:
    assert imported_roots("from PySide6.QtCore import QObject\nimport numpy") == {"PySide6", "numpy"}
    assert "OpenGL" in imported_roots("def f():\n    import OpenGL.GL as gl\n")


def test_every_model_module_imports_with_gui_blocked() -> None:
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in (ROOT / "model").rglob("*.py")
    )
    code = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.model.conftest import _Blocker\n"
        "sys.meta_path.insert(0, _Blocker())\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
