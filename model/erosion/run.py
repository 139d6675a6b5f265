"""Erosion over a terrain's area, tile by tile, in this process or on Dask, with the same bytes
however many workers run it.

Thermal tiles are exact: a tile is computed from its window plus a margin of twice the steps
(`kernels`), so any tiling gives the whole area's bits. Hydraulic tiles are the algorithm's own
unit: each 256-sample tile rolls its droplets (seeded by the seed and the tile's position) over
its window of the heights beneath, widened by how far a droplet can roll; the changes of the
tiles, which overlap at their margins, are summed in 2**-32 m fixed point (integers: the sum is the
same in any order), so workers and completion order never show.

The result is float32 deltas over the heights beneath (`model.edit_layers`): an edit layer's.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import BinaryIO

import numpy as np

from model import portable_math as pmath
from model.batch import Task, run_tasks
from model.edit_layers import delta_grid
from model.erosion import kernels
from model.formats import tiles as tiling
from model.paged import PagedGrid

THERMAL_TILE = 512  # samples a side of a thermal task's own area (any size gives the same bits)
HYDRAULIC_TILE = 256  # samples a side of a hydraulic tile: part of the algorithm, never changed
FIXED = float(2 ** 32)  # fixed-point units per metre of the hydraulic sums
# Droplets work in heights of this many sample spacings (a unit of 128 m on a 2 m grid), so the
# settings mean the same at every resolution, and the classic settings (made for heights 0..1
# over a few hundred samples) hold for terrains a few hundred metres high.
HEIGHT_UNIT = 64.0

Reader = Callable[[slice, slice], np.ndarray]  # (rows, cols) → float32 heights beneath


@dataclass(frozen=True)
class Thermal:
    """Material slides until no slope is steeper than `talus` degrees."""

    iterations: int = 50
    talus: float = 35.0

    def check(self) -> None:
        if not 1 <= self.iterations <= 10_000:
            raise ValueError(f"thermal iterations must be 1 to 10,000, got {self.iterations}")
        if not 1.0 <= self.talus <= 89.0:
            raise ValueError(f"the talus angle must be 1 to 89 degrees, got {self.talus:g}")


@dataclass(frozen=True)
class Hydraulic:
    """Rain droplets carve and deposit: `rain` droplets per sample per iteration."""

    iterations: int = 1
    seed: int = 0
    rain: float = 1.0
    capacity: float = 4.0  # sediment a droplet carries per unit of drop, speed and water
    deposition: float = 0.3  # share of the excess dropped per step
    erosion: float = 0.3  # share of the spare capacity taken per step
    evaporation: float = 0.01  # share of the water lost per step
    inertia: float = 0.05
    lifetime: int = 30  # steps of one sample's length
    radius: int = 3  # samples: the disc an erosion step wears
    gravity: float = 4.0

    def check(self) -> None:
        if not 1 <= self.iterations <= 1000:
            raise ValueError(f"hydraulic iterations must be 1 to 1,000, got {self.iterations}")
        if not 0.0 < self.rain <= 64.0:
            raise ValueError(f"rain must be above 0 and at most 64 droplets per sample, got {self.rain:g}")
        for name in ("deposition", "erosion", "evaporation", "inertia"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be from 0 to 1, got {getattr(self, name):g}")
        if not (0.0 < self.capacity <= 1000.0 and 0.0 < self.gravity <= 100.0):
            raise ValueError("capacity and gravity must be positive")
        if not (1 <= self.lifetime <= 1000 and 1 <= self.radius <= 16):
            raise ValueError("lifetime must be 1 to 1,000 steps and the radius 1 to 16 samples")
        if not 0 <= self.seed < 2 ** 63:
            raise ValueError(f"the seed must be 0 to 2**63 - 1, got {self.seed}")

    @property
    def margin(self) -> int:
        """How far beyond its tile a droplet's work can reach."""
        return self.lifetime + self.radius + 2


@dataclass
class Eroded:
    """The deltas over the heights beneath, and per-sample outputs of the area (hydraulic:
    'flow' visits, 'deposition' and 'wear' in metres), each an `OutputPlane`."""

    deltas: PagedGrid
    area: tuple[slice, slice]
    outputs: dict[str, OutputPlane]


def _tiles(area: tuple[slice, slice], size: int) -> list[tuple[int, int, slice, slice]]:
    rows, cols = area
    out = []
    for a, r in enumerate(range(rows.start, rows.stop, size)):
        for b, c in enumerate(range(cols.start, cols.stop, size)):
            out.append((a, b, slice(r, min(rows.stop, r + size)), slice(c, min(cols.stop, c + size))))
    return out


