"""Erosion kernels, compiled by numba on first use (`model.trn.jit`), in portable arithmetic only:
+, -, *, / and sqrt (each correctly rounded by IEEE 754), no fast-math (so no fused or reordered
operations) and every sum in a fixed order, so every CPU computes the same bits.

Thermal: each cell sheds half its largest excess over the talus slope to the lower neighbours
(8 of them, the diagonals at their true distance) in proportion to their excess, all cells from
the same heights (a Jacobi step): a cell's result after n steps depends only on the cells within
2n of it, so a window with that margin gives the whole grid's bits.

Hydraulic: droplets (after Hans Theobald Beyer's "Implementation of a method for hydraulic erosion")
roll down the bilinear surface with inertia, erode where they can carry more than they hold
(spread over a disc), deposit where they slow or climb, evaporate, and drop what they still carry
where they stop, so the volume is kept. Droplet positions come from a hash of (seed, tile, index).
"""

from __future__ import annotations

import numpy as np

from model.trn.jit import compile_kernels, kernel

_KERNELS = ("_thermal_step", "thermal_run", "_hash", "_height", "_roll", "droplets")


@kernel()
def _thermal_step(h, talus, amount, excess_sum, mask, out):
    """One Jacobi step of thermal erosion from `h` into `out`; `talus[k]` is the height drop
    allowed to neighbour k (the talus slope times its distance); `mask` scales what a cell sheds."""
    rows, cols = h.shape
    di = (-1, -1, -1, 0, 0, 1, 1, 1)
    dj = (-1, 0, 1, -1, 1, -1, 0, 1)
    for i in range(rows):
        for j in range(cols):
            hi = h[i, j]
            most = 0.0
            total = 0.0
            for k in range(8):
                a, b = i + di[k], j + dj[k]
                if a < 0 or a >= rows or b < 0 or b >= cols:
                    continue
                e = hi - h[a, b] - talus[k]
                if e > 0.0:
                    total += e
                    if e > most:
                        most = e
            amount[i, j] = 0.5 * most * mask[i, j]
            excess_sum[i, j] = total
    for i in range(rows):
        for j in range(cols):
            hi = h[i, j]
            gain = 0.0
            for k in range(8):
                a, b = i + di[k], j + dj[k]
                if a < 0 or a >= rows or b < 0 or b >= cols:
                    continue
                # what neighbour (a, b) sends here: its drop towards us beyond the talus
                e = h[a, b] - hi - talus[7 - k]
                if e > 0.0 and amount[a, b] > 0.0:
                    gain += amount[a, b] * (e / excess_sum[a, b])
            out[i, j] = hi - amount[i, j] + gain


@kernel()
def thermal_run(h, talus, mask, iterations):
    """`iterations` thermal steps of the float64 grid `h` (changed in place)."""
    amount = np.empty_like(h)
    excess_sum = np.empty_like(h)
    other = np.empty_like(h)
    for _ in range(iterations):
        _thermal_step(h, talus, amount, excess_sum, mask, other)
        h[:, :] = other
    return h


