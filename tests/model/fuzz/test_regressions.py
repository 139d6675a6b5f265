"""Every input the fuzzer once broke a reader with, replayed: it must end in success or FormatError.

A case is a folder `regressions/<format>/<name>/` (see `runner.load_case`). A crash in a reader
being fixed elsewhere would be a strict xfail here (`ELSEWHERE`), flipping when the fix lands.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.model.fuzz.corpora import SEEDS
from tests.model.fuzz.runner import Worker, load_case, run_inputs

HERE = Path(__file__).parent / "regressions"
CASES = sorted(p.parent for p in HERE.glob("*/*/case.json"))

# Cases whose reader is being fixed elsewhere, as strict xfails that flip when the fix lands.
# None are left: every input the fuzzer ever broke a reader with now ends in success or FormatError.
ELSEWHERE: dict[str, str] = {}


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
