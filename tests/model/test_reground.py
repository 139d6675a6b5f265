"""Stored foliage follows sculpted ground in the same undo step."""

from __future__ import annotations

import numpy as np

from model.brush import Brush
from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.volume import FoliageVolume
from model.sculpt import TerrainStroke, noise, paint_layer, raise_lower, smooth
from model.terrain import Terrain


def forest(n: int = 400, seed: int = 2) -> tuple[Terrain, FoliageVolume, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = Terrain(rng.normal(0, 0.5, (129, 129)).astype(np.float32), spacing=1.0)
    t.add_layer("grass", (0, 200, 0))
    volume = FoliageVolume(Palette([FoliageType("pine"), FoliageType("rock")]), cell_size=16.0)
    x = rng.uniform(0, 128, n)
    z = rng.uniform(0, 128, n)
    offset = rng.uniform(-0.5, 0.2, n)  # sunk in a little, or floating a little
    records = np.zeros((n, 7), np.float32)
    records[:, 0], records[:, 2] = x, z
    records[:, 1] = t.height_at(x, z) + offset
    records[:, 3] = rng.uniform(0, 6, n)
    records[:, 6] = 1.0
    volume.add("pine", records[: n // 2])
    volume.add("rock", records[n // 2:])
    return t, volume, offset


def all_records(volume: FoliageVolume) -> np.ndarray:
    return np.concatenate([volume.all_records(name) for name in ("pine", "rock")])


def offsets(t: Terrain, volume: FoliageVolume) -> np.ndarray:
    rec = all_records(volume)
    return rec[:, 1] - t.height_at(rec[:, 0], rec[:, 2])


def test_instances_keep_their_offset_over_a_raise_stroke() -> None:
    t, volume, _ = forest()
    before_offsets = offsets(t, volume)
    before = all_records(volume)
    stroke = TerrainStroke(t, volume=volume)
    for i in range(6):
        stroke.apply(raise_lower(t, Brush(radius=20.0, strength=1.0), 40.0 + 5 * i, 60.0, amount=3.0))
    stroke.finish()
    after = all_records(volume)
    np.testing.assert_allclose(offsets(t, volume), before_offsets, atol=5e-5)
    moved = after[:, 1] != before[:, 1]
    assert moved.sum() > 20
    # Only height changed, and only for instances near the stroke.
    np.testing.assert_array_equal(np.delete(after, 1, axis=1), np.delete(before, 1, axis=1))
    far = np.hypot(before[:, 0] - 52.5, before[:, 2] - 60.0) > 20.0 + 12.5 + 2.0
    assert not moved[far].any()
    assert stroke.lift.count == int(moved.sum())


def test_undo_and_redo_restore_heights_and_records_bit_for_bit() -> None:
    t, volume, _ = forest()
    heights, records = t.heights.copy(), all_records(volume)
    stroke = TerrainStroke(t, volume=volume)
    brush = Brush(radius=15.0, strength=0.8)
    for i, kernel in enumerate([raise_lower, smooth, raise_lower, smooth]):
        stroke.apply(kernel(t, brush, 30.0 + 8 * i, 50.0 + 4 * i))
    stroke.apply(noise(t, brush, 70.0, 70.0, seed=5, amount=2.0))
    stroke.finish()
    after_h, after_r = t.heights.copy(), all_records(volume)
    stroke.undo()
    assert t.heights.tobytes() == heights.tobytes()
    assert all_records(volume).tobytes() == records.tobytes()
    stroke.redo()
    assert t.heights.tobytes() == after_h.tobytes()
    assert all_records(volume).tobytes() == after_r.tobytes()


def test_painting_a_layer_moves_no_foliage() -> None:
    t, volume, _ = forest()
    records = all_records(volume)
    stroke = TerrainStroke(t, "grass", volume=volume)
    assert stroke.lift is None
    stroke.apply(paint_layer(t, "grass", Brush(radius=30.0), 64.0, 64.0))
    assert all_records(volume).tobytes() == records.tobytes()


def test_only_chunks_under_the_stroke_are_touched() -> None:
    t = Terrain(np.zeros((129, 129), np.float32))
    volume = FoliageVolume(Palette([FoliageType("pine")]), cell_size=16.0)
    volume.add("pine", np.array([[100.0, 0.0, 100.0, 0, 0, 0, 1], [20.0, 0.0, 90.0, 0, 0, 0, 1]], np.float32))
    seen = []
    volume.changed.connect(seen.append)
    stroke = TerrainStroke(t, volume=volume)
    stroke.apply(raise_lower(t, Brush(radius=3.0), 20.0, 20.0))
    assert seen == []
    stroke.apply(raise_lower(t, Brush(radius=3.0, falloff=0.0, strength=1.0), 100.0, 100.0, amount=2.0))
    assert seen == [[((6, 6), "pine")]]
    assert volume.all_records("pine")[:, 1].tolist() == [0.0, 2.0]  # cell (1, 5), then (6, 6)
