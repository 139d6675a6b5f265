"""Strict reader: every byte is placed, counts are checked before allocating, the file closes exactly.

Groups carry no count of their own in this reading, so where they end is found from the file: by
default the tail is the examined library's 443 bytes (the figure the group framing was derived
from), and the groups must chain exactly up to it. When they do not, the reader reads on to find
where the groups really end and says whether bytes are missing or extra, and where. Nothing
assumes the group objects' class id (the seed does not give it); only rules must be
GrassPatternElement, which the seed proves.
"""

from __future__ import annotations

import struct
from collections import Counter
from dataclasses import dataclass
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

RULE_COUNT_AT = 13  # the u32 rule count's offset in a group head


def hypothesis(tail_size: int | None) -> str:
    """The framing this reader applies, for messages."""
    tail = f"a {tail_size}-byte tail" if tail_size is not None else "a tail of at least 256 bytes"
    return (f"group framing hypothesis: 12-byte object header, u8, u32 rule count, {RULE_SIZE}-byte "
            f"rules; then {tail} ending in the 256-entry table")


def read_library(path: str | Path, tail_size: int | None = TAIL_SIZE) -> GrassLibrary:
    """Read a grass pattern library file; raises FormatError naming the offset where it stops fitting.

    `tail_size=None` accepts any tail of at least 256 bytes after the last group.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(path, None, f"cannot read: {e.strerror or e}") from None
    return parse_library(data, path, tail_size)


def parse_library(data: bytes, path: str | Path | None = None,
                  tail_size: int | None = TAIL_SIZE) -> GrassLibrary:
    """Parse library bytes (see `read_library`)."""
    if tail_size is not None and tail_size < TABLE_SIZE:
        raise ValueError(f"a tail holds the {TABLE_SIZE}-entry table: tail_size {tail_size} is too small")
    n = len(data)
    if n < HEADER_SIZE:
        raise FormatError(path, n, f"file ends after {n} bytes; the header needs {HEADER_SIZE}")
    lead, count, pad = struct.unpack_from("<BIB", data, 0)
    if lead != 1:
        raise FormatError(path, 0, f"first byte is {lead}, a grass pattern library starts with 1")
    notes: list[str] = []
    if pad != 0:
        notes.append(f"offset 5: header byte is {pad}, 0 in the examined library (kept)")
    least_tail = TABLE_SIZE if tail_size is None else tail_size
    room = n - HEADER_SIZE - ZERO_WORD_SIZE - least_tail
    if count * MODEL_PAIR_SIZE > max(room, 0):
        raise FormatError(path, 1, f"model count {count} needs {count * MODEL_PAIR_SIZE} bytes of "
                          f"models but the file leaves {max(room, 0)} after the header, the zero word "
                          f"and the {least_tail}-byte tail (file is {n} bytes)")
    models = np.frombuffer(data, MODEL_PAIR_DTYPE, count, HEADER_SIZE).copy()
    _check_same_class(path, models["model"]["class_id"], HEADER_SIZE, MODEL_PAIR_SIZE, "model")
    _check_same_class(path, models["bounds"]["class_id"], HEADER_SIZE + 72, MODEL_PAIR_SIZE,
                      "bounding volume")
    offset = HEADER_SIZE + count * MODEL_PAIR_SIZE
    if n < offset + ZERO_WORD_SIZE:
        raise FormatError(path, n, f"file ends at offset {n}, inside the u32 after the models at offset "
                          f"{offset}")
    (zero_word,) = struct.unpack_from("<I", data, offset)
    if zero_word != 0:
        notes.append(f"offset {offset}: word after the models is {zero_word}, 0 in the examined "
                     "library (kept)")
    offset += ZERO_WORD_SIZE
    if tail_size is None:
        groups, tail_start = _groups_up_to_any_tail(data, path, offset)
    else:
        tail_start = n - tail_size
        groups = _groups_up_to(data, path, offset, tail_start, tail_size)
    _refuse_group_at_tail(data, path, groups, tail_start, tail_size)
    classes = Counter(g.class_id for g in groups)
    if len(classes) > 1:
        notes.append("groups carry " + ", ".join(f"{describe_class(c)} ×{k}" for c, k in classes.items())
                     + " (kept)")
    if tail_size is None and n - tail_start != TAIL_SIZE:
        notes.append(f"offset {tail_start}: the tail is {n - tail_start} bytes, {TAIL_SIZE} in the "
                     "examined library; its last 256 are read as the table")
    tail = data[tail_start:]
    table = np.frombuffer(tail, np.uint8, TABLE_SIZE, len(tail) - TABLE_SIZE).copy()
    return GrassLibrary(models=models, groups=groups, table=table, tail_raw=tail[:-TABLE_SIZE],
                        lead=lead, pad=pad, zero_word=zero_word, tail_size=tail_size, notes=notes)


@dataclass
class _Stop:
    """Where and why a walk over group heads stopped."""

    offset: int  # the head that did not fit
    place: int   # the byte to name
    reason: str
    kind: str    # "short": too few bytes for a head; "count": rules do not fit; "class": a rule's class
    rule: int = 0  # for "class": which rule of the group


def _walk(data: bytes, offset: int, end: int, first_index: int = 0,
          empty_classes: set[int] | None = None) -> tuple[list[Group], int, _Stop | None]:
    """Read group after group in [offset, end) while each fits; return them, where they end, and why.

    With `empty_classes`, a group without rules is taken only if its class is one of them (used when
    reading on past where the tail was expected, so tail bytes are not taken for empty groups).
    """
    groups: list[Group] = []
    while offset < end:
        left = end - offset
        where = f"group {first_index + len(groups)}"
        if left < GROUP_HEAD_SIZE:
            return groups, offset, _Stop(offset, offset, f"{left} bytes are too few for {where} at offset "
                                         f"{offset} ({GROUP_HEAD_SIZE}-byte group head)", "short")
        head = np.frombuffer(data, GROUP_HEAD_DTYPE, 1, offset)[0]
        cid, rule_count = int(head["class_id"]), int(head["rule_count"])
        room = left - GROUP_HEAD_SIZE
        if rule_count * RULE_SIZE > room:
            return groups, offset, _Stop(offset, offset + RULE_COUNT_AT,
                                         f"{where} claims {rule_count} rules ({rule_count * RULE_SIZE} "
                                         f"bytes) but only {room} bytes remain after its head at "
                                         f"offset {offset}", "count")
        if rule_count == 0 and empty_classes is not None and cid not in empty_classes:
            return groups, offset, _Stop(offset, offset, f"{where} at offset {offset} would hold no "
                                         f"rules and has {describe_class(cid)}, not a group class seen",
                                         "class")
        first_rule = offset + GROUP_HEAD_SIZE
        rules = np.frombuffer(data, RULE_DTYPE, rule_count, first_rule).copy()
        bad = np.flatnonzero(rules["class_id"] != RULE_CLASS_ID)
        if bad.size:
            k = int(bad[0])
            return groups, offset, _Stop(
                offset, first_rule + k * RULE_SIZE,
                f"{where} rule {k} (group at offset {offset}) has "
                f"{describe_class(int(rules['class_id'][k]))}, expected GrassPatternElement "
                f"(0x{RULE_CLASS_ID:08X})", "class", k)
        groups.append(Group(identity=int(head["identity"]), class_id=cid, flag=int(head["flag"]),
                            rules=rules, offset=offset))
        offset = first_rule + rule_count * RULE_SIZE
    return groups, offset, None


def _rule_classes(groups: list[Group]) -> set[int]:
    """The classes of groups that hold rules: those are certainly groups."""
    return {g.class_id for g in groups if len(g.rules)}


def _groups_up_to(data: bytes, path, offset: int, tail_start: int, tail_size: int) -> list[Group]:
    """Groups that fill [offset, tail_start) exactly; otherwise say what the file holds instead."""
    n = len(data)
    if tail_start < offset:
        raise FormatError(path, n, f"file ends at offset {n}: after the groups start at offset {offset} "
                          f"only {n - offset} bytes remain, fewer than the {tail_size}-byte tail "
                          f"({hypothesis(tail_size)})")
    groups, end, stop = _walk(data, offset, tail_start)
    if stop is None:
        return groups
    hyp = hypothesis(tail_size)
    if stop.kind == "class" and stop.rule > 0:  # a group whose first rules are rules: damaged, not cut
        raise FormatError(path, stop.place, f"{stop.reason} ({hyp})")
    # Does a group stand at the stop when the whole file is allowed? Then the groups run past where
    # the tail should begin: read on to find their real end.
    known = _rule_classes(groups) or None
    more, real_end, _ = _walk(data, stop.offset, n, len(groups), known)
    if more:
        left = n - real_end
        what = (f"the file looks truncated: at least {tail_size - left} bytes are missing before its "
                f"end at offset {n}" if left < tail_size else
                f"{left - tail_size} bytes more than the tail follow them")
        raise FormatError(path, stop.place, f"{stop.reason} before offset {tail_start}, where the "
                          f"{tail_size}-byte tail would begin; read on, the groups end at offset "
                          f"{real_end}, leaving {left} bytes for the tail: {what} ({hyp})")
    head_class = int(np.frombuffer(data, "<u4", 1, stop.offset + 8)[0]) if stop.kind != "short" else None
    if stop.kind == "count" and (not groups or head_class in {g.class_id for g in groups}):
        # a head of a group class whose count cannot fit: the group is damaged here
        raise FormatError(path, stop.place, f"{stop.reason} before the tail at offset {tail_start} "
                          f"({hyp})")
    left = n - stop.offset
    if left > tail_size:  # named at the first extra byte: that is where the file should have closed
        raise FormatError(path, stop.offset + tail_size,
                          f"{left - tail_size} extra bytes follow the {tail_size}-byte tail (from offset "
                          f"{stop.offset + tail_size}) if the groups end at offset {stop.offset}, where "
                          f"they stop fitting ({stop.reason}) ({hyp})")
    raise FormatError(path, stop.offset, f"the groups stop fitting at offset {stop.offset} "
                      f"({stop.reason}); the file ends {tail_size - left} bytes short of a tail starting "
                      f"there ({hyp})")


def _groups_up_to_any_tail(data: bytes, path, offset: int) -> tuple[list[Group], int]:
    """Groups as far as they chain, leaving at least the table; trailing empty heads of a class no
    rule-holding group has are left to the tail."""
    n = len(data)
    if n - offset < TABLE_SIZE:
        raise FormatError(path, n, f"file ends at offset {n}: {n - offset} bytes after the zero word at "
                          f"offset {offset - ZERO_WORD_SIZE} cannot hold the {TABLE_SIZE}-entry table")
    groups, end, stop = _walk(data, offset, n - TABLE_SIZE)
    if stop is not None and stop.kind == "class" and stop.rule > 0:
        raise FormatError(path, stop.place, f"{stop.reason} ({hypothesis(None)})")
    known = _rule_classes(groups)
    while groups and not len(groups[-1].rules) and groups[-1].class_id not in known:
        groups.pop()
    end = _group_end(groups, offset)
    return groups, end


def _group_end(groups: list[Group], start: int) -> int:
    if not groups:
        return start
    last = groups[-1]
    return last.offset + GROUP_HEAD_SIZE + len(last.rules) * RULE_SIZE


def _refuse_group_at_tail(data: bytes, path, groups: list[Group], tail_start: int,
                          tail_size: int | None) -> None:
    """A tail that begins with groups means the file was cut on a group boundary.

    From the tail's start, heads without rules are passed over; the first head claiming rules
    decides: if the rules present are GrassPatternElement objects, these are groups, not a tail.
    An empty head of the one class every group read so far has also counts as a group.
    """
    n = len(data)
    at = tail_start
    while n - at >= GROUP_HEAD_SIZE:
        head = np.frombuffer(data, GROUP_HEAD_DTYPE, 1, at)[0]
        cid, rule_count = int(head["class_id"]), int(head["rule_count"])
        if rule_count == 0:
            if at == tail_start and {g.class_id for g in groups} == {cid}:
                break  # an empty group of the groups' own class
            at += GROUP_HEAD_SIZE
            continue
        first = at + GROUP_HEAD_SIZE
        present = min(rule_count, (n - first) // RULE_SIZE)
        classes = [int(c) for c in np.frombuffer(data, RULE_DTYPE, present, first)["class_id"]]
        if present < rule_count and n - (first + present * RULE_SIZE) >= 12:  # a cut rule's class
            classes.append(int(np.frombuffer(data, "<u4", 1, first + present * RULE_SIZE + 8)[0]))
        if classes and all(c == RULE_CLASS_ID for c in classes):
            break
        return
    else:
        return
    head = np.frombuffer(data, GROUP_HEAD_DTYPE, 1, tail_start)[0]
    raise FormatError(path, tail_start, f"the tail at offset {tail_start} would start with a group "
                      f"({describe_class(int(head['class_id']))}, {int(head['rule_count'])} rules) "
                      f"or groups: the file looks truncated, or the {hypothesis(tail_size)} does not fit it")


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
