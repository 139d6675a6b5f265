"""Chunk proxies on the CPU (numpy only): which instances stand for a chunk, and how much each."""

from __future__ import annotations

import numpy as np

from model.foliage.variants import colour_shifts, draw24, instance_hashes, variant_indices
from rendering.foliage_proxies import (
    PROXY_CAP,
    PROXY_CHANNEL,
    SATURATION,
    kept_share,
    presence,
    proxy_of,
)

CELL = 32.0 * 32.0


def _records(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rec = np.zeros((n, 7), np.float32)
    rec[:, 0] = rng.uniform(0, 32, n)
    rec[:, 2] = rng.uniform(0, 32, n)
    rec[:, 3] = rng.uniform(0, 6.28, n)
    rec[:, 6] = rng.uniform(0.8, 1.2, n)
    return rec


def test_a_proxy_is_the_chunks_lowest_hashed_instances_in_order_whatever_the_record_order() -> None:
    rec = _records(500)
    p = proxy_of(rec, "fir", card_area=1.0, cell_area=CELL)
    assert p.shape == (PROXY_CAP, 10)
    u = draw24(instance_hashes(rec, "fir"), PROXY_CHANNEL)
    lowest = rec[np.argsort(u, kind="stable")[:PROXY_CAP]]  # the plain reference
    assert np.array_equal(p[:, :7], lowest)
    assert np.array_equal(p[:, 7], np.arange(PROXY_CAP)) and (p[:, 8] == PROXY_CAP).all()
    shuffled = rec[np.random.default_rng(2).permutation(len(rec))]
    assert np.array_equal(proxy_of(shuffled, "fir", 1.0, CELL), p)  # deterministic, order-free
    assert not np.array_equal(proxy_of(rec, "oak", 1.0, CELL)[:, :7], p[:, :7])  # hashed per type


def test_a_small_chunk_is_its_own_proxy_and_stands_for_itself() -> None:
    rec = _records(9)
    p = proxy_of(rec, "fir", card_area=20.0, cell_area=CELL)
    assert len(p) == 9 and (p[:, 9] == 9).all()
    assert {tuple(r) for r in p[:, :7]} == {tuple(r) for r in rec}


def test_a_proxy_stands_for_its_chunk_until_more_trees_add_no_cover() -> None:
    sparse = proxy_of(_records(300), "fir", card_area=1.0, cell_area=CELL)
    assert (sparse[:, 9] == 300).all()  # 300 m² of cards in 1,024 m²: every tree counts
    dense = proxy_of(_records(5000), "fir", card_area=20.0, cell_area=CELL)
    saturated = SATURATION * CELL / (20.0 * np.mean(_records(5000)[:, 6].astype(np.float64) ** 2))
    assert np.allclose(dense[:, 9], saturated, rtol=1e-5)  # past saturation more trees add no cover
    assert (dense[:, 9] >= PROXY_CAP).all()  # and never less than the cards themselves


def test_the_kept_cards_cover_what_the_chunk_covered_at_every_distance() -> None:
    p = proxy_of(_records(1000), "fir", card_area=1.0, cell_area=CELL)
    start = 300.0
    for d in (100.0, 300.0, 450.0, 900.0, 2000.0, 9000.0):
        share = kept_share(np.full(len(p), d), start)
        there = presence(p, share)
        kept = p[:, 8] * share
        area = there * p[:, 9] / kept  # each card's area in units of its own instance's
        assert np.isclose(area.sum(), p[0, 9])  # Σ = what the chunk stands for: no pop, no loss
        assert (there > 0).sum() == max(1, int(np.ceil(kept[0])))  # fewer cards further away
    near, far = presence(p, kept_share(np.full(len(p), 400.0), start)), presence(p, kept_share(
        np.full(len(p), 800.0), start))
    assert ((far > 0) <= (near > 0)).all()  # the cards kept far are a prefix of those kept near


def test_a_proxy_keeps_its_types_variants_and_colours_in_proportion() -> None:
    rec = _records(20_000, seed=5)
    weights = (2.0, 1.0)
    chunks = [rec[i:i + 400] for i in range(0, len(rec), 400)]
    reps = np.concatenate([proxy_of(c, "fir", 1.0, CELL)[:, :7] for c in chunks])
    share_all = np.mean(variant_indices(rec, "fir", weights) == 1)
    share_reps = np.mean(variant_indices(reps, "fir", weights) == 1)
    assert abs(share_reps - share_all) < 0.03  # the representatives are a fair sample
    hue_all = colour_shifts(rec, "fir", (-10.0, 10.0), (0.0, 0.0))[:, 0].mean()
    hue_reps = colour_shifts(reps, "fir", (-10.0, 10.0), (0.0, 0.0))[:, 0].mean()
    assert abs(hue_reps - hue_all) < 0.6
