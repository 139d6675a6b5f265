"""The vectorised growth simulator against the per-tile reference loop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model.plants.growth import (
    PLANT,
    Cancelled,
    GrowthField,
    GrowthOptions,
    RuleTables,
    run_growth,
    validate_field,
)
from model.plants.loader import RuleFolder, load_folder
from model.plants.reference_growth import reference_growth, reference_validate
from tests.model.plants.growth_fixtures import fill, flat_field


@pytest.fixture(scope="module")
def rules(sample_folder: Path) -> dict:
    return load_folder(sample_folder).by_index()


@pytest.fixture(scope="module")
def sample_folder() -> Path:
    return Path(__file__).resolve().parents[3] / "resources" / "plants"


def _same(a: GrowthField, b: GrowthField) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in a.__dataclass_fields__)


def _transitions(before: GrowthField, after: GrowthField, n_states: int) -> np.ndarray:
    """Counts of (old state → new state) and (old state → death, last column)."""
    out = np.zeros((n_states, n_states + 1), np.int64)
    old = before.state.reshape(-1).astype(int)
    dead = after.type.reshape(-1) == 0
    new = np.where(dead, n_states, after.state.reshape(-1).astype(int))
    np.add.at(out, (old, new), 1)
    return out


def test_grass_transition_frequencies_match_the_reference_and_the_rule(rules: dict) -> None:
    # Every tile holds grass about to roll; the zone is full so nothing spawns.
    rng = np.random.default_rng(0)
    f = fill(flat_field(64), 1, 5, rng.integers(0, 4, (64, 64)), time=1)
    opts = GrowthOptions(fertility=0)
    vec = _transitions(f, run_growth(f, rules, 1, seed=1, options=opts), 4)
    ref = _transitions(f, reference_growth(f, rules, 1, seed=2, options=opts), 4)
    g = rules[1]
    for s in range(4):
        n_vec, n_ref = vec[s].sum(), ref[s].sum()
        expected = np.zeros(5)
        for nxt in g.states[s]:
            for act in g.actions[s]:
                expected[4 if act == 0 else nxt] += 1 / (len(g.states[s]) * len(g.actions[s]))
        for p_vec, p_ref, p in zip(vec[s] / n_vec, ref[s] / n_ref, expected, strict=True):
            sigma = np.sqrt(max(p * (1 - p), 1e-4) / min(n_vec, n_ref))
            assert abs(p_vec - p) < 5 * sigma and abs(p_ref - p) < 5 * sigma


def test_grow_rate_rolls_every_grow_rate_plus_one_visits(rules: dict) -> None:
    f = fill(flat_field(32), 6, 40, np.zeros((32, 32), np.uint8), time=0)  # BushB: growRate 2
    opts = GrowthOptions(fertility=0)
    one = run_growth(f, rules, 1, seed=3, options=opts)
    assert np.all(one.time == 1) and np.all(one.state == 0)
    two = run_growth(f, rules, 2, seed=3, options=opts)
    assert np.all(two.time == 2)
    three = run_growth(f, rules, 3, seed=3, options=opts)
    assert np.all(three.time == 0)  # the third visit rolls
    moved = (three.state == 1).mean()
    assert 0.4 < moved < 0.6  # state_0 = N0,1


def test_a_pass_is_deterministic_for_a_seed(rules: dict) -> None:
    rng = np.random.default_rng(5)
    f = flat_field(96)
    occupied = rng.random((96, 96)) < 0.3
    f.type[occupied] = rng.choice([1, 5, 7], occupied.sum())
    f.health[occupied] = 10
    before = f.copy()
    a = run_growth(f, rules, 3, seed=42)
    b = run_growth(f, rules, 3, seed=42)
    c = run_growth(f, rules, 3, seed=43)
    assert _same(a, b) and not _same(a, c)
    assert _same(f, before)  # the input is untouched


def test_spawn_counts_match_the_reference(rules: dict) -> None:
    subset = {i: rules[i] for i in (1, 5, 6, 7)}  # grass, bushes, iron tree (kill distance 4)
    opts = GrowthOptions(fertility=12)
    vec, ref = [], []
    for seed in range(4):
        f = flat_field(64)
        vec.append(np.bincount(run_growth(f, subset, 2, seed, opts).type.reshape(-1), minlength=8))
        ref.append(np.bincount(reference_growth(f, subset, 2, seed + 100, opts).type.reshape(-1),
                               minlength=8))
    vec_mean, ref_mean = np.mean(vec, axis=0), np.mean(ref, axis=0)
    assert vec_mean[1:].sum() > 300
    for ty in (1, 5, 7):
        assert abs(vec_mean[ty] - ref_mean[ty]) <= 0.2 * ref_mean[ty] + 8, (ty, vec_mean, ref_mean)
    blocking = lambda counts: counts[5] + counts[6] + counts[7]  # noqa: E731
    assert abs(blocking(vec_mean) - blocking(ref_mean)) <= 0.1 * blocking(ref_mean) + 8


def _min_same_type_distance(types: np.ndarray, plant_type: int) -> float:
    ys, xs = np.nonzero(types == plant_type)
    if ys.size < 2:
        return np.inf
    d2 = (ys[:, None] - ys[None, :]) ** 2 + (xs[:, None] - xs[None, :]) ** 2
    np.fill_diagonal(d2, 1 << 30)
    return float(np.sqrt(d2.min(axis=1)).min())


def _nearest_mean(types: np.ndarray, plant_type: int) -> float:
    ys, xs = np.nonzero(types == plant_type)
    d2 = (ys[:, None] - ys[None, :]) ** 2 + (xs[:, None] - xs[None, :]) ** 2
    np.fill_diagonal(d2, 1 << 30)
    return float(np.sqrt(d2.min(axis=1)).mean())


def test_kill_distance_spacing_holds_and_matches_the_reference(rules: dict) -> None:
    trees = {7: rules[7]}  # iron tree alone: kill distance 4, max 40 per cube
    opts = GrowthOptions(fertility=8)
    vec_nn, ref_nn = [], []
    for seed in range(3):
        f = flat_field(64)
        v = run_growth(f, trees, 3, seed, opts).type
        r = reference_growth(f, trees, 3, seed + 50, opts).type
        assert _min_same_type_distance(v, 7) >= 4 and _min_same_type_distance(r, 7) >= 4
        vec_nn.append(_nearest_mean(v, 7))
        ref_nn.append(_nearest_mean(r, 7))
        assert abs((v == 7).sum() - (r == 7).sum()) <= 0.15 * (r == 7).sum() + 6
    assert abs(np.mean(vec_nn) - np.mean(ref_nn)) < 0.15 * np.mean(ref_nn)


def test_kill_on_distance_removes_crowded_plants_like_the_reference(rules: dict) -> None:
    trees = {7: rules[7]}
    rng = np.random.default_rng(9)
    f = flat_field(64)
    crowded = rng.random((64, 64)) < 0.08
    f.type[crowded] = 7
    f.health[crowded] = 30
    f.time[crowded] = 0
    f.spawn[...] = 131
    opts = GrowthOptions(fertility=0)
    v = run_growth(f, trees, 1, 1, opts)
    r = reference_growth(f, trees, 1, 2, opts)
    nv, nr = (v.type == 7).sum(), (r.type == 7).sum()
    assert nv < crowded.sum() * 0.7  # most crowded trees die
    assert abs(nv - nr) <= 0.12 * nr + 5


def _forbidden_cases(rules: dict) -> tuple[GrowthField, np.ndarray]:
    """A field of grass (index 1) where each of the first tiles breaks exactly one rule."""
    f = flat_field(32)
    f.type[...] = 1
    f.state[...] = 2
    f.health[...] = 5
    f.flags[...] = 0
    forbidden = np.zeros((32, 32), bool)
    cases = [
        lambda y, x: f.spawn.__setitem__((y, x), 0),                      # sterile tile
        lambda y, x: f.control.__setitem__((y, x), 128),                  # highway
        lambda y, x: f.control.__setitem__((y, x), 1),                    # AntiPlant
        lambda y, x: f.control.__setitem__((y, x), 8),                    # ConcreteA
        lambda y, x: f.altitude.__setitem__((y, x), 401 << 7),            # above allowedAltitudeHigh
        lambda y, x: f.altitude.__setitem__((y, x), 13 << 7),             # at the water line (needs >= 1)
        lambda y, x: f.ground.__setitem__((y, x), 5),                     # ground type not allowed
        lambda y, x: f.slope.__setitem__((y, x), 61),                     # steeper than slope
        lambda y, x: f.state.__setitem__((y, x), 4),                      # no such state
        lambda y, x: f.type.__setitem__((y, x), 2),                       # no rule for GrassB
        lambda y, x: f.flags.__setitem__((y, x), 1),                      # obstacle
        lambda y, x: f.flags.__setitem__((y, x), 4),                      # decor
    ]
    for n, case in enumerate(cases):
        y, x = divmod(n * 7, 32)
        case(y, x)
        forbidden[y, x] = True
    # Allowed edge cases: exactly at the bands' limits, and a non-blocking Plant bit fixed, not cleared.
    f.altitude[5, 5] = 400 << 7
    f.slope[6, 6] = 60
    f.flags[7, 7] = PLANT
    f.height[7, 7] = 3
    return f, forbidden


def test_validation_clears_exactly_the_tiles_the_rules_forbid(rules: dict) -> None:
    f, forbidden = _forbidden_cases(rules)
    before = f.copy()
    validate_field(f, rules, GrowthOptions(drop_unknown=True))  # the game's validation
    assert np.array_equal(f.type == 0, forbidden)
    assert np.all(f.state[forbidden] == 0) and np.all(f.health[forbidden] == 0)
    kept = ~forbidden
    assert np.array_equal(f.state[kept], before.state[kept])
    assert f.flags[7, 7] == 0 and f.height[7, 7] == 0  # grass never blocks: bit and height dropped
    assert f.flags[divmod(70, 32)] == 1 and f.flags[divmod(77, 32)] == 4  # the flags themselves stay


def test_validation_is_exactly_the_reference_on_a_random_field(rules: dict) -> None:
    rng = np.random.default_rng(11)
    n = 64
    f = flat_field(n)
    f.type[...] = rng.choice([0, 0, 1, 2, 3, 5, 6, 7, 9, 18], (n, n))
    f.state[...] = rng.integers(0, 6, (n, n))
    f.material[...] = rng.choice([0, 0, 5, 40], (n, n))
    f.health[...] = rng.integers(0, 60, (n, n))
    f.flags[...] = rng.choice([0, 0, 0, 1, 2, 4, 8], (n, n))
    f.height[...] = rng.integers(0, 4, (n, n))
    f.control[...] = rng.choice([0, 0, 0, 1, 8, 64, 128, 2], (n, n))
    f.spawn[...] = rng.choice([0, 131, 131, 200], (n, n))
    f.ground[...] = rng.integers(0, 9, (n, n))
    f.altitude[...] = rng.integers(0, 65535, (n, n))
    f.slope[...] = rng.integers(0, 140, (n, n))
    expected = reference_validate(f, rules)
    validate_field(f, rules)
    assert _same(f, expected)


def test_dead_plants_carry_the_kill_signal_until_the_next_pass(rules: dict) -> None:
    f = fill(flat_field(32), 1, 5, np.full((32, 32), 3, np.uint8), time=1)
    one = run_growth(f, rules, 1, seed=7, options=GrowthOptions(fertility=0))
    dead = (one.type == 0) & (one.state == 1)
    assert 0.15 < dead.mean() < 0.35  # 1/4 die in grass's last state
    assert np.all(one.flags[dead] & PLANT == 0)


def test_places_concrete_clears_concrete_when_it_dies(tmp_path: Path) -> None:
    (tmp_path / "devrinol.txt").write_text(
        "index=n19\nplacesConcrete=n1\nallowedOnNonNatural=n1\nallowedAltitudeHigh=n511\n"
        "allowedWaterLevelHigh=n511\nhealth=N5\nblockingHeight=N0\nstate_0=N0\naction_0=N0\n")
    rules = {19: RuleFolder(tmp_path).rule("devrinol")}
    f = fill(flat_field(32), 19, 5, np.zeros((32, 32), np.uint8), time=0)
    f.control[...] = 8 | 16 | 2
    out = run_growth(f, rules, 1, seed=1, options=GrowthOptions(fertility=0))
    assert np.all(out.control == 2)
    assert np.all(f.control == 8 | 16 | 2)  # the input's control layer is untouched
    # Neighbours counted in the map as it was are all Devrinol: the empty cube re-seeds just one.
    assert (out.type == 19).sum() == 1


def test_player_seeded_rules_never_spawn(rules: dict) -> None:
    out = run_growth(flat_field(64), {18: rules[18]}, 3, seed=1, options=GrowthOptions(fertility=50))
    assert not out.type.any()


def test_progress_and_cancel_leave_the_input_untouched(rules: dict) -> None:
    f = flat_field(64)
    seen: list[float] = []
    run_growth(f, rules, 3, seed=1, progress=seen.append)
    assert seen == [1 / 3, 2 / 3, 1.0]
    calls = iter([False, False, True])
    with pytest.raises(Cancelled):
        run_growth(f, rules, 5, seed=1, cancelled=lambda: next(calls))
    assert not f.type.any()


def test_tables_accept_non_multiple_of_cube_sizes(rules: dict) -> None:
    f = flat_field(48)
    out = run_growth(f, RuleTables(rules), 2, seed=4, options=GrowthOptions(fertility=10))
    assert out.type[32:, 32:].any()  # the partial corner cube grows too


def test_growing_a_zone_round_trips_its_layers(rules: dict, tmp_path: Path) -> None:
    from model.plants.zone_growth import grow_zone
    from model.zones import read_zone, write_zone
    from model.zones.sample import sample_zone

    zone = sample_zone(3, 128, seed=2)
    before = zone.plants.copy()
    grown = grow_zone(zone, rules, 2, seed=5, options=GrowthOptions(fertility=15))
    assert np.array_equal(zone.plants, before)  # the input zone is untouched
    assert not np.array_equal(grown.plants, before)
    assert np.array_equal(grown.plants["spawn"], before["spawn"])  # growth never writes the spawn byte
    assert np.array_equal(grown.altitude, zone.altitude)
    blocking = np.isin(grown.plants["type"], [r.index for r in rules.values() if r.blocks])
    plant_bit = (grown.blocks["flags"] & PLANT) != 0
    assert np.all(plant_bit <= (grown.plants["type"] != 0))  # no Plant bit without a plant
    assert plant_bit[blocking].mean() > 0.5
    write_zone(grown, tmp_path)
    again = read_zone(tmp_path, 3)
    assert np.array_equal(again.plants, grown.plants) and np.array_equal(again.blocks, grown.blocks)


def test_box_counts_match_a_plain_count_of_each_9x9_square(rules: dict) -> None:
    from model.plants.growth import Grower

    rng = np.random.default_rng(2)
    f = flat_field(40)
    f.type[...] = rng.choice([0, 0, 1, 5, 7], (40, 40))
    g = Grower(f, RuleTables(rules))
    boxes = g._box_counts(g._padded(f.type), np.array([1, 5, 7]))
    for k in (1, 5, 7):
        plain = np.zeros((40, 40), int)
        for y in range(40):
            for x in range(40):
                plain[y, x] = (f.type[max(0, y - 4):y + 5, max(0, x - 4):x + 5] == k).sum()
        at = g._pad_index(np.arange(40 * 40)) - g._box_shift
        assert np.array_equal(boxes[k][at].reshape(40, 40), plain)


def test_per_cube_sums_and_cube_numbers_match_plain_ones(rules: dict) -> None:
    from model.plants.growth import Grower

    for n in (48, 64):
        g = Grower(flat_field(n), RuleTables(rules))
        layer = np.random.default_rng(n).integers(0, 256, (n, n)).astype(np.uint8)
        plain = [int(layer[y:y + 32, x:x + 32].sum()) for y in range(0, n, 32) for x in range(0, n, 32)]
        assert g._per_cube_sum(layer).tolist() == plain
        ys, xs = np.divmod(np.arange(n * n), n)
        assert np.array_equal(g.cube_of(np.arange(n * n)), (ys // 32) * -(-n // 32) + xs // 32)


def test_first_draw_per_tile_is_the_earliest_and_the_scratch_layer_is_restored() -> None:
    from model.plants.growth import _first_per_tile

    rng = np.random.default_rng(3)
    tile = rng.integers(0, 300, 70000)  # many repeats, places well past one byte
    ok = rng.random(70000) < 0.8
    scratch = rng.integers(0, 256, 300).astype(np.uint8)
    before = scratch.copy()
    got = _first_per_tile(ok, tile, scratch)
    expected = np.zeros_like(ok)
    seen: set[int] = set()
    for i in np.flatnonzero(ok):
        if int(tile[i]) not in seen:
            seen.add(int(tile[i]))
            expected[i] = True
    assert np.array_equal(got, expected)
    assert np.array_equal(scratch, before)


def test_an_empty_choice_list_keeps_the_plant_as_it_is(tmp_path: Path) -> None:
    # state_1 has no next states and action_1 no types: a roll there changes nothing, in both simulators.
    text = ("index=n5\nhealth=N10,10\nblockingHeight=N1,2\nallowedTerrainTypes=N1\n"
            "allowedAltitudeHigh=n500\nallowedWaterLevelHigh=n500\nslope=n255\n"
            "state_0=N1\naction_0=N5\nstate_1=N\naction_1=4\n")
    (tmp_path / "r.txt").write_text(text)
    rules = load_folder(tmp_path).by_index()
    f = fill(flat_field(32), 5, 10, np.ones((32, 32), np.uint8), time=0)
    f.flags[...] = PLANT
    f.height[...] = 2
    opts = GrowthOptions(fertility=0)
    for grown in (run_growth(f, rules, 3, seed=1, options=opts),
                  reference_growth(f, rules, 3, seed=1, options=opts)):
        assert np.all(grown.type == 5) and np.all(grown.state == 1) and np.all(grown.height == 2)


def test_plants_without_a_rule_are_kept_unless_asked(rules: dict) -> None:
    f, forbidden = _forbidden_cases(rules)
    unknown = f.type == 2  # GrassB: the sample set has no rule for it
    assert unknown.sum() == 1
    kept = f.copy()
    validate_field(kept, rules)
    assert np.array_equal(kept.type == 0, forbidden & ~unknown)
    for name in ("type", "state", "time", "health", "material", "flags", "height"):
        assert np.array_equal(getattr(kept, name)[unknown], getattr(f, name)[unknown]), name
    expected = reference_validate(f, rules)
    assert _same(kept, expected)


def test_growing_with_a_partial_rule_set_keeps_the_other_plants_like_the_reference(rules: dict) -> None:
    rng = np.random.default_rng(5)
    n = 64
    f = flat_field(n)
    f.type[...] = rng.choice([0, 0, 0, 1, 2, 5, 7, 9, 13], (n, n))
    f.state[...] = rng.integers(0, 3, (n, n))
    f.health[...] = rng.integers(1, 30, (n, n))
    subset = {i: rules[i] for i in (1, 5)}  # no rule for 2, 7, 9 or 13
    missing = np.isin(f.type, (2, 7, 9, 13))
    for seed in range(3):
        for options in (GrowthOptions(fertility=8), GrowthOptions(fertility=8, drop_unknown=True)):
            vec = run_growth(f, subset, 3, seed, options)
            ref = reference_growth(f, subset, 3, seed, options)
            if options.drop_unknown:
                assert not np.isin(vec.type, (2, 7, 9, 13)).any()
                assert not np.isin(ref.type, (2, 7, 9, 13)).any()
            else:
                for out in (vec, ref):
                    assert np.array_equal(out.type[missing], f.type[missing])
                    assert np.array_equal(out.state[missing], f.state[missing])
                    assert np.array_equal(out.health[missing], f.health[missing])
