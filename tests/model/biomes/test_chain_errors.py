"""Missing parents, cycles, type mismatches and unreadable ancestors: errors naming the chain."""

from __future__ import annotations

from model.biomes import load_biome_set
from tests.model.biomes.biome_sets import messages, write_set


def test_missing_parent_and_missing_grandparent(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {
        "Mid": {"Type": "Tile", "Parent": "Ghost"},
        "Leaf": {"Type": "Tile", "Parent": "Mid"},
        "Fine": {"Type": "Tile", "Weight": 2.0},
    }))
    assert messages(s.errors) == [
        "Leaf | base/Leaf.json | Parent | Parent chain Leaf → Mid → Ghost: no asset named 'Ghost'",
        "Mid | base/Mid.json | Parent | Parent chain Mid → Ghost: no asset named 'Ghost'",
    ]
    assert not s["Mid"].resolved and not s["Leaf"].resolved
    assert s["Leaf"].chain == ["Leaf", "Mid"]
    assert s["Fine"].valid and s["Fine"].value == {"Type": "Tile", "Weight": 2.0}


def test_cycles_of_one_two_and_three(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {
        "Self": {"Type": "Tile", "Parent": "Self"},
        "Ping": {"Type": "Tile", "Parent": "Pong"},
        "Pong": {"Type": "Tile", "Parent": "Ping"},
        "A": {"Type": "Custom", "Parent": "B"},
        "B": {"Type": "Custom", "Parent": "C"},
        "C": {"Type": "Custom", "Parent": "A"},
        "Tail": {"Type": "Custom", "Parent": "A"},
    }))
    assert messages(s.errors) == [
        "A | base/A.json | Parent | Parent chain A → B → C → A: cycle back to 'A'",
        "B | base/B.json | Parent | Parent chain B → C → A → B: cycle back to 'B'",
        "C | base/C.json | Parent | Parent chain C → A → B → C: cycle back to 'C'",
        "Ping | base/Ping.json | Parent | Parent chain Ping → Pong → Ping: cycle back to 'Ping'",
        "Pong | base/Pong.json | Parent | Parent chain Pong → Ping → Pong: cycle back to 'Pong'",
        "Self | base/Self.json | Parent | Parent chain Self → Self: cycle back to 'Self'",
        "Tail | base/Tail.json | Parent | Parent chain Tail → A → B → C → A: cycle back to 'A'",
    ]
    assert not any(a.resolved for a in s.assets.values())


def test_parent_of_another_type(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {
        "Tiled": {"Type": "Tile"},
        "Cave": {"Type": "Custom", "Parent": "Tiled"},
        "DeepCave": {"Type": "Custom", "Parent": "Cave"},
    }))
    assert messages(s.errors) == [
        "Cave | base/Cave.json | Parent | Parent chain Cave → Tiled: 'Cave' is Custom but 'Tiled' is Tile",
        "DeepCave | base/DeepCave.json | Parent | "
        "Parent chain DeepCave → Cave → Tiled: 'Cave' is Custom but 'Tiled' is Tile",
    ]


def test_unreadable_or_untyped_parent(tmp_path) -> None:
    s = load_biome_set(write_set(tmp_path, {
        "Broken": '{"Type": "Tile", "Weight": }',
        "Untyped": {"Weight": 1.0},
        "OfBroken": {"Type": "Tile", "Parent": "Broken"},
        "OfUntyped": {"Type": "Tile", "Parent": "Untyped"},
    }))
    assert messages(s.errors) == [
        "Broken | base/Broken.json | line 1 column 28 | invalid JSON: Expecting value",
        "OfBroken | base/OfBroken.json | Parent | "
        "Parent chain OfBroken → Broken: 'Broken' could not be read or has no valid Type",
        "OfUntyped | base/OfUntyped.json | Parent | "
        "Parent chain OfUntyped → Untyped: 'Untyped' could not be read or has no valid Type",
        'Untyped | base/Untyped.json | Type | Type is required ("Custom" or "Tile")',
    ]


def test_parent_must_be_a_key_not_a_path(tmp_path) -> None:
    (tmp_path / "Outside.json").write_text('{"Type": "Tile"}')
    s = load_biome_set(write_set(tmp_path, {
        "Sneaky": {"Type": "Tile", "Parent": "../Outside"},
        "Numbered": {"Type": "Tile", "Parent": 7},
    }))
    assert messages(s.errors) == [
        "Numbered | base/Numbered.json | Parent | Parent must name an asset, got 7",
        "Sneaky | base/Sneaky.json | Parent | Parent must name an asset key, not a path: '../Outside'",
    ]
    assert "Outside" not in s


def test_null_parent_means_no_parent(tmp_path) -> None:
    s = load_biome_set(write_set(
        tmp_path,
        {"Root": {"Type": "Tile", "Weight": 2.0}, "Kid": {"Type": "Tile", "Parent": "Root"}},
        {"Kid": {"Type": "Tile", "Parent": None}},
    ))
    assert s["Kid"].chain == ["Kid"]
    assert s["Kid"].value == {"Type": "Tile", "Parent": None}
    assert s.errors == []
