"""The command line run in a child process, and the files of a scene's folder: shared by the
`boscage terrain …` tests (their `demo` fixtures are in tests/app/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def boscage(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def files(scene: Path) -> dict[str, bytes]:
    """Every file of the scene's folder by its path there: what a run without --save must not change."""
    return {p.relative_to(scene.parent).as_posix(): p.read_bytes()
            for p in sorted(scene.parent.rglob("*")) if p.is_file()}