def _widen(rs: slice, cs: slice, margin: int, area: tuple[slice, slice]) -> tuple[slice, slice]:
    return (slice(max(area[0].start, rs.start - margin), min(area[0].stop, rs.stop + margin)),
            slice(max(area[1].start, cs.start - margin), min(area[1].stop, cs.stop + margin)))


def talus_drops(talus_degrees: float, spacing: float) -> np.ndarray:
    """The height drop allowed to each of the 8 neighbours (diagonals at √2 the spacing)."""
    r = pmath.radians(np.float64(talus_degrees))
    tan = float(pmath.sin(r) / pmath.cos(r))
    d = math.sqrt(2.0) * spacing
    return np.array([d, spacing, d, spacing, spacing, d, spacing, d], np.float64) * tan


# ---- tasks: module-level and pure, so Dask workers run them --------------------------------
def thermal_task(params: dict, window: np.ndarray, mask: np.ndarray | None, core: tuple) -> dict:
    """One thermal tile: `window` (float32 heights beneath) eroded, cut to its core block."""
    kernels.ready()
    h = window.astype(np.float64)
    m = np.ones_like(h) if mask is None else mask.astype(np.float64) / 255.0
    kernels.thermal_run(h, params["drops"], m, params["iterations"])
    a, b, c, d = core
    return {"eroded": h[a:b, c:d], "beneath": window[a:b, c:d]}


def hydraulic_task(params: dict, window: np.ndarray, tile: tuple, core: tuple) -> dict:
    """One hydraulic tile's droplets over its window: the change of the window in fixed point."""
    kernels.ready()
    unit = params["unit"]  # metres per height unit of the droplets' arithmetic
    h = window.astype(np.float64) / unit
    start = h.copy()
    flow, deposit, wear = (np.zeros_like(h) for _ in range(3))
    r0, r1, c0, c1 = core
    count = max(1, int(round(params["rain"] * (r1 - r0) * (c1 - c0)))) * params["iterations"]
    kernels.droplets(h, params["seed"], tile[0], tile[1], r0, r1, c0, c1, count, params["values"],
                     params["brush"][0], params["brush"][1], params["brush"][2], flow, deposit, wear)
    change = np.rint((h - start) * (unit * FIXED)).astype(np.int64)
    return {"change": change, "flow": flow.astype(np.int64),
            "deposition": np.rint(deposit * (unit * FIXED)).astype(np.int64),
            "wear": np.rint(wear * (unit * FIXED)).astype(np.int64)}


# ---- runs ------------------------------------------------------------------------------------
def erode(beneath: Reader, shape: tuple[int, int], spacing: float, how: Thermal | Hydraulic,
          area: tuple[slice, slice] | None = None, mask: Reader | None = None,
          workers: int | None = 1, scheduler: str | None = None,
          progress: Callable[[int, int], bool] | None = None, outputs: bool = True) -> Eroded:
    """Erode the heights `beneath(rows, cols)` gives over `area` (the whole grid by default);
    `mask(rows, cols)` gives uint8 weights that scale the erosion (255: full). Without `outputs`,
    hydraulic erosion gathers no flow, deposition or wear (a little faster)."""
    how.check()
    area = area or (slice(0, shape[0]), slice(0, shape[1]))
    if area[0].stop - area[0].start < 2 or area[1].stop - area[1].start < 2:
        raise ValueError("the area to erode must be at least 2 x 2 samples")
    if isinstance(how, Thermal):
        return _thermal(beneath, shape, spacing, how, area, mask, workers, scheduler, progress)
    return _hydraulic(beneath, shape, spacing, how, area, mask, workers, scheduler, progress, outputs)


