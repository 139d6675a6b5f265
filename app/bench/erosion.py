"""Erosion and edit layers: a thermal step costs about one numpy stencil pass, compiled droplets
run hundreds of times a plain Python loop's steps, and a brush stroke costs about the same over
eight edit layers as over one."""

from __future__ import annotations

import types

import numpy as np

from app.bench import BenchCase, best_time
from model.brush import Brush
from model.demo import demo_heights
from model.edit_layers import grid_from, stack_of
from model.erosion import kernels
from model.erosion.run import HEIGHT_UNIT, Hydraulic, talus_drops
from model.sculpt import TerrainStroke, flatten, noise, raise_lower, smooth
from model.terrain import Terrain


def _stencil_pass(h: np.ndarray) -> np.ndarray:
    """One numpy 8-neighbour stencil pass: each sample's largest drop to a neighbour (float64)."""
    p = np.pad(h, 1, mode="edge")
    rows, cols = h.shape
    most = np.zeros_like(h)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di or dj:
                np.maximum(most, h - p[1 + di:1 + di + rows, 1 + dj:1 + dj + cols], out=most)
    return most


def thermal_ratio(quick: bool) -> float:
    """One thermal iteration on 2,049² over one numpy 8-neighbour stencil pass on the same grid."""
    size = 1025 if quick else 2049
    h = demo_heights(size=size, spacing=1.0).astype(np.float64)
    drops, mask = talus_drops(35.0, 1.0), np.ones_like(h)
    kernels.ready()
    kernels.thermal_run(h.copy(), drops, mask, 1)  # compiled (or loaded) before timing
    numba_time = best_time(lambda: kernels.thermal_run(h.copy(), drops, mask, 1), 5)
    copy_time = best_time(lambda: h.copy(), 5)  # the kernel works in place: the copy is not its cost
    numpy_time = best_time(lambda: _stencil_pass(h), 5)
    return max(numba_time - copy_time, 1e-9) / numpy_time


def _interpreted_droplets():
    """`kernels.droplets` as plain Python: the kernel's own code, run by the interpreter."""
    names = dict(vars(kernels))
    names["_hash"], names["_bilinear"] = kernels._hash.py_func, kernels._bilinear.py_func
    return types.FunctionType(kernels.droplets.py_func.__code__, names)


def droplet_ratio(quick: bool) -> float:
    """Droplet steps per second (one core) of the compiled kernel over the same loop run as plain
    Python. (A loop hand-written for CPython, on lists of floats, runs about 3x faster than that.)"""
    p = Hydraulic()
    h = demo_heights(size=257, spacing=2.0).astype(np.float64) / (HEIGHT_UNIT * 2.0)
    di, dj, w = kernels.brush(p.radius)
    values = np.array([p.inertia, p.capacity, 0.01, p.deposition, p.erosion, p.evaporation, p.gravity,
                       p.lifetime, 1.0, 1.0, 0.0])
    kernels.ready()
    count = 5_000 if quick else 40_000
    unused = np.zeros((1, 1))
    steps = []

    def compiled() -> None:
        steps.append(kernels.droplets(h.copy(), 1, 0, 0, 0, 256, 0, 256, count, values, di, dj, w,
                                      unused, unused, unused))

    compiled()
    fast = steps[-1] / best_time(compiled, 3)
    interpreted = _interpreted_droplets()

    def slow() -> None:
        with np.errstate(over="ignore"):  # the hash's wrapping uint64 products
            steps.append(interpreted(h.copy(), 1, 0, 0, 0, 256, 0, 256, 60 if quick else 300, values,
                                     di, dj, w, unused, unused, unused))

    slow_time = best_time(slow, 1)
    return fast / (steps[-1] / slow_time)


def _layered(size: int, layers: int) -> Terrain:
    heights = np.zeros((size, size), np.float32)
    heights[:: max(1, size // 64)] = 1.0
    t = Terrain(heights, spacing=1.0)
    stack = stack_of(t, create=True)
    everywhere = (slice(0, size), slice(0, size))
    rng = np.random.default_rng(2)
    for k in range(layers):
        stack.add_layer(f"layer {k}", "sculpt")
        stack.replace_deltas(f"layer {k}", grid_from(rng.uniform(-1, 1, (size, size)).astype(np.float32),
                                                     *everywhere, (size, size)))
    stack.selected = f"layer {layers - 1}"
    return t


def _stroke(t: Terrain, brush: Brush, stamps: int = 24) -> None:
    c = t.columns / 2
    points = [(c + 3.0 * i, c + 2.0 * i) for i in range(stamps)]
    target = float(t.height_at(*points[0]))
    stroke = TerrainStroke(t)
    for x, z in points:
        stroke.apply(raise_lower(t, brush, x, z))
        stroke.apply(smooth(t, brush, x, z))
        stroke.apply(flatten(t, brush, x, z, target))
        stroke.apply(noise(t, brush, x, z, seed=1, amount=0.5))
    stroke.finish()


def layers_stroke_ratio(quick: bool) -> float:
    """A sculpt drag into the top edit layer with 8 layers (each with deltas under the whole drag)
    over the same drag with 1."""
    size = 512 if quick else 1024
    brush = Brush(radius=24.0, strength=0.5)
    one, eight = _layered(size, 1), _layered(size, 8)
    one_time = eight_time = float("inf")
    for _ in range(3 if quick else 7):  # alternate: both see the same machine load
        one_time = min(one_time, best_time(lambda: _stroke(one, brush), 1))
        eight_time = min(eight_time, best_time(lambda: _stroke(eight, brush), 1))
    return eight_time / one_time


CASES = [
    BenchCase("erosion.thermal_step_vs_numpy_stencil", 2.0, thermal_ratio,
              description="one thermal iteration on 2,049² costs at most two numpy 8-neighbour passes"),
    BenchCase("erosion.droplet_steps_vs_python", 200.0, droplet_ratio, at_least=True,
              description="compiled droplet steps per second per core over a plain Python loop's"),
    BenchCase("erosion.stroke_8_edit_layers_vs_1", 1.2, layers_stroke_ratio,
              description="a sculpt drag over 8 edit layers costs about the same as over 1"),
]
