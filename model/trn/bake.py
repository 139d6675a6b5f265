"""Evaluated heights made safe to write: poles that evaluate to NaN or ±infinity.

An affector may compute a non-finite height (a constant of NaN or infinity in the file, an
overflowing multiply). A 16-bit heightmap and a scene cannot hold those, so every output gets the
same finite stand-ins — NaN and −inf the lowest finite height, +inf the highest — and the caller
says how many poles of each kind there were and where (a mask), instead of refusing the bake.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class NonFinite:
    """How many poles were not finite, and the finite heights they became."""

    nan: int = 0
    neg_inf: int = 0
    pos_inf: int = 0
    low: float = 0.0  # what NaN and −inf became
    high: float = 0.0  # what +inf became

    @property
    def total(self) -> int:
        return self.nan + self.neg_inf + self.pos_inf

    def sentence(self) -> str:
        """One line for output and warnings; empty when every pole was finite."""
        if not self.total:
            return ""
        kinds = [f"{n:,} {what}" for n, what in ((self.nan, "NaN"), (self.neg_inf, "−inf"),
                                                 (self.pos_inf, "+inf")) if n]
        became = []
        if self.nan or self.neg_inf:
            became.append(f"{' and '.join(k for k, n in (('NaN', self.nan), ('−inf', self.neg_inf)) if n)} "
                          f"written as the lowest finite height ({self.low:g} m)")
        if self.pos_inf:
            became.append(f"+inf as the highest ({self.high:g} m)")
        poles = "pole" if self.total == 1 else "poles"
        return f"{self.total:,} {poles} not finite ({', '.join(kinds)}): {'; '.join(became)}"

    def to_json(self) -> dict:
        return {"count": self.total, "nan": self.nan, "-inf": self.neg_inf, "+inf": self.pos_inf,
                "nan_and_-inf_written_as": self.low if self.nan or self.neg_inf else None,
                "+inf_written_as": self.high if self.pos_inf else None}


def finite_heights(heights: np.ndarray) -> tuple[np.ndarray, np.ndarray, NonFinite]:
    """(heights with stand-ins, mask of the poles that were not finite, what was replaced).

    The array is returned as it is (no copy) when every pole is finite; when none is, every
    stand-in is 0 m.
    """
    heights = np.asarray(heights, np.float32)
    finite = np.isfinite(heights)
    if finite.all():
        return heights, ~finite, NonFinite()
    low = float(heights[finite].min()) if finite.any() else 0.0
    high = float(heights[finite].max()) if finite.any() else 0.0
    nan = np.isnan(heights)
    neg = heights == -np.inf
    pos = heights == np.inf
    out = heights.copy()
    out[nan | neg] = low
    out[pos] = high
    return out, ~finite, NonFinite(int(nan.sum()), int(neg.sum()), int(pos.sum()), low, high)
