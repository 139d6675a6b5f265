"""Reader and writer against seed-shaped libraries and every bad variant."""

from __future__ import annotations

import struct
import tracemalloc
import zlib

import numpy as np
import pytest

from model.errors import FormatError
from model.grasslib import class_name, describe_class, library_bytes, parse_library, read_library
from model.grasslib.writer import write_library
from tests.model.grasslib import fixtures as fx

MODELS_END = 6 + fx.SEED_MODELS * 132
GROUPS_START = MODELS_END + 4


@pytest.fixture(scope="module")
def seed_data() -> bytes:
    return fx.seed_shaped_bytes()


def test_class_ids_are_crc32_of_their_names() -> None:
    assert zlib.crc32(b"GrassPatternElement") == 0xA6FC073D
    assert class_name(0xA6FC073D) == "GrassPatternElement"
    assert class_name(0xD4569683) == "GrassVisualInstance"
    assert class_name(0x12345678) is None
    assert describe_class(0x12345678) == "unknown class 0x12345678"


def test_seed_shaped_library_reads_with_the_seed_counts(seed_data: bytes) -> None:
    assert len(seed_data) == 30_247
    lib = parse_library(seed_data)
    assert lib.model_count == 46
    assert len(lib.groups) == 190
    assert lib.rule_count == 218
    assert lib.group_size_histogram() == {0: 61, 1: 57, 2: 55, 3: 17}
    assert len(lib.tail_raw) + len(lib.table) == 443
    assert lib.missing_model_rules() == [(185, 0, 46), (186, 0, 47), (187, 0, 48), (188, 0, 49),
                                         (189, 0, 50)]
    floats = lib.all_rules()["unnamed_float"]
    assert {v: int((floats == v).sum()) for v in (5.0, 0.0, 2.5)} == {5.0: 145, 0.0: 66, 2.5: 7}
    assert (lib.table[:255] == 0xFF).all() and lib.table[255] != 0xFF
    assert {class_name(c) for c in lib.models["model"]["class_id"]} == {"GrassModel"}
    assert {class_name(c) for c in lib.models["bounds"]["class_id"]} == {"BoundingVolume"}
    assert {class_name(g.class_id) for g in lib.groups} == {"GrassPattern"}
    assert [g.offset for g in lib.groups][0] == GROUPS_START
    assert lib.notes == []


def test_models_decode_lod_table_and_distances(seed_data: bytes) -> None:
    lib = parse_library(seed_data)
    lods = {tuple(int(b) for b in row) for row in lib.models["model"]["lod"]}
    assert lods == {(0, 1, 2, 3, 3), (0, 1, 2, 2, 2)}
    triples = {tuple(float(v) for v in row) for row in lib.models["model"]["distances"]}
    assert triples == set(fx.DISTANCE_TRIPLES)


@pytest.mark.parametrize("seed", [1, 2, 7, 1234])
def test_round_trip_is_byte_exact(seed: int, tmp_path) -> None:
    data = fx.seed_shaped_bytes(seed)
    lib = read_library(fx.write(tmp_path / "a.lib", data))
    assert library_bytes(lib) == data
    write_library(tmp_path / "b.lib", lib)
    assert (tmp_path / "b.lib").read_bytes() == data


def test_rule_fields_are_read_at_the_seed_offsets() -> None:
    data = bytearray(fx.small_library_bytes())
    lib = parse_library(bytes(data))
    at = lib.groups[1].offset + 17  # group 1's only rule
    values = {0xC: ("<H", 41), 0xE: ("<B", 3), 0xF: ("<f", 2.25), 0x13: ("<f", 0.5), 0x17: ("<B", 1),
              0x18: ("<f", 0.75), 0x1C: ("<f", 1.25), 0x20: ("<B", 1), 0x21: ("<f", 0.875),
              0x25: ("<f", 1.125), 0x29: ("<f", 2.5)}
    for off, (fmt, v) in values.items():
        struct.pack_into(fmt, data, at + off, v)
    data[at + 0x2D:at + 94] = bytes(range(49))
    rule = parse_library(bytes(data)).groups[1].rules[0]
    got = [rule[k] for k in ("model", "tiling", "density", "tilt", "scaling", "scale_a", "scale_b",
                             "height_scaling", "height_scale_a", "height_scale_b", "unnamed_float")]
    assert [float(v) for v in got] == [float(v) for _, v in values.values()]
    assert bytes(rule["unnamed"]) == bytes(range(49))


