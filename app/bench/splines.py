"""Road splines: moving one point of a road on a large paged world costs about a brush drag over
the same ground, however large the world and however long the road."""

from __future__ import annotations

import numpy as np

from app.bench import BenchCase, best_time
from model.brush import Brush
from model.formats import tiles as tiling
from model.paged import PagedGrid, PagedPlane
from model.scene import Scene
from model.sculpt import TerrainStroke, raise_lower
from model.spline_edits import apply_spline, move_point
from model.splines import Spline, centreline
from model.terrain import Terrain

SPACING = 2.0
WIDTH, FALLOFF = 8.0, 6.0


def _world(size: int) -> Terrain:
    """A paged world of `size`² samples (tiles made only where written), with rolling relief along
    the band the road crosses."""
    grid = PagedGrid.zeros(1, size, size, np.float32, tiling.TILE)
    mid = size // 2
    rows = slice(mid - 600, mid + 600)
    r, c = np.mgrid[rows, 0:size].astype(np.float64)
    grid.write(rows, slice(0, size), (((r * 7 + c * 3) % 400) / 400 * 30).astype(np.float32), 0)
    return Terrain(PagedPlane(grid, 0), SPACING, (0.0, 0.0))


def _road(size: int) -> Spline:
    extent = (size - 1) * SPACING
    z = extent / 2
    xs = np.linspace(extent * 0.2, extent * 0.8, 14)
    pts = np.array([(x, np.nan, z + (60.0 if k % 2 else -60.0)) for k, x in enumerate(xs)])
    return Spline(pts, WIDTH, FALLOFF, "road", max_grade=100.0, paint="road")


def _drag(t: Terrain, spline: Spline, index: int) -> None:
    """A raise/lower drag along the stretch a move of point `index` reshapes (its curve reaches two
    points either side), with a brush as wide as the road's reach, a stamp every half radius."""
    radius = WIDTH / 2 + FALLOFF
    x, z, *_rest, segment = centreline(spline, radius / 2)
    near = (segment >= index - 2) & (segment <= index + 1)
    stroke = TerrainStroke(t)
    brush = Brush(radius=radius, strength=0.5)
    for px, pz in zip(x[near], z[near], strict=True):
        stroke.apply(raise_lower(t, brush, float(px), float(pz)))
    stroke.finish()


def move_vs_drag_ratio(quick: bool) -> float:
    """Moving one point of a 14-point road on an 8,193² paged world (4,097² quick) over a brush
    drag along the same stretch."""
    size = 4097 if quick else 8193
    t = _world(size)
    scene = Scene(terrain=t)
    spline = _road(size)
    apply_spline(scene, "road", spline)
    index = 7
    x, _y, z = spline.points[index]
    offsets = iter([(15.0, -10.0), (0.0, 0.0)] * 64)  # out and back: every move a real change

    def move() -> None:
        dx, dz = next(offsets)
        move_point(scene, "road", index, x + dx, z + dz)

    move_time = drag_time = float("inf")
    for _ in range(3 if quick else 5):  # alternate: both see the same machine load
        move_time = min(move_time, best_time(move, 2))
        drag_time = min(drag_time, best_time(lambda: _drag(t, spline, index), 1))
    return move_time / drag_time


CASES = [
    BenchCase("splines.move_point_vs_brush_drag", 1.5, move_vs_drag_ratio,
              description="moving one road point on an 8,193² paged world recomputes in at most 1.5x "
                          "a brush drag along the same stretch"),
]
