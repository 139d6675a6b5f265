"""Erosion: thermal brings slopes to the talus angle and keeps the volume; hydraulic keeps the
volume, carves metres where water runs, and gives the same bytes for a seed on any workers."""

from __future__ import annotations

import numpy as np
import pytest

from model.demo import demo_heights
from model.erosion import run as erosion
from model.erosion.run import Hydraulic, Thermal, erode


def slope_degrees(h: np.ndarray, spacing: float) -> np.ndarray:
    """Reference slope of a grid: central differences (plain numpy, as a user would measure)."""
    gz, gx = np.gradient(np.asarray(h, np.float64), spacing)
    return np.degrees(np.arctan(np.hypot(gx, gz)))


def spiky(size: int = 129, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.0, 1.0, (size, size)) ** 8 * 40.0).astype(np.float32)


def result(h: np.ndarray, eroded) -> np.ndarray:
    rows, cols = slice(0, h.shape[0]), slice(0, h.shape[1])
    return (h.astype(np.float64) + eroded.deltas.read(rows, cols, 0)).astype(np.float32)


def reader(h: np.ndarray):
    return lambda rows, cols: h[rows, cols]


def test_thermal_erosion_brings_the_steep_slopes_to_the_talus_angle_and_keeps_the_mean() -> None:
    h = spiky()
    assert np.percentile(slope_degrees(h, 1.0), 99) > 80
    for talus in (30.0, 40.0):
        out = result(h, erode(reader(h), h.shape, 1.0, Thermal(100, talus)))
        p99 = np.percentile(slope_degrees(out, 1.0), 99)
        assert abs(p99 - talus) <= 3.0, (talus, p99)
        assert abs(out.mean(dtype=np.float64) - h.mean(dtype=np.float64)) <= 0.02


def test_thermal_tiles_give_the_whole_grid_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    h = spiky(97, seed=4)
    whole = erode(reader(h), h.shape, 1.5, Thermal(12, 33.0))
    monkeypatch.setattr(erosion, "THERMAL_TILE", 20)
    tiled = erode(reader(h), h.shape, 1.5, Thermal(12, 33.0))
    assert result(h, tiled).tobytes() == result(h, whole).tobytes()


def test_thermal_in_a_region_or_under_a_mask_leaves_the_rest() -> None:
    h = spiky(80, seed=2)
    area = (slice(10, 50), slice(20, 70))
    out = result(h, erode(reader(h), h.shape, 1.0, Thermal(20, 35.0), area=area))
    outside = np.ones(h.shape, bool)
    outside[area] = False
    assert np.array_equal(out[outside], h[outside]) and not np.array_equal(out[area], h[area])
    weights = np.zeros(h.shape, np.uint8)
    weights[:, :40] = 255
    masked = result(h, erode(reader(h), h.shape, 1.0, Thermal(20, 35.0), mask=reader(weights)))
    changed = masked != h
    # material leaves only the masked half (it may come to rest one step beyond it)
    assert changed[:, :40].any() and not changed[:, 42:].any()


def hills() -> np.ndarray:
    return demo_heights(size=257, spacing=4.0)


def test_hydraulic_erosion_keeps_the_volume_and_carves_metres_where_water_runs() -> None:
    h = hills()
    eroded = erode(reader(h), h.shape, 4.0, Hydraulic(seed=5))
    out = result(h, eroded)
    relief = float(h.max() - h.min())
    volume_change = abs(out.sum(dtype=np.float64) - h.sum(dtype=np.float64)) / h.size
    assert volume_change <= 0.005 * relief
    change = np.abs(out.astype(np.float64) - h)
    flow = eroded.outputs["flow"].array()
    wet = flow >= np.percentile(flow, 98)
    assert np.percentile(change[wet], 75) >= 1.0  # metres where water runs
    dry = flow <= np.percentile(flow, 50)
    assert np.median(change[wet]) > 2.0 * np.median(change[dry])
    assert eroded.outputs["wear"].array().sum() > 0 and eroded.outputs["deposition"].array().sum() > 0


def test_hydraulic_bytes_depend_on_the_seed_only() -> None:
    h = hills()[:150, :170]
    a = result(h, erode(reader(h), h.shape, 4.0, Hydraulic(seed=5, iterations=1)))
    b = result(h, erode(reader(h), h.shape, 4.0, Hydraulic(seed=5, iterations=1)))
    c = result(h, erode(reader(h), h.shape, 4.0, Hydraulic(seed=6, iterations=1)))
    assert a.tobytes() == b.tobytes() and a.tobytes() != c.tobytes()


