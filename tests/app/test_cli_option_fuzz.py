"""TRN bake and to-scene options, fuzzed: every command line is refused by the parser or the command's
checks (a usage error), or accepted only where the model takes it: a region of finite poles it can
lay out in tiles, and for a scene a grid the scene reader opens; then a tiny bake, the evaluator
run over 2 x 2 poles at each corner of the accepted region, gives finite heights there. Seeded
inputs from the fuzz engine (tests/model/fuzz), hundreds by default, 10,000 more with --runslow;
in this process, as the parser and the checks read and write nothing (the model's fuzz worker
may not import the app)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import os
import random

import numpy as np
import pytest

from app.cli import UsageError, build_parser
from app.cli import trn as trn_cli
from model.batch import MAX_TASKS, tiles_of
from model.extent import grid_problem
from model.formats.scene_writer import SceneWriter
from model.trn.evaluator import Region, evaluate
from model.trn.to_scene import MAX_STREAM_POLES
from tests.model.fuzz.corpora_float import _trn_option, trn_options_seeds
from tests.model.fuzz.engine import text_mutation

COUNT = int(os.environ.get("BOSCAGE_FUZZ_COUNT", "500"))
SLOW_COUNT = int(os.environ.get("BOSCAGE_FUZZ_SLOW_COUNT", "10000"))


def outcome(argv: object, folder) -> str:
    """'refused', 'accepted' or 'not a command line'; an assertion when the model would not take
    what was accepted."""
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        return "not a command line"
    quiet = io.StringIO()
    try:
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            args = build_parser().parse_args(argv)
    except SystemExit:
        return "refused"
    if getattr(args, "action", None) not in ("bake", "to-scene"):
        return "refused"
    try:
        if args.action == "bake":
            region = trn_cli._region(args, trn_cli.MAX_BAKE_POLES)
            tile = trn_cli._bake_tile(args, region)
            assert region.rows * region.cols <= trn_cli.MAX_BAKE_POLES
            assert len(tiles_of(region.rows, region.cols, tile)) <= MAX_TASKS
        else:
            region = trn_cli._region(args, MAX_STREAM_POLES, scene=True)
            assert grid_problem(region.cols, region.rows, region.spacing, region.bounds[:2]) is None, \
                "to-scene accepted a region the scene reader refuses"
            SceneWriter(folder / "never.boscage", region.rows, region.cols, region.spacing, region.bounds[:2])
    except UsageError as e:
        assert "\n" not in str(e)
        return "refused"
    assert region.rows >= 1 and region.cols >= 1
    assert all(math.isfinite(v) for v in region.bounds), f"accepted a region with bounds {region.bounds}"
    for ix, iz in ((region.ix0, region.iz0), (region.ix0 + region.cols - 2, region.iz0 + region.rows - 2)):
        corner = Region(ix, iz, 2, 2, region.spacing)
        xs, zs = corner.coords()
        assert np.isfinite(xs).all() and np.isfinite(zs).all(), "accepted a region whose poles are not finite"
        baked = evaluate(_hill(), corner)  # a tiny bake where the region starts and where it ends
        assert baked.heights.shape == (2, 2) and np.isfinite(baked.heights).all(), \
            f"the bake of an accepted region gives heights {baked.heights.ravel()[:4]} at its corner"
    return "accepted"


@functools.lru_cache(maxsize=1)
def _hill():
    from model.trn import synthetic

    return synthetic.realistic_stack(n_layers=6)


def command_line(number: int) -> tuple[object, list[str]]:
    """Input `number`: a seed command line with one to three options set to values at or past an
    edge of what the model takes, and sometimes a number or string of it mutated as any JSON."""
    seeds = trn_options_seeds()
    rng = random.Random(f"boscage-trn-options:{number}")
    seed = seeds[rng.randrange(len(seeds))]
    files = dict(seed.files)
    steps = [f"seed {seed.name}"]
    for _ in range(rng.choice((1, 1, 2, 3))):
        if rng.random() < 0.25:
            files[seed.main], step = text_mutation(rng, files[seed.main], "json", seed)
        else:
            step = _trn_option(rng, files, seed)
        steps.append(step)
    try:
        return json.loads(files[seed.main]), steps
    except (ValueError, RecursionError):
        return None, steps


def _run(numbers: range, folder) -> dict[str, int]:
    counts: dict[str, int] = {}
    for number in numbers:
        argv, steps = command_line(number)
        try:
            kind = outcome(argv, folder)
        except Exception as e:  # noqa: BLE001 - report the input that broke it
            raise AssertionError(f"input {number} ({'; '.join(steps)}): {argv!r:.300}: "
                                 f"{type(e).__name__}: {e}") from None
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def test_trn_options_are_refused_or_taken_by_the_model(tmp_path):
    counts = _run(range(COUNT), tmp_path)
    assert counts.get("accepted", 0) > COUNT // 10 and counts.get("refused", 0) > COUNT // 3, counts


@pytest.mark.slow
def test_trn_options_many(tmp_path):
    counts = _run(range(COUNT, COUNT + SLOW_COUNT), tmp_path)
    assert counts.get("accepted", 0) and counts.get("refused", 0), counts


@pytest.mark.parametrize("argv, words", [
    (["--spacing", "5e-324"], "--spacing: must be 0.001 to"),
    (["--spacing", "1e308"], "--spacing: must be 0.001 to"),
    (["--spacing", "nan"], "--spacing: must be a positive number"),
    (["--tile", "0.5"], "--tile: expected a whole number"),
    (["--spacing", "0.001", "--region", "0,0,1e9,1e9"], "more than 67,108,864"),
    (["--tile", "1", "--region", "0,0,2048,2048", "--spacing", "1"], "--tile 1 makes 4,198,401 tiles"),
])
def test_the_refusals_say_which_option(tmp_path, capsys, argv, words):
    base = {"--region": "0,0,64,64", "--spacing": "1", "--out": str(tmp_path / "bake")}
    options = dict(zip(argv[::2], argv[1::2], strict=True))
    full = ["trn", "bake", str(tmp_path / "missing.trn")]
    for key, value in {**base, **options}.items():
        full += [key, value]
    from app.cli import run_cli

    code = run_cli(full)
    err = capsys.readouterr().err
    assert code == 2 and words in err, err
    assert not (tmp_path / "bake").exists()


@pytest.mark.parametrize("tile, words", [("1e308", "--tile: must be 0.001 to"),
                                         ("1e6", "cannot be a scene's terrain"),
                                         ("5e-324", "--tile: must be 0.001 to")])
def test_a_zone_tile_size_is_a_spacing_the_scene_reader_takes(tmp_path, capsys, tile, words):
    from app.cli import run_cli
    from tests.app.test_cli_write_errors import _zone

    zone = _zone(tmp_path / "zone")
    code = run_cli(["zone", "to-scene", str(zone), "--id", "106", "--tile", tile, "--out",
                    str(tmp_path / "z.boscage")])
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err, err
    assert not (tmp_path / "z.boscage").exists()