def _thermal(beneath, shape, spacing, how: Thermal, area, mask, workers, scheduler, progress) -> Eroded:
    margin = 2 * how.iterations
    params = {"drops": talus_drops(how.talus, spacing), "iterations": how.iterations}
    tiles = _tiles(area, THERMAL_TILE)
    tasks = [Task(f"thermal_{a}_{b}", (rs, cs)) for a, b, rs, cs in tiles]

    def prepare(task: Task) -> tuple:
        rs, cs = task.args
        wr, wc = _widen(rs, cs, margin, area)
        core = (rs.start - wr.start, rs.stop - wr.start, cs.start - wc.start, cs.stop - wc.start)
        return beneath(wr, wc), None if mask is None else mask(wr, wc), core

    # each tile's deltas go straight into the layer's tiles (none made where nothing moved): no array
    # of the whole area, which on a 16 km world would not fit beside the heights
    out = delta_grid(*shape)

    def keep(task: Task, arrays: dict) -> None:
        rs, cs = task.args
        delta = (arrays["eroded"] - arrays["beneath"].astype(np.float64)).astype(np.float32)
        for i, j in tiling.tiles_meeting(rs, cs, out.tile):
            ts, tc = tiling.tile_slices(i, j, *shape, out.tile)
            a = slice(max(rs.start, ts.start), min(rs.stop, ts.stop))
            b = slice(max(cs.start, tc.start), min(cs.stop, tc.stop))
            block = delta[a.start - rs.start:a.stop - rs.start, b.start - cs.start:b.stop - cs.start]
            if out.holds(i, j) or np.any(block != 0):
                out.write(a, b, block, 0)

    run_tasks(thermal_task, tasks, shared=(params,), workers=workers, scheduler=scheduler,
              progress=progress, prepare=prepare, on_result=keep)
    return Eroded(out, area, {})


def _hydraulic(beneath, shape, spacing, how: Hydraulic, area, mask, workers, scheduler, progress,
               outputs: bool) -> Eroded:
    di, dj, w = kernels.brush(how.radius)
    values = np.array([how.inertia, how.capacity, 0.01, how.deposition, how.erosion, how.evaporation,
                       how.gravity, how.lifetime, 1.0, 1.0, 1.0 if outputs else 0.0], np.float64)
    params = {"seed": how.seed, "rain": how.rain, "iterations": how.iterations, "values": values,
              "brush": (di, dj, w), "unit": HEIGHT_UNIT * spacing}
    tiles = _tiles(area, HYDRAULIC_TILE)
    tasks = [Task(f"hydraulic_{a}_{b}", (a, b, rs, cs)) for a, b, rs, cs in tiles]
    deltas = _TiledSums(shape, area, HYDRAULIC_TILE, mask, OUTPUTS if outputs else ())

    def window_of(task: Task) -> tuple[slice, slice]:
        _, _, rs, cs = task.args
        return _widen(rs, cs, how.margin, area)

    for task in tasks:
        deltas.expect(*window_of(task))

    def prepare(task: Task) -> tuple:
        a, b, rs, cs = task.args
        wr, wc = window_of(task)
        core = (rs.start - wr.start, rs.stop - wr.start, cs.start - wc.start, cs.stop - wc.start)
        return beneath(wr, wc), (a, b), core

    def keep(task: Task, arrays: dict) -> None:
        deltas.add(*window_of(task), arrays)

    run_tasks(hydraulic_task, tasks, shared=(params,), workers=workers, scheduler=scheduler,
              progress=progress, prepare=prepare, on_result=keep)
    return Eroded(deltas.grid, area, deltas.outputs)


