"""Terrain tools: a sculpt stamp's cost follows the brush, not the size of the terrain."""

from __future__ import annotations

import numpy as np

from app.bench import BenchCase, best_time
from model.brush import Brush
from model.sculpt import TerrainStroke, flatten, noise, paint_layer, raise_lower, smooth
from model.terrain import Terrain


def _terrain(size: int) -> Terrain:
    heights = np.zeros((size, size), np.float32)
    heights[:: max(1, size // 64)] = 1.0  # some relief, the same everywhere
    t = Terrain(heights, spacing=1.0)
    t.add_layer("grass", (60, 160, 60))
    return t


def _stroke(t: Terrain, brush: Brush, stamps: int = 24) -> list[TerrainStroke]:
    """One drag of each tool across the middle of the terrain, as the editor's tools do it."""
    c = t.columns / 2
    points = [(c + 3.0 * i, c + 2.0 * i) for i in range(stamps)]
    sculpt = TerrainStroke(t)
    target = float(t.height_at(*points[0]))
    for x, z in points:
        sculpt.apply(raise_lower(t, brush, x, z))
        sculpt.apply(smooth(t, brush, x, z))
        sculpt.apply(flatten(t, brush, x, z, target))
        sculpt.apply(noise(t, brush, x, z, seed=1, amount=0.5))
    sculpt.finish()
    paint = TerrainStroke(t, "grass")
    for x, z in points:
        paint.apply(paint_layer(t, "grass", brush, x, z))
    paint.finish()
    return [sculpt, paint]


def sculpt_ratio(quick: bool) -> float:
    """Time of one drag on a 4096² terrain over the same drag on a 512² one."""
    big, small = (2048, 512) if quick else (4096, 512)
    brush = Brush(radius=24.0, strength=0.5)
    t_small, t_big = _terrain(small), _terrain(big)
    small_time = big_time = float("inf")
    for _ in range(3 if quick else 9):  # alternate, so both sizes see the same machine load
        small_time = min(small_time, best_time(lambda: _stroke(t_small, brush), 1))
        big_time = min(big_time, best_time(lambda: _stroke(t_big, brush), 1))
    return big_time / small_time


def undo_memory_ratio(quick: bool) -> float:
    """Undo bytes kept for one drag on a 4096² terrain over the same drag on a 512² one."""
    big, small = (2048, 512) if quick else (4096, 512)
    brush = Brush(radius=24.0, strength=0.5)

    def undo_bytes(size: int) -> int:
        return sum(s.tiles.nbytes for s in _stroke(_terrain(size), brush))

    return undo_bytes(big) / undo_bytes(small)


CASES = [
    BenchCase("terrain.sculpt_stamp_4096_vs_512", 1.5, sculpt_ratio,
              description="a sculpt/paint drag on 4096² costs about the same as on 512²"),
    BenchCase("terrain.stroke_undo_memory_4096_vs_512", 1.0, undo_memory_ratio,
              description="a drag's undo keeps only the tiles it touched, whatever the terrain size"),
]
