"""Terrain group picker: the spec's cases, and the vectorised raster against a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

from model.grasslib import group_of, parse_library, pick, pick_raster, weight_of
from tests.model.grasslib import fixtures as fx


@pytest.fixture(scope="module")
def lib():
    # table: material 0 → group 1, 1 → 2, 2 → 0, 3 → 4, 255 → 3, everything else 0xFF
    return parse_library(fx.small_library_bytes())


def ref_weight(v: int) -> int:
    if v == 1:
        return 1
    return v // 2


def ref_group(table, material: int, block5: int) -> int:
    if block5 == 0xFE:
        return int(table[material])
    return block5


def test_weight_rule_for_every_value() -> None:
    values = np.arange(256, dtype=np.uint8)
    assert weight_of(values).tolist() == [ref_weight(v) for v in range(256)]
    assert int(weight_of(0)) == 0
    assert int(weight_of(1)) == 1
    assert int(weight_of(2)) == 1 and int(weight_of(3)) == 1
    assert int(weight_of(0x60)) == 0x30
    assert int(weight_of(255)) == 127


def test_block5_fe_keeps_the_material_group(lib) -> None:
    r = pick(lib, 0, 0x60, 0xFE)
    assert (r.table_group, r.group, r.weight, r.active) == (1, 1, 48, True)
    assert r.rules == [0] and "0xFE" in r.source


def test_block5_ff_means_no_group(lib) -> None:
    r = pick(lib, 0, 0x60, 0xFF)
    assert r.group is None and not r.active and r.rules == []
    assert "no group" in r.explanation


def test_block5_overrides_the_material(lib) -> None:
    r = pick(lib, 0, 0x60, 3)
    assert (r.group, r.active, r.rules) == (3, True, [0, 1, 2])
    assert "override" in r.source


def test_unpainted_fe_over_a_ff_table_entry_gives_no_grass(lib) -> None:
    r = pick(lib, 77, 0x60, 0xFE)
    assert r.table_group == 0xFF and r.group is None and not r.active


def test_block4_value_1_counts_as_weight_1(lib) -> None:
    r = pick(lib, 1, 1, 0xFE)
    assert (r.group, r.weight, r.active) == (2, 1, True)
    assert "counts as 1" in r.explanation


def test_block4_value_0_disables_the_group(lib) -> None:
    r = pick(lib, 1, 0, 0xFE)
    assert (r.group, r.weight, r.active, r.rules) == (2, 0, False, [])
    assert "disables" in r.explanation


def test_empty_group_is_active_with_no_rules(lib) -> None:
    r = pick(lib, 2, 0x60, 0xFE)
    assert (r.group, r.active, r.rules) == (0, True, [])


def test_rules_naming_missing_models_are_flagged(lib) -> None:
    r = pick(lib, 3, 0x60, 0xFE)
    assert r.group == 4 and r.active and r.missing_models == [0]
    assert "beyond the 4" in r.explanation


def test_a_group_beyond_the_library_reaches_nothing(lib) -> None:
    r = pick(lib, 0, 0x60, 200)
    assert r.group == 200 and not r.active and "not in the library" in r.explanation


def test_pick_refuses_values_outside_a_byte(lib) -> None:
    with pytest.raises(ValueError, match="block 4"):
        pick(lib, 0, 256, 0xFE)


def test_raster_agrees_with_a_plain_loop_and_the_scalar_pick(lib) -> None:
    rng = np.random.default_rng(5)
    shape = (23, 31)
    material = rng.choice([0, 1, 2, 3, 9, 255], size=shape).astype(np.uint8)
    block4 = rng.choice([0, 1, 2, 0x60, 255], size=shape).astype(np.uint8)
    block5 = rng.choice([0xFE, 0xFF, 0, 3, 4, 200], size=shape).astype(np.uint8)
    out = pick_raster(lib, material, block4, block5)
    for (i, j), m in np.ndenumerate(material):
        g = ref_group(lib.table, int(m), int(block5[i, j]))
        w = ref_weight(int(block4[i, j]))
        assert out.group[i, j] == g and out.weight[i, j] == w
        assert out.active[i, j] == (g != 0xFF and g < len(lib.groups) and w > 0)
        assert out.active[i, j] == pick(lib, int(m), int(block4[i, j]), int(block5[i, j])).active
    counts = {}
    for g in out.group[out.active].tolist():
        counts[g] = counts.get(g, 0) + 1
    assert out.summary() == counts


def test_raster_shapes_must_agree(lib) -> None:
    with pytest.raises(ValueError, match="shape"):
        pick_raster(lib, np.zeros((2, 2)), np.zeros((2, 3)), np.zeros((2, 2)))


def test_seed_like_constant_block4_gives_weight_48_everywhere() -> None:
    seed_lib = parse_library(fx.seed_shaped_bytes())
    shape = (132, 132)  # 17,424 nodes, as the examined terrain
    material = np.full(shape, 255, np.uint8)
    material[:66] = 3
    out = pick_raster(seed_lib, material, np.full(shape, 0x60, np.uint8), np.full(shape, 0xFE, np.uint8))
    assert out.weight.size == 17_424 and (out.weight == 0x30).all()
    assert out.summary() == {int(seed_lib.table[255]): 66 * 132}
    assert group_of(seed_lib.table, 3, 0xFE) == 0xFF
