"""Every byte-promised output (a TRN bake, a spawner run, a whole-scene scatter, a growth, the demo,
every export and its import back) pinned by its SHA-256: the same bytes on every machine.

After an intended change of an output, re-pin with
`.venv/bin/python scripts/output_digests.py > tests/app/output_digests.json` and say why in the commit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PINNED = Path(__file__).with_name("output_digests.json")


@pytest.mark.bytes
def test_every_promised_output_has_its_pinned_bytes():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "output_digests.py")], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    got, want = json.loads(done.stdout), json.loads(PINNED.read_text())
    assert sorted(got) == sorted(want), "the set of outputs changed"
    differing = sorted(name for name in want if got[name] != want[name])
    assert differing == []
