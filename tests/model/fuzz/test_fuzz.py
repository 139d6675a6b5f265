"""Seeded mutation fuzzing of every reader: each input ends in success or FormatError, within limits.

Default run: BOSCAGE_FUZZ_COUNT inputs per format (30; 300 for the foliage imports, which read in
a few milliseconds). `--runslow` adds BOSCAGE_FUZZ_SLOW_COUNT more per format (2,000; 10,000 for
the foliage imports and every heightmap format). BOSCAGE_FUZZ_SEED moves the first input number
(0), so CI may vary it.
A failure prints each input's seed and steps, saves it (BOSCAGE_FUZZ_FAILURES, else
$TMPDIR/boscage-fuzz-failures/<format>/<seed>/) and the command that replays it.

Crash kinds already captured by a strict-xfail regression (readers fixed on other branches) are
tolerated and listed, so the fuzz run stays a guard for everything else.
"""

from __future__ import annotations

import os

import pytest

from tests.model.fuzz.corpora import FORMATS
from tests.model.fuzz.runner import fuzz, report
from tests.model.fuzz.test_regressions import ELSEWHERE

COUNT = int(os.environ.get("BOSCAGE_FUZZ_COUNT", "30"))
SLOW_COUNT = int(os.environ.get("BOSCAGE_FUZZ_SLOW_COUNT", "2000"))
# quick readers of files users pass in from anywhere (foliage, heightmaps): many more inputs
IMPORTS = ("gltf", "csv", "json", "tif", "exr", "r32", "usda", "usdc", "usdz")
HEIGHTMAPS = ("png16", "r16", "npy")  # slower to make; as many as the imports with --runslow
COUNTS = {fmt: int(os.environ.get("BOSCAGE_FUZZ_COUNT", "300")) if fmt in IMPORTS else COUNT
          for fmt in FORMATS}
SLOW_COUNTS = {fmt: int(os.environ.get("BOSCAGE_FUZZ_SLOW_COUNT", "10000")) if fmt in IMPORTS + HEIGHTMAPS
               else SLOW_COUNT for fmt in FORMATS}
FIRST = int(os.environ.get("BOSCAGE_FUZZ_SEED", "0"))

# "<format>: <signature>" → the regression case that pins it
KNOWN = {
}


def test_every_tolerated_crash_has_its_regression():
    for case in KNOWN.values():
        for name in case.split(", "):
            assert name in ELSEWHERE


def _check(fmt: str, numbers: range, worker, root) -> None:
    outcomes = fuzz(worker, fmt, numbers, root)
    bad, text = report(fmt, outcomes, KNOWN)
    print(text)
    assert len(outcomes) == len(numbers)
    assert not bad, text


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz(fmt, fuzz_worker, fuzz_root):
    _check(fmt, range(FIRST, FIRST + COUNTS[fmt]), fuzz_worker, fuzz_root)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_many(fmt, fuzz_worker, fuzz_root):
    start = FIRST + COUNTS[fmt]
    _check(fmt, range(start, start + SLOW_COUNTS[fmt]), fuzz_worker, fuzz_root)
