"""The fuzz harness itself: each limit it claims catches a reader that breaks it, and inputs replay."""

from __future__ import annotations

import pytest

from tests.model.fuzz.corpora import FORMATS, SEEDS
from tests.model.fuzz.engine import OUTSIDE, Fifo, Folder, Input, Link, mutate
from tests.model.fuzz.runner import Worker, load_case, run_inputs, save_case


@pytest.fixture(scope="module")
def strict_worker():
    worker = Worker(cpu_s=1, memory_mib=256, wall_s=4)
    yield worker
    worker.close()


def _one(worker, reader: str, root, files=None, main="x.bin"):
    inp = Input(reader, 0, files or {"x.bin": b"data"}, main, [])
    return run_inputs(worker, [inp], root, [])[0]


@pytest.mark.parametrize(
    "reader, status, signature",
    [
        ("selftest_crash", "crash", "KeyError in fuzz/readers.py _selftest_crash"),
        ("selftest_outside", "violation", "reads outside its folder in fuzz/readers.py _selftest_outside"),
        ("selftest_write", "violation", "writes a file in fuzz/readers.py _selftest_write"),
        ("selftest_unnamed", "crash", "FormatError without a file"),
        ("selftest_loop", "timeout", "timeout"),
        ("selftest_memory", "memory", "memory"),
        ("selftest_die", "died", "worker died (signal 11)"),
    ],
)
def test_each_limit_catches_its_reader(strict_worker, tmp_path, reader, status, signature):
    outcome = _one(strict_worker, reader, tmp_path)
    assert (outcome.status, outcome.signature) == (status, signature), outcome.detail


def test_a_read_outside_is_caught_even_when_the_reader_swallows_it(strict_worker, tmp_path):
    outcome = _one(strict_worker, "selftest_swallow", tmp_path, {"x.bin": Link("secret.txt")})
    assert outcome.status == "violation" and "secret.txt" in outcome.detail


def test_a_read_outside_from_c_code_is_caught(fuzz_worker, tmp_path):
    # pxr opens the sublayer from C++, past the audit hook: the watch on outside/ must see it
    # (the default worker: pxr needs more address space than the strict one has to load at all)
    layer = b"#usda 1.0\n(\n    subLayers = [@" + OUTSIDE + b"/secret.usda@]\n)\n"
    careless = _one(fuzz_worker, "selftest_usd_outside", tmp_path, {"x.usda": layer}, "x.usda")
    assert (careless.status, careless.signature) == ("violation", "opens a file outside its folder"), \
        careless.detail
    assert "secret.usda" in careless.detail and "inotify" in careless.detail
    # the product's reader refuses the same input before composing it
    product = _one(fuzz_worker, "usda", tmp_path, {"x.usda": layer}, "x.usda")
    assert product.status == "error" and "leaves the input's folder" in product.detail, product.detail


def test_a_reader_blocked_in_c_code_is_killed_by_the_wall_clock(strict_worker, tmp_path):
    outcome = _one(strict_worker, "vxfoliage", tmp_path, {"t.vxfoliage": Fifo()}, "t.vxfoliage")
    assert outcome.status == "timeout" and "wall time" in outcome.detail


def test_the_worker_carries_on_after_a_fault(strict_worker, tmp_path):
    _one(strict_worker, "selftest_memory", tmp_path)
    ok = _one(strict_worker, "vxfoliage", tmp_path, {"t.vxfoliage": b'name = "fine"\n'}, "t.vxfoliage")
    bad = _one(strict_worker, "vxfoliage", tmp_path, {"t.vxfoliage": b"name = \n"}, "t.vxfoliage")
    assert (ok.status, bad.status) == ("ok", "error"), (ok.detail, bad.detail)


@pytest.mark.parametrize("fmt", FORMATS)
def test_inputs_are_rebuilt_from_their_seed_and_every_seed_file_reads(fmt, fuzz_worker, tmp_path):
    seeds = SEEDS[fmt]()
    a, b = mutate(fmt, 11, seeds), mutate(fmt, 11, seeds)
    assert (a.files, a.steps) == (b.files, b.steps)
    assert mutate(fmt, 12, seeds).steps != a.steps or mutate(fmt, 12, seeds).files != a.files
    # the unmutated corpus is valid: every seed reads without error
    clean = [Input(fmt, -1, dict(s.files), s.main, [s.name]) for s in seeds]
    outcomes = run_inputs(fuzz_worker, clean, tmp_path, seeds)
    assert [(o.input.steps[0], o.status) for o in outcomes] == [(s.name, "ok") for s in seeds], [
        o.detail for o in outcomes
    ]


def test_a_saved_case_replays_the_same_input(tmp_path):
    seeds = SEEDS["scene"]()
    inp = mutate("scene", 4, seeds)
    inp.files["extra.link"] = Link("scene/x")
    inp.files["pipe"] = Fifo()
    inp.files["dir.usda"] = Folder()
    back = load_case(save_case(inp, None, tmp_path / "case"))
    assert (back.format, back.seed, back.main, back.files) == (inp.format, inp.seed, inp.main, inp.files)
