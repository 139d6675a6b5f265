"""Geometry an export writes, as indexed meshes in the target frame: the terrain in tiles, and each
foliage type's mesh (built-in meshes as the renderer draws them; OBJ/glTF files through trimesh).

Terrain tiles hold at most (TILE_QUADS + 1)² vertices, so 16-bit indices suffice and no buffer
view comes near the limits importers put on one (a whole 4k terrain in one view is 200+ MB).
Layer weights travel as named vertex colours: COLOR_0 is the blended display colour the viewport
shows, COLOR_1… hold the raw weights, four layers per colour (RGBA), named in `weight_names`.

A foliage mesh keeps its texture coordinates and materials: `parts` are runs of indices drawn with
one material each, and its colours are the vertex colours without the material's base colour
factor (the soup holds their product; an exported material carries the factor itself).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from model.foliage.foliage_type import FoliageType
from model.foliage.materials import IDENTITY_UV, Material
from model.foliage.meshes import Mesh, mesh_for
from model.interchange.conventions import Conventions
from model.terrain import Terrain

TILE_QUADS = 128
IDENTITY = Conventions()
BARE_COLOUR = np.array([0.55, 0.52, 0.48])  # where no layer is painted (as the viewport draws it)


@dataclass(frozen=True)
class IndexedMesh:
    """Triangles as positions/normals (n, 3) float32 and indices (3m,) uint32, counter-clockwise
    seen from outside; optional colours (n, 3) float32 in 0..1 and layer weights (n, L) uint8."""

    name: str
    positions: np.ndarray
    normals: np.ndarray
    indices: np.ndarray
    colours: np.ndarray | None = None
    weights: np.ndarray | None = None
    weight_names: tuple[str, ...] = ()
    extras: dict = field(default_factory=dict)
    uvs: np.ndarray | None = None             # (n, 2) float32, glTF's: v = 0 at the image's top
    materials: tuple[Material, ...] = ()
    parts: tuple[tuple[int, int, int], ...] = ()  # (material, first index, index count)

    @property
    def vertex_count(self) -> int:
        return int(len(self.positions))

    @property
    def triangle_count(self) -> int:
        return int(len(self.indices) // 3)

    def material_parts(self) -> tuple[tuple[Material | None, int, int], ...]:
        """(material or None, first index, index count) of each run: the whole mesh as one run
        without a material when it has none."""
        if not self.parts:
            return ((None, 0, len(self.indices)),)
        return tuple((self.materials[m] if 0 <= m < len(self.materials) else None, a, n)
                     for m, a, n in self.parts)


def in_frame(mesh: IndexedMesh, conventions: Conventions) -> IndexedMesh:
    """The mesh in a target frame: positions s·M·p, normals M·n, winding reversed when M mirrors."""
    if conventions.is_identity:
        return mesh
    m = conventions.basis
    positions = (mesh.positions.astype(np.float64) @ m.T * conventions.unit_scale).astype(np.float32)
    normals = (mesh.normals.astype(np.float64) @ m.T).astype(np.float32)
    indices = mesh.indices
    if np.linalg.det(m) < 0:
        indices = np.ascontiguousarray(indices.reshape(-1, 3)[:, ::-1]).reshape(-1)
    return replace(mesh, positions=positions, normals=normals, indices=indices)


# ---- foliage type meshes --------------------------------------------------------------------
def indexed(mesh: Mesh) -> IndexedMesh:
    """A triangle soup as an indexed mesh: identical corners (position, normal, colour, texture
    coordinates, material) shared; one part per run of a material, the material's texture
    transform applied to the coordinates (what every texture of it samples, as in the viewport)."""
    v = mesh.vertices
    ranges = mesh.material_ranges()
    soup = np.array(v, np.float32, copy=True)
    for index, first, count in ranges:
        m = mesh.material(index)
        rows = soup[first:first + count]
        if m.uv_transform != IDENTITY_UV:
            a, b, c, d, e, f = m.uv_transform
            u, w = rows[:, 9].astype(np.float64), rows[:, 10].astype(np.float64)
            rows[:, 9], rows[:, 10] = a * u + b * w + c, d * u + e * w + f
        factor = np.asarray(m.base_color[:3], np.float64)
        # the soup's colour is colour x factor: the factor travels in the material
        if np.any(factor != 1.0):
            divisor = np.where(factor > 0, factor, 1.0)
            rows[:, 6:9] = np.where(factor > 0, rows[:, 6:9].astype(np.float64) / divisor, 0.0)
    textured = any(m.textures() for m in mesh.materials)
    if not textured:
        soup[:, 9:11] = 0.0  # coordinates nothing samples: not written, so corners share more
    rows, inverse = np.unique(soup, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.uint32)
    parts = tuple((index, first, count) for index, first, count in ranges) if mesh.materials else ()
    return IndexedMesh(mesh.name, np.ascontiguousarray(rows[:, :3]), np.ascontiguousarray(rows[:, 3:6]),
                       inverse, np.ascontiguousarray(rows[:, 6:9]),
                       uvs=np.ascontiguousarray(rows[:, 9:11]) if textured else None,
                       materials=tuple(mesh.materials), parts=parts)


def type_mesh(ftype: FoliageType, folder: str | Path | None = None,
              conventions: Conventions = IDENTITY) -> IndexedMesh:
    """A type's mesh in the target frame (FormatError naming the file when a mesh file is unreadable)."""
    return in_frame(indexed(mesh_for(ftype.mesh, folder)), conventions)