def test_nan_payloads_and_unnamed_bytes_survive(seed_data: bytes) -> None:
    data = bytearray(seed_data)
    lib = parse_library(seed_data)
    rule_at = next(g.offset for g in lib.groups if len(g.rules)) + 17
    struct.pack_into("<I", data, rule_at + 0xF, 0x7F800001)  # signalling NaN density
    data[5] = 9  # the header's 0 byte
    struct.pack_into("<I", data, MODELS_END, 77)  # the zero word
    lib = parse_library(bytes(data))
    assert library_bytes(lib) == bytes(data)
    assert len(lib.notes) == 2 and "offset 5" in lib.notes[0] and f"offset {MODELS_END}" in lib.notes[1]


def test_empty_library_reads_and_round_trips() -> None:
    data = fx.empty_library_bytes()
    lib = parse_library(data)
    assert (lib.model_count, len(lib.groups), lib.rule_count) == (0, 0, 0)
    assert library_bytes(lib) == data


def test_empty_file_is_refused_at_offset_0(tmp_path) -> None:
    with pytest.raises(FormatError) as e:
        read_library(fx.write(tmp_path / "empty.lib", b""))
    assert e.value.place == 0 and "empty.lib" in str(e.value) and "header" in e.value.reason


def test_missing_file_is_a_format_error(tmp_path) -> None:
    with pytest.raises(FormatError, match="cannot read"):
        read_library(tmp_path / "nope.lib")


def test_wrong_first_byte(seed_data: bytes) -> None:
    with pytest.raises(FormatError) as e:
        parse_library(b"\x02" + seed_data[1:], "x.lib")
    assert e.value.place == 0


@pytest.mark.parametrize("keep, place", [
    (3, 3),                        # inside the header
    (6 + 132 * 10, 1),             # inside the models: the model count cannot fit
    (GROUPS_START + 300, 1),       # models fit, but not with the tail after them
])
def test_truncated_early_names_the_offset(seed_data: bytes, keep: int, place: int) -> None:
    with pytest.raises(FormatError) as e:
        parse_library(fx.truncated(seed_data, keep), "cut.lib")
    assert e.value.place == place
    assert f"@ offset {place}" in str(e.value)


@pytest.mark.parametrize("cut", [1, 16, 94, 1000])
def test_truncated_at_the_end_stops_in_the_groups(seed_data: bytes, cut: int) -> None:
    lib = parse_library(seed_data)
    with pytest.raises(FormatError) as e:
        parse_library(fx.truncated(seed_data, len(seed_data) - cut), "cut.lib")
    place = e.value.place
    assert isinstance(place, int) and GROUPS_START <= place < len(seed_data) - cut - 443 + 17
    starts = [g.offset for g in lib.groups]
    # the error is at a group head or its rule count, inside the file's group region
    assert place in starts or place - 13 in starts
    assert "tail" in e.value.reason and "hypothesis" in e.value.reason


@pytest.mark.parametrize("extra", [b"\x00", b"\x00" * 7, b"\x00" * 16, bytes(range(40)), b"\xff" * 400])
def test_extra_bytes_are_refused_where_they_start(seed_data: bytes, extra: bytes) -> None:
    with pytest.raises(FormatError) as e:
        parse_library(fx.with_extra(seed_data, extra), "long.lib")
    assert e.value.place == len(seed_data)  # the first extra byte
    assert f"if the groups end at offset {len(seed_data) - 443}" in e.value.reason
    assert "hypothesis" in e.value.reason


def test_impossible_model_count_is_refused_before_allocating(seed_data: bytes) -> None:
    data = bytearray(seed_data)
    struct.pack_into("<I", data, 1, 0xFFFFFFFF)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as e:
            parse_library(bytes(data), "huge.lib")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.place == 1 and "4294967295" in e.value.reason
    assert peak < 2 * len(seed_data) + 100_000