@kernel(inline=True)
def _hash(seed, a, b, c):
    """A uint64 from four integers (splitmix64 rounds): the same on every machine."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
    for v in (a, b, c):
        x ^= np.uint64(v) + np.uint64(0x9E3779B97F4A7C15) + (x << np.uint64(6)) + (x >> np.uint64(2))
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    return x


@kernel(inline=True)
def _height(h, x, y, cols):
    """The height of the bilinear surface at (x, y) of the flat row-major grid `h`."""
    j = int(x)
    i = int(y)
    u = x - j
    v = y - i
    k = np.uint64(i * cols + j)  # unsigned: no negative-index wraparound in the compiled code
    a = h[k]
    b = h[k + np.uint64(1)]
    c = h[k + np.uint64(cols)]
    d = h[k + np.uint64(cols + 1)]
    return a * (1.0 - u) * (1.0 - v) + b * u * (1.0 - v) + c * (1.0 - u) * v + d * u * v


@kernel(inline=True)
def _roll(h, seed, tile_i, tile_j, r0, r1, c0, c1, count, params, brush_di, brush_dj, brush_w,
          flow, deposit, wear, record):
    """`droplets`, with `record` a constant where it is inlined: one specialisation for each."""
    inertia, capacity_k, min_capacity = params[0], params[1], params[2]
    deposit_k, erode_k, evaporate = params[3], params[4], params[5]
    gravity, lifetime = params[6], int(params[7])
    rows, cols = h.shape
    hf = h.reshape(rows * cols)  # flat views (the grids are contiguous): one index per sample
    ff = flow.reshape(flow.size)
    df = deposit.reshape(deposit.size)
    wf = wear.reshape(wear.size)
    reach = 0
    size = brush_w.size
    for k in range(size):
        reach = max(reach, abs(brush_di[k]), abs(brush_dj[k]))
    # the brush's samples from its bounding square's first corner: never negative
    offsets = np.empty(size, np.uint64)
    for k in range(size):
        offsets[k] = np.uint64((brush_di[k] + reach) * cols + brush_dj[k] + reach)
    # a droplet that stops clear of the edges settles over the whole brush: its weights summed in
    # the settling's order, and each one's share of that sum, once (the same bits as per droplet)
    whole = 0.0
    for k in range(size):
        whole += brush_w[k]
    shares = np.empty(size)
    for k in range(size):
        shares[k] = brush_w[k] / whole
    right, below, across = np.uint64(1), np.uint64(cols), np.uint64(cols + 1)
    scale = 1.0 / 9007199254740992.0  # 2**-53
    steps = 0
    for n in range(count):
        bits_x = _hash(seed, tile_i, tile_j, 2 * n)
        bits_y = _hash(seed, tile_i, tile_j, 2 * n + 1)
        x = c0 + float(bits_x >> np.uint64(11)) * scale * (c1 - c0)
        y = r0 + float(bits_y >> np.uint64(11)) * scale * (r1 - r0)
        if x > cols - 1.000001:
            x = cols - 1.000001
        if y > rows - 1.000001:
            y = rows - 1.000001
        dx = 0.0
        dy = 0.0
        speed = params[8]
        water = params[9]
        sediment = 0.0
        for _ in range(lifetime):
            j = int(x)
            i = int(y)
            u = x - j
            v = y - i
            at = np.uint64(i * cols + j)
            a = hf[at]
            b = hf[at + right]
            c = hf[at + below]
            d = hf[at + across]
            gx = (b - a) * (1.0 - v) + (d - c) * v
            gy = (c - a) * (1.0 - u) + (d - b) * u
            dx = dx * inertia - gx * (1.0 - inertia)
            dy = dy * inertia - gy * (1.0 - inertia)
            length = np.sqrt(dx * dx + dy * dy)
            if length == 0.0:
                break
            dx /= length
            dy /= length
            steps += 1
            if record:
                ff[at] += 1.0
            nx = x + dx
            ny = y + dy
            if nx < 0.0 or ny < 0.0 or nx >= cols - 1 or ny >= rows - 1:
                break
            height = a * (1.0 - u) * (1.0 - v) + b * u * (1.0 - v) + c * (1.0 - u) * v + d * u * v
            dh = _height(hf, nx, ny, cols) - height
            capacity = -dh * speed * water * capacity_k
            if capacity < min_capacity:
                capacity = min_capacity
            if sediment > capacity or dh > 0.0:
                if dh > 0.0:
                    drop = dh if dh < sediment else sediment
                else:
                    drop = (sediment - capacity) * deposit_k
                sediment -= drop
                hf[at] += drop * (1.0 - u) * (1.0 - v)
                hf[at + right] += drop * u * (1.0 - v)
                hf[at + below] += drop * (1.0 - u) * v
                hf[at + across] += drop * u * v
                if record:
                    df[at] += drop
            else:
                take = (capacity - sediment) * erode_k
                if take > -dh:
                    take = -dh
                if i >= reach and j >= reach and i + reach < rows and j + reach < cols:
                    corner = np.uint64((i - reach) * cols + j - reach)
                    for k in range(size):
                        part = take * brush_w[k]
                        hf[corner + offsets[k]] -= part
                        sediment += part
                        if record:
                            wf[corner + offsets[k]] += part
                else:
                    for k in range(size):
                        a = i + brush_di[k]
                        b = j + brush_dj[k]
                        if a < 0 or a >= rows or b < 0 or b >= cols:
                            continue
                        part = take * brush_w[k]
                        h[a, b] -= part
                        sediment += part
                        if record:
                            wear[a, b] += part
            s2 = speed * speed - dh * gravity
            speed = np.sqrt(s2 if s2 > 0.0 else 0.0)  # a select, not a branch
            water *= 1.0 - evaporate
            x = nx
            y = ny
        # what it still carries settles over the disc where it stopped: the volume is kept
        j = int(x)
        i = int(y)
        if whole > 0.0 and i >= reach and j >= reach and i + reach < rows and j + reach < cols:
            corner = np.uint64((i - reach) * cols + j - reach)
            for k in range(size):
                part = sediment * shares[k]
                hf[corner + offsets[k]] += part
                if record:
                    df[corner + offsets[k]] += part
            continue
        kept = 0.0
        for k in range(size):
            a = i + brush_di[k]
            b = j + brush_dj[k]
            if a >= 0 and a < rows and b >= 0 and b < cols:
                kept += brush_w[k]
        if kept > 0.0:
            for k in range(size):
                a = i + brush_di[k]
                b = j + brush_dj[k]
                if a >= 0 and a < rows and b >= 0 and b < cols:
                    part = sediment * (brush_w[k] / kept)
                    h[a, b] += part
                    if record:
                        deposit[a, b] += part
    return steps


@kernel()
def droplets(h, seed, tile_i, tile_j, r0, r1, c0, c1, count, params, brush_di, brush_dj, brush_w,
             flow, deposit, wear):
    """Roll `count` droplets that start in rows r0..r1, columns c0..c1 of the float64 grid `h`
    (C-contiguous, changed in place; a droplet stops at its edge). `params`: inertia, capacity,
    minimum capacity, deposition, erosion, evaporation, gravity, lifetime, initial speed, initial
    water, and whether to record. `flow`, `deposit` and `wear` (contiguous, `h`'s shape, where
    recorded) gather each cell's visits, deposited and eroded metres."""
    if params[10] != 0.0:
        return _roll(h, seed, tile_i, tile_j, r0, r1, c0, c1, count, params, brush_di, brush_dj,
                     brush_w, flow, deposit, wear, True)
    return _roll(h, seed, tile_i, tile_j, r0, r1, c0, c1, count, params, brush_di, brush_dj, brush_w,
                 flow, deposit, wear, False)


def ready() -> None:
    """Compile (or load from numba's cache) every kernel of this module."""
    compile_kernels(globals(), _KERNELS)


def brush(radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offsets and weights (summing to 1) of the disc an erosion step wears: weight falls
    linearly from the centre to `radius` cells."""
    r = max(1, int(radius))
    di, dj = np.mgrid[-r:r + 1, -r:r + 1]
    distance = np.sqrt((di * di + dj * dj).astype(np.float64))
    keep = distance < r
    w = (r - distance[keep])
    w = w / w.sum()
    return di[keep].astype(np.int64), dj[keep].astype(np.int64), w