class _TiledSums:
    """The hydraulic change (and the outputs asked for) summed block by block (the tasks' own tiles)
    as the overlapping windows arrive, each block turned into deltas (and output values) once every
    window that meets it is in, and each of the layer's tiles written once all its blocks are: no
    array of the whole area is held, only the blocks and tiles still waiting (and the outputs' finished
    blocks). The same values and tiles as summing the whole area first."""

    def __init__(self, shape: tuple[int, int], area: tuple[slice, slice], block: int,
                 mask: Reader | None, outputs: tuple[str, ...] = ()) -> None:
        self.shape, self.area, self.block, self.mask = shape, area, block, mask
        self.names = ("change", *outputs)
        self.outputs = {name: OutputPlane(area, block) for name in outputs}
        self.grid = delta_grid(*shape)
        self._pending: dict[tuple[int, int], int] = {}  # block → windows still to come
        self._sums: dict[tuple[int, int], np.ndarray] = {}
        self._waiting: dict[tuple[int, int], int] = {}  # layer tile → blocks still to finish
        self._staged: dict[tuple[int, int], np.ndarray] = {}
        for _, _, rs, cs in _tiles(area, block):
            for key in tiling.tiles_meeting(rs, cs, self.grid.tile):
                self._waiting[key] = self._waiting.get(key, 0) + 1

    def _blocks(self, wr: slice, wc: slice):
        (r0, c0), b = (self.area[0].start, self.area[1].start), self.block
        for a in range((wr.start - r0) // b, (wr.stop - 1 - r0) // b + 1):
            for k in range((wc.start - c0) // b, (wc.stop - 1 - c0) // b + 1):
                rs = slice(r0 + a * b, min(self.area[0].stop, r0 + (a + 1) * b))
                cs = slice(c0 + k * b, min(self.area[1].stop, c0 + (k + 1) * b))
                yield (a, k), rs, cs

    def expect(self, wr: slice, wc: slice) -> None:
        for key, _, _ in self._blocks(wr, wc):
            self._pending[key] = self._pending.get(key, 0) + 1

    def add(self, wr: slice, wc: slice, arrays: dict[str, np.ndarray]) -> None:
        """One window's sums (fixed point: "change", and the outputs by name) added into its blocks."""
        for key, rs, cs in self._blocks(wr, wc):
            total = self._sums.get(key)
            if total is None:
                shape = (len(self.names), rs.stop - rs.start, cs.stop - cs.start)
                total = self._sums[key] = np.zeros(shape, np.int64)
            a = slice(max(rs.start, wr.start), min(rs.stop, wr.stop))  # the window meets the block here
            b = slice(max(cs.start, wc.start), min(cs.stop, wc.stop))
            for k, name in enumerate(self.names):
                total[k, a.start - rs.start:a.stop - rs.start, b.start - cs.start:b.stop - cs.start] += \
                    arrays[name][a.start - wr.start:a.stop - wr.start, b.start - wc.start:b.stop - wc.start]
            self._pending[key] -= 1
            if not self._pending[key]:
                total = self._sums.pop(key)
                for k, name in enumerate(self.names[1:], 1):
                    self.outputs[name].put(key, rs, cs, total[k], 1.0 if name == "flow" else FIXED)
                self._finish(rs, cs, total[0])

    def _finish(self, rs: slice, cs: slice, total: np.ndarray) -> None:
        change = total.astype(np.float64) / FIXED
        if self.mask is not None:
            change *= self.mask(rs, cs).astype(np.float64) / 255.0
        values = change.astype(np.float32)
        for key in tiling.tiles_meeting(rs, cs, self.grid.tile):
            ts, tc = tiling.tile_slices(*key, *self.shape, self.grid.tile)
            staged = self._staged.get(key)
            if staged is None:
                staged = self._staged[key] = np.zeros((ts.stop - ts.start, tc.stop - tc.start), np.float32)
            a = slice(max(rs.start, ts.start), min(rs.stop, ts.stop))
            b = slice(max(cs.start, tc.start), min(cs.stop, tc.stop))
            staged[a.start - ts.start:a.stop - ts.start, b.start - tc.start:b.stop - tc.start] = \
                values[a.start - rs.start:a.stop - rs.start, b.start - cs.start:b.stop - cs.start]
            self._waiting[key] -= 1
            if not self._waiting[key]:
                done = self._staged.pop(key)
                if np.any(done != 0):  # as `grid_from`: a tile only where a value is not zero
                    self.grid.write(ts, tc, done, 0)


def parameters(how: Thermal | Hydraulic) -> dict:
    """The run's settings as an edit layer keeps them."""
    return {"method": "thermal" if isinstance(how, Thermal) else "hydraulic", **asdict(how)}


OUTPUTS = ("flow", "deposition", "wear")
PERCENTILE = 99.0  # an output's value at this percentile of its non-zero samples and above: full weight


class OutputPlane:
    """One hydraulic output over the eroded area, kept block by block as float32 (blocks of zeros not
    at all) as each block's sums are complete: a quarter of the float64 sums of the whole area it was
    gathered in. Past `HELD_BYTES` of them the further blocks go to an unnamed temporary file (gone
    with the plane), so a big area's outputs cost disk, not memory, until they are painted. Paint
    weights come from it block by block (`weights`), scaled by the 99th percentile of its non-zero
    values, found exactly from two histograms of the values' bits built block by block (the same
    value for any order of the blocks, so for any number of workers)."""

    HELD_BYTES = 64 << 20  # per plane: a 4,096² area's blocks stay in memory

    def __init__(self, area: tuple[slice, slice], block: int) -> None:
        self.area, self.block = area, block
        self._blocks: dict[tuple[int, int], np.ndarray | tuple[int, tuple[int, int]]] = {}
        self._held = 0
        self._spill: BinaryIO | None = None
        self._spilled = 0
        self._top: float | None = None

    def put(self, key: tuple[int, int], rs: slice, cs: slice, total: np.ndarray, unit: float) -> None:
        """A finished block's sum (`unit` of it per output unit)."""
        if np.any(total != 0):
            values = total.astype(np.float64)
            if unit != 1.0:
                values /= unit
            block = values.astype(np.float32)
            if self._held + block.nbytes <= self.HELD_BYTES:
                self._blocks[key] = block
                self._held += block.nbytes
            else:
                if self._spill is None:
                    self._spill = tempfile.TemporaryFile(prefix="boscage-erosion-")
                self._spill.seek(self._spilled)
                self._spill.write(memoryview(block).cast("B"))
                self._blocks[key] = (self._spilled, block.shape)
                self._spilled += block.nbytes
        self._top = None

    def _block(self, key: tuple[int, int]) -> np.ndarray | None:
        """A block's values (read back from the temporary file where it went), or None (all zero)."""
        found = self._blocks.get(key)
        if found is None or isinstance(found, np.ndarray):
            return found
        offset, shape = found
        values = np.empty(shape, np.float32)
        self._spill.seek(offset)
        if self._spill.readinto(memoryview(values).cast("B")) != values.nbytes:
            raise OSError("the erosion outputs' temporary file came back short")
        return values

    def _windows(self):
        for a, b, rs, cs in _tiles(self.area, self.block):
            yield (a, b), rs, cs

    def array(self) -> np.ndarray:
        """The whole area as float64 (to inspect a small run; a big one's paint goes by `weights`)."""
        (r0, c0) = (self.area[0].start, self.area[1].start)
        out = np.zeros((self.area[0].stop - r0, self.area[1].stop - c0), np.float64)
        for key, rs, cs in self._windows():
            values = self._block(key)
            if values is not None:
                out[rs.start - r0:rs.stop - r0, cs.start - c0:cs.stop - c0] = values
        return out

    def _bits(self):
        """Each block's positive values as their float32 bit patterns (which order as the values do)."""
        for key in self._blocks:
            values = self._block(key)
            yield values[values > 0].view(np.uint32)

    def _ranked(self, ks: list[int], high: np.ndarray) -> list[float]:
        """The k-th smallest positive values (0-based) for each k of `ks`, exactly: the high 16 bits
        from `high` (their histogram), then the low 16 bits from histograms of those buckets' values,
        built in one pass over the blocks (spilled ones are read back once)."""
        cum = np.cumsum(high)
        buckets = [int(np.searchsorted(cum, k, side="right")) for k in ks]
        lows = {bucket: np.zeros(1 << 16, np.int64) for bucket in buckets}
        for bits in self._bits():
            upper = bits >> 16
            for bucket, low in lows.items():
                low += np.bincount(bits[upper == bucket] & 0xFFFF, minlength=1 << 16)
        values = []
        for k, bucket in zip(ks, buckets, strict=True):
            k -= int(cum[bucket - 1]) if bucket else 0
            bit = (bucket << 16) | int(np.searchsorted(np.cumsum(lows[bucket]), k, side="right"))
            values.append(float(np.array([bit], np.uint32).view(np.float32)[0]))
        return values

    def top(self) -> float:
        """The value given full weight: np.percentile's (linear) 99th of the non-zero values (all
        positive); their largest when that is 0; 0 when there are none."""
        if self._top is None:
            high = np.zeros(1 << 16, np.int64)
            for bits in self._bits():
                high += np.bincount(bits >> 16, minlength=1 << 16)
            n = int(high.sum())
            if n == 0:
                self._top = 0.0
                return 0.0
            q = PERCENTILE / 100.0
            at = (n - 1) * q  # numpy's virtual index for its linear method
            below = min(max(int(math.floor(at)), 0), n - 1)
            a, b = self._ranked([below, min(below + 1, n - 1)], high)
            t, d = at - below, b - a
            top = b - d * (1.0 - t) if t >= 0.5 else a + d * t  # numpy's lerp
            self._top = top if top > 0 else self._ranked([n - 1], high)[0]
        return self._top

    def weights(self):
        """(rows, cols, uint8 weights) per block of the area: the top value and above is 255."""
        top = self.top()
        for key, rs, cs in self._windows():
            values = self._block(key)
            if values is None or top <= 0:
                yield rs, cs, np.zeros((rs.stop - rs.start, cs.stop - cs.start), np.uint8)
                continue
            scaled = np.rint(values.astype(np.float64) / top * 255.0)
            yield rs, cs, np.clip(scaled, 0, 255).astype(np.uint8)