def test_impossible_rule_count_is_refused_before_allocating(seed_data: bytes) -> None:
    data = bytearray(seed_data)
    struct.pack_into("<I", data, GROUPS_START + 13, 0xFFFFFFFF)
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as e:
            parse_library(bytes(data), "huge.lib")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.place == GROUPS_START + 13 and "group 0 claims 4294967295 rules" in e.value.reason
    assert peak < 2 * len(seed_data) + 100_000


def test_a_rule_of_another_class_is_named_at_its_offset(seed_data: bytes) -> None:
    lib = parse_library(seed_data)
    g = next(i for i, grp in enumerate(lib.groups) if len(grp.rules) == 3)
    at = lib.groups[g].offset + 17 + 2 * 94
    data = bytearray(seed_data)
    struct.pack_into("<I", data, at + 8, 0xDEADBEEF)
    with pytest.raises(FormatError) as e:
        parse_library(bytes(data))
    assert e.value.place == at and f"group {g} rule 2" in e.value.reason
    assert "0xDEADBEEF" in e.value.reason


def test_a_model_of_another_class_is_named_at_its_offset(seed_data: bytes) -> None:
    data = bytearray(seed_data)
    struct.pack_into("<I", data, 6 + 5 * 132 + 8, 0x01020304)
    with pytest.raises(FormatError) as e:
        parse_library(bytes(data))
    assert e.value.place == 6 + 5 * 132 and "model 5" in e.value.reason


def test_a_group_of_another_class_is_read_and_noted(seed_data: bytes) -> None:
    # the seed gives no class id for groups, so a group's class is kept, not required to match
    lib = parse_library(seed_data)
    at = lib.groups[100].offset
    data = bytearray(seed_data)
    struct.pack_into("<I", data, at + 8, 0x0BADF00D)
    lib = parse_library(bytes(data))
    assert len(lib.groups) == 190 and lib.rule_count == 218
    assert lib.groups[100].class_id == 0x0BADF00D
    assert any("0x0BADF00D" in n for n in lib.notes)
    assert library_bytes(lib) == bytes(data)


@pytest.mark.parametrize("classes", ["zero", "per-group"])
def test_group_class_ids_are_not_assumed(classes: str) -> None:
    import random

    rng = random.Random(5)
    sizes = fx.seed_group_sizes(rng)
    group_classes = ([0] * 190 if classes == "zero" else [rng.getrandbits(32) for _ in range(190)])
    data = fx.library_bytes(46, sizes, fx.seed_table(3), missing=fx.SEED_MISSING,
                            group_classes=group_classes)
    assert len(data) == 30_247
    lib = parse_library(data)
    assert (lib.model_count, len(lib.groups), lib.rule_count) == (46, 190, 218)
    assert [g.class_id for g in lib.groups] == group_classes
    assert library_bytes(lib) == data


@pytest.mark.parametrize("cut", [1, 2, 100, 187, 442])
def test_a_cut_tail_is_refused_as_truncated_by_its_size(seed_data: bytes, cut: int) -> None:
    lib = parse_library(seed_data)
    groups_end = len(seed_data) - 443
    with pytest.raises(FormatError) as e:
        parse_library(seed_data[:-cut], "cut.lib")
    assert f"the groups end at offset {groups_end}, leaving {443 - cut} bytes" in e.value.reason
    assert f"truncated: at least {cut} bytes are missing" in e.value.reason
    assert e.value.place - 13 in [g.offset for g in lib.groups] or e.value.place in [g.offset
                                                                                       for g in lib.groups]


@pytest.mark.parametrize("extra", [1, 17, 256, 1000])
def test_extra_bytes_are_counted_and_placed(seed_data: bytes, extra: int) -> None:
    groups_end = len(seed_data) - 443
    with pytest.raises(FormatError) as e:
        parse_library(seed_data + bytes(range(7, 7 + extra % 200)) + b"\x01" * (extra - extra % 200))
    assert e.value.place == groups_end + 443 == len(seed_data)
    assert f"{extra} extra bytes follow the 443-byte tail (from offset {groups_end + 443})" in e.value.reason


