"""Markov-chain figures against hand-computed values and a plain simulation."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from model.plants.loader import RuleFolder
from model.plants.markov import chain_of, figures, survival_curve
from tests.model.plants.conftest import write_rules


def test_grass_a_figures(sample_folder: Path) -> None:
    g = RuleFolder(sample_folder).rule("grass_a")
    c = chain_of(g)
    assert np.allclose(c.stay[0], [2 / 3, 1 / 3, 0, 0]) and np.allclose(c.death, [0, 0, 0, 0.25])
    f = figures(g)
    # 3 rolls expected in each of states 0-2, 4 in state 3; a roll every growRate + 1 = 2 ticks.
    assert np.isclose(f.lifetime, 26.0) and np.isclose(f.death_share, 1.0)
    assert np.allclose(f.stationary, [3 / 13, 3 / 13, 3 / 13, 4 / 13])
    assert f.ticks_to_fruit is None


def test_irontree_ticks_to_fruit(sample_folder: Path) -> None:
    f = figures(RuleFolder(sample_folder).rule("irontree_lo"))
    assert np.isclose(f.ticks_to_fruit, 18.0) and np.isclose(f.lifetime, 48.0)


def test_type_changes_and_immortal_rules(tmp_path: Path) -> None:
    write_rules(tmp_path, {
        "a.txt": "index=n5\nhealth=N1,1\nblockingHeight=N0,0\nstate_0=N0,1\naction_0=N5\n"
                 "state_1=N1\naction_1=N5,6\n",
        "b.txt": "index=n6\nhealth=N1\nblockingHeight=N0\nstate_0=N0\naction_0=N6\n"})
    folder = RuleFolder(tmp_path)
    fa = figures(folder.rule("a"))
    assert np.isclose(fa.lifetime, 4.0) and np.isclose(fa.death_share, 0.0)  # it ends by becoming type 6
    fb = figures(folder.rule("b"))
    assert np.isinf(fb.lifetime) and np.allclose(fb.stationary, [1.0])


def test_simulated_survival_matches_the_chain(sample_folder: Path) -> None:
    g = RuleFolder(sample_folder).rule("grass_a")
    curve = survival_curve(g, plants=4000, ticks=400, seed=3)
    assert curve[0] == 1.0 and np.all(np.diff(curve) <= 0)
    # Mean lifetime = sum of the survival curve (in ticks).
    assert abs(curve.sum() - figures(g).lifetime) < 1.5
    assert np.array_equal(curve, survival_curve(g, plants=4000, ticks=400, seed=3))
