"""Rule loading: the seed's worked examples, inheritance, defaults, clamps, folder loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from model.errors import FormatError
from model.plants.loader import RuleFolder, load_folder, load_rules
from model.plants.rule import FIELDS
from tests.model.plants.conftest import simple_rule, write_rules


def test_grass_a_worked_example(sample_folder: Path) -> None:
    g = RuleFolder(sample_folder).rule("grass_a")
    assert g.index == 1 and g.type_name == "GrassA"
    assert g.blocking_height == (0, 0, 0, 0) and not g.blocks  # bare 40,0,0,0 → never blocks
    assert g.fruiting_state == -1 and not g.fruits
    assert g.states == ((0, 0, 1), (1, 1, 2), (2, 2, 3), (3,))
    assert g.actions[3] == (1, 1, 1, 0)  # 1/4 death in the last state
    assert (g.fertility, g.spreading, g.grow_rate, g.max_amount, g.health) == (1, 2, 1, 190, (5,) * 4)


def test_wall_worked_example(sample_folder: Path) -> None:
    w = RuleFolder(sample_folder).rule("wall")
    assert w.state_count == 12 and w.index == 18
    assert w.blocking_height == (0, 0, 2, 3, 4, 7, 9, 10, 10, 13, 13, 14)
    assert w.health[0] == 20 and w.health[-1] == 255
    assert w.states[7] == (7, 7, 8, 8, 6)  # regression to state 6
    assert w.player_seeded and w.only_on_unprotected_zone and w.max_amount == 15


def test_irontree_t2_inherits_and_overrides_fruit_amount(sample_folder: Path) -> None:
    folder = RuleFolder(sample_folder)
    lo, t2 = folder.rule("irontree_lo"), folder.rule("irontree_t2.txt")
    assert folder.chain("irontree_t2") == ["irontree_t2", "irontree_lo"]
    assert (lo.fruit_amount, t2.fruit_amount) == (80, 125)
    assert t2.states == lo.states and t2.health == lo.health and t2.index == lo.index == 7
    settings = folder.settings("irontree_t2")
    assert settings["fruitAmount"].path.name == "irontree_t2.txt"
    assert settings["health"].path.name == "irontree_lo.txt"


def test_chains_of_three_override_in_order(tmp_path: Path) -> None:
    write_rules(tmp_path, {"a.txt": simple_rule(3, extra="fertility=n1\nspreading=n1\n"),
                           "b.txt": "source=$a.txt\nfertility=n2\n",
                           "c.txt": "source=$b\nspreading=n9\n"})
    c = RuleFolder(tmp_path).rule("c")
    assert (c.fertility, c.spreading, c.index) == (2, 9, 3)


@pytest.mark.parametrize("files, needle", [
    ({"a.txt": "source=$b.txt\n", "b.txt": "source=$a.txt\n"}, "cycle: a → b → a"),
    ({"a.txt": "source=$a.txt\n"}, "cycle: a → a"),
    ({"a.txt": "source=$nowhere.txt\n"}, "missing rule file 'nowhere.txt' (chain: a → nowhere"),
    ({"a.txt": "source=$../outside.txt\n"}, "leaves the rules folder (chain: a → ../outside"),
    ({"a.txt": "source=$/etc/passwd\n"}, "leaves the rules folder"),
    ({"a.txt": "source=n3\n"}, "source must be a string"),
])
def test_inheritance_errors_name_the_chain(tmp_path: Path, files: dict[str, str], needle: str) -> None:
    write_rules(tmp_path / "rules", files)
    (tmp_path / "outside.txt").write_text(simple_rule(1))
    with pytest.raises(FormatError) as info:
        RuleFolder(tmp_path / "rules").rule("a")
    assert needle in str(info.value)


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text(simple_rule(1))
    rules = write_rules(tmp_path / "rules", {"a.txt": "source=$link.txt\n"})
    (rules / "link.txt").symlink_to(tmp_path / "outside.txt")
    with pytest.raises(FormatError, match="leaves the rules folder"):
        RuleFolder(rules).rule("a")


def test_defaults_apply_to_missing_keys(tmp_path: Path) -> None:
    write_rules(tmp_path, {"x.txt": "index=n4\n"})
    r = RuleFolder(tmp_path).rule("x")
    defaults = {f.key: f.default for f in FIELDS}
    assert (r.fertility, r.kill_distance, r.grow_rate, r.altitude_high) == (0, 0, 0, 0)
    assert r.fruiting_state == defaults["fruitingState"] == -1
    assert r.fruit_definition == -1 and r.max_amount == -1
    assert r.damage_scale == 1.0 and r.name == "" and r.allowed_terrain_types == ()
    assert not (r.player_seeded or r.places_concrete or r.allowed_on_non_natural)
    assert r.state_count == 0


def test_clamps_sorting_and_booleans(tmp_path: Path) -> None:
    write_rules(tmp_path, {"x.txt": simple_rule(2, extra="fruitAmount=n400\nhealth=N-5,300\n"
                                                  "allowedTerrainTypes=N8,1,3\nplaceSConcrete=n1\n"
                                                  "placesConcrete=n7\ndamageScale=f0.5\n")})
    r = RuleFolder(tmp_path).rule("x")
    assert r.fruit_amount == 255 and r.health == (0, 255)
    assert r.allowed_terrain_types == (1, 3, 8)
    assert r.places_concrete is True and r.damage_scale == 0.5
    assert r.blocking_height_at(5) == 0  # a missing index counts as 0


@pytest.mark.parametrize("extra, needle", [
    ("fertility=$lots\n", "fertility must be int, got string"),
    ("health=n5\n", "health must be int[]"),
    ("damageScale=n2\n", "damageScale must be double or float"),
    ("blockingHeight=N1\n", "inconsistent rule: 2 health values, 1 blocking heights and 2 states"),
    ("state_2=N2\n", "state_2 has no action_2"),
])
def test_wrong_types_and_inconsistency_name_key_file_and_line(tmp_path: Path, extra: str,
                                                              needle: str) -> None:
    write_rules(tmp_path, {"x.txt": simple_rule(2, extra=extra)})
    with pytest.raises(FormatError) as info:
        RuleFolder(tmp_path).rule("x")
    assert needle in str(info.value) and "x.txt" in str(info.value)
    if "inconsistent" not in needle:
        assert ": line " in str(info.value)


def test_folder_load_reports_every_bad_file_and_keeps_the_good(tmp_path: Path) -> None:
    write_rules(tmp_path, {"good.txt": simple_rule(1), "bad_type.txt": simple_rule(2, extra="index=$two\n"),
                           "bad_line.txt": "index=n3\nthis is not a setting\n",
                           "bad_src.txt": "source=$gone.txt\n", "child.txt": "source=$good.txt\nindex=n4\n",
                           "notes.md": "ignored"})
    result = load_folder(tmp_path)
    assert sorted(result.rules) == ["child", "good"]
    assert sorted(result.errors) == ["bad_line", "bad_src", "bad_type"]
    assert result.errors["bad_line"].place == "line 2"
    assert "index must be int" in result.errors["bad_type"].reason
    assert result.by_index()[4].rule_name == "child"
    with pytest.raises(FormatError):
        load_rules(tmp_path)


def test_sample_folder_loads_cleanly(sample_folder: Path) -> None:
    result = load_folder(sample_folder)
    assert result.errors == {}
    assert {"grass_a", "wall", "irontree_lo", "irontree_t2"} <= set(result.rules)


def test_unreadable_inputs(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="not a folder"):
        RuleFolder(tmp_path / "missing")
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\0\0index=n1")
    assert "bin" in load_folder(tmp_path).errors


def test_a_byte_order_mark_is_not_part_of_the_first_key(tmp_path: Path) -> None:
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + simple_rule(4).encode())
    assert RuleFolder(tmp_path).rule("bom").index == 4


def test_source_names_match_files_regardless_of_case(tmp_path: Path) -> None:
    write_rules(tmp_path, {"irontree_lo.txt": simple_rule(7, extra="fruitAmount=n50\n"),
                           "irontree_t2.txt": "source=$IronTree_LO.TXT\nfruitAmount=n125\n"})
    folder = RuleFolder(tmp_path)
    assert folder.chain("irontree_t2") == ["irontree_t2", "irontree_lo"]
    rule = folder.rule("irontree_t2")
    assert (rule.index, rule.fruit_amount) == (7, 125)


def test_an_empty_choice_list_loads_and_reads_as_no_change(tmp_path: Path) -> None:
    # `N` with nothing after it is an empty int[]: the game loads the rule; only a roll would fail.
    write_rules(tmp_path, {"x.txt": simple_rule(2).replace("state_1=N1,1", "state_1=N")
                           .replace("action_0=N2", "action_0=4")})
    rule = RuleFolder(tmp_path).rule("x")
    assert rule.states[1] == () and rule.actions[0] == ()
    assert rule.choices(1) == ((1,), (2, 0))
    assert rule.choices(0) == ((0, 1), (2,))


def test_a_grow_takes_every_rule_that_loads_and_names_the_broken(tmp_path: Path) -> None:
    from model.plants.loader import load_growable_rules

    write_rules(tmp_path, {"good.txt": simple_rule(1), "child.txt": "source=$good.txt\nindex=n4\n",
                           "electro_t2.txt": "source=$electro_hi.txt\nindex=n14\n",
                           "also_one.txt": "source=$gone.txt\nindex=n1\n"})
    growable = load_growable_rules(tmp_path)
    assert sorted(growable.rules) == [1, 4]
    assert sorted(growable.broken) == ["also_one", "electro_t2"]
    assert growable.orphaned == {"electro_t2": 14}  # type 1 still has its rule
    text = growable.broken_text({14: "ElectroPlant"})
    assert "2 rule files do not load" in text and "missing rule file 'electro_hi.txt'" in text
    assert text.endswith("plants left without a rule: ElectroPlant (type 14, electro_t2.txt)")
    only_bad = write_rules(tmp_path / "bad", {"x.txt": "source=$gone.txt\n"})
    with pytest.raises(FormatError, match="missing rule file 'gone.txt'"):
        load_growable_rules(only_bad)  # nothing would grow: refused as before
