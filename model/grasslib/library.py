"""The grass pattern library in memory: header, models with bounding volumes, groups of rules, tail.

Every record is a numpy structured array whose bytes are the file's bytes, so nothing unnamed is
lost and a float's exact bit pattern (NaN payloads included) survives a round trip.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

HEADER_SIZE = 6  # u8 1, u32 model count, u8 0
ZERO_WORD_SIZE = 4
TABLE_SIZE = 256
# The examined library's tail is 443 bytes, the table its last 256. The framing hypothesis was
# derived with this figure (the 17-byte group overhead), so the reader expects it by default; a
# reader asked for `tail_size=None` takes whatever follows the last group instead.
TAIL_SIZE = 443
TAIL_RAW_SIZE = TAIL_SIZE - TABLE_SIZE
NO_GROUP = 0xFF
KEEP_MATERIAL_GROUP = 0xFE

# GrassModel object, 72 bytes: header, 43 bytes of settings, LOD table, distance triple.
MODEL_DTYPE = np.dtype([
    ("identity", "<u8"), ("class_id", "<u4"),
    ("settings", "u1", (43,)),
    ("lod", "u1", (5,)),        # inferred: commonly 00 01 02 03 03
    ("distances", "<f4", (3,)),  # inferred: metres, 5/10/20, 10/20/40 or 20/40/80
])
# BoundingVolume object, 60 bytes: header and 48 bytes shown as twelve floats.
BOUNDS_DTYPE = np.dtype([("identity", "<u8"), ("class_id", "<u4"), ("body", "<f4", (12,))])
MODEL_PAIR_DTYPE = np.dtype([("model", MODEL_DTYPE), ("bounds", BOUNDS_DTYPE)])
MODEL_PAIR_SIZE = MODEL_PAIR_DTYPE.itemsize

# GrassPatternElement, 94 bytes (offsets in the object as the seed's table gives them).
RULE_DTYPE = np.dtype([
    ("identity", "<u8"), ("class_id", "<u4"),
    ("model", "<u2"),            # GrassModelIndex
    ("tiling", "u1"),            # TilingLogCount
    ("density", "<f4"),
    ("tilt", "<f4"),             # TiltFactor
    ("scaling", "u1"),           # ScalingEnabled
    ("scale_a", "<f4"), ("scale_b", "<f4"),
    ("height_scaling", "u1"),    # HeightScalingEnabled
    ("height_scale_a", "<f4"), ("height_scale_b", "<f4"),
    ("unnamed_float", "<f4"),    # 5, 0 or 2.5 seen; meaning unknown
    ("unnamed", "u1", (49,)),    # not yet understood: byte, u16, ten floats, six bytes
])
RULE_SIZE = RULE_DTYPE.itemsize

# Group framing hypothesis: 12-byte object header, one u8, u32 rule count, then the rules.
GROUP_HEAD_DTYPE = np.dtype([("identity", "<u8"), ("class_id", "<u4"), ("flag", "u1"),
                             ("rule_count", "<u4")])
GROUP_HEAD_SIZE = GROUP_HEAD_DTYPE.itemsize

assert MODEL_DTYPE.itemsize == 72 and BOUNDS_DTYPE.itemsize == 60
assert RULE_SIZE == 94 and GROUP_HEAD_SIZE == 17


@dataclass
class Group:
    """One group: its object identity and class, its unnamed byte, and its rules."""

    identity: int
    class_id: int
    flag: int
    rules: np.ndarray  # RULE_DTYPE, shape (n,)
    offset: int = -1   # where it started in the file read, -1 when built in memory


@dataclass
class GrassLibrary:
    """A whole library; `library_bytes` writes it back byte for byte."""

    models: np.ndarray  # MODEL_PAIR_DTYPE, shape (model count,)
    groups: list[Group]
    table: np.ndarray  # uint8, 256 entries: material byte -> group (0xFF none)
    tail_raw: bytes = b"\x00" * TAIL_RAW_SIZE  # the tail's bytes before the table, not understood
    lead: int = 1
    pad: int = 0
    zero_word: int = 0
    tail_size: int | None = TAIL_SIZE  # the tail size this library is held to; None: any (>= 256)
    notes: list[str] = field(default_factory=list)  # things the reader noticed but kept

    @property
    def model_count(self) -> int:
        return int(len(self.models))

    @property
    def rule_count(self) -> int:
        return sum(len(g.rules) for g in self.groups)

    def all_rules(self) -> np.ndarray:
        """Every rule in file order (a copy)."""
        if not self.groups:
            return np.zeros(0, RULE_DTYPE)
        return np.concatenate([g.rules for g in self.groups])

    def group_size_histogram(self) -> dict[int, int]:
        """Rules per group → how many groups hold that many."""
        sizes = np.array([len(g.rules) for g in self.groups], dtype=np.int64)
        values, counts = np.unique(sizes, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts, strict=True)}

    def missing_model_rules(self) -> list[tuple[int, int, int]]:
        """(group, rule in group, model index) for rules naming a model the library lacks."""
        out = []
        for gi, g in enumerate(self.groups):
            for ri in np.flatnonzero(g.rules["model"] >= self.model_count):
                out.append((gi, int(ri), int(g.rules["model"][ri])))
        return out

    def model_offset(self, index: int) -> int:
        return HEADER_SIZE + index * MODEL_PAIR_SIZE

    def size(self) -> int:
        return (HEADER_SIZE + self.model_count * MODEL_PAIR_SIZE + ZERO_WORD_SIZE
                + len(self.groups) * GROUP_HEAD_SIZE + self.rule_count * RULE_SIZE
                + len(self.tail_raw) + TABLE_SIZE)


def rule_floats(raw: np.ndarray | bytes) -> np.ndarray:
    """The 49 unnamed bytes' ten floats (after the leading byte and u16), as the seed lays them."""
    b = bytes(np.asarray(raw, dtype=np.uint8)) if not isinstance(raw, bytes) else raw
    return np.frombuffer(b, "<f4", 10, offset=3).astype(np.float64)
