"""One bounded JSON reader: every fault is one FormatError naming the file and the place."""

from __future__ import annotations

import sys

import pytest

from model.errors import FormatError
from model.json_doc import MAX_DEPTH, REQUIRED, expect, field, numbers, parse_json


@pytest.mark.parametrize("text, place, reason", [
    (b"[1, 2", "line 1 column 6", "bad JSON"),
    (b'{"a": NaN}', "line 1 column 7", "NaN is not a JSON number"),
    (b'{"a": -Infinity}', "line 1 column 7", "-Infinity is not a JSON number"),
    (b"[\n1e999]", "line 2 column 1", "beyond the 64-bit float range"),
    (b"[" + b"9" * 5000 + b"]", "line 1 column 2", "integer of 5000 digits"),
    (b"[-" + b"9" * 400 + b"]", "line 1 column 2", "integer of 400 digits"),
    (b"[1, \xff]", 4, "not UTF-8"),
    (b"[1, \xed\xa0\x80]", 4, "not UTF-8"),
])
def test_bad_json_is_one_error_with_its_place(text, place, reason) -> None:
    with pytest.raises(FormatError) as e:
        parse_json(text, "f.json")
    assert e.value.path == "f.json" and e.value.place == place and reason in e.value.reason


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 500, sys.getrecursionlimit() + 10, 100_000])
def test_deep_nesting_is_refused_never_a_recursion_error(depth) -> None:
    for opener, closer in ((b"[", b"]"), (b'{"k":', b"}")):
        with pytest.raises(FormatError, match=f"nested deeper than {MAX_DEPTH} levels"):
            parse_json(opener * depth + b"1" + closer * depth, "f.json")


def test_the_deep_value_is_named_by_its_json_path() -> None:
    text = '{"nodes": [{"children": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}]}"
    with pytest.raises(FormatError) as e:
        parse_json(text, "f.json")
    assert e.value.place.startswith("nodes[0].children[0][0]")


def test_good_json_reads_as_json_does() -> None:
    assert parse_json(b'\xef\xbb\xbf{"a": [1, 2.5, "x", null, true], "b": -0.0}', None) == \
        {"a": [1, 2.5, "x", None, True], "b": -0.0}
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_json(deep, None) is not None
    assert parse_json("[" + "9" * 309 + "]", None) == [int("9" * 309)]


def test_types_are_checked_before_use_with_their_json_path() -> None:
    doc = {"nodes": [{}, {"translation": "up"}, {"translation": [1, 2]}, {"translation": [1, True, 3]},
                     {"translation": [1, 10 ** 400, 3]}, {"mesh": -1}]}
    for i, got in ((1, "got a string"), (2, "got an array of 2 items"), (3, "not a finite number"),
                   (4, "not a finite number")):
        with pytest.raises(FormatError) as e:
            numbers("s.gltf", doc["nodes"][i]["translation"], 3, f"nodes[{i}].translation")
        assert e.value.place == f"nodes[{i}].translation" and got in e.value.reason
    with pytest.raises(FormatError) as e:
        field("s.gltf", doc["nodes"][5], "mesh", "index", "nodes[5]")
    assert e.value.place == "nodes[5].mesh" and "whole number ≥ 0, got -1" in e.value.reason
    with pytest.raises(FormatError, match="missing"):
        field("s.gltf", doc["nodes"][0], "mesh", "index", "nodes[0]", REQUIRED)
    assert field("s.gltf", doc["nodes"][0], "mesh", "index", "nodes[0]", None) is None
    with pytest.raises(FormatError) as e:
        expect("s.gltf", doc["nodes"], "object", "nodes")
    assert e.value.reason == "expected an object, got an array"
