"""Erosion and edit layers: a thermal step costs about one numpy stencil pass, compiled droplets
against the same droplets hand-written for CPython, and a brush stroke costs about the same over
eight edit layers as over one."""

from __future__ import annotations

import math
import sys
import time
import types
from collections.abc import Callable

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


_MASK = 0xFFFFFFFFFFFFFFFF  # the kernel's uint64 arithmetic, on Python's unbounded ints
_GOLDEN = 0x9E3779B97F4A7C15


def _python_hash(seed: int, a: int, b: int, c: int) -> int:
    """`kernels._hash` on Python ints."""
    x = (seed * _GOLDEN) & _MASK
    for v in (a, b, c):
        x ^= (v + _GOLDEN + (x << 6) + (x >> 2)) & _MASK
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
        x ^= x >> 31
    return x


def python_droplets(h: list[float], rows: int, cols: int, seed: int, tile_i: int, tile_j: int, r0: int,
                    r1: int, c0: int, c1: int, count: int, params: list[float],
                    brush: list[tuple[int, int, float]]) -> int:
    """The yardstick: `kernels.droplets` (without recording) hand-written for CPython, as fast as it
    goes there: the grid a flat row-major list of floats (changed in place), plain floats and ints,
    locals only, the brush's flat offsets precomputed, the same operations in the same order (so
    the same bits). `brush`: (row offset, column offset, weight). Returns the steps rolled."""
    sqrt = math.sqrt
    inertia, capacity_k, min_capacity = params[0], params[1], params[2]
    deposit_k, erode_k, evaporate = params[3], params[4], params[5]
    gravity, lifetime = params[6], int(params[7])
    keep_inertia = 1.0 - inertia
    keep_water = 1.0 - evaporate
    reach = max(max(abs(a), abs(b)) for a, b, _ in brush)
    flat = [(a * cols + b, w) for a, b, w in brush]
    row_end, col_end = rows - reach, cols - reach
    across = cols + 1
    last_x, last_y = cols - 1, rows - 1
    scale = 1.0 / 9007199254740992.0  # 2**-53
    span_x, span_y = c1 - c0, r1 - r0
    steps = 0
    for n in range(count):
        x = c0 + float(_python_hash(seed, tile_i, tile_j, 2 * n) >> 11) * scale * span_x
        y = r0 + float(_python_hash(seed, tile_i, tile_j, 2 * n + 1) >> 11) * scale * span_y
        if x > cols - 1.000001:
            x = cols - 1.000001
        if y > rows - 1.000001:
            y = rows - 1.000001
        dx = dy = 0.0
        speed = params[8]
        water = params[9]
        sediment = 0.0
        for _ in range(lifetime):
            j = int(x)
            i = int(y)
            u = x - j
            v = y - i
            k = i * cols + j
            a = h[k]
            b = h[k + 1]
            c = h[k + cols]
            d = h[k + across]
            u1 = 1.0 - u
            v1 = 1.0 - v
            dx = dx * inertia - ((b - a) * v1 + (d - c) * v) * keep_inertia
            dy = dy * inertia - ((c - a) * u1 + (d - b) * u) * keep_inertia
            length = sqrt(dx * dx + dy * dy)
            if length == 0.0:
                break
            dx /= length
            dy /= length
            steps += 1
            nx = x + dx
            ny = y + dy
            if nx < 0.0 or ny < 0.0 or nx >= last_x or ny >= last_y:
                break
            height = a * u1 * v1 + b * u * v1 + c * u1 * v + d * u * v
            jn = int(nx)
            in_ = int(ny)
            un = nx - jn
            vn = ny - in_
            kn = in_ * cols + jn
            un1 = 1.0 - un
            vn1 = 1.0 - vn
            dh = (h[kn] * un1 * vn1 + h[kn + 1] * un * vn1 + h[kn + cols] * un1 * vn
                  + h[kn + across] * un * vn) - height
            capacity = -dh * speed * water * capacity_k
            if capacity < min_capacity:
                capacity = min_capacity
            if dh > 0.0 or sediment > capacity:
                if dh > 0.0:
                    drop = dh if dh < sediment else sediment
                else:
                    drop = (sediment - capacity) * deposit_k
                sediment -= drop
                h[k] += drop * u1 * v1
                h[k + 1] += drop * u * v1
                h[k + cols] += drop * u1 * v
                h[k + across] += drop * u * v
            else:
                take = (capacity - sediment) * erode_k
                if take > -dh:
                    take = -dh
                if reach <= i < row_end and reach <= j < col_end:
                    for o, w in flat:  # the fastest of the loops tried
                        part = take * w
                        h[k + o] -= part
                        sediment += part
                else:
                    for a, b, w in brush:
                        a += i
                        b += j
                        if 0 <= a < rows and 0 <= b < cols:
                            part = take * w
                            h[a * cols + b] -= part
                            sediment += part
            s2 = speed * speed - dh * gravity
            speed = sqrt(s2) if s2 > 0.0 else 0.0
            water *= keep_water
            x = nx
            y = ny
        j = int(x)
        i = int(y)
        kept = 0.0
        for a, b, w in brush:
            if 0 <= a + i < rows and 0 <= b + j < cols:
                kept += w
        if kept > 0.0:
            for a, b, w in brush:
                a += i
                b += j
                if 0 <= a < rows and 0 <= b < cols:
                    h[a * cols + b] += sediment * (w / kept)
    return steps