def test_hydraulic_gives_the_same_bytes_on_one_or_two_workers() -> None:
    h = hills()  # 2 x 2 hydraulic tiles: every tile's margin meets the others'
    one = erode(reader(h), h.shape, 4.0, Hydraulic(seed=9, iterations=1), workers=1)
    two = erode(reader(h), h.shape, 4.0, Hydraulic(seed=9, iterations=1), workers=2)
    assert result(h, one).tobytes() == result(h, two).tobytes()
    assert set(one.outputs) == {"flow", "deposition", "wear"}
    for name in one.outputs:
        assert one.outputs[name].array().tobytes() == two.outputs[name].array().tobytes()
        assert one.outputs[name].top() == two.outputs[name].top() > 0


def test_bad_settings_are_refused_before_any_work() -> None:
    h = hills()[:20, :20]
    with pytest.raises(ValueError, match="talus"):
        erode(reader(h), h.shape, 1.0, Thermal(10, 95.0))
    with pytest.raises(ValueError, match="rain"):
        erode(reader(h), h.shape, 1.0, Hydraulic(rain=0.0))


def test_thermal_erosion_holds_no_array_of_the_whole_area() -> None:
    """The deltas go into the layer's tiles as each tile is eroded: the peak is the deltas (the size
    of the area) and a few tiles of work, not an array of the area besides them."""
    import tracemalloc

    size = 3072
    j, i = np.mgrid[0:size, 0:size]
    h = ((i * 7 + j * 13) % 29 * 1.5).astype(np.float32)  # a rough ground: every tile moves
    del i, j
    erode(reader(h[:64, :64]), (64, 64), 1.0, Thermal(2, 30.0))  # the kernels compiled first
    tracemalloc.start()
    try:
        eroded = erode(reader(h), h.shape, 1.0, Thermal(2, 30.0))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(eroded.deltas.held_tiles()) > 1
    # measured 1.28 (the deltas 1.03); with an array of the whole area besides them 2.03
    assert peak < 1.6 * h.nbytes, peak / h.nbytes


def test_hydraulic_summed_block_by_block_gives_the_whole_area_sum(monkeypatch: pytest.MonkeyPatch) -> None:
    """The change summed as the windows arrive, block by block, is the change summed over the whole
    area first (the reference below), bit for bit: in a region, under a mask, across the layer's tiles."""
    from model.edit_layers import grid_from
    from model.formats import tiles

    monkeypatch.setattr(tiles, "TILE", 96)  # the layer's tiles cut across the 256-sample blocks
    h = demo_heights(size=513, spacing=4.0)[:420, :380]
    weights = (np.arange(420 * 380).reshape(420, 380) % 256).astype(np.uint8)
    mask = lambda rows, cols: weights[rows, cols]  # noqa: E731
    how = Hydraulic(seed=3, iterations=1, lifetime=40)
    area = (slice(30, 410), slice(10, 370))
    got = erode(reader(h), h.shape, 4.0, how, area=area, mask=mask, outputs=False)
    # the reference: every window's change summed into one array of the area, then the mask, then tiles
    di, dj, w = erosion.kernels.brush(how.radius)
    values = np.array([how.inertia, how.capacity, 0.01, how.deposition, how.erosion, how.evaporation,
                       how.gravity, how.lifetime, 1.0, 1.0, 0.0], np.float64)
    params = {"seed": how.seed, "rain": how.rain, "iterations": how.iterations, "values": values,
              "brush": (di, dj, w), "unit": erosion.HEIGHT_UNIT * 4.0}
    total = np.zeros((380, 360), np.int64)
    for a, b, rs, cs in erosion._tiles(area, erosion.HYDRAULIC_TILE):
        wr, wc = erosion._widen(rs, cs, how.margin, area)
        core = (rs.start - wr.start, rs.stop - wr.start, cs.start - wc.start, cs.stop - wc.start)
        out = erosion.hydraulic_task(params, h[wr, wc], (a, b), core)
        total[wr.start - 30:wr.stop - 30, wc.start - 10:wc.stop - 10] += out["change"]
    change = total.astype(np.float64) / erosion.FIXED * (weights[area].astype(np.float64) / 255.0)
    want = grid_from(change.astype(np.float32), *area, h.shape)
    everything = (slice(0, 420), slice(0, 380))
    assert got.deltas.read(*everything, 0).tobytes() == want.read(*everything, 0).tobytes()
    assert got.deltas.held_tiles() == want.held_tiles() and len(want.held_tiles()) > 4


