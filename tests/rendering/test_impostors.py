"""The impostor atlas's hemi-octahedral grid (numpy twins of the shaders) and what a bake reads."""

from __future__ import annotations

import numpy as np

from model.foliage.meshes import builtin_mesh
from rendering.impostors import (
    FRAMES,
    MARGIN,
    content_key,
    frame_direction,
    hemi_direction,
    hemi_octahedral,
    nearest_frames,
    sphere_of,
)


def _hemisphere(n: int, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = rng.uniform(-1.0, 1.0, (n, 3))
    d[:, 1] = np.abs(d[:, 1])
    return d / np.linalg.norm(d, axis=1, keepdims=True)


def test_the_encoding_maps_the_hemisphere_onto_the_square_and_back() -> None:
    d = _hemisphere(2000)
    e = hemi_octahedral(d)
    assert np.all(np.abs(e) <= 1.0 + 1e-12)
    assert np.allclose(hemi_direction(e), d, atol=1e-12)


def test_the_grid_has_the_horizon_round_its_edge_and_the_zenith_in_its_middle() -> None:
    edge = [(i, 0) for i in range(FRAMES)] + [(0, j) for j in range(FRAMES)] + \
        [(FRAMES - 1, j) for j in range(FRAMES)] + [(i, FRAMES - 1) for i in range(FRAMES)]
    assert np.allclose(frame_direction(np.array(edge))[:, 1], 0.0)
    assert np.allclose(frame_direction(((FRAMES - 1) / 2, (FRAMES - 1) / 2)), [0.0, 1.0, 0.0])
    inner = np.array([(i, j) for i in range(1, FRAMES - 1) for j in range(1, FRAMES - 1)])
    assert np.all(frame_direction(inner)[:, 1] > 0.05)
    # each horizon direction is baked once, except where the square's corners meet
    horizon = frame_direction(np.array(edge))
    assert len(np.unique(horizon.round(9), axis=0)) == 4 * (FRAMES - 1)


def test_the_three_nearest_frames_reproduce_the_view_and_lie_round_it() -> None:
    for d in _hemisphere(500):
        cells, weights = nearest_frames(d)
        assert np.all(weights >= -1e-12) and np.isclose(weights.sum(), 1.0)
        assert np.all((cells >= 0) & (cells < FRAMES))
        assert len({tuple(c) for c in cells}) == 3
        # the weights are the barycentrics of the view's grid point in the frames' triangle
        grid = (hemi_octahedral(d) * 0.5 + 0.5) * (FRAMES - 1)
        assert np.allclose(weights @ cells, grid, atol=1e-9)
        # and all three look nearly the same way as the camera (the grid is about 15° a step)
        assert np.all(frame_direction(cells) @ d > np.cos(np.radians(30.0)))


def test_a_view_on_a_frames_own_direction_takes_that_frame_alone() -> None:
    for cell in ((0, 0), (3, 7), (5, 5), (FRAMES - 1, FRAMES - 1), (FRAMES - 1, 2)):
        cells, weights = nearest_frames(frame_direction(cell))
        assert np.isclose(weights[[tuple(c) == cell for c in cells]].sum(), 1.0)


def test_the_weights_change_smoothly_as_the_camera_moves() -> None:
    # round the zenith and down to the horizon: a small step never moves much weight (no pop)
    def blend(d):
        cells, weights = nearest_frames(d)
        full = np.zeros((FRAMES, FRAMES))
        full[cells[:, 0], cells[:, 1]] = weights
        return full

    for a in np.linspace(0.0, 2 * np.pi, 7):
        path = [np.array([np.cos(a) * np.cos(t), np.sin(t), np.sin(a) * np.cos(t)])
                for t in np.linspace(0.0, np.pi / 2, 400)]
        steps = [np.abs(blend(p) - blend(q)).sum() for p, q in zip(path, path[1:], strict=False)]
        assert max(steps) < 0.15


def test_below_the_horizon_counts_as_on_it() -> None:
    below = nearest_frames(np.array([0.6, -0.3, 0.74]))
    on = nearest_frames(np.array([0.6, 0.0, 0.74]))
    assert np.array_equal(below[0], on[0]) and np.allclose(below[1], on[1])


def test_the_frames_hold_the_whole_mesh_with_a_margin() -> None:
    mesh = builtin_mesh("broadleaf")
    cx, cy, cz, half = sphere_of(mesh)
    reach = np.linalg.norm(mesh.vertices[:, :3] - [cx, cy, cz], axis=1)
    assert reach.max() * MARGIN <= half + 1e-9 and reach.max() > half / MARGIN - 1e-6


def test_the_cache_key_follows_the_content_not_the_name() -> None:
    from dataclasses import replace

    mesh = builtin_mesh("conifer")
    same = replace(mesh, name="elsewhere.glb", vertices=mesh.vertices.copy())
    assert content_key(same) == content_key(mesh)
    moved = mesh.vertices.copy()
    moved[0, 1] += 0.01
    assert content_key(replace(mesh, vertices=moved)) != content_key(mesh)
    leaves = mesh.materials[2]
    pixels = leaves.base_texture.pixels.copy()
    pixels[0, 0, 0] ^= 1
    repainted = replace(leaves, base_texture=replace(leaves.base_texture, pixels=pixels))
    other = replace(mesh, materials=(*mesh.materials[:2], repainted))
    assert content_key(other) != content_key(mesh)
    cut = replace(mesh, materials=(*mesh.materials[:2], replace(leaves, alpha_cutoff=0.3)))
    assert content_key(cut) != content_key(mesh)