def variant_mesh(ftype: FoliageType, variant: int, folder: str | Path | None = None,
                 conventions: Conventions = IDENTITY) -> IndexedMesh:
    """The mesh of a type's variant `variant` (0 for a type with one mesh), in the target frame."""
    return in_frame(indexed(mesh_for(ftype.meshes[variant], folder)), conventions)


# ---- terrain --------------------------------------------------------------------------------
def sample_indices(count: int, step: int, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """Every `step`th sample index in lo..hi (inclusive), the last one always kept so the mesh
    covers the whole extent."""
    hi = count - 1 if hi is None else hi
    idx = np.arange(lo, hi + 1, step, dtype=np.int64)
    if idx[-1] != hi:
        idx = np.append(idx, hi)
    return idx


def terrain_samples(terrain: Terrain, step: int = 1,
                    region: tuple[float, float, float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(row indices, column indices) of the height samples the mesh uses: every `step`th within
    the grid samples covering `region` (all of it when None); either may be empty (region off it)."""
    c_lo, c_hi, r_lo, r_hi = 0, terrain.columns - 1, 0, terrain.rows - 1
    if region is not None:
        x0, z0, x1, z1 = region
        ox, oz = terrain.origin
        s = terrain.spacing
        c_lo = max(c_lo, int(np.floor((x0 - ox) / s)))
        c_hi = min(c_hi, int(np.ceil((x1 - ox) / s)))
        r_lo = max(r_lo, int(np.floor((z0 - oz) / s)))
        r_hi = min(r_hi, int(np.ceil((z1 - oz) / s)))
        if c_hi <= c_lo or r_hi <= r_lo:
            return np.empty(0, np.int64), np.empty(0, np.int64)
    return sample_indices(terrain.rows, step, r_lo, r_hi), sample_indices(terrain.columns, step, c_lo, c_hi)


def _tile_spans(n: int) -> list[tuple[int, int]]:
    """Inclusive (start, end) positions into n samples, TILE_QUADS quads each, sharing edges."""
    return [(a, min(a + TILE_QUADS, n - 1)) for a in range(0, n - 1, TILE_QUADS)]


def terrain_vertex_count(terrain: Terrain, step: int = 1, region=None) -> int:
    """Vertices `terrain_tiles` writes (tile edges are shared, so counted in each tile)."""
    rows, cols = terrain_samples(terrain, step, region)
    if len(rows) < 2 or len(cols) < 2:
        return 0
    return sum((r1 - r0 + 1) * (c1 - c0 + 1) for r0, r1 in _tile_spans(len(rows))
               for c0, c1 in _tile_spans(len(cols)))


def terrain_tile_count(terrain: Terrain, step: int = 1, region=None) -> int:
    rows, cols = terrain_samples(terrain, step, region)
    if len(rows) < 2 or len(cols) < 2:
        return 0
    return len(_tile_spans(len(rows))) * len(_tile_spans(len(cols)))


def grid_indices(rows: int, cols: int) -> np.ndarray:
    """Two triangles per grid cell, counter-clockwise seen from above (+Y), uint32."""
    r, c = np.meshgrid(np.arange(rows - 1, dtype=np.uint32), np.arange(cols - 1, dtype=np.uint32),
                       indexing="ij")
    a = (r * cols + c).ravel()
    b, d = a + 1, a + cols
    return np.stack([a, d, b, b, d, d + 1], axis=1).ravel()


def hole_cells(terrain: Terrain, rows: np.ndarray, cols: np.ndarray) -> np.ndarray | None:
    """Per cell of the decimated grid (rows × cols sample indices): True where a hole sample lies
    anywhere in it, edges included (None for a terrain without holes)."""
    if terrain.holes is None:
        return None
    r0, r1, c0, c1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
    mask = (terrain.holes[r0:r1, c0:c1] > 0).astype(np.int64)
    if not mask.any():
        return None
    acc = np.zeros((mask.shape[0] + 1, mask.shape[1] + 1), np.int64)  # sums of the mask up to (r, c)
    acc[1:, 1:] = mask.cumsum(axis=0).cumsum(axis=1)
    a, b = rows - r0, cols - c0
    lo_r, hi_r = a[:-1, None], a[1:, None] + 1
    lo_c, hi_c = b[None, :-1], b[None, 1:] + 1
    return (acc[hi_r, hi_c] - acc[lo_r, hi_c] - acc[hi_r, lo_c] + acc[lo_r, lo_c]) > 0


def blended_colours(weights: np.ndarray, colours: list[tuple[int, int, int]]) -> np.ndarray:
    """(…, 3) display colour from (…, L) uint8 weights: weighted layer colours, bare ground where
    the weights add to less than 255, normalised where they add to more (as the viewport)."""
    w = weights.astype(np.float64) / 255.0
    total = w.sum(axis=-1) if w.shape[-1] else np.zeros(w.shape[:-1])
    colour = w @ (np.asarray(colours, np.float64).reshape(-1, 3) / 255.0) if w.shape[-1] else \
        np.zeros(w.shape[:-1] + (3,))
    colour /= np.maximum(total, 1.0)[..., None]
    colour += np.clip(1.0 - total, 0.0, 1.0)[..., None] * BARE_COLOUR
    return colour


def terrain_tiles(terrain: Terrain, step: int = 1, region=None,
                  conventions: Conventions = IDENTITY, uvs: bool = False) -> Iterator[IndexedMesh]:
    """The terrain as tiles of at most TILE_QUADS × TILE_QUADS quads of the decimated grid, row by
    row: positions, normals (of the decimated surface), display colours and layer weights; with
    `uvs`, texture coordinates spanning each tile once (`terrain_bake.tile_uvs`). The triangles of
    cells with a hole in them are left out (their vertices stay, unused)."""
    rows, cols = terrain_samples(terrain, step, region)
    if len(rows) < 2 or len(cols) < 2:
        return
    holes = hole_cells(terrain, rows, cols)
    names = tuple(layer.name for layer in terrain.layers)
    layer_colours = [layer.color for layer in terrain.layers]
    x_all = terrain.origin[0] + cols * terrain.spacing
    z_all = terrain.origin[1] + rows * terrain.spacing
    for ti, (r0, r1) in enumerate(_tile_spans(len(rows))):
        for tj, (c0, c1) in enumerate(_tile_spans(len(cols))):
            # one decimated sample of margin each side, so edge normals match the neighbour tile's
            m0, m1 = max(0, r0 - 1), min(len(rows) - 1, r1 + 1)
            n0, n1 = max(0, c0 - 1), min(len(cols) - 1, c1 + 1)
            rr, cc = rows[m0:m1 + 1], cols[n0:n1 + 1]
            h = terrain.heights[np.ix_(rr, cc)].astype(np.float64)
            dz, dx = np.gradient(h, z_all[m0:m1 + 1], x_all[n0:n1 + 1])
            rs = slice(r0 - m0, r0 - m0 + r1 - r0 + 1)
            cs = slice(c0 - n0, c0 - n0 + c1 - c0 + 1)
            dx, dz, h = dx[rs, cs], dz[rs, cs], h[rs, cs]
            normal = np.stack([-dx, np.ones_like(dx), -dz], axis=-1)
            normal /= np.linalg.norm(normal, axis=-1, keepdims=True)
            nr, nc = h.shape
            pos = np.empty((nr, nc, 3), np.float32)
            pos[..., 0] = x_all[c0:c1 + 1][None, :]
            pos[..., 1] = terrain.heights[np.ix_(rows[r0:r1 + 1], cols[c0:c1 + 1])]
            pos[..., 2] = z_all[r0:r1 + 1][:, None]
            sub = np.ix_(rows[r0:r1 + 1], cols[c0:c1 + 1])
            weights = np.empty((nr, nc, len(names)), np.uint8)
            for k, layer in enumerate(terrain.layers):
                weights[..., k] = layer.weights[sub]
            indices = grid_indices(nr, nc)
            if holes is not None:
                kept = ~holes[r0:r1, c0:c1].reshape(-1)
                indices = np.ascontiguousarray(indices.reshape(-1, 6)[kept].reshape(-1))
            tile = IndexedMesh(
                f"terrain_{ti}_{tj}", pos.reshape(-1, 3), normal.reshape(-1, 3).astype(np.float32),
                indices,
                blended_colours(weights, layer_colours).reshape(-1, 3).astype(np.float32),
                weights.reshape(nr * nc, len(names)), names,
                {"tile": [ti, tj], "rows": [int(rows[r0]), int(rows[r1])],
                 "columns": [int(cols[c0]), int(cols[c1])], "step": int(step)})
            if uvs:
                from model.interchange.terrain_bake import tile_uvs

                tile = replace(tile, uvs=tile_uvs(tile.positions))
            yield in_frame(tile, conventions)
