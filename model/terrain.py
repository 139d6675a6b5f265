"""Terrain: a float32 heightfield with named uint8 paint layers, and vectorised sampling."""

from __future__ import annotations

import numpy as np

from model import portable_math as pmath
from model.events import Event
from model.formats.tiles import TILE
from model.layer_material import NO_MATERIAL, LayerMaterial
from model.paged import PagedGrid, PagedPlane, int_sum, take


def blank_weights(rows: int, columns: int) -> PagedPlane:
    """Zero weights for a new layer that take memory only where painted: tiles of zeros, each
    made when first written (a scene saves them as the format stores every layer's tiles)."""
    return PagedPlane(PagedGrid.zeros(1, rows, columns, np.uint8, TILE), 0)


class TerrainLayer:
    """A named paint layer: weights 0..255 on the height grid, and a display colour (r, g, b).

    A weight-blended layer (the default) takes weight from the other weight-blended layers where
    it is painted, so their weights add up to at most 255; one that is not is painted on its own
    (Unreal's non-weight-blended layers).

    `weights` may be given as a `PagedPlane` (a scene opened without reading its tiles): the
    array is then assembled on first use of `weights`; `grid()` and `read()` reach the tiles
    without assembling anything."""

    def __init__(self, name: str, color: tuple[int, int, int], weights: np.ndarray | PagedPlane,
                 weight_blend: bool = True, material: LayerMaterial = NO_MATERIAL) -> None:
        self.name = name
        self.color = color
        self.weight_blend = weight_blend
        self.material = material  # texture maps; the colour is their tint and the fallback
        self._paged: PagedPlane | None = weights if isinstance(weights, PagedPlane) else None
        self._weights: np.ndarray | None = None if self._paged is not None else weights

    @property
    def weights(self) -> np.ndarray:
        """uint8, shape (rows, columns); a paged layer is assembled here, once."""
        if self._weights is None:
            self._weights = self._paged.grid.full()[self._paged.plane]
            self._paged = None
        return self._weights

    @weights.setter
    def weights(self, value: np.ndarray) -> None:
        self._weights, self._paged = value, None

    @property
    def paged(self) -> PagedPlane | None:
        """The tiles this layer still reads from (None once its array exists)."""
        return self._paged

    def grid(self) -> np.ndarray | PagedPlane:
        """What to slice by windows (`grid[rows, cols]`, read or written) without assembling."""
        if self._weights is None and self._paged.grid.is_full:  # a sibling assembled the layers
            return self.weights
        return self._weights if self._weights is not None else self._paged

    def read(self, rows: slice, cols: slice) -> np.ndarray:
        """A copy of the window's weights."""
        return np.array(self.grid()[rows, cols], copy=True)

    def take(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The weights at rows x cols (ascending index arrays, as `np.ix_`), tile by tile."""
        return take(self.grid(), rows, cols)

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.grid().shape)

    def gather(self, rows, cols) -> np.ndarray:
        """The weights at integer points (rows[k], cols[k]), tile by tile where paged."""
        grid = self.grid()
        if isinstance(grid, PagedPlane):
            return grid.grid.gather(grid.plane, rows, cols)
        return grid[np.asarray(rows, np.int64), np.asarray(cols, np.int64)]

    def painted_count(self) -> int:
        """Samples with any weight: per tile where paged (kept from the opening pass until a tile
        is written), else per 512-row band."""
        grid = self.grid()
        if isinstance(grid, PagedPlane):
            return int(grid.grid.nonzero(grid.plane))
        return sum(int(np.count_nonzero(grid[r:r + 512])) for r in range(0, grid.shape[0], 512))

    def weight_sum(self) -> int:
        """Sum of every weight (0..255 each): per tile where paged, each tile summed once until
        it is written."""
        grid = self.grid()
        if isinstance(grid, PagedPlane):
            return int(grid.grid.total(grid.plane))
        # per 512-row band: each band's sum fits the fast 32-bit loop (see `int_sum`)
        return sum(int_sum(grid[r:r + 512]) for r in range(0, grid.shape[0], 512))

    def __repr__(self) -> str:
        return f"TerrainLayer({self.name!r}, {self.color!r}, weight_blend={self.weight_blend})"


class Terrain:
    """Heights (rows = Z, columns = X) sampled every `spacing` metres from `origin` (x, z).

    `heights` may be given as a `PagedPlane` (tiles mapped from a scene's side files): the
    samples are then read tile by tile as they are touched, edits copy only the tiles they
    write, and the whole array is assembled only if a caller asks for `heights` itself."""

    def __init__(self, heights: np.ndarray | PagedPlane, spacing: float = 1.0,
                 origin: tuple[float, float] = (0.0, 0.0),
                 layers: list[TerrainLayer] | None = None) -> None:
        if isinstance(heights, PagedPlane):
            self._paged: PagedPlane | None = heights
            self._heights: np.ndarray | None = None
            shape = heights.shape
        else:
            self._paged = None
            self._heights = np.ascontiguousarray(heights, dtype=np.float32)
            if self._heights.ndim != 2:
                raise ValueError("terrain heights must be a 2-D grid of at least 2 x 2")
            shape = self._heights.shape
        if min(shape) < 2:
            raise ValueError("terrain heights must be a 2-D grid of at least 2 x 2")
        self._shape = (int(shape[0]), int(shape[1]))
        self.spacing = spacing
        self.origin = origin
        self.layers = [] if layers is None else layers
        if not self.spacing > 0:
            raise ValueError("terrain spacing must be positive")
        self.heights_changed = Event()  # (row_slice, col_slice)
        self.layer_weights_changed = Event()  # (layer_index, row_slice, col_slice)
        self.layers_changed = Event()  # ()
        # the edit layers over the heights (`model.edit_layers.EditStack`); None: the heights are
        # all there is, as in scenes made before edit layers existed
        self.edits = None
        # the hole mask (`model.holes`): 255 where a sample is a hole, None for a terrain without
        self.holes: PagedPlane | None = None
        self.holes_changed = Event()  # (row_slice, col_slice)

    def __repr__(self) -> str:
        return (f"Terrain({self.columns} x {self.rows}, spacing={self.spacing!r}, "
                f"origin={self.origin!r}, layers={[la.name for la in self.layers]!r})")

    # ---- the grid, whole or by windows ---------------------------------------------------
    @property
    def heights(self) -> np.ndarray:
        """float32, shape (rows, columns); paged heights are assembled here, once."""
        if self._heights is None:
            self._heights = self._paged.grid.full()[0]
            self._paged = None
        return self._heights

    @heights.setter
    def heights(self, value: np.ndarray) -> None:
        value = np.ascontiguousarray(value, dtype=np.float32)
        if value.ndim != 2 or min(value.shape) < 2:
            raise ValueError("terrain heights must be a 2-D grid of at least 2 x 2")
        self._heights, self._paged, self._shape = value, None, value.shape

    @property
    def paged_heights(self) -> PagedPlane | None:
        """The tiles the heights still read from (None once the array exists)."""
        return self._paged

    def heights_grid(self) -> np.ndarray | PagedPlane:
        """What to slice by windows (`grid[rows, cols]`, read or written) without assembling."""
        return self._heights if self._heights is not None else self._paged

    def read_heights(self, rows: slice, cols: slice) -> np.ndarray:
        """A float32 copy of the window's heights (tile by tile where they are paged)."""
        return np.array(self.heights_grid()[rows, cols], np.float32, copy=True)

    def take_heights(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The heights at rows x cols (ascending index arrays, as `np.ix_`): a strided read of a
        coarse level touches only the tiles, and the rows of them, that it samples."""
        return take(self.heights_grid(), rows, cols)

    def height_corners(self, i0, j0) -> tuple[np.ndarray, ...]:
        """Heights (float64) at the corners of cells (column i0, row j0): (i0, j0), (i0 + 1, j0),
        (i0, j0 + 1), (i0 + 1, j0 + 1), gathered tile by tile where they are paged."""
        return self._corners(self.heights_grid(), i0, j0)

    # ---- shape -------------------------------------------------------------------------
    @property
    def rows(self) -> int:
        return self._shape[0]

    @property
    def columns(self) -> int:
        return self._shape[1]

    @property
    def size(self) -> tuple[float, float]:
        """World extent in metres along X and Z."""
        return ((self.columns - 1) * self.spacing, (self.rows - 1) * self.spacing)

    def bounds(self) -> tuple[float, float, float, float]:
        x0, z0 = self.origin
        sx, sz = self.size
        return (x0, z0, x0 + sx, z0 + sz)

    def layer_index(self, name: str) -> int | None:
        for i, layer in enumerate(self.layers):
            if layer.name == name:
                return i
        return None

    def layer(self, name: str) -> TerrainLayer | None:
        i = self.layer_index(name)
        return None if i is None else self.layers[i]

    def add_layer(self, name: str, color: tuple[int, int, int],
                  weights: np.ndarray | None = None) -> TerrainLayer:
        if self.layer_index(name) is not None:
            raise ValueError(f"a layer named {name!r} already exists")
        if weights is None:
            weights = blank_weights(*self._shape)  # no memory until painted
        else:
            weights = np.ascontiguousarray(weights, dtype=np.uint8)
            if weights.shape != self._shape:
                raise ValueError("layer weights must match the height grid")
        layer = TerrainLayer(name, tuple(int(c) for c in color), weights)
        self.layers.append(layer)
        self.layers_changed.emit()
        return layer

    # ---- sampling (vectorised; x, z are arrays or scalars) ------------------------------
    def _grid_coords(self, x, z):
        x = np.asarray(x, np.float64)
        z = np.asarray(z, np.float64)
        u = (x - self.origin[0]) / self.spacing
        v = (z - self.origin[1]) / self.spacing
        inside = (u >= 0) & (v >= 0) & (u <= self.columns - 1) & (v <= self.rows - 1)
        inside &= np.isfinite(u) & np.isfinite(v)
        uc = np.clip(np.nan_to_num(u), 0, self.columns - 1)
        vc = np.clip(np.nan_to_num(v), 0, self.rows - 1)
        i0 = np.minimum(np.floor(uc).astype(np.int64), self.columns - 2)
        j0 = np.minimum(np.floor(vc).astype(np.int64), self.rows - 2)
        return inside, i0, j0, uc - i0, vc - j0

    def contains(self, x, z) -> np.ndarray:
        """True where (x, z) lies over the terrain."""
        return self._grid_coords(x, z)[0]

    @staticmethod
    def _corners(grid: np.ndarray | PagedPlane, i0, j0) -> tuple[np.ndarray, ...]:
        """The grid at the four corners of each cell, as float64 (paged grids by tile)."""
        if isinstance(grid, PagedPlane):
            def at(j, i):
                return grid.grid.gather(grid.plane, j, i).astype(np.float64)
        else:
            def at(j, i):
                return grid[j, i].astype(np.float64)
        return at(j0, i0), at(j0, i0 + 1), at(j0 + 1, i0), at(j0 + 1, i0 + 1)

    def _bilinear(self, grid: np.ndarray | PagedPlane, i0, j0, fu, fv) -> np.ndarray:
        h00, h10, h01, h11 = self._corners(grid, i0, j0)
        return (h00 * (1 - fu) * (1 - fv) + h10 * fu * (1 - fv)
                + h01 * (1 - fu) * fv + h11 * fu * fv)

    def height_at(self, x, z) -> np.ndarray:
        """Bilinear height; NaN where there is no ground."""
        inside, i0, j0, fu, fv = self._grid_coords(x, z)
        h = self._bilinear(self.heights_grid(), i0, j0, fu, fv)
        return np.where(inside, h, np.nan)

    def normal_at(self, x, z) -> np.ndarray:
        """Unit surface normal (…, 3) of the bilinear surface; NaN where there is no ground."""
        inside, i0, j0, fu, fv = self._grid_coords(x, z)
        h00, h10, h01, h11 = self._corners(self.heights_grid(), i0, j0)
        dhdx = ((h10 - h00) * (1 - fv) + (h11 - h01) * fv) / self.spacing
        dhdz = ((h01 - h00) * (1 - fu) + (h11 - h10) * fu) / self.spacing
        n = np.stack([-dhdx, np.ones_like(dhdx), -dhdz], axis=-1)
        n /= np.linalg.norm(n, axis=-1, keepdims=True)
        return np.where(inside[..., None], n, np.nan)

    def slope_at(self, x, z) -> np.ndarray:
        """Surface slope in degrees (0 flat, 90 vertical); NaN where there is no ground."""
        n = self.normal_at(x, z)
        return pmath.degrees(pmath.arccos(np.clip(n[..., 1], -1.0, 1.0)))

    def layer_weight_at(self, name: str, x, z) -> np.ndarray | None:
        """Bilinear weight 0..1 of the layer called `name`; None if no layer has that name."""
        layer = self.layer(name)
        if layer is None:
            return None
        inside, i0, j0, fu, fv = self._grid_coords(x, z)
        w = self._bilinear(layer.grid(), i0, j0, fu, fv) / 255.0
        return np.where(inside, w, 0.0)

    def height_range(self) -> tuple[float, float]:
        if self._heights is None:  # from each tile's range, kept as tiles are read and written
            return self._paged.grid.minmax(0)
        return float(self._heights.min()), float(self._heights.max())
