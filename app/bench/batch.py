"""Batch budgets: a TRN bake of 4 M poles on two worker processes against one (this machine has
two cores), and the bake's poles per second per core on a planet-like stack."""

from __future__ import annotations

import time

from app.bench import BenchCase
from model.batch import default_workers, start_local_cluster
from model.trn.bake_batch import DEFAULT_TILE, evaluate_in_tiles
from model.trn.evaluator import warm_up
from model.trn.synthetic import planet_region, planet_stack


def _bake(quick: bool):
    """The planet-like stack over the whole map: 4 M poles (quick: 1 M). Since its evaluation runs
    compiled, the older ~430-item stack costs so little per pole that the tiles' trip back to this
    process is a large share of a two-worker bake."""
    return planet_stack(), planet_region(1_000_000 if quick else 4_000_000)


def two_workers_vs_one(quick: bool) -> float:
    """Wall time of the bake in this process / on two workers of a running local cluster.

    The cluster is started before the clock (a pipeline keeps one running) and, like this process,
    has its compiled kernels loaded; both runs use the same tiles, the size `trn bake` takes by
    default, so only the parallelism differs."""
    from dask.distributed import Client

    doc, region = _bake(quick)
    warm_up()
    one = two = float("inf")
    with start_local_cluster(2) as cluster:
        with Client(cluster.scheduler_address) as client:
            client.run(warm_up)
        for _ in range(2):  # best of two each, alternating: a busy moment weighs on both sides
            t0 = time.perf_counter()
            evaluate_in_tiles(doc, region, tile=DEFAULT_TILE, workers=1)
            one = min(one, time.perf_counter() - t0)
            t0 = time.perf_counter()
            evaluate_in_tiles(doc, region, tile=DEFAULT_TILE, scheduler=cluster.scheduler_address)
            two = min(two, time.perf_counter() - t0)
    return one / two


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
    # the quick bake (1 M poles, 16 tiles) is too short for two workers to gain 1.7x over their
    # scheduling; there they must at least not lose
    BenchCase("batch.trn_bake_two_workers_vs_one", 1.7, two_workers_vs_one, at_least=True, quick_budget=1.0,
              description=f"a 4 M-pole bake on 2 worker processes vs 1 ({default_workers()} cores here)"),
    # the quick bake (250 k poles) carries the kernels' loading (~0.4 s) over fewer poles
    BenchCase("batch.trn_bake_poles_per_second_per_core", 250_000.0, poles_per_second_per_core, at_least=True,
              quick_budget=120_000.0,
              description="poles per CPU second of a whole-map bake (1 M poles) of a planet-like "
                          "~1,400-item stack: at least the C++ point evaluator's ~250,000 (heights only; "
                          "here every map)"),
]
