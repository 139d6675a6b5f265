"""TRN evaluation of a realistic layer stack versus one bare numpy pass over the same poles."""

from __future__ import annotations

import numpy as np

from app.bench import BenchCase, best_time
from model.trn.evaluator import Region, evaluate
from model.trn.synthetic import realistic_stack


def stack_and_region(quick: bool):
    layers = 20 if quick else 60  # 60 layers ≈ 430 items (a real planet costs 2-3x more per pole)
    size = 128 if quick else 512
    return realistic_stack(layers), Region(-size // 2, -size // 2, size, size, 8.0)


def bare_pass(region: Region):
    xs, zs = region.coords()

    def run() -> np.ndarray:
        return np.sqrt(xs * xs + zs * zs) < 100.0  # one circle test: the cheapest meaningful pass

    return run


def evaluate_ratio(quick: bool) -> float:
    """Evaluation time of the whole stack / one bare numpy pass over the same grid."""
    doc, region = stack_and_region(quick)
    repeat = 2 if quick else 3
    t_eval = best_time(lambda: evaluate(doc, region), repeat)
    t_bare = best_time(bare_pass(region), 5)
    return t_eval / t_bare


CASES = [
    # Per layer the evaluator touches only the poles its boundaries reach, so ~430 items cost one to
    # two thousand bare passes (one pass is ~0.5 ms); a per-pole Python loop would cost millions.
    BenchCase("trn.evaluate_512_stack_vs_numpy_pass", budget=5000.0, run=evaluate_ratio,
              description="a ~430-item layer stack over 512² poles costs at most 5000 bare numpy passes"),
]
