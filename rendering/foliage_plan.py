"""How the renderer draws one foliage type: its levels of detail, far end, variation and proxies."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from model.foliage.foliage_type import FoliageType
from model.foliage.lods import Level, proxy_level


@dataclass
class TypePlan:
    """How one type is drawn: its levels, far end and variation uniforms; `proxy` (and the
    impostors' end, `drawn_impostor`) follow the frame's proxy start (`set_proxy_start`)."""

    ftype: FoliageType
    levels: list[Level]
    impostor: Level | None
    far_end: float
    salt: int
    thresholds: np.ndarray
    hue: tuple[float, float]
    value: tuple[float, float]
    card_area: float = 1.0  # the first mesh's impostor card at scale 1 (m²)
    proxy: Level | None = None
    drawn_impostor: Level | None = None
    proxy_for: float = math.nan

    def set_proxy_start(self, start: float) -> None:
        if start == self.proxy_for:
            return
        self.proxy_for = start
        self.proxy = proxy_level(self.ftype, start) if math.isfinite(start) else None
        self.drawn_impostor = self.impostor if self.proxy is None or self.impostor is None else Level(
            self.impostor.meshes, self.impostor.fade_in, self.proxy.fade_in)

    def full_end(self) -> float:
        """Where the type's own instances end: its far end, or where its proxies have taken over."""
        return self.proxy.fade_in[1] if self.proxy is not None else self.far_end

    def names(self) -> list[str]:
        return [f"LOD {i}" for i in range(len(self.levels))] + (["impostor"] if self.impostor else [])

    def owner_edges(self) -> np.ndarray:
        """Distances where each level's share begins (the middle of its dissolve-in band), and
        where the last one's ends: an instance counts for the level that holds most of it."""
        last = self.drawn_impostor
        every = self.levels + ([last] if last else [])
        return np.array([0.0] + [sum(lv.fade_in) / 2 for lv in every[1:]] + [sum(every[-1].fade_out) / 2])
