"""A rule's growth state machine as a Markov chain: transition matrix, expected times, survival."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.plants.rule import PlantRule


@dataclass(frozen=True)
class Chain:
    """Per-roll probabilities: `stay[s, t]` keeps the type and moves to t; `death[s]`; `change[s]`."""

    stay: np.ndarray  # (n, n)
    death: np.ndarray  # (n,)
    change: dict[int, np.ndarray]  # other plant type → (n, n) probability of becoming it in state t
    ticks_per_roll: int

    @property
    def n(self) -> int:
        return int(self.stay.shape[0])


@dataclass(frozen=True)
class Figures:
    """Expected ticks to first fruit and to the end of life (death or becoming another type),
    the chance the end is death, and each state's long-run share of a tile's time."""

    ticks_to_fruit: float | None  # None: never fruits; inf: fruiting declared but unreachable
    lifetime: float  # inf when the plant can never die or change type
    death_share: float
    stationary: np.ndarray

    def as_dict(self) -> dict:
        def num(v: float | None) -> float | str | None:
            return None if v is None else ("inf" if np.isinf(v) else round(float(v), 4))
        return {"ticks_to_fruit": num(self.ticks_to_fruit), "lifetime": num(self.lifetime),
                "death_share": round(float(self.death_share), 4),
                "stationary": [round(float(x), 4) for x in self.stationary]}


def chain_of(rule: PlantRule) -> Chain:
    """Next state and action are drawn independently and uniformly from their lists."""
    n = rule.state_count
    stay = np.zeros((n, n))
    death = np.zeros(n)
    change: dict[int, np.ndarray] = {}
    for s in range(n):
        choices, acts = rule.choices(s)
        nexts = [x for x in choices if 0 <= x < n]
        if not nexts:
            continue
        p_next = np.bincount(nexts, minlength=n)[:n] / len(choices)
        for a in set(acts):
            p_a = acts.count(a) / len(acts)
            if a == 0:
                death[s] += p_a
            elif a == rule.index:
                stay[s] += p_a * p_next
            else:
                change.setdefault(a, np.zeros((n, n)))[s] += p_a * p_next
    return Chain(stay, death, change, rule.grow_rate + 1)


def _expected_rolls_to(stay: np.ndarray, targets: np.ndarray) -> float:
    """Expected rolls from state 0 until the first roll that lands in `targets` (others absorb as never)."""
    n = stay.shape[0]
    q = stay * ~targets[None, :]  # moves that do not hit a target
    hit = (stay * targets[None, :]).sum(axis=1)
    a = np.eye(n) - q
    try:
        steps = np.linalg.solve(a, np.ones(n))
        p_hit = np.linalg.solve(a, hit)
    except np.linalg.LinAlgError:
        return float("inf")
    if p_hit[0] < 1 - 1e-9:
        return float("inf")  # some paths never reach fruit (death first or a closed loop)
    return float(steps[0])


def figures(rule: PlantRule, iterations: int = 20000) -> Figures:
    """Markov-chain figures in cube ticks (a roll every growRate + 1 ticks)."""
    c = chain_of(rule)
    n = c.n
    if n == 0:
        return Figures(None, 0.0, 1.0, np.zeros(0))
    exits = 1.0 - c.stay.sum(axis=1)  # death, type change, or an invalid next state
    a = np.eye(n) - c.stay
    lifetime = float("inf")
    death_share = 0.0
    try:
        occupancy = np.linalg.solve(a.T, np.eye(n)[0])  # expected rolls spent in each state from 0
        if np.all(np.isfinite(occupancy)) and occupancy.min() > -1e-9 and exits @ occupancy > 1 - 1e-6:
            lifetime = float(occupancy.sum()) * c.ticks_per_roll
            death_share = float(c.death @ occupancy)
    except np.linalg.LinAlgError:
        occupancy = None
    if np.isfinite(lifetime):
        stationary = occupancy / occupancy.sum()
    else:
        # Some lives never end: the long-run (Cesàro) average of the state distribution, with
        # a plant that ends replaced by a new one in state 0.
        p = np.eye(n)[0]
        acc = np.zeros(n)
        for _ in range(iterations):
            acc += p
            p = p @ c.stay
            p[0] += 1.0 - p.sum()
        stationary = acc / acc.sum()
    ticks_to_fruit: float | None = None
    if rule.fruits:
        if rule.fruiting_state >= n:
            ticks_to_fruit = float("inf")
        else:
            targets = np.arange(n) >= rule.fruiting_state
            ticks_to_fruit = _expected_rolls_to(c.stay, targets) * c.ticks_per_roll
    return Figures(ticks_to_fruit, lifetime, death_share, stationary)


def survival_curve(rule: PlantRule, plants: int = 2000, ticks: int = 300, seed: int = 0) -> np.ndarray:
    """Simulated share of plants still alive as this type after each tick, starting at state 0."""
    n = rule.state_count
    out = np.ones(ticks + 1)
    if n == 0:
        out[1:] = 0.0
        return out
    rng = np.random.default_rng(seed)
    lists = [rule.choices(s) for s in range(n)]
    width = max(len(x) for pair in lists for x in pair)
    nexts = np.zeros((n, width), np.int64)
    acts = np.zeros((n, width), np.int64)
    n_len = np.array([len(x) for x, _ in lists])
    a_len = np.array([len(x) for _, x in lists])
    for s, (nx, ac) in enumerate(lists):
        nexts[s, :n_len[s]] = nx
        acts[s, :a_len[s]] = ac
    state = np.zeros(plants, np.int64)
    time = np.zeros(plants, np.int64)
    alive = np.ones(plants, bool)
    for t in range(1, ticks + 1):
        live = np.flatnonzero(alive)
        waiting = time[live] < rule.grow_rate
        time[live[waiting]] += 1
        roll = live[~waiting]
        time[roll] = 0
        s = state[roll]
        nxt = nexts[s, (rng.random(len(roll)) * n_len[s]).astype(np.int64)]
        act = acts[s, (rng.random(len(roll)) * a_len[s]).astype(np.int64)]
        ok = (act == rule.index) & (nxt >= 0) & (nxt < n)
        alive[roll[~ok]] = False
        state[roll[ok]] = nxt[ok]
        out[t] = alive.mean()
    return out
