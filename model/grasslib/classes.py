"""Class ids are CRC-32 of class names: a table of the names Boscage knows, keyed by their CRC."""

from __future__ import annotations

import zlib

# Candidate names; an id is shown with a name only when the CRC matches, which is what proves it.
KNOWN_CLASS_NAMES: tuple[str, ...] = (
    "GrassPatternLibrary",
    "GrassPatternElement",
    "GrassPattern",
    "GrassPatternGroup",
    "GrassModel",
    "GrassModelSettings",
    "BoundingVolume",
    "GrassVisual",
    "GrassVisualInstance",
    "MeshInstanceData",
    "Visual",
    "GrassComponent",
    "GrassSettings",
    "GrassEntityGroup",
    "GrassMesh",
    "Entity",
)


def class_id(name: str) -> int:
    """The class id a file stores for `name`: CRC-32 of its ASCII bytes."""
    return zlib.crc32(name.encode("ascii"))


CLASS_NAMES: dict[int, str] = {class_id(n): n for n in KNOWN_CLASS_NAMES}

RULE_CLASS_ID = 0xA6FC073D  # GrassPatternElement, proven by the examined library
VISUAL_INSTANCE_CLASS_ID = 0xD4569683  # GrassVisualInstance


def class_name(cid: int) -> str | None:
    """The known name whose CRC-32 is `cid`, or None."""
    return CLASS_NAMES.get(int(cid))


def describe_class(cid: int) -> str:
    """'GrassPatternElement (0xA6FC073D)' or 'unknown class 0x12345678'."""
    name = class_name(cid)
    return f"{name} (0x{int(cid):08X})" if name else f"unknown class 0x{int(cid):08X}"