def test_hydraulic_erosion_without_outputs_holds_no_sums_of_the_whole_area() -> None:
    import tracemalloc

    h = np.tile(demo_heights(size=513, spacing=4.0)[:512, :512], (3, 3))
    how = Hydraulic(seed=1, iterations=1, lifetime=10)
    erode(reader(h[:64, :64]), (64, 64), 4.0, how, outputs=False)  # the kernels compiled first
    tracemalloc.start()
    try:
        erode(reader(h), h.shape, 4.0, how, outputs=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # measured 2.25 times the heights' bytes (the deltas, and the blocks still waiting for a window);
    # 16.1 with int64 sums and float64 outputs of the whole area
    assert peak < 4.0 * h.nbytes, peak / h.nbytes


@pytest.mark.parametrize("held", [64 << 20, 150_000, 0], ids=["in memory", "partly on disk", "on disk"])
def test_hydraulic_outputs_weigh_by_the_exact_percentile_of_their_blocks(monkeypatch, held: int) -> None:
    """The outputs' paint weights, found block by block from histograms, are what plain numpy gives
    over the whole area at once: its 99th percentile of the non-zero values is full weight. The same
    with the blocks past `HELD_BYTES` in a temporary file."""
    from model.erosion.run import OutputPlane

    monkeypatch.setattr(OutputPlane, "HELD_BYTES", held)
    h = demo_heights(size=513, spacing=4.0)[:420, :380]
    area = (slice(30, 410), slice(10, 370))
    eroded = erode(reader(h), h.shape, 4.0, Hydraulic(seed=3, lifetime=40), area=area)
    for name, plane in eroded.outputs.items():
        values = plane.array()
        positive = values[values > 0]
        assert positive.size > 1000, name
        top = float(np.percentile(positive, 99.0))
        assert plane.top() == top, name
        want = np.clip(np.rint(values / top * 255.0), 0, 255).astype(np.uint8)
        got = np.zeros_like(want)
        for rows, cols, weights in plane.weights():
            got[rows.start - 30:rows.stop - 30, cols.start - 10:cols.stop - 10] = weights
        assert got.tobytes() == want.tobytes() and 0 < np.count_nonzero(got == 255) < got.size // 50, name
        assert (plane._spill is not None) == (held < 64 << 20), name


def test_hydraulic_erosion_with_outputs_holds_no_sums_of_the_whole_area() -> None:
    """With outputs the peak is the deltas, the outputs' finished blocks as float32 and the blocks
    still waiting for a window: no int64 or float64 arrays of the whole area, and writing them into
    paint layers goes block by block."""
    import tracemalloc

    from model.terrain import Terrain
    from model.terrain_edits import write_outputs

    h = np.tile(demo_heights(size=513, spacing=4.0)[:512, :512], (3, 3))
    how = Hydraulic(seed=1, iterations=1, lifetime=10)
    erode(reader(h[:64, :64]), (64, 64), 4.0, how, outputs=True)  # the kernels compiled first
    tracemalloc.start()
    try:
        eroded = erode(reader(h), h.shape, 4.0, how, outputs=True)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        terrain = Terrain(h, 4.0)
        tracemalloc.start()
        held, _ = tracemalloc.get_traced_memory()
        write_outputs(terrain, eroded.outputs, eroded.area, ["flow", "deposition", "wear"])
        _, writing = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(terrain.layer("erosion_" + n).weight_sum() > 0 for n in ("flow", "deposition", "wear"))
    # measured 13.1 times the heights' bytes with int64 sums and float64 outputs of the whole area,
    # and 6.6 more to write them (a percentile's copies and a float64 array per output)
    assert peak < 8.0 * h.nbytes, peak / h.nbytes
    assert writing - held < 1.5 * h.nbytes, (writing - held) / h.nbytes


def test_hydraulic_outputs_past_their_memory_share_wait_on_disk(monkeypatch) -> None:
    """A big area's output blocks go to a temporary file: memory then holds the deltas and the blocks
    still waiting for a window, and after the run little more than the deltas."""
    import tracemalloc

    from model.erosion.run import OutputPlane

    h = np.tile(demo_heights(size=513, spacing=4.0)[:512, :512], (3, 3))
    how = Hydraulic(seed=1, iterations=1, lifetime=10)
    erode(reader(h[:64, :64]), (64, 64), 4.0, how, outputs=True)  # the kernels compiled first
    kept = erode(reader(h), h.shape, 4.0, how, outputs=True)
    monkeypatch.setattr(OutputPlane, "HELD_BYTES", 0)
    tracemalloc.start()
    try:
        eroded = erode(reader(h), h.shape, 4.0, how, outputs=True)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # measured 4.59 and 1.11 times the heights' bytes (6.39 and 4.12 with the blocks in memory)
    assert peak < 5.5 * h.nbytes and held < 1.6 * h.nbytes, (peak / h.nbytes, held / h.nbytes)
    assert eroded.deltas.read(slice(0, 1536), slice(0, 1536), 0).tobytes() == \
        kept.deltas.read(slice(0, 1536), slice(0, 1536), 0).tobytes()
    for name, plane in eroded.outputs.items():
        assert plane._spill is not None and plane.top() == kept.outputs[name].top(), name
        assert all(a[2].tobytes() == b[2].tobytes()
                   for a, b in zip(plane.weights(), kept.outputs[name].weights(), strict=True)), name
