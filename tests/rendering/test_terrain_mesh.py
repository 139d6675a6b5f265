"""Terrain mesh arrays: triangles face up, partial rows match the full build, colours blend."""

from __future__ import annotations

import numpy as np
import pytest

from model.terrain import Terrain
from rendering.terrain_mesh import BARE_COLOUR, grid_indices, layer_colours, vertex_rows
from tests.conftest import make_small_scene


def test_two_upward_triangles_per_cell() -> None:
    rows, cols = 4, 5
    idx = grid_indices(rows, cols).reshape(-1, 3)
    assert len(idx) == 2 * (rows - 1) * (cols - 1) and idx.max() == rows * cols - 1
    z, x = np.divmod(np.arange(rows * cols), cols)
    pos = np.stack([x, np.zeros_like(x), z], axis=1).astype(float)
    a, b, c = pos[idx[:, 0]], pos[idx[:, 1]], pos[idx[:, 2]]
    normals = np.cross(b - a, c - a)
    assert np.all(normals[:, 1] > 0)


def test_rows_built_alone_equal_the_same_rows_of_the_full_mesh() -> None:
    t = make_small_scene().terrain
    full = vertex_rows(t).reshape(t.rows, t.columns, -1)
    for r0, r1 in ((0, 1), (5, 9), (t.rows - 2, t.rows)):
        part = vertex_rows(t, r0, r1).reshape(r1 - r0, t.columns, -1)
        np.testing.assert_array_equal(part, full[r0:r1])


def test_positions_and_normals() -> None:
    t = Terrain(np.tile(np.arange(4, dtype=np.float32), (3, 1)), spacing=1.0, origin=(10.0, 20.0))
    v = vertex_rows(t).reshape(3, 4, -1)
    np.testing.assert_array_equal(v[2, 3, :3], [13.0, 3.0, 22.0])
    np.testing.assert_allclose(v[1, 1, 3:6], [-np.sqrt(0.5), np.sqrt(0.5), 0.0], atol=1e-6)


def test_layer_colours_blend_by_weight_and_show_bare_ground() -> None:
    t = Terrain(np.zeros((2, 3), np.float32))
    t.add_layer("r", (255, 0, 0), np.array([[255, 128, 0], [0, 0, 255]], np.uint8))
    t.add_layer("b", (0, 0, 255), np.array([[0, 127, 0], [255, 0, 255]], np.uint8))
    c = layer_colours(t, 0, 2)
    np.testing.assert_allclose(c[0, 0], [1, 0, 0])
    np.testing.assert_allclose(c[0, 1], [128 / 255, 0, 127 / 255])
    np.testing.assert_allclose(c[0, 2], BARE_COLOUR)
    np.testing.assert_allclose(c[1, 1], BARE_COLOUR)
    np.testing.assert_allclose(c[1, 2], [0.5, 0, 0.5])  # over-painted: normalised


def test_blocks_built_alone_equal_the_same_part_of_the_full_mesh() -> None:
    from rendering.terrain_mesh import vertex_block

    t = make_small_scene().terrain
    full = vertex_rows(t).reshape(t.rows, t.columns, -1)
    for r0, r1, c0, c1 in ((0, 5, 0, 7), (3, 20, 10, 41), (t.rows - 1, t.rows, t.columns - 1, t.columns)):
        part = vertex_block(t, r0, r1, c0, c1).reshape(r1 - r0, c1 - c0, -1)
        np.testing.assert_array_equal(part, full[r0:r1, c0:c1])


def test_chunk_ranges_share_their_edge_samples() -> None:
    from rendering.terrain_renderer import chunk_ranges

    assert chunk_ranges(129, 64) == [(0, 65), (64, 129)]
    assert chunk_ranges(130, 64) == [(0, 65), (64, 129), (128, 130)]
    assert chunk_ranges(2, 64) == [(0, 2)]


def test_a_coarse_grid_averages_the_paint_under_each_vertex() -> None:
    """A 2-sample painted path seen on a grid of every 8th sample keeps its share of the ground
    (a quarter of a vertex's footprint), where point sampling would drop it."""
    from rendering.terrain_lod import level_samples
    from rendering.terrain_mesh import BARE_COLOUR, vertex_grid

    n = 257
    t = Terrain(np.zeros((n, n), np.float32), 1.0, (0.0, 0.0))
    road = np.zeros((n, n), np.uint8)
    road[:, 101:103] = 255
    t.add_layer("road", (255, 0, 0), road)
    rows = cols = level_samples(n, 8)
    v = vertex_grid(t, rows, cols, 0, len(rows), 0, len(cols)).reshape(len(rows), len(cols), -1)
    red = (v[..., 6] - BARE_COLOUR[0]) / (1.0 - BARE_COLOUR[0])  # the road's weight at each vertex
    assert red[:, 13].min() > 0.2  # the vertex at 104 sees it (a point sample would not)
    assert abs(red[0].sum() * 8 - 2) < 0.5  # the path's width, spread, not lost
    assert (red[:, :11] < 1e-6).all() and (red[:, 15:] < 1e-6).all()


@pytest.mark.parametrize("block", [32, 512])  # 32: the coarse levels read the pyramid's coarse grid
def test_a_paged_terrain_meshes_every_level_as_its_array_does_reading_only_tiles(
        tmp_path, monkeypatch, block) -> None:
    """Coarse tiles read heights and the paint under each vertex by strided reads of the tiles:
    the same vertices, bit for bit, and nothing assembled."""
    from model import paged
    from model.formats import tiles
    from model.formats.scene_file import load_scene, save_scene
    from model.scene import Scene
    from rendering import terrain_lod
    from rendering.terrain_lod import LodPyramid
    from rendering.terrain_mesh import vertex_grid

    monkeypatch.setattr(tiles, "TILE", 48)
    monkeypatch.setattr(terrain_lod, "BLOCK_SAMPLES", block)
    rng = np.random.default_rng(5)
    n = 161
    z, x = np.mgrid[0:n, 0:n].astype(np.float64)
    t = Terrain((6 * np.sin(x / 11) * np.cos(z / 7) + rng.normal(0, 0.5, (n, n))).astype(np.float32), 1.5,
                (-50.0, 10.0))
    t.add_layer("a", (200, 40, 40), rng.integers(0, 256, (n, n), dtype=np.uint8))
    t.add_layer("b", (40, 200, 40), rng.integers(0, 256, (n, n), dtype=np.uint8))
    path = tmp_path / "m.boscage"
    save_scene(Scene(terrain=t, name="m"), path)
    opened = load_scene(path).terrain
    opened.add_layer("c", (40, 40, 200), np.full((n, n), 7, np.uint8))  # one held in memory among them
    t.add_layer("c", (40, 40, 200), np.full((n, n), 7, np.uint8))
    before = paged.assemblies
    mine, theirs = LodPyramid(opened, tile=16), LodPyramid(t, tile=16)
    for lv in range(mine.levels):
        assert mine.err[lv].tobytes() == theirs.err[lv].tobytes()
        for key in mine.all_tiles(lv):
            rows, cols = mine.samples[lv]
            a, b, c, d = mine.tile_range(key)
            expected = vertex_grid(t, rows, cols, a, b, c, d).tobytes()
            assert vertex_grid(opened, rows, cols, a, b, c, d).tobytes() == expected
            # coarse levels read their heights from the pyramid's coarse grid: the same vertices
            assert vertex_grid(opened, rows, cols, a, b, c, d, mine.take_heights).tobytes() == expected
    assert paged.assemblies == before and opened.paged_heights is not None
    assert opened.layers[0].paged is not None and opened.layers[1].paged is not None
