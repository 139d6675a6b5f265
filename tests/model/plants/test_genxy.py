"""GenXY values and rule-file text."""

from __future__ import annotations

import datetime as dt
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.errors import FormatError
from model.plants.genxy import parse_value, read_entries, read_entries_lenient, strip_comment


@pytest.mark.parametrize("text, kind, data", [
    ("n125", "int", 125),
    ("n-1", "int", -1),
    ("N5,5,5,5", "int[]", [5, 5, 5, 5]),
    ("N-3,0,12", "int[]", [-3, 0, 12]),
    ("m9000000000", "long", 9000000000),
    ("iFF", "int", 255),
    ("i-1A", "int", -26),
    ("41,2,3", "int[]", [1, 2, 3]),
    ("L100", "long", 256),
    ("6FF,-10", "long[]", [255, -16]),
    ("f0.1", "double", 0.1),
    ("f-2.5", "double", -2.5),
    ("$prismocitae", "string", "prismocitae"),
    ("$a\\41b\\2Cc", "string", "aAb,c"),
    ("5one,t\\77o", "string[]", ["one", "two"]),
    ("2DEADbeef", "bytes", bytes([0xDE, 0xAD, 0xBE, 0xEF])),
    ("d2024.2.29.13.5.59", "date", dt.datetime(2024, 2, 29, 13, 5, 59)),
    ("cFF.80.0.FF", "color", (255, 128, 0, 255)),
    ("p10.-2", "point", (16, -2)),
    ("3A.B.C", "position", (10, 11, 12)),
    ("P1.2.3,4.5.6", "position[]", [(1, 2, 3), (4, 5, 6)]),
    ("r0.0.10.20", "area", (0, 0, 16, 32)),
    ("R0.0.1.1,2.2.3.3", "area[]", [(0, 0, 1, 1), (2, 2, 3, 3)]),
    ("N", "int[]", []),
    ("xplain words", "string", "plain words"),
])
def test_every_token_parses(text: str, kind: str, data: object) -> None:
    v = parse_value(text)
    assert (v.token, v.kind, v.data) == (text[0], kind, data)


def test_float_and_double_bytes_are_little_endian_memory() -> None:
    assert parse_value("t" + struct.pack("<f", 1.5).hex()).data == 1.5
    assert parse_value("T" + struct.pack("<d", -0.125).hex()).data == -0.125


def test_bare_arrays_are_hex_int_arrays_typed_by_their_leading_4() -> None:
    assert parse_value("40,3,3,4").data == [0, 3, 3, 4]
    assert parse_value("N0,8,11,14").data == [0, 8, 11, 14]
    assert parse_value("43").data == [3]
    assert parse_value("410").data == [16]
    assert parse_value("4A").data == [10]


def test_nested_dictionaries() -> None:
    v = parse_value("[|a=n1|b=$x y|c=[|d=N1,2|e=f-0.5]|g=iFF]")
    assert v.kind == "dict"
    assert {k: x.data for k, x in v.data.items() if k != "c"} == {"a": 1, "b": "x y", "g": 255}
    inner = v.data["c"].data
    assert inner["d"].data == [1, 2] and inner["e"].data == -0.5


@pytest.mark.parametrize("text", ["nabc", "n1.5", "N1,,2", "iXYZ", "f1,5", "t0000", "2ABC", "$bad\\4",
                                  "d2024.13.1.0.0.0", "p1.2.3", "n99999999999", "[|a=n1", "", "   "])
def test_malformed_values_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_value(text)


def test_comments() -> None:
    assert strip_comment("a=n1 // note") == "a=n1 "
    assert strip_comment("a=//inline//n1") == "a=n1"
    assert strip_comment("//x// b=n2 //y// //z") == " b=n2  "
    assert strip_comment("// only a comment") == ""


def test_rule_text_lines_keys_and_duplicates() -> None:
    text = "// header\r\nind ex = n1\r\n\r\nname=$A\rhealth=N1,2 // hp\nname=$B\n"
    entries = read_entries(text, "x.txt")
    assert [(e.key, e.value.data, e.line) for e in entries] == [
        ("index", 1, 2), ("name", "A", 4), ("health", [1, 2], 5), ("name", "B", 6)]


def test_malformed_lines_are_reported_with_file_and_line() -> None:
    text = "index=n1\nfertility=nx\njust text\nhealth=N1,2\n=n3\n"
    entries, errors = read_entries_lenient(text, "rules/bad.txt")
    assert [e.key for e in entries] == ["index", "health"]
    assert [(e.path, e.place) for e in errors] == [("rules/bad.txt", "line 2"), ("rules/bad.txt", "line 3"),
                                                   ("rules/bad.txt", "line 5")]
    assert "fertility" in errors[0].reason
    with pytest.raises(FormatError) as info:
        read_entries(text, "rules/bad.txt")
    assert "rules/bad.txt: line 2" in str(info.value)


@settings(deadline=None)  # timing on a shared machine is no part of the property
@given(st.lists(st.integers(-(2**31) + 1, 2**31 - 1), max_size=8))
def test_decimal_and_hex_arrays_round_trip(values: list[int]) -> None:
    assert parse_value("N" + ",".join(map(str, values))).data == values
    hexes = ",".join(("-" if v < 0 else "") + format(abs(v), "X") for v in values)
    assert parse_value("4" + hexes).data == values


@settings(deadline=None)  # timing on a shared machine is no part of the property
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30))
def test_escaped_strings_round_trip(s: str) -> None:
    body = "".join(f"\\{ord(c):02X}" if c in "\\,=/" else c for c in s)
    assert parse_value("$" + body).data == s


@settings(deadline=None)  # timing on a shared machine is no part of the property
@given(st.text(max_size=200))
def test_any_text_reads_without_crashing(text: str) -> None:
    entries, errors = read_entries_lenient(text, "fuzz.txt")
    assert all(e.path == "fuzz.txt" and str(e.place).startswith("line ") for e in errors)
    assert all(e.key and "=" not in e.key for e in entries)


@settings(deadline=None)  # timing on a shared machine is no part of the property
@given(st.text(alphabet="nNmi4L6ftT2$5dcp3PrR[]|#=,.-0123456789ABCDEFabcdef \\", max_size=40))
def test_token_soup_parses_or_raises_value_error(text: str) -> None:
    try:
        value = parse_value(text)
    except ValueError as e:
        assert str(e)  # every refusal says why
    else:
        assert value.token == text.lstrip()[0] and value.raw.startswith(value.token)


@pytest.mark.parametrize("text, data", [
    ("iFFFFFFFF", -1),  # eight hex digits are the int's bit pattern
    ("i80000000", -(2**31)),
    ("i7FFFFFFF", 2**31 - 1),
    ("i-FF", -255),
    ("i000000FF", 255),
    ("4FFFFFFFF,A", [-1, 10]),
    ("LFFFFFFFFFFFFFFFF", -1),
    ("6-1,7FFFFFFFFFFFFFFF", [-1, 2**63 - 1]),
])
def test_hex_numbers_are_read_as_their_bit_pattern(text: str, data: object) -> None:
    assert parse_value(text).data == data


@pytest.mark.parametrize("text", ["i100000000", "L10000000000000000", "4FFFFFFFFF"])
def test_hex_numbers_wider_than_their_type_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        parse_value(text)


def test_key_markers_and_whitespace_are_not_part_of_a_key() -> None:
    entries = read_entries("#index=n7\n|fertility = n2\ngrow Rate=n1\n")
    assert [(e.key, e.value.data) for e in entries] == [("index", 7), ("fertility", 2), ("growRate", 1)]
