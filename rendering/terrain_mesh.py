"""Terrain → vertex arrays: position, normal, layer-blended colour and the textured layers' weights per
height sample. Numpy only."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from model.paged import PagedPlane
from model.terrain import Terrain

VERTEX_FLOATS = 13  # position xyz, normal xyz, colour rgb, then 16 bytes of textured layers' weights
TEXTURE_SLOTS = 16  # layers drawn with textures at most (Unity's Terrain Lit draws 8)
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
    """Vertex data for grid rows r0..r1 (exclusive), float32 (rows*cols, VERTEX_FLOATS)."""
    r1 = terrain.rows if r1 is None else r1
    return vertex_block(terrain, r0, r1, 0, terrain.columns)


def vertex_block(terrain: Terrain, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """Vertex data for the grid rectangle rows r0..r1, columns c0..c1 (exclusive), float32
    (n, VERTEX_FLOATS)."""
    rows, cols = np.arange(terrain.rows), np.arange(terrain.columns)
    return vertex_grid(terrain, rows, cols, r0, r1, c0, c1)


def vertex_grid(terrain: Terrain, rows: np.ndarray, cols: np.ndarray, a: int, b: int, c: int, d: int,
                heights: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """Vertex data at the samples rows[a:b] x cols[c:d] of a (possibly strided) sample grid, float32
    (n, VERTEX_FLOATS). Normals come from the slope of that grid, so a coarse tile is lit as it is shaped.
    `heights(rows, cols)`, where given, reads the heights (a level-of-detail pyramid's coarse copy);
    by default `terrain.take_heights`."""
    # One sample of margin each side so normals at the block's edges see their neighbours.
    ma, mb = max(0, a - 1), min(len(rows), b + 1)
    mc, md = max(0, c - 1), min(len(cols), d + 1)
    rm, cm = rows[ma:mb], cols[mc:md]
    unit_step = len(rm) == rm[-1] - rm[0] + 1 and len(cm) == cm[-1] - cm[0] + 1
    hm = (heights or terrain.take_heights)(rm, cm).astype(np.float64)  # paged: only the tiles it samples
    s = terrain.spacing
    if unit_step:  # with the margin a block is at least 2 x 2
        dz, dx = np.gradient(hm, s)
    else:
        dz, dx = np.gradient(hm, rm * s, cm * s)
    rs = slice(a - ma, a - ma + (b - a))
    cs = slice(c - mc, c - mc + (d - c))
    dx, dz = dx[rs, cs], dz[rs, cs]
    normal = np.stack([-dx, np.ones_like(dx), -dz], axis=-1)
    normal /= np.linalg.norm(normal, axis=-1, keepdims=True)

    ri, ci = rows[a:b], cols[c:d]
    x = terrain.origin[0] + ci * s
    z = terrain.origin[1] + ri * s
    out = np.empty((b - a, d - c, VERTEX_FLOATS), np.float32)
    out[..., 0] = x[None, :]
    out[..., 1] = hm[rs, cs]
    out[..., 2] = z[:, None]
    out[..., 3:6] = normal
    stride = int(rows[1] - rows[0]) if len(rows) > 1 else 1
    if terrain.layers:
        colour, slots = blend(layer_weights_at(terrain, ri, ci, stride))
    else:
        colour, slots = BARE_COLOUR, 0
    out[..., 6:9] = colour
    out.view(np.uint8)[..., 36:52] = slots  # 16 normalised bytes: the textured layers' weights
    return out.reshape(-1, VERTEX_FLOATS)


def _taps(stride: int) -> np.ndarray:
    """Offsets of the taps a side spread evenly over a vertex's `stride`-wide footprint, symmetric:
    every sample up to a stride of 4, then 4 (the stride is a power of two)."""
    if stride <= 4:
        return np.arange(-(stride // 2), stride // 2 + 1)
    return ((np.arange(4) * 2 + 1) * stride // 8 - stride // 2).astype(np.int64)


def layer_weights_at(terrain: Terrain, rows: np.ndarray, cols: np.ndarray, stride: int = 1) -> list[tuple]:
    """(layer, weight 0..1 float64 at rows x cols) of every layer. On a coarse grid (`stride` > 1)
    each layer's weight is averaged over taps across the vertex's footprint (at most 5 x 5), so a
    thin painted path fades with distance instead of breaking into dots."""
    r0, c0 = int(rows[0]), int(cols[0])
    if stride == 1 and len(rows) == rows[-1] - r0 + 1 and len(cols) == cols[-1] - c0 + 1:
        return [(layer, block.astype(np.float64) / 255.0)
                for layer, block in layer_blocks(terrain, np.arange(r0, r0 + len(rows)),
                                                 np.arange(c0, c0 + len(cols)))]
    shape = (len(rows), len(cols))
    taps = _taps(stride)
    tr = [np.clip(rows + t, 0, terrain.rows - 1) for t in taps]
    tc = [np.clip(cols + t, 0, terrain.columns - 1) for t in taps]
    # every tap's samples are read in one pass over the tiles (per layer grid), then picked out
    ur, uc = np.unique(np.concatenate(tr)), np.unique(np.concatenate(tc))
    pr = [np.searchsorted(ur, r) for r in tr]
    pc = [np.searchsorted(uc, c) for c in tc]
    out = []
    for layer, block in layer_blocks(terrain, ur, uc):
        w = np.zeros(shape, np.float64)
        for r in pr:
            sub = block[r]
            for c in pc:
                w += sub[:, c]
        out.append((layer, w / (255.0 * len(taps) ** 2)))
    return out


def blend(weights: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """The blended colour (0..1, bare ground where the weights add to less than 1; weights summing
    past 1 are normalised) and the normalised weights of the textured layers, uint8 (…, 16) in the
    slots `textured_layers` gives them."""
    shape = weights[0][1].shape if weights else (0, 0)
    total = np.zeros(shape, np.float64)
    for _, w in weights:
        total += w
    over = np.maximum(total, 1.0)
    colour = np.zeros(shape + (3,), np.float64)
    slots = np.zeros(shape + (TEXTURE_SLOTS,), np.uint8)
    slot = 0
    for layer, w in weights:
        w = w / over
        colour += w[..., None] * (np.asarray(layer.color, np.float64) / 255.0)
        if layer.material.textured and slot < TEXTURE_SLOTS:
            slots[..., slot] = np.rint(w * 255.0)
            slot += 1
    colour += np.clip(1.0 - total, 0.0, 1.0)[..., None] * BARE_COLOUR
    return colour, slots


def textured_layers(terrain: Terrain) -> list[int]:
    """Indices of the layers drawn with textures, in slot order: the first TEXTURE_SLOTS with a
    material (the others draw their colour)."""
    return [i for i, la in enumerate(terrain.layers) if la.material.textured][:TEXTURE_SLOTS]


def untextured_extras(terrain: Terrain) -> list[str]:
    """Names of the layers with a material past the first TEXTURE_SLOTS: they draw their colour."""
    return [la.name for la in terrain.layers if la.material.textured][TEXTURE_SLOTS:]


def layer_colours_at(terrain: Terrain, rows: np.ndarray, cols: np.ndarray, stride: int = 1) -> np.ndarray:
    """`layer_colours` at the samples rows x cols (index arrays), footprint-averaged where `stride` > 1."""
    if not terrain.layers:
        return np.broadcast_to(BARE_COLOUR, (len(rows), len(cols), 3)).copy()
    return blend(layer_weights_at(terrain, rows, cols, stride))[0]


def layer_blocks(terrain: Terrain, rows: np.ndarray, cols: np.ndarray) -> list[tuple]:
    """(layer, uint8 weights at rows x cols) of every layer, in order; the layers of one paged grid
    (a scene's layer tiles hold every layer) are read in one pass over its tiles."""
    grids: dict[int, np.ndarray] = {}
    out = []
    for layer in terrain.layers:
        g = layer.grid()
        if isinstance(g, PagedPlane):
            key = id(g.grid)
            if key not in grids:
                grids[key] = g.grid.take(rows, cols)
            out.append((layer, grids[key][g.plane]))
        else:
            out.append((layer, layer.take(rows, cols)))
    return out


def layer_colours(terrain: Terrain, r0: int, r1: int, c0: int = 0, c1: int | None = None) -> np.ndarray:
    """Weighted blend of layer colours (0..1); bare ground where the weights add to less than 255."""
    c1 = terrain.columns if c1 is None else c1
    return layer_colours_at(terrain, np.arange(r0, r1), np.arange(c0, c1))
