"""The droplet bench's yardstick, a plain-Python loop, rolls the compiled kernel's droplets: the same
steps and the same heights."""

from __future__ import annotations

import numpy as np
import pytest

from app.bench.erosion import python_droplets
from model.demo import demo_heights
from model.erosion import kernels
from model.erosion.run import HEIGHT_UNIT, Hydraulic


@pytest.mark.parametrize(("size", "radius", "count"), [(48, 3, 120), (33, 6, 80)])
def test_the_plain_python_droplets_roll_as_the_compiled_kernel(size: int, radius: int, count: int) -> None:
    p = Hydraulic(radius=radius)
    # not square, and small beside the brush: droplets wear and stop at the edges too
    h = demo_heights(size=size, spacing=2.0).astype(np.float64)[:, : size - 5] / (HEIGHT_UNIT * 2.0)
    rows, cols = h.shape
    di, dj, w = kernels.brush(p.radius)
    values = np.array([p.inertia, p.capacity, 0.01, p.deposition, p.erosion, p.evaporation, p.gravity,
                       p.lifetime, 1.0, 1.0, 0.0])
    kernels.ready()
    unused = np.zeros((1, 1))
    compiled = h.copy()
    steps = kernels.droplets(compiled, 4, 1, 2, 0, rows, 0, cols, count, values, di, dj, w,
                             unused, unused, unused)
    cells = h.ravel().tolist()
    brush = list(zip(di.tolist(), dj.tolist(), w.tolist(), strict=True))
    plain = python_droplets(cells, rows, cols, 4, 1, 2, 0, rows, 0, cols, count, values.tolist(), brush)
    assert steps > 10 * count and plain == steps
    rolled = np.array(cells).reshape(rows, cols)
    assert np.abs(compiled - h).max() > 1e-3  # the droplets did carve
    assert np.abs(rolled - compiled).max() <= 1e-9
