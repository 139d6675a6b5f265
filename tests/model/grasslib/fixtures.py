"""Writes grass pattern libraries shaped like the examined one, and bad variants, for the tests.

The bytes are packed here with `struct`, independently of the product's writer, so a reader and a
writer that agree on the same mistake still fail the round-trip tests.
"""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path

# The examined library's figures.
SEED_MODELS = 46
SEED_GROUP_SIZES = {0: 61, 1: 57, 2: 55, 3: 17}  # rules per group → groups
SEED_GROUPS = 190
SEED_RULES = 218
SEED_TAIL = 443
SEED_SIZE = 30_247
SEED_MISSING = {185: 46, 186: 47, 187: 48, 188: 49, 189: 50}  # group → model index beyond the set
SEED_UNNAMED_FLOATS = {5.0: 145, 0.0: 66, 2.5: 7}
DISTANCE_TRIPLES = ((5.0, 10.0, 20.0), (10.0, 20.0, 40.0), (20.0, 40.0, 80.0))

RULE_CLASS = 0xA6FC073D
MODEL_CLASS = zlib.crc32(b"GrassModel")
BOUNDS_CLASS = zlib.crc32(b"BoundingVolume")
GROUP_CLASS = zlib.crc32(b"GrassPattern")


def _header(rng: random.Random, cid: int) -> bytes:
    return struct.pack("<QI", rng.getrandbits(64), cid)


def model_bytes(rng: random.Random, index: int) -> bytes:
    """72-byte GrassModel: header, settings, LOD table, distance triple."""
    settings = struct.pack("<fBfffB", rng.uniform(-0.2, 0.0), rng.randrange(2), rng.uniform(0, 1),
                           rng.uniform(0, 1), rng.uniform(0, 1), rng.randrange(2))
    settings += bytes(rng.randrange(256) for _ in range(43 - len(settings)))
    lod = bytes((0, 1, 2, 3, 3)) if index % 9 else bytes((0, 1, 2, 2, 2))
    out = _header(rng, MODEL_CLASS) + settings + lod + struct.pack("<3f", *DISTANCE_TRIPLES[index % 3])
    assert len(out) == 72
    return out


def bounds_bytes(rng: random.Random) -> bytes:
    """60-byte BoundingVolume: header and twelve floats."""
    lo = [rng.uniform(-1, 0) for _ in range(3)]
    hi = [rng.uniform(0, 1.5) for _ in range(3)]
    rest = [rng.uniform(-1, 1) for _ in range(6)]
    return _header(rng, BOUNDS_CLASS) + struct.pack("<12f", *lo, *hi, *rest)


def rule_bytes(rng: random.Random, model: int, unnamed_float: float) -> bytes:
    """94-byte GrassPatternElement laid out as the seed's table says."""
    out = _header(rng, RULE_CLASS) + struct.pack(
        "<HBffBffBfff", model, rng.randrange(5), rng.uniform(0.5, 8.0), rng.uniform(0.0, 1.0),
        rng.randrange(2), rng.uniform(0.6, 1.0), rng.uniform(1.0, 1.5), rng.randrange(2),
        rng.uniform(0.7, 1.0), rng.uniform(1.0, 1.3), unnamed_float)
    out += struct.pack("<BH10f", 100, rng.randrange(65536), *(rng.uniform(-4, 4) for _ in range(10)))
    out += bytes(rng.randrange(256) for _ in range(6))
    assert len(out) == 94
    return out


def group_bytes(rng: random.Random, rules: list[bytes], group_class: int = GROUP_CLASS) -> bytes:
    return _header(rng, group_class) + struct.pack("<BI", rng.randrange(2), len(rules)) + b"".join(rules)


def seed_group_sizes(rng: random.Random) -> list[int]:
    """190 sizes with the seed's histogram; groups 185–189 hold one rule each (the missing models)."""
    pool = [size for size, n in SEED_GROUP_SIZES.items() for _ in range(n)]
    for _ in SEED_MISSING:
        pool.remove(1)
    rng.shuffle(pool)
    return pool + [1] * len(SEED_MISSING)


def library_bytes(model_count: int, group_sizes: list[int], table: bytes, *, seed: int = 1,
                  missing: dict[int, int] | None = None, unnamed_floats: list[float] | None = None,
                  group_classes: list[int] | None = None, tail_raw_size: int = SEED_TAIL - 256) -> bytes:
    """A whole library. `missing` maps group → a model index for its first rule.

    The group class is not in the seed: `group_classes` (one per group) lets tests vary it; the
    tail's size before the table is the examined library's unless `tail_raw_size` says otherwise.
    """
    rng = random.Random(seed)
    missing = missing or {}
    total = sum(group_sizes)
    floats = list(unnamed_floats or [5.0] * total)
    out = [struct.pack("<BIB", 1, model_count, 0)]
    for i in range(model_count):
        out.append(model_bytes(rng, i) + bounds_bytes(rng))
    out.append(struct.pack("<I", 0))
    k = 0
    for g, size in enumerate(group_sizes):
        rules = []
        for r in range(size):
            model = missing[g] if (r == 0 and g in missing) else rng.randrange(max(model_count, 1))
            rules.append(rule_bytes(rng, model, floats[k]))
            k += 1
        out.append(group_bytes(rng, rules, group_classes[g] if group_classes else GROUP_CLASS))
    tail_raw = bytearray(rng.randrange(256) for _ in range(tail_raw_size))
    if tail_raw_size >= 12:
        tail_raw[8:12] = struct.pack("<I", zlib.crc32(b"GrassSettings"))  # not a group header
    assert len(table) == 256
    out.append(bytes(tail_raw) + table)
    return b"".join(out)


def seed_table(final_group: int) -> bytes:
    """All 0xFF except the final entry, as in the examined library."""
    return b"\xff" * 255 + bytes([final_group])


def seed_shaped_bytes(seed: int = 1) -> bytes:
    """A library with the examined one's counts, group sizes, tail and total size."""
    rng = random.Random(seed ^ 0x5EED)
    sizes = seed_group_sizes(rng)
    floats = [f for f, n in SEED_UNNAMED_FLOATS.items() for _ in range(n)]
    rng.shuffle(floats)
    final_group = next(g for g, s in enumerate(sizes) if s == 2)
    data = library_bytes(SEED_MODELS, sizes, seed_table(final_group), seed=seed, missing=SEED_MISSING,
                         unnamed_floats=floats)
    assert len(data) == SEED_SIZE
    return data


def empty_library_bytes() -> bytes:
    """No models, no groups: header, zero word and tail only."""
    return library_bytes(0, [], b"\xff" * 256)


def small_library_bytes(table: bytes | None = None, seed: int = 3) -> bytes:
    """Four models and five groups (sizes 0, 1, 2, 3, 1; group 4's rule names model 9)."""
    if table is None:
        t = bytearray(b"\xff" * 256)
        t[0], t[1], t[2], t[3], t[255] = 1, 2, 0, 4, 3
        table = bytes(t)
    return library_bytes(4, [0, 1, 2, 3, 1], table, seed=seed, missing={4: 9})


def truncated(data: bytes, keep: int) -> bytes:
    return data[:keep]


def with_extra(data: bytes, extra: bytes = b"\x00" * 7) -> bytes:
    return data + extra


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
