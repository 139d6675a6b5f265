"""Writer: the library's bytes, reproducing a read file byte for byte."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from model.atomic import atomic_write
from model.grasslib.library import (
    GROUP_HEAD_DTYPE,
    MODEL_PAIR_DTYPE,
    RULE_DTYPE,
    TABLE_SIZE,
    GrassLibrary,
)


def library_bytes(lib: GrassLibrary) -> bytes:
    """Serialise `lib` in the layout the reader reads."""
    # a library held to the examined tail size must keep it, or the default reader refuses the file
    want = None if lib.tail_size is None else lib.tail_size - TABLE_SIZE
    if want is not None and len(lib.tail_raw) != want:
        raise ValueError(f"tail_raw must be {want} bytes, not {len(lib.tail_raw)}")
    table = np.asarray(lib.table)
    if table.shape != (TABLE_SIZE,):
        raise ValueError(f"the material table must hold {TABLE_SIZE} entries")
    parts = [struct.pack("<BIB", lib.lead, lib.model_count, lib.pad),
             np.ascontiguousarray(lib.models, MODEL_PAIR_DTYPE).tobytes(),
             struct.pack("<I", lib.zero_word)]
    for g in lib.groups:
        head = np.zeros(1, GROUP_HEAD_DTYPE)
        head[0] = (g.identity, g.class_id, g.flag, len(g.rules))
        parts.append(head.tobytes())
        parts.append(np.ascontiguousarray(g.rules, RULE_DTYPE).tobytes())
    parts.append(bytes(lib.tail_raw))
    parts.append(table.astype(np.uint8).tobytes())
    return b"".join(parts)


def write_library(path: str | Path, lib: GrassLibrary) -> None:
    """Write atomically."""
    atomic_write(path, library_bytes(lib))
