"""A paint dab's spacing pairs in bounded chunks: memory linear in its candidates for any density,
the accepted candidates the same as with every pair held at once."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from model.foliage import scatter
from model.foliage.foliage_type import FoliageType
from model.foliage.neighbours import count_candidate_pairs
from model.foliage.scatter import Stamp
from tests.model.foliage.conftest import plane, scatter_for


@pytest.mark.parametrize("budget", [1, 50, 997, 2000])
def test_chunked_answers_match_every_pair_at_once(monkeypatch, budget):
    rng = np.random.default_rng(5)
    xz = rng.uniform(0, 12, (1500, 2))
    xz[100:140] = xz[:40]  # duplicates: distance 0
    reach = rng.uniform(0, 1, len(xz)) < 0.7
    for spacing in (0.5, 1.0, 4.0):
        expect = scatter._blocked_within(xz, reach, spacing, np.zeros(len(xz), bool))
        monkeypatch.setattr(scatter, "PAIR_BLOCK", budget)
        assert count_candidate_pairs(xz, xz, spacing) > budget  # the chunked path, not the whole
        assert np.array_equal(scatter._blocked_by_earlier(xz, reach, spacing), expect)
        monkeypatch.undo()
        assert expect.any() and not expect.all()


def _dab_peak(candidates: int) -> tuple[int, int]:
    """(traced peak bytes, accepted) of one dab of `candidates` candidates, radius 10 m, spacing 1 m."""
    radius = 10.0
    density = candidates * 100.0 / (np.pi * radius * radius)  # per 100 m²
    sc = scatter_for(plane(65), FoliageType("t", density=density, spacing=1.0))
    stamp = Stamp((32.0, 32.0), radius, 0.0, 1.0, seed=9)
    hashes, xz, _ = sc.candidates("t", stamp)
    assert abs(len(xz) - candidates) <= 1
    tracemalloc.start()
    try:
        out = sc.consider("t", stamp)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, len(out.records)


def test_a_dense_dab_holds_memory_linear_in_its_candidates():
    # 4,000 candidates in a 10 m dab spaced 1 m examine ~470,000 pairs (past PAIR_BLOCK), 16,000
    # examine sixteen times as many: every pair at once held sixteen times the memory
    small, placed_small = _dab_peak(4000)
    large, placed_large = _dab_peak(16000)
    assert placed_small > 100 and placed_large > 100  # spacing is what limits either dab
    assert large <= 4.5 * small, f"4x the candidates took {large / small:.1f}x the memory"
