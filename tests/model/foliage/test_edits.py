"""Editor operations on foliage: type insert/rename/remove, gizmo transforms, the stroke log."""

from __future__ import annotations

import math

import numpy as np
import pytest

from model.foliage import FoliageScatter, FoliageType, FoliageVolume, Palette, Stamp
from model.foliage.edits import (
    FoliageStroke,
    add_by_type,
    insert_type,
    remove_type,
    rename_type,
    restore_type,
    transform_records,
    unique_name,
)
from model.terrain import Terrain


def snapshot(volume: FoliageVolume) -> dict:
    return {key: chunk.records.tobytes() for key, chunk in volume.chunks()}


def records(n: int, seed: int = 1, span: float = 90.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    r = np.zeros((n, 7), np.float32)
    r[:, 0], r[:, 2] = rng.uniform(-span, span, n), rng.uniform(-span, span, n)
    r[:, 1], r[:, 3], r[:, 6] = rng.uniform(0, 5, n), rng.uniform(0, 6, n), rng.uniform(0.5, 2, n)
    return r


def slope_terrain() -> Terrain:
    z, x = np.mgrid[0:101, 0:101].astype(np.float32)
    return Terrain((0.3 * x + 0.1 * z).astype(np.float32), 2.0, (-100.0, -100.0))


def test_insert_rename_remove_restore_keep_order_and_instances() -> None:
    palette = Palette([FoliageType("a"), FoliageType("b"), FoliageType("c")])
    volume = FoliageVolume(palette)
    volume.add("b", records(300))
    before = snapshot(volume)
    insert_type(palette, FoliageType("z"), 1)
    assert palette.names() == ["a", "z", "b", "c"]
    with pytest.raises(ValueError):
        insert_type(palette, FoliageType("a"))
    assert unique_name(palette, "a") == "a 2" and unique_name(palette, "q") == "q"
    rename_type(palette, volume, "b", "bee")
    assert palette.names() == ["a", "z", "bee", "c"] and volume.count("b") == 0
    assert {(k[0], v) for k, v in snapshot(volume).items()} == {(k[0], v) for k, v in before.items()}
    rename_type(palette, volume, "bee", "b")
    assert snapshot(volume) == before
    state = remove_type(palette, volume, "b")
    assert "b" not in palette and len(volume) == 0 and state[0] == 2
    restore_type(palette, volume, *state)
    assert palette.names() == ["a", "z", "b", "c"] and snapshot(volume) == before


def reference_transform(rec, pivot, offset, angle, factor):
    """One record at a time with the rotation written out (the vectorised version must agree)."""
    out = []
    for x, y, z, yaw, pitch, roll, scale in rec.astype(np.float64):
        dx, dz = x - pivot[0], z - pivot[1]
        nx = pivot[0] + dx * math.cos(angle) + dz * math.sin(angle) + offset[0]
        nz = pivot[1] - dx * math.sin(angle) + dz * math.cos(angle) + offset[1]
        out.append([nx, y, nz, yaw + angle, pitch, roll, scale * factor])
    return np.array(out, np.float32)


@pytest.mark.parametrize("angle", [0.0, 0.7, -2.0, math.pi])
def test_transform_matches_the_reference_and_turns_like_yaw(angle) -> None:
    rec = records(200, 5)
    out = transform_records(rec, (3.0, -4.0), (2.5, -1.0), angle, 1.5)
    np.testing.assert_allclose(out, reference_transform(rec, (3.0, -4.0), (2.5, -1.0), angle, 1.5), atol=1e-4)
    # The rotation of positions is the one a record's yaw applies: a point on the local +x axis
    # of the pivot lands where yaw = angle sends the mesh's +x.
    one = np.array([[4.0, 0, -4.0, 0, 0, 0, 1]], np.float32)
    moved = transform_records(one, (3.0, -4.0), angle=angle)[0]
    expected = [math.cos(angle), -math.sin(angle)]
    np.testing.assert_allclose([moved[0] - 3.0, moved[2] + 4.0], expected, atol=1e-5)


def test_transform_keeps_height_above_ground() -> None:
    terrain = slope_terrain()
    rec = records(50, 2, span=40.0)
    rec[:, 1] = terrain.height_at(rec[:, 0], rec[:, 2]) - 0.3  # sunk 0.3 m
    out = transform_records(rec, (0.0, 0.0), (10.0, 5.0), terrain=terrain)
    np.testing.assert_allclose(out[:, 1] - terrain.height_at(out[:, 0], out[:, 2]), -0.3, atol=1e-3)


def test_add_by_type_puts_records_back_under_their_types() -> None:
    palette = Palette([FoliageType("a"), FoliageType("b")])
    volume = FoliageVolume(palette)
    volume.add("a", records(100, 1))
    volume.add("b", records(100, 2))
    sel = volume.query_radius(0.0, 0.0, 50.0)
    removed = volume.remove(sel)
    moved = transform_records(removed.records(), (0.0, 0.0), (100.0, 0.0))
    added = add_by_type(volume, removed, moved)
    assert sum(len(v) for v in added.values()) == len(removed)
    assert volume.count("a") == 100 and volume.count("b") == 100
    np.testing.assert_array_equal(np.sort(volume.at(added)[:, 0]), np.sort(moved[:, 0]))


def test_stroke_log_undo_and_redo_are_exact_and_store_only_the_edit() -> None:
    terrain = slope_terrain()
    palette = Palette([FoliageType("t", density=30.0, spacing=1.0)])
    volume = FoliageVolume(palette)
    volume.add("t", records(5000, 9))
    scatter = FoliageScatter(terrain, volume)
    before = snapshot(volume)
    stroke = FoliageStroke(volume)
    for i in range(5):
        result = scatter.paint(["t"], Stamp((-20.0 + 8 * i, 3.0), 10.0, 0.4, 1.0, 7, i))
        stroke.added("t", result.records("t"), result.added)
        stroke.removed(scatter.erase(["t"], Stamp((-30.0 + 8 * i, -3.0), 6.0, 0.3, 0.7, 8, i)))
    stroke.reapplied(scatter.reapply(None, Stamp((0.0, 0.0), 15.0, 0.5, 1.0, 9, 0)))
    after = snapshot(volume)
    assert after != before and stroke.touched() > 100
    assert stroke.nbytes() <= stroke.touched() * (28 * 2 + 16)  # records and indices, no copy of the scene
    stroke.undo()
    assert snapshot(volume) == before
    stroke.redo()
    assert snapshot(volume) == after
    stroke.undo()
    assert snapshot(volume) == before
