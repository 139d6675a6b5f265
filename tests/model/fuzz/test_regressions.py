"""Every input the fuzzer once broke a reader with, replayed: it must end in success or FormatError.

A case is a folder `regressions/<format>/<name>/` (see `runner.load_case`). Crashes in readers
being fixed on other branches are strict xfails: they flip to failures, to be unmarked, when
those fixes merge.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model.fuzz.corpora import SEEDS
from tests.model.fuzz.runner import Worker, load_case, run_inputs

HERE = Path(__file__).parent / "regressions"
CASES = sorted(p.parent for p in HERE.glob("*/*/case.json"))

_SCENE = "fixed on branch h-harden-cli (scene_file.py, foliage_type.py, palette.py)"
_PLANTS = "fixed on branch h-harden-zones (model/plants)"
_BIOMES = "fixed on branch h-harden-biomes (model/biomes)"
ELSEWHERE = {
    "scene/deep-toml": f"{_SCENE}: RecursionError from tomllib on a value nested 1,000 deep",
    "scene/huge-integer-origin": f"{_SCENE}: OverflowError from math.isfinite on a 19-digit origin",
    "scene/huge-integer-spacing": f"{_SCENE}: OverflowError from math.isfinite on a 20-digit spacing",
    "scene/heights-link-outside": f"{_SCENE}: a heights side file linked outside the folder is read",
    "scene/foliage-link-outside": f"{_SCENE}: a foliage instance file linked outside the folder is read",
    "vxfoliage/deep-toml": f"{_SCENE}: RecursionError from tomllib in parse_foliage_type",
    "vxfoliage/huge-integer": f"{_SCENE}: OverflowError from float() of a 20-digit integer in _number",
    "palette/deep-toml": f"{_SCENE}: RecursionError from tomllib in load_palette_file",
    "palette/huge-integer": f"{_SCENE}: OverflowError from float() of a 20-digit integer in _number",
    "plants/nul-in-source": f"{_PLANTS}: ValueError 'embedded null byte' in RuleFolder.path_of",
    "plants/overlong-source-name": f"{_PLANTS}: OSError 'File name too long' in RuleFolder.path_of",
    "plants/deep-dictionary": f"{_PLANTS}: RecursionError in genxy._parse_dict on a dictionary 500 deep",
    "biomes/lone-surrogate-export": f"{_BIOMES}: UnicodeEncodeError encoding a lone surrogate on export",
    "biomes/huge-integer": f"{_BIOMES}: OverflowError in validate.is_number on a 20-digit integer",
    "biomes/deep-nesting": f"{_BIOMES}: RecursionError in merge.apply_layer on objects 500 deep",
    "biomes/parent-chain-5000": f"{_BIOMES}: a Parent chain of 5,000 small files needs more than 192 MiB",
    "plants/source-chain-800": f"{_PLANTS}: a source= chain of 800 files takes more than 1 s of CPU",
    "zone_gz/bomb-inferred-16384": "fixed on branch h-harden-zones (model/zones): 521 KB of gzip is "
    "inflated to 512 MiB for a zone inferred as 16384 x 16384 (memory limit)",
}


def _param(case: Path):
    name = f"{case.parent.name}/{case.name}"
    marks = [pytest.mark.xfail(strict=True, reason=ELSEWHERE[name])] if name in ELSEWHERE else []
    return pytest.param(case, id=name, marks=marks)


def test_every_known_case_is_a_folder_here():
    assert set(ELSEWHERE) <= {f"{c.parent.name}/{c.name}" for c in CASES}


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_regression_replays_cleanly(case, fuzz_worker, tmp_path):
    inp = load_case(case)
    limits = json.loads((case / "case.json").read_text()).get("limits")  # tighter than the default
    worker = Worker(**limits) if limits else fuzz_worker
    try:
        (outcome,) = run_inputs(worker, [inp], tmp_path, SEEDS[inp.format]())
    finally:
        if worker is not fuzz_worker:
            worker.close()
    assert outcome.good, f"{outcome.status}: {outcome.signature}: {outcome.detail}"
