"""Lints: likely mistakes in rule files."""

from __future__ import annotations

from pathlib import Path

from model.plants.lints import lint_folder
from model.plants.loader import load_folder
from tests.model.plants.conftest import simple_rule, write_rules


def _lints(tmp_path: Path, files: dict[str, str]) -> dict[str, list[str]]:
    result = lint_folder(load_folder(write_rules(tmp_path, files)))
    return {name: [f"{l.line}:{l.key}:{l.severity}:{l.message}" for l in ls] for name, ls in result.items()}


def test_sample_folder_has_only_the_shared_index_warning(sample_folder: Path) -> None:
    lints = lint_folder(load_folder(sample_folder))
    flagged = {n: [l.message for l in ls] for n, ls in lints.items() if ls}
    assert set(flagged) == {"irontree_lo", "irontree_t2"}
    assert all("also claimed" in m for ms in flagged.values() for m in ms)


def test_bare_arrays_with_hex_letters_or_large_elements(tmp_path: Path) -> None:
    text = simple_rule(1, states=3).replace("blockingHeight=N1,1,1", "blockingHeight=40,10,A")
    got = _lints(tmp_path, {"r.txt": text + "allowedTerrainTypes=41,2,3\n"})["r"]
    bare = [m for m in got if "bare array" in m]
    assert len(bare) == 1 and bare[0].startswith("3:blockingHeight:warning")
    assert "[0, 16, 10]" in bare[0]


def test_wrong_types_unknown_keys_and_untokened_values(tmp_path: Path) -> None:
    got = _lints(tmp_path, {"r.txt": simple_rule(1) + "fertility=f1.5\nfertilty=n2\nname=Grass\n"})["r"]
    assert any(m.startswith("8:fertility:error:wrong type") for m in got)
    assert any(m.startswith("9:fertilty:warning:unknown key") for m in got)
    assert any(m.startswith("10:name:warning:no type token") and "'rass'" in m for m in got)


def test_unreachable_states_and_no_death(tmp_path: Path) -> None:
    text = ("index=n1\nhealth=N1,1,1\nblockingHeight=N0,0,0\n"
            "state_0=N0,1\naction_0=N1\nstate_1=N0,1\naction_1=N1\nstate_2=N2\naction_2=N1,0\n")
    got = _lints(tmp_path, {"r.txt": text})["r"]
    assert any(m.startswith("8:state_2:warning:state can never be reached") for m in got)
    assert any("no path to death" in m for m in got)


def test_states_entered_from_another_species_are_reachable(tmp_path: Path) -> None:
    a = ("index=n5\nhealth=N1,1\nblockingHeight=N0,0\nstate_0=N0,1\naction_0=N5\n"
         "state_1=N1\naction_1=N5,0\n")
    b = "index=n6\nhealth=N1,1\nblockingHeight=N1,1\nstate_0=N0\naction_0=N6\nstate_1=N1\naction_1=N6,0\n"
    assert any("never be reached" in m for m in _lints(tmp_path / "x", {"a.txt": a, "b.txt": b})["b"])
    a2 = a.replace("action_0=N5", "action_0=N5,6")
    assert _lints(tmp_path / "y", {"a.txt": a2, "b.txt": b})["b"] == []


def test_fruit_path_and_unknown_action_types(tmp_path: Path) -> None:
    text = simple_rule(1, states=3, extra="fruitingState=n5\nfruitAmount=n10\n").replace(
        "action_1=N1", "action_1=N1,12")
    got = _lints(tmp_path / "a", {"r.txt": text})["r"]
    assert any(":fruitingState:error:fruitingState 5 but the rule has 3 states" in m for m in got)
    assert any(":action_1:error:" in m and "12 (SlimeRoot)" in m for m in got)
    never = ("index=n1\nhealth=N1,1,1\nblockingHeight=N0,0,0\nfruitingState=n2\nfruitAmount=n9\n"
             "state_0=N0,1\naction_0=N1\nstate_1=N1\naction_1=N1,0\nstate_2=N2\naction_2=N1\n")
    got = _lints(tmp_path / "b", {"r.txt": never})["r"]
    assert any("no path to fruit" in m for m in got)


def test_bad_files_become_error_lints_with_lines(tmp_path: Path) -> None:
    got = _lints(tmp_path, {"r.txt": "index=n1\nbroken\n", "s.txt": "source=$gone.txt\n"})
    assert got["r"] == ["2::error:expected key=value, got 'broken'"]
    assert any("missing rule file" in m for m in got["s"])


def test_huge_kill_distances_are_flagged(tmp_path: Path) -> None:
    got = _lints(tmp_path, {"r.txt": simple_rule(1, extra="killDistance=n500\n")})["r"]
    assert any(":killDistance:warning:killDistance 500 is more than 64" in m for m in got)


def test_state_keys_past_the_first_missing_state_are_never_read(tmp_path: Path) -> None:
    text = simple_rule(1, states=2) + "state_3=N3\naction_3=N1\naction_2=N0\n"
    got = _lints(tmp_path, {"r.txt": text})["r"]
    never = [m for m in got if "never read" in m]
    assert [m.split(":")[:3] for m in never] == [["8", "state_3", "warning"], ["9", "action_3", "warning"],
                                                 ["10", "action_2", "warning"]]
    assert all("state_2 is missing" in m for m in never)


def test_empty_choice_lists_are_errors_with_their_line(tmp_path: Path) -> None:
    text = simple_rule(1, states=2).replace("state_1=N1,1", "state_1=N")
    got = _lints(tmp_path, {"r.txt": text})["r"]
    assert [m for m in got if "empty list" in m] == [
        "6:state_1:error:empty list: the game fails when a plant rolls in this state "
        "(the simulator keeps the plant as it is)"]
