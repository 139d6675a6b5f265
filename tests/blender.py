"""Run a script inside Blender-as-a-module (`bpy`), which lives in its own virtual environment
`.venv-blender` (bpy 4.5 needs Python 3.11 and numpy < 2; `scripts/dev.sh test` creates it).

`run_in_blender(script, *args)` runs `script` (Python source) in a fresh Blender process with
`sys.argv[1:] == args` and returns the JSON document the script prints with `emit(obj)` (a helper
defined for it). Blender prints its own log lines to stdout; only ours is read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = "BOSCAGE-JSON:"
PRELUDE = f"""
import json as _json, sys as _sys
def emit(obj):
    print({MARKER!r} + _json.dumps(obj), flush=True)
"""


def blender_python() -> Path | None:
    """The interpreter with bpy: $BOSCAGE_BLENDER_PYTHON, else `.venv-blender` at the repository root."""
    env = os.environ.get("BOSCAGE_BLENDER_PYTHON")
    candidate = Path(env) if env else ROOT / ".venv-blender" / "bin" / "python"
    return candidate if candidate.is_file() else None


def require_blender() -> Path:
    """The bpy interpreter; a skip when it is missing on a developer's machine, a failure in CI."""
    python = blender_python()
    if python is None:
        reason = "Blender as a module is not installed (.venv-blender): run scripts/dev.sh test"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return python


def run_in_blender(script: str, *args: str, timeout: float = 300.0) -> dict:
    """Run `script` in Blender; return what it emitted (exactly one `emit` call expected)."""
    python = require_blender()
    code = PRELUDE + textwrap.dedent(script)
    proc = subprocess.run([str(python), "-c", code, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": ""}, cwd=ROOT)
    lines = [line[len(MARKER):] for line in proc.stdout.splitlines() if line.startswith(MARKER)]
    if proc.returncode != 0 or len(lines) != 1:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise AssertionError(f"Blender script failed (exit {proc.returncode}, {len(lines)} results): "
                             f"{proc.stderr.strip().splitlines()[-1:] or proc.stdout[-500:]}")
    return json.loads(lines[0])
