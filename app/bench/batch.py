"""Batch budgets: a TRN bake on two workers (threads of this process) against one, at 1 M and 4 M
poles of a planet-like stack, and the bake's poles per second per core."""

from __future__ import annotations

import math
import time

from app.bench import BenchCase
from model.batch import default_workers
from model.trn.bake_batch import DEFAULT_TILE, evaluate_in_tiles
from model.trn.evaluator import Region, warm_up
from model.trn.synthetic import planet_region, planet_stack


def _two_vs_one(poles: int, central: bool = False) -> float:
    """Wall time of a bake of `poles` on one worker / on two, what `trn bake --workers 1` and
    `--workers 2` run (the same tiles, the size `trn bake` takes by default); kernels loaded
    first, as a second bake in one process finds them. Best of three each, alternating: a busy
    moment of a shared machine weighs on both sides. The whole map at a coarse spacing, or
    (`central`) a square at the map's centre at 4 m, as `trn bake --region=-2048,-2048,2048,2048
    --spacing 4` of a planet: 1,025² poles, whose odd side leaves thin edge tiles."""
    doc, region = planet_stack(), planet_region(poles)
    if central:
        half = 4.0 * 2 ** round(math.log2(math.isqrt(poles) / 2))  # 2,048 m for 1 M poles
        region = Region.from_bounds(-half, -half, half, half, 4.0)
    warm_up()
    one = two = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        evaluate_in_tiles(doc, region, tile=DEFAULT_TILE, workers=1)
        one = min(one, time.perf_counter() - t0)
        t0 = time.perf_counter()
        evaluate_in_tiles(doc, region, tile=DEFAULT_TILE, workers=2)
        two = min(two, time.perf_counter() - t0)
    return one / two


def two_workers_vs_one_small(quick: bool) -> float:
    """1 M poles (quick: 250 k): little to share, yet two workers must not lose."""
    return _two_vs_one(250_000 if quick else 1_000_000)


def two_workers_vs_one_central(quick: bool) -> float:
    """1,025² poles at the map's centre (quick: 513²)."""
    return _two_vs_one(250_000 if quick else 1_000_000, central=True)


def two_workers_vs_one(quick: bool) -> float:
    """4 M poles (quick: 1 M)."""
    return _two_vs_one(1_000_000 if quick else 4_000_000)


def poles_per_second_per_core(quick: bool) -> float:
    """A whole-map bake of the planet-like stack in this process (its first: kernels load inside
    the clock), in poles per CPU second of this process: one core's rate, which other users of a
    shared machine change less than the wall clock's. The C++ point evaluator's is ~250,000."""
    doc = planet_stack()
    region = planet_region(250_000 if quick else 1_000_000)
    t0 = time.process_time()
    evaluate_in_tiles(doc, region, tile=256, workers=1)
    return region.rows * region.cols / (time.process_time() - t0)


CASES = [
    # the threads share the parsed document and the loaded kernels: nothing to start or send, so a
    # small bake loses at most the wait for its last tile
    BenchCase("batch.trn_bake_two_workers_vs_one_1m", 0.95, two_workers_vs_one_small, at_least=True,
              description=f"a 1 M-pole bake on 2 workers vs 1 ({default_workers()} cores here): never "
                          "more than 5% slower"),
    BenchCase("batch.trn_bake_two_workers_vs_one_1m_central", 0.95, two_workers_vs_one_central,
              at_least=True,
              description="a 1 M-pole bake of the map's centre at 4 m (as `trn bake --region=-2048,-2048,"
                          "2048,2048 --spacing 4`) on 2 workers vs 1: never more than 5% slower"),
    # the quick bake (1 M poles, 4 tiles) shares less evenly
    BenchCase("batch.trn_bake_two_workers_vs_one", 1.6, two_workers_vs_one, at_least=True, quick_budget=0.95,
              description=f"a 4 M-pole bake on 2 workers vs 1 ({default_workers()} cores here)"),
    # the quick bake (250 k poles) carries the kernels' loading (~0.4 s) over fewer poles
    BenchCase("batch.trn_bake_poles_per_second_per_core", 250_000.0, poles_per_second_per_core, at_least=True,
              quick_budget=120_000.0,
              description="poles per CPU second of a whole-map bake (1 M poles) of a planet-like "
                          "~1,400-item stack: at least the C++ point evaluator's ~250,000 (heights only; "
                          "here every map)"),
]