def _interpreted_droplets():
    """`kernels.droplets` run by the interpreter as it stands (numpy arrays and scalars)."""
    names = dict(vars(kernels))
    for name in ("_hash", "_height", "_roll"):
        names[name] = getattr(kernels, name).py_func
    return types.FunctionType(kernels.droplets.py_func.__code__, names)


def droplet_ratio(quick: bool) -> float:
    """Droplet steps per CPU second of the compiled kernel over `python_droplets`'s, on one core
    (thread CPU time, best of several runs, alternated so both see the same machine load).

    The kernel is bound by latency, not work: each step's position waits on the heights at the
    last one, a division and a square root (with no erosion or deposition at all it rolls only
    about 1.6 times its steps)."""
    p = Hydraulic()
    h = demo_heights(size=257, spacing=2.0).astype(np.float64) / (HEIGHT_UNIT * 2.0)
    di, dj, w = kernels.brush(p.radius)
    values = np.array([p.inertia, p.capacity, 0.01, p.deposition, p.erosion, p.evaporation, p.gravity,
                       p.lifetime, 1.0, 1.0, 0.0])
    kernels.ready()
    unused = np.zeros((1, 1))
    cells, params = h.ravel().tolist(), values.tolist()
    brush = list(zip(di.tolist(), dj.tolist(), w.tolist(), strict=True))
    many, few = (5_000, 150) if quick else (40_000, 1_000)

    def compiled() -> int:
        return kernels.droplets(h.copy(), 1, 0, 0, 0, 256, 0, 256, many, values, di, dj, w,
                                unused, unused, unused)

    def plain() -> int:
        return python_droplets(cells.copy(), 257, 257, 1, 0, 0, 0, 256, 0, 256, few, params, brush)

    compiled()  # compiled (or loaded) before timing
    fast = slow = 0.0
    for _ in range(3 if quick else 7):
        fast = max(fast, _steps_per_second(compiled))
        slow = max(slow, _steps_per_second(plain))
    interpreted = _interpreted_droplets()
    old = 0.0
    with np.errstate(over="ignore"):  # the hash's wrapping uint64 products
        for n in (3, 20 if quick else 60):  # the first call warms numpy's scalar paths up
            old = _steps_per_second(lambda n=n: interpreted(h.copy(), 1, 0, 0, 0, 256, 0, 256, n, values,
                                                            di, dj, w, unused, unused, unused))
    print(f"droplets: compiled {fast / 1e6:.2f} M steps/s, hand-written Python {slow / 1e3:.0f} k steps/s, "
          f"the kernel's code interpreted {old / 1e3:.0f} k steps/s ({fast / old:.0f}x)", file=sys.stderr)
    return fast / slow


def _steps_per_second(run: Callable[[], int]) -> float:
    """Steps over this thread's CPU seconds: what one core does, whatever else the machine runs."""
    t0 = time.thread_time()
    steps = run()
    return steps / max(time.thread_time() - t0, 1e-9)


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
              pending="64-76x measured on a 2-core Zen 4 against a droplet loop hand-written for CPython "
                      "(lists of floats, the kernel's exact bits); without any writes the kernel reaches "
                      "about 100-113x. Rolling 2-8 droplets at once (exactly: a droplet steps only clear "
                      "of every earlier one's reach, same bytes), branch-free or not, gave 15-24 M "
                      "steps/s against the kernel's 22: 200x needs the steps vectorised across droplets",
              description="compiled droplet steps per second per core over a plain Python loop's"),
    BenchCase("erosion.stroke_8_edit_layers_vs_1", 1.2, layers_stroke_ratio,
              description="a sculpt drag over 8 edit layers costs about the same as over 1"),
]
