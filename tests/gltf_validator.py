"""The Khronos glTF Validator (npm `gltf-validator`, pinned in scripts/gltf-validator/, installed by
`scripts/dev.sh test` with `npm ci`), run on glTF files the tests write."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "scripts" / "gltf-validator"


def validator_ready() -> bool:
    return shutil.which("node") is not None and (FOLDER / "node_modules" / "gltf-validator").is_dir()


def validate_gltf(paths: list[Path]) -> list[dict]:
    """One report per file: {file, issues: {numErrors, numWarnings, messages…}, info}."""
    if not validator_ready():
        reason = "the glTF Validator is not installed (scripts/gltf-validator): run scripts/dev.sh test"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    if not paths:
        return []
    proc = subprocess.run(["node", str(FOLDER / "validate.js"), *map(str, paths)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    reports = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(reports) == len(paths), proc.stdout[-2000:]
    return reports


def assert_valid(paths: list[Path]) -> list[dict]:
    """Zero validator errors (and zero warnings) in every file; returns the reports."""
    reports = validate_gltf(paths)
    for report in reports:
        assert "failure" not in report, report
        issues = report["issues"]
        bad = [m for m in issues["messages"] if m["severity"] <= 1]
        assert issues["numErrors"] == 0 and issues["numWarnings"] == 0, (report["file"], bad[:10])
    return reports
