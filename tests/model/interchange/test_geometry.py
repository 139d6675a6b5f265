"""Terrain tiles and type meshes as indexed geometry in the target frame."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType
from model.foliage.meshes import builtin_mesh
from model.interchange import geometry
from model.interchange.conventions import ENGINE_PRESETS, Conventions
from model.terrain import Terrain


def test_builtin_type_mesh_is_the_rendered_geometry_indexed() -> None:
    mesh = geometry.type_mesh(FoliageType("c", "builtin:conifer"))
    soup = builtin_mesh("conifer").vertices
    assert mesh.triangle_count == len(soup) // 3
    assert mesh.vertex_count < len(soup)  # shared corners merged
    corners = mesh.positions[mesh.indices]
    assert np.array_equal(corners, soup[:, :3])
    assert np.array_equal(mesh.normals[mesh.indices], soup[:, 3:6])
    assert np.array_equal(mesh.colours[mesh.indices], soup[:, 6:9])


def test_a_mirroring_frame_keeps_triangles_facing_out() -> None:
    base = geometry.type_mesh(FoliageType("r", "builtin:rock"))
    unreal = geometry.type_mesh(FoliageType("r", "builtin:rock"), conventions=ENGINE_PRESETS["Unreal"])
    assert np.linalg.det(ENGINE_PRESETS["Unreal"].basis) < 0
    # positions are in centimetres with Y and Z swapped
    assert np.allclose(unreal.positions, base.positions[:, [0, 2, 1]] * 100, atol=1e-3)
    tri = unreal.positions[unreal.indices].reshape(-1, 3, 3).astype(np.float64)
    face = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    n = unreal.normals[unreal.indices].reshape(-1, 3, 3)[:, 0]
    big = np.linalg.norm(face, axis=1) > 1e-3
    assert (np.einsum("ij,ij->i", face[big], n[big]) > 0).all()


def ramp_terrain(rows: int, cols: int, spacing: float = 2.0) -> Terrain:
    z, x = np.mgrid[0:rows, 0:cols].astype(np.float64)
    t = Terrain((0.5 * x * spacing).astype(np.float32), spacing, (10.0, -4.0))
    w = np.zeros((rows, cols), np.uint8)
    w[:, cols // 2:] = 200
    t.add_layer("moss", (0, 255, 0), w)
    return t


def test_terrain_tiles_cover_the_grid_with_shared_edges_and_true_normals() -> None:
    t = ramp_terrain(300, 140)
    tiles = list(geometry.terrain_tiles(t))
    assert len(tiles) == 3 * 2 == geometry.terrain_tile_count(t)
    assert sum(x.vertex_count for x in tiles) == geometry.terrain_vertex_count(t)
    assert max(x.vertex_count for x in tiles) <= (geometry.TILE_QUADS + 1) ** 2
    pos = np.concatenate([x.positions for x in tiles])
    assert pos[:, 0].min() == 10.0 and pos[:, 0].max() == 10.0 + 139 * 2.0
    assert pos[:, 2].min() == -4.0 and pos[:, 2].max() == -4.0 + 299 * 2.0
    # every sample appears; heights are the stored ones
    assert len(np.unique(pos[:, [0, 2]], axis=0)) == 300 * 140
    assert np.allclose(pos[:, 1], 0.5 * (pos[:, 0] - 10.0))
    # a ramp rising 0.5 per metre along X: the normal is (-0.5, 1, 0) normalised
    n = np.concatenate([x.normals for x in tiles])
    assert np.allclose(n, np.array([-0.5, 1.0, 0.0]) / np.sqrt(1.25), atol=1e-6)
    # triangles face up
    for tile in tiles:
        tri = tile.positions[tile.indices].reshape(-1, 3, 3).astype(np.float64)
        assert (np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])[:, 1] > 0).all()
    # weights and the blended display colour
    w = np.concatenate([x.weights for x in tiles])[:, 0]
    east = pos[:, 0] >= 10.0 + 70 * 2.0
    assert (w[east] == 200).all() and (w[~east] == 0).all()
    c = np.concatenate([x.colours for x in tiles])
    assert np.allclose(c[~east], geometry.BARE_COLOUR, atol=1e-6)
    assert np.allclose(c[east], 200 / 255 * np.array([0, 1, 0]) + 55 / 255 * geometry.BARE_COLOUR, atol=1e-6)
    assert tiles[0].weight_names == ("moss",)


@pytest.mark.parametrize("step", [2, 3, 7])
def test_a_terrain_step_keeps_every_nth_sample_and_the_far_edge(step: int) -> None:
    t = ramp_terrain(50, 61)
    tiles = list(geometry.terrain_tiles(t, step))
    pos = np.concatenate([x.positions for x in tiles])
    xs = np.unique(pos[:, 0])
    expect = sorted(set(range(0, 61, step)) | {60})
    assert np.array_equal(xs, 10.0 + np.array(expect) * 2.0)
    assert sum(x.vertex_count for x in tiles) == geometry.terrain_vertex_count(t, step)


def test_a_region_limits_the_terrain_and_one_off_it_gives_none() -> None:
    t = ramp_terrain(50, 50)
    tiles = list(geometry.terrain_tiles(t, 1, (20.0, 0.0, 40.0, 10.0)))
    pos = np.concatenate([x.positions for x in tiles])
    assert pos[:, 0].min() == 20.0 and pos[:, 0].max() == 40.0
    assert pos[:, 2].min() == 0.0 and pos[:, 2].max() == 10.0
    assert list(geometry.terrain_tiles(t, 1, (1000.0, 0.0, 2000.0, 10.0))) == []
    assert geometry.terrain_vertex_count(t, 1, (1000.0, 0.0, 2000.0, 10.0)) == 0


def test_terrain_in_a_z_up_frame() -> None:
    t = ramp_terrain(10, 10)
    conv = Conventions("z", "right", "cm")
    a = np.concatenate([x.positions for x in geometry.terrain_tiles(t)]).astype(np.float64)
    b = np.concatenate([x.positions for x in geometry.terrain_tiles(t, conventions=conv)])
    assert np.allclose(b, (a @ conv.basis.T) * 100, atol=1e-3)


def test_a_terrain_without_layers_has_bare_colour_and_no_weights() -> None:
    t = Terrain(np.zeros((5, 6), np.float32))
    (tile,) = geometry.terrain_tiles(t)
    assert tile.weights.shape == (30, 0) and tile.weight_names == ()
    assert np.allclose(tile.colours, geometry.BARE_COLOUR)
