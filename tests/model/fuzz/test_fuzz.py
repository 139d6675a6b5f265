"""Seeded mutation fuzzing of every reader: each input ends in success or FormatError, within limits.

Default run: BOSCAGE_FUZZ_COUNT inputs per format (30). `--runslow` adds BOSCAGE_FUZZ_SLOW_COUNT
more per format (2,000). BOSCAGE_FUZZ_SEED moves the first input number (0), so CI may vary it.
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
FIRST = int(os.environ.get("BOSCAGE_FUZZ_SEED", "0"))

# "<format>: <signature>" → the regression case that pins it
KNOWN = {
    "scene: RecursionError in formats/scene_file.py load_scene": "scene/deep-toml",
    "scene: OverflowError in formats/scene_file.py <genexpr>": "scene/huge-integer-origin",
    "scene: OverflowError in formats/scene_file.py load_scene": "scene/huge-integer-spacing",
    "scene: OverflowError in foliage/foliage_type.py _number": "vxfoliage/huge-integer",
    "scene: reads outside its folder in formats/scene_file.py _read_into": "scene/heights-link-outside",
    "scene: reads outside its folder in foliage/store.py _read": "scene/foliage-link-outside",
    "vxfoliage: RecursionError in foliage/foliage_type.py parse_foliage_type": "vxfoliage/deep-toml",
    "vxfoliage: OverflowError in foliage/foliage_type.py _number": "vxfoliage/huge-integer",
    "palette: RecursionError in foliage/palette.py load_palette_file": "palette/deep-toml",
    "palette: OverflowError in foliage/foliage_type.py _number": "palette/huge-integer",
    "plants: ValueError in plants/loader.py path_of": "plants/nul-in-source",
    "plants: OSError in plants/loader.py path_of": "plants/overlong-source-name",
    "plants: RecursionError in plants/genxy.py <genexpr>": "plants/deep-dictionary",
    "plants: RecursionError in plants/genxy.py _parse_dict": "plants/deep-dictionary",
    "plants: RecursionError in plants/genxy.py _parse": "plants/deep-dictionary",
    "biomes: UnicodeEncodeError in fuzz/readers.py _biomes": "biomes/lone-surrogate-export",
    "biomes: OverflowError in biomes/validate.py is_number": "biomes/huge-integer",
    "biomes: RecursionError in biomes/merge.py apply_layer": "biomes/deep-nesting",
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
    _check(fmt, range(FIRST, FIRST + COUNT), fuzz_worker, fuzz_root)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_many(fmt, fuzz_worker, fuzz_root):
    _check(fmt, range(FIRST + COUNT, FIRST + COUNT + SLOW_COUNT), fuzz_worker, fuzz_root)
