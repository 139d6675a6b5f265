"""Terrain holes: painted and erased exactly, refused to foliage ('hole'), passed through by picking
rays, left out of exported terrain meshes, written beside heightmaps and kept by the scene."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model.errors import FormatError
from model.formats.heightmap import export_heights, holes_mask_path
from model.formats.png import read_png
from model.formats.scene_file import load_scene, save_scene
from model.holes import apply_patch, cell_holes, hole_at, paint_holes
from model.interchange.geometry import terrain_tiles
from model.ray import ray_heightfield
from model.scene import Scene
from model.terrain import Terrain


def flat(n: int = 64) -> Terrain:
    return Terrain(np.zeros((n, n), np.float32), 1.0)


def test_painting_marks_the_samples_within_the_radius_and_undo_is_exact() -> None:
    t = flat()
    patch = paint_holes(t, 20.0, 30.0, 3.0)
    mask = t.holes[0:64, 0:64]
    rows, cols = np.nonzero(mask)
    assert np.all((cols - 20.0) ** 2 + (rows - 30.0) ** 2 <= 9.0) and len(rows) == 29
    inside = hole_at(t, np.array([20.5, 23.5, 24.5]), np.array([30.5, 30.0, 30.0]))
    assert inside.tolist() == [True, True, False]
    erased = paint_holes(t, 20.0, 30.0, 1.0, erase=True)
    assert np.count_nonzero(t.holes[0:64, 0:64]) == 29 - 5
    apply_patch(t, erased, undo=True)
    apply_patch(t, patch, undo=True)
    assert t.holes is None
    with pytest.raises(ValueError, match="radius"):
        paint_holes(t, 0.0, 0.0, 0.0)


def test_a_cell_is_a_hole_when_any_corner_is() -> None:
    t = flat(8)
    paint_holes(t, 3.0, 3.0, 0.1)
    cells = cell_holes(t, slice(0, 8), slice(0, 8))
    assert sorted(zip(*np.nonzero(cells), strict=True)) == [(2, 2), (2, 3), (3, 2), (3, 3)]


def test_picking_rays_fall_through_holes() -> None:
    t = flat()
    assert ray_heightfield(t, (20.5, 10.0, 30.5), (0.0, -1.0, 0.001)) is not None
    paint_holes(t, 20.0, 30.0, 2.0)
    assert ray_heightfield(t, (20.5, 10.0, 30.5), (0.0, -1.0, 0.001)) is None
    hit = ray_heightfield(t, (10.5, 10.0, 30.5), (0.0, -1.0, 0.001))
    assert hit is not None and abs(hit[1]) < 1e-9
    # the tool that fills holes points into them: the hole's place on the surface
    into = ray_heightfield(t, (20.5, 10.0, 30.5), (0.0, -1.0, 0.001), through_holes=True)
    assert into is not None and abs(into[0] - 20.5) < 1e-9 and abs(into[1]) < 1e-9


def test_exported_terrain_leaves_the_hole_faces_out() -> None:
    t = flat(40)
    whole = sum(m.triangle_count for m in terrain_tiles(t))
    paint_holes(t, 10.0, 10.0, 0.5)  # one sample: the four cells around it
    tiles = list(terrain_tiles(t))
    assert sum(m.triangle_count for m in tiles) == whole - 8
    tri = tiles[0].positions[tiles[0].indices.reshape(-1, 3)]
    centre = tri.mean(axis=1)
    assert not np.any((np.abs(centre[:, 0] - 10.0) < 1.0) & (np.abs(centre[:, 2] - 10.0) < 1.0))
    # decimated: the coarse cell holding the hole goes
    coarse = sum(m.triangle_count for m in terrain_tiles(t, 4))
    assert coarse == sum(m.triangle_count for m in terrain_tiles(flat(40), 4)) - 2


def test_heightmap_exports_write_the_mask_beside_them(tmp_path: Path) -> None:
    t = flat()
    out = tmp_path / "h.png"
    export_heights(t, out)
    assert not holes_mask_path(out).exists()
    paint_holes(t, 20.0, 30.0, 3.0)
    export_heights(t, out)
    mask = read_png(holes_mask_path(out))
    assert np.array_equal(mask.pixels, t.holes[0:64, 0:64])


def test_the_scene_keeps_its_holes_and_refuses_a_damaged_tile(tmp_path: Path) -> None:
    t = flat()
    paint_holes(t, 20.0, 30.0, 3.0)
    path = tmp_path / "h.boscage"
    save_scene(Scene(terrain=t), path)
    back = load_scene(path).terrain
    assert np.array_equal(back.holes[0:64, 0:64], t.holes[0:64, 0:64])
    tile = next(p for p in tmp_path.iterdir() if ".holes_" in p.name)
    data = bytearray(tile.read_bytes())
    data[0] ^= 0xFF
    tile.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="checksum"):
        load_scene(path)


def test_no_foliage_grows_in_a_hole_scattered_or_spawned() -> None:
    from model.foliage.reference import consider_reference
    from model.foliage.scatter import Refusal, Stamp
    from model.foliage.spawn_run import run_spawner
    from model.foliage.spawner import Spawner, Species
    from tests.model.foliage.conftest import TREE, paint_half, plane, scatter_for

    t = plane()
    paint_half(t)
    paint_holes(t, 16.0, 32.0, 6.0)
    sc = scatter_for(t, TREE)
    stamp = Stamp((16, 32), 14, 0.0, 1.0, seed=3)
    out = sc.consider("tree", stamp)
    in_hole = hole_at(t, out.xz[:, 0], out.xz[:, 1])
    assert in_hole.sum() > 10 and np.all(out.refusals[in_hole] == Refusal.HOLE)
    assert not np.any(hole_at(t, out.records[:, 0], out.records[:, 2]))
    ref = consider_reference(sc, "tree", stamp)
    assert np.array_equal(ref.refusals, out.refusals)
    single = sc.single("tree", 16.0, 32.0, apply=False)
    assert single.outcomes["tree"].refusals.tolist() == [Refusal.HOLE]
    assert single.refused()["HOLE"] == 1
    spawner = Spawner("s", seed=2, species=(Species("tree", density=50.0),))
    result = run_spawner(spawner, t, sc.volume.palette, lambda types, box: np.empty((0, 2)))
    species = result.species[0]
    refused = species.refusals == species.labels.index("hole")
    assert refused.sum() > 10 and np.all(hole_at(t, species.xz[refused, 0], species.xz[refused, 1]))
    assert len(species.records) and not np.any(hole_at(t, species.records[:, 0], species.records[:, 2]))
