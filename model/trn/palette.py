"""Readable colours for the paint layers a TRN import makes (and the browser's family maps).

The families' own colours are editor tints (often neon yellow and green, many alike), unreadable
on lit terrain and hard to tell apart. Each family instead gets a colour from a fixed sequence of
muted, mutually distinct colours, by its place in the file (kind, then id): the same file gives
the same colours in every import and region, and families of one import never share a colour
while there are fewer than the sequence's curated entries. The own colours stay visible as
swatches in the TRN browser.
"""

from __future__ import annotations

import colorsys
import zlib

from model.trn.document import TrnDocument

RGB = tuple[int, int, int]

# Tableau 10 (chosen for telling categories apart at mid lightness), then the same ten darker
CURATED: tuple[RGB, ...] = (
    (78, 121, 167), (242, 142, 43), (89, 161, 79), (225, 87, 89), (118, 183, 178),
    (237, 201, 72), (176, 122, 161), (255, 157, 167), (156, 117, 95), (186, 176, 172),
)
CURATED = CURATED + tuple(tuple(int(c * 0.62) for c in rgb) for rgb in CURATED)  # type: ignore[misc]
LAYER_KINDS = ("shader", "flora", "radial")  # the families an import turns into paint layers
_GOLDEN = 0.618033988749895


def readable_color(index: int) -> RGB:
    """The `index`-th colour: the curated ones first, then hues a golden angle apart."""
    if index < len(CURATED):
        return CURATED[index]
    h = (0.11 + (index - len(CURATED)) * _GOLDEN) % 1.0
    light = (0.45, 0.58, 0.36)[(index - len(CURATED)) % 3]
    r, g, b = colorsys.hls_to_rgb(h, light, 0.42)
    return round(r * 255), round(g * 255), round(b * 255)


def family_palette(doc: TrnDocument, kinds: tuple[str, ...] = LAYER_KINDS) -> dict[tuple[str, int], RGB]:
    """(kind, family id) → readable colour, numbered through `kinds` in order, ids ascending."""
    out: dict[tuple[str, int], RGB] = {}
    for kind in kinds:
        for fid in sorted({f.id for f in doc.families[kind]}):
            out[(kind, fid)] = readable_color(len(out))
    return out


def layer_color(palette: dict[tuple[str, int], RGB], kind: str, fid: int) -> RGB:
    """The family's colour, or (for an id the file does not declare) one past the declared ones,
    still deterministic from the id."""
    found = palette.get((kind, fid))
    if found is not None:
        return found
    return readable_color(len(CURATED) + zlib.crc32(f"{kind}:{fid}".encode()) % 997)
