"""Terrain → vertex arrays: position, normal and layer-blended colour per height sample. Numpy only."""

from __future__ import annotations

import numpy as np

from model.terrain import Terrain

VERTEX_FLOATS = 9  # position xyz, normal xyz, colour rgb
BARE_COLOUR = np.array([0.55, 0.52, 0.48])  # where no layer is painted


def grid_indices(rows: int, cols: int) -> np.ndarray:
    """Two counter-clockwise (seen from above) triangles per grid cell, uint32."""
    r, c = np.meshgrid(np.arange(rows - 1, dtype=np.uint32), np.arange(cols - 1, dtype=np.uint32),
                       indexing="ij")
    a = (r * cols + c).ravel()
    b, d = a + 1, a + cols
    e = d + 1
    return np.stack([a, d, b, b, d, e], axis=1).ravel()


def vertex_rows(terrain: Terrain, r0: int = 0, r1: int | None = None) -> np.ndarray:
    """Vertex data for grid rows r0..r1 (exclusive), float32 (rows*cols, 9)."""
    r1 = terrain.rows if r1 is None else r1
    return vertex_block(terrain, r0, r1, 0, terrain.columns)


def vertex_block(terrain: Terrain, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """Vertex data for the grid rectangle rows r0..r1, columns c0..c1 (exclusive), float32 (n, 9)."""
    h = terrain.heights
    # One sample of margin each side so normals at the block's edges see their neighbours.
    m0, m1 = max(0, r0 - 1), min(terrain.rows, r1 + 1)
    n0, n1 = max(0, c0 - 1), min(terrain.columns, c1 + 1)
    hm = h[m0:m1, n0:n1].astype(np.float64)
    dz, dx = np.gradient(hm, terrain.spacing)  # with the margin a block is at least 2 x 2
    rs = slice(r0 - m0, r0 - m0 + (r1 - r0))
    cs = slice(c0 - n0, c0 - n0 + (c1 - c0))
    dx, dz = dx[rs, cs], dz[rs, cs]
    normal = np.stack([-dx, np.ones_like(dx), -dz], axis=-1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)

    x = terrain.origin[0] + np.arange(c0, c1) * terrain.spacing
    z = terrain.origin[1] + np.arange(r0, r1) * terrain.spacing
    out = np.empty((r1 - r0, c1 - c0, VERTEX_FLOATS), np.float32)
    out[..., 0] = x[None, :]
    out[..., 1] = h[r0:r1, c0:c1]
    out[..., 2] = z[:, None]
    out[..., 3:6] = normal
    out[..., 6:9] = layer_colours(terrain, r0, r1, c0, c1)
    return out.reshape(-1, VERTEX_FLOATS)


def layer_colours(terrain: Terrain, r0: int, r1: int, c0: int = 0, c1: int | None = None) -> np.ndarray:
    """Weighted blend of layer colours (0..1); bare ground where the weights add to less than 255."""
    c1 = terrain.columns if c1 is None else c1
    shape = (r1 - r0, c1 - c0)
    colour = np.zeros(shape + (3,), np.float64)
    total = np.zeros(shape, np.float64)
    for layer in terrain.layers:
        w = layer.weights[r0:r1, c0:c1].astype(np.float64) / 255.0
        colour += w[..., None] * (np.asarray(layer.color, np.float64) / 255.0)
        total += w
    # Weights summing past 1 are normalised; any shortfall shows bare ground.
    over = np.maximum(total, 1.0)
    colour /= over[..., None]
    colour += np.clip(1.0 - total, 0.0, 1.0)[..., None] * BARE_COLOUR
    return colour
