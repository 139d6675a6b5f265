"""MapColor: `#RRGGBB`, `0xRRGGBB` or `RRGGBB`; red when absent."""

from __future__ import annotations

import re

DEFAULT_MAP_COLOR = (255, 0, 0)
_HEX = re.compile(r"(?:#|0[xX])?([0-9A-Fa-f]{6})\Z")


def parse_map_color(text: object) -> tuple[int, int, int] | None:
    """The (r, g, b) of a MapColor string, or None when it is not one of the three hex forms."""
    if not isinstance(text, str):
        return None
    m = _HEX.match(text)
    if not m:
        return None
    digits = m.group(1)
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))


def map_color(value: object) -> tuple[int, int, int]:
    """The colour to draw: the parsed MapColor, or red when absent or invalid."""
    return parse_map_color(value) or DEFAULT_MAP_COLOR
