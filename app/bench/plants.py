"""Growth pass budgets: one pass over a 2048² zone against the per-tile loop and against plain I/O.

The zone is the seeded sample zone grown with the sample rules until it settles (the state a live
zone is in), then one more pass is timed. The per-tile reference loop (`model.plants.reference_growth`)
is timed on a corner of the same zone and scaled by cube count: it costs the same per cube everywhere.
"""

from __future__ import annotations

import functools
import tempfile
import time
from pathlib import Path

import numpy as np

from app.bench import BenchCase, best_time

RULES = Path(__file__).resolve().parents[2] / "resources" / "plants"
FERTILITY = 10.0
SETTLE_PASSES = 4


@functools.lru_cache(maxsize=2)
def _settled(size: int):
    from model.plants.growth import GrowthOptions, RuleTables, run_growth
    from model.plants.loader import load_rules
    from model.plants.zone_growth import field_of_zone
    from model.zones.sample import sample_zone

    rules = load_rules(RULES)
    tables = RuleTables(rules)
    field = field_of_zone(sample_zone(1, size, seed=0))
    field = run_growth(field, tables, SETTLE_PASSES, seed=1, options=GrowthOptions(fertility=FERTILITY))
    return rules, tables, field


def _pass_time(size: int) -> float:
    from model.plants.growth import GrowthOptions, run_growth

    _, tables, field = _settled(size)
    options = GrowthOptions(fertility=FERTILITY)
    return best_time(lambda: run_growth(field, tables, 1, seed=7, options=options), repeat=3)


def _reference_time(size: int, corner: int) -> float:
    """The reference loop on a corner of `corner`² tiles, scaled to the whole zone by cube count."""
    from model.plants.growth import GrowthField, GrowthOptions
    from model.plants.reference_growth import reference_growth

    rules, _, field = _settled(size)
    part = GrowthField(**{k: getattr(field, k)[:corner, :corner] for k in field.__dataclass_fields__})
    options = GrowthOptions(fertility=FERTILITY)
    t0 = time.perf_counter()
    reference_growth(part, rules, 1, seed=7, options=options)
    return (time.perf_counter() - t0) * (size * size) / (corner * corner)


def _io_time(size: int) -> float:
    """numpy reading the plant layer file once and writing it back once."""
    from model.zones.layers import PLANT_INFO

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "plants.0001.bin"
        np.zeros((size, size), PLANT_INFO).tofile(path)

        def read_write() -> None:
            np.fromfile(path, PLANT_INFO).reshape(size, size).tofile(path)

        return best_time(read_write, repeat=5)


def _sizes(quick: bool) -> tuple[int, int]:
    return (1024, 128) if quick else (2048, 256)


def speedup_over_reference(quick: bool) -> float:
    size, corner = _sizes(quick)
    return _reference_time(size, corner) / _pass_time(size)


def ratio_to_io(quick: bool) -> float:
    size, _ = _sizes(quick)
    return _pass_time(size) / _io_time(size)


CASES = [
    BenchCase("plants.growth_pass_2048_speedup_vs_reference", 100.0,
              speedup_over_reference, at_least=True,
              description="settled sample zone, sample rules, fertility 10 %; reference scaled by cubes"),
    BenchCase("plants.growth_pass_2048_vs_numpy_io", 20.0, ratio_to_io,
              description="28 MiB plant layer: np.fromfile + tofile"),
]