@pytest.mark.parametrize("raw", [0, 60, 187, 400])
def test_any_tail_size_reads_when_asked(raw: int) -> None:
    import random

    sizes = fx.seed_group_sizes(random.Random(9))
    table = fx.seed_table(7)
    data = fx.library_bytes(46, sizes, table, missing=fx.SEED_MISSING, tail_raw_size=raw)
    lib = parse_library(data, "any.lib", tail_size=None)
    assert (lib.model_count, len(lib.groups), lib.rule_count) == (46, 190, 218)
    assert len(lib.tail_raw) == raw and lib.table.tobytes() == table
    assert library_bytes(lib) == data
    assert (raw == 187) == (not any("tail is" in n for n in lib.notes))
    if raw != 187:  # the default reading holds a file to the examined 443-byte tail
        with pytest.raises(FormatError) as e:
            parse_library(data, "any.lib")
        assert "443-byte tail" in e.value.reason


def test_any_tail_size_still_refuses_cut_files(seed_data: bytes) -> None:
    with pytest.raises(FormatError) as e:  # cut inside the last group: the tail would begin with it
        parse_library(seed_data[:len(seed_data) - 443 - 50], "cut.lib", tail_size=None)
    assert "looks truncated" in e.value.reason
    with pytest.raises(FormatError) as e:  # group 0 (two rules) cut: it is where the tail would be
        parse_library(seed_data[:GROUPS_START + 300], "cut.lib", tail_size=None)
    assert e.value.place == GROUPS_START and "looks truncated" in e.value.reason
    with pytest.raises(FormatError) as e:  # no room for the table
        parse_library(fx.empty_library_bytes()[:10 + 255], "cut.lib", tail_size=None)
    assert e.value.place == 10 + 255 and "256-entry table" in e.value.reason


def test_writer_rejects_a_tail_of_the_wrong_size(seed_data: bytes) -> None:
    lib = parse_library(seed_data)
    lib.tail_raw = b"\x00"
    with pytest.raises(ValueError, match="tail_raw"):
        library_bytes(lib)


def test_edited_library_reads_back(seed_data: bytes) -> None:
    lib = parse_library(seed_data)
    lib.table[7] = 3
    lib.groups[3].rules["density"] = np.float32(1.5)
    again = parse_library(library_bytes(lib))
    assert again.table[7] == 3 and (again.groups[3].rules["density"] == np.float32(1.5)).all()


def test_truncation_that_leaves_a_group_where_the_tail_should_be(seed_data: bytes) -> None:
    # cut so the group region is empty and the last 443 bytes begin with group 0 (two rules)
    with pytest.raises(FormatError) as e:
        parse_library(seed_data[:GROUPS_START + 443], "cut.lib")
    assert e.value.place == GROUPS_START and "looks truncated" in e.value.reason
    # cut on a group boundary further on: the tail would begin with a group head of the known class
    lib = parse_library(seed_data)
    boundary = lib.groups[120].offset
    with pytest.raises(FormatError) as e:
        parse_library(seed_data[:boundary + 443], "cut.lib")
    assert e.value.place == boundary and "GrassPattern" in e.value.reason


@pytest.mark.parametrize("make", [fx.empty_library_bytes, fx.small_library_bytes])
def test_every_prefix_is_refused_with_an_offset(make) -> None:
    # includes cuts on group boundaries, where the last 443 bytes would begin with an empty group
    data = make()
    for keep in range(len(data)):
        with pytest.raises(FormatError) as e:
            parse_library(data[:keep], "cut.lib")
        assert isinstance(e.value.place, int) and 0 <= e.value.place <= keep, keep


def test_cut_after_an_empty_group_is_refused() -> None:
    data = fx.small_library_bytes()  # group 0 (empty) starts at 538, group 1 (one rule) at 555
    with pytest.raises(FormatError) as e:
        parse_library(data[:538 + 443], "cut.lib")
    assert e.value.place == 538 and "looks truncated" in e.value.reason
