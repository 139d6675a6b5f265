"""Strict reader: every byte is placed, counts are checked before allocating, the file closes exactly."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from model.errors import FormatError
from model.grasslib.classes import RULE_CLASS_ID, describe_class
from model.grasslib.library import (
    GROUP_HEAD_DTYPE,
    GROUP_HEAD_SIZE,
    HEADER_SIZE,
    MODEL_PAIR_DTYPE,
    MODEL_PAIR_SIZE,
    RULE_DTYPE,
    RULE_SIZE,
    TABLE_SIZE,
    TAIL_SIZE,
    ZERO_WORD_SIZE,
    GrassLibrary,
    Group,
)

MIN_SIZE = HEADER_SIZE + ZERO_WORD_SIZE + TAIL_SIZE
HYPOTHESIS = ("group framing hypothesis (12-byte object header, u8, u32 rule count, "
              f"{RULE_SIZE}-byte rules; then a {TAIL_SIZE}-byte tail)")


def read_library(path: str | Path) -> GrassLibrary:
    """Read a grass pattern library file; raises FormatError naming the offset where it stops fitting."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(path, None, f"cannot read: {e.strerror or e}") from None
    return parse_library(data, path)


def parse_library(data: bytes, path: str | Path | None = None) -> GrassLibrary:
    """Parse library bytes (see `read_library`)."""
    n = len(data)
    if n < HEADER_SIZE:
        raise FormatError(path, n, f"file ends after {n} bytes; the header needs {HEADER_SIZE}")
    lead, count, pad = struct.unpack_from("<BIB", data, 0)
    if lead != 1:
        raise FormatError(path, 0, f"first byte is {lead}, a grass pattern library starts with 1")
    notes: list[str] = []
    if pad != 0:
        notes.append(f"offset 5: header byte is {pad}, 0 in the examined library (kept)")
    room = n - HEADER_SIZE - ZERO_WORD_SIZE - TAIL_SIZE
    if count * MODEL_PAIR_SIZE > max(room, 0):
        raise FormatError(path, 1, f"model count {count} needs {count * MODEL_PAIR_SIZE} bytes of "
                          f"models but the file leaves {max(room, 0)} after the header, the zero word "
                          f"and the {TAIL_SIZE}-byte tail (file is {n} bytes)")
    models = np.frombuffer(data, MODEL_PAIR_DTYPE, count, HEADER_SIZE).copy()
    _check_same_class(path, models["model"]["class_id"], HEADER_SIZE, MODEL_PAIR_SIZE, "model")
    _check_same_class(path, models["bounds"]["class_id"], HEADER_SIZE + 72, MODEL_PAIR_SIZE,
                      "bounding volume")
    offset = HEADER_SIZE + count * MODEL_PAIR_SIZE
    (zero_word,) = struct.unpack_from("<I", data, offset)
    if zero_word != 0:
        notes.append(f"offset {offset}: word after the models is {zero_word}, 0 in the examined "
                     "library (kept)")
    offset += ZERO_WORD_SIZE
    groups = _read_groups(data, path, offset, n - TAIL_SIZE)
    tail = data[n - TAIL_SIZE:]
    head_class, = struct.unpack_from("<I", tail, 8)
    first_rule_class, = struct.unpack_from("<I", tail, GROUP_HEAD_SIZE + 8)
    if (groups and head_class == groups[0].class_id) or first_rule_class == RULE_CLASS_ID:
        # a group head where the tail should start: groups were cut off (truncated) or misread
        raise FormatError(path, n - TAIL_SIZE, f"the {TAIL_SIZE}-byte tail would start with a group head "
                          f"({describe_class(head_class)}): the file looks truncated, or the "
                          f"{HYPOTHESIS} does not fit it")
    table = np.frombuffer(tail, np.uint8, TABLE_SIZE, TAIL_SIZE - TABLE_SIZE).copy()
    return GrassLibrary(models=models, groups=groups, table=table, tail_raw=tail[:-TABLE_SIZE],
                        lead=lead, pad=pad, zero_word=zero_word, notes=notes)


def _read_groups(data: bytes, path, offset: int, end: int) -> list[Group]:
    """Groups fill [offset, end) exactly; the first group's class is every group's class."""
    groups: list[Group] = []
    group_class: int | None = None
    while offset < end:
        left = end - offset
        where = f"group {len(groups)}"
        if left < GROUP_HEAD_SIZE:
            raise FormatError(path, offset, f"{left} bytes before the tail at offset {end} are too few "
                              f"for {where} ({GROUP_HEAD_SIZE}-byte group head): the file does not "
                              f"close on the layout ({HYPOTHESIS})")
        head = np.frombuffer(data, GROUP_HEAD_DTYPE, 1, offset)[0]
        cid, rule_count = int(head["class_id"]), int(head["rule_count"])
        if group_class is None:
            group_class = cid
        elif cid != group_class:
            raise FormatError(path, offset, f"{where} has {describe_class(cid)} where groups so far "
                              f"have {describe_class(group_class)}; {left} bytes remain before the "
                              f"tail at offset {end}, so the file stops fitting the {HYPOTHESIS} here")
        room = left - GROUP_HEAD_SIZE
        if rule_count * RULE_SIZE > room:
            raise FormatError(path, offset + 13, f"{where} claims {rule_count} rules "
                              f"({rule_count * RULE_SIZE} bytes) but only {room} bytes remain before "
                              f"the tail at offset {end} ({HYPOTHESIS})")
        first_rule = offset + GROUP_HEAD_SIZE
        rules = np.frombuffer(data, RULE_DTYPE, rule_count, first_rule).copy()
        bad = np.flatnonzero(rules["class_id"] != RULE_CLASS_ID)
        if bad.size:
            k = int(bad[0])
            raise FormatError(path, first_rule + k * RULE_SIZE,
                              f"{where} rule {k} has {describe_class(int(rules['class_id'][k]))}, "
                              f"expected GrassPatternElement (0x{RULE_CLASS_ID:08X}) ({HYPOTHESIS})")
        groups.append(Group(identity=int(head["identity"]), class_id=cid, flag=int(head["flag"]),
                            rules=rules, offset=offset))
        offset = first_rule + rule_count * RULE_SIZE
    return groups


def _check_same_class(path, class_ids: np.ndarray, first: int, stride: int, what: str) -> None:
    """All models (or all bounding volumes) share one class; the first that differs is where it breaks."""
    if class_ids.size == 0:
        return
    bad = np.flatnonzero(class_ids != class_ids[0])
    if bad.size:
        k = int(bad[0])
        raise FormatError(path, first + k * stride,
                          f"{what} {k} has {describe_class(int(class_ids[k]))} but {what} 0 has "
                          f"{describe_class(int(class_ids[0]))}: the model table stops fitting here")
