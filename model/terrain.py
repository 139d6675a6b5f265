"""Terrain: a float32 heightfield with named uint8 paint layers, and vectorised sampling."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.events import Event


@dataclass
class TerrainLayer:
    """A named paint layer: weights 0..255 on the height grid, and a display colour (r, g, b).

    A weight-blended layer (the default) takes weight from the other weight-blended layers where
    it is painted, so their weights add up to at most 255; one that is not is painted on its own
    (Unreal's non-weight-blended layers)."""

    name: str
    color: tuple[int, int, int]
    weights: np.ndarray  # uint8, shape (rows, columns)
    weight_blend: bool = True


@dataclass
class Terrain:
    """Heights (rows = Z, columns = X) sampled every `spacing` metres from `origin` (x, z)."""

    heights: np.ndarray
    spacing: float = 1.0
    origin: tuple[float, float] = (0.0, 0.0)
    layers: list[TerrainLayer] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.heights = np.ascontiguousarray(self.heights, dtype=np.float32)
        if self.heights.ndim != 2 or min(self.heights.shape) < 2:
            raise ValueError("terrain heights must be a 2-D grid of at least 2 x 2")
        if not self.spacing > 0:
            raise ValueError("terrain spacing must be positive")
        self.heights_changed = Event()  # (row_slice, col_slice)
        self.layer_weights_changed = Event()  # (layer_index, row_slice, col_slice)
        self.layers_changed = Event()  # ()

    # ---- shape -------------------------------------------------------------------------
    @property
    def rows(self) -> int:
        return int(self.heights.shape[0])

    @property
    def columns(self) -> int:
        return int(self.heights.shape[1])

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
            weights = np.zeros(self.heights.shape, np.uint8)
        weights = np.ascontiguousarray(weights, dtype=np.uint8)
        if weights.shape != self.heights.shape:
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

    def _bilinear(self, grid: np.ndarray, i0, j0, fu, fv) -> np.ndarray:
        g = grid
        h00 = g[j0, i0].astype(np.float64)
        h10 = g[j0, i0 + 1].astype(np.float64)
        h01 = g[j0 + 1, i0].astype(np.float64)
        h11 = g[j0 + 1, i0 + 1].astype(np.float64)
        return (h00 * (1 - fu) * (1 - fv) + h10 * fu * (1 - fv)
                + h01 * (1 - fu) * fv + h11 * fu * fv)

    def height_at(self, x, z) -> np.ndarray:
        """Bilinear height; NaN where there is no ground."""
        inside, i0, j0, fu, fv = self._grid_coords(x, z)
        h = self._bilinear(self.heights, i0, j0, fu, fv)
        return np.where(inside, h, np.nan)

    def normal_at(self, x, z) -> np.ndarray:
        """Unit surface normal (…, 3) of the bilinear surface; NaN where there is no ground."""
        inside, i0, j0, fu, fv = self._grid_coords(x, z)
        g = self.heights
        h00 = g[j0, i0].astype(np.float64)
        h10 = g[j0, i0 + 1].astype(np.float64)
        h01 = g[j0 + 1, i0].astype(np.float64)
        h11 = g[j0 + 1, i0 + 1].astype(np.float64)
        dhdx = ((h10 - h00) * (1 - fv) + (h11 - h01) * fv) / self.spacing
        dhdz = ((h01 - h00) * (1 - fu) + (h11 - h10) * fu) / self.spacing
        n = np.stack([-dhdx, np.ones_like(dhdx), -dhdz], axis=-1)
        n /= np.linalg.norm(n, axis=-1, keepdims=True)
        return np.where(inside[..., None], n, np.nan)

    def slope_at(self, x, z) -> np.ndarray:
        """Surface slope in degrees (0 flat, 90 vertical); NaN where there is no ground."""
        n = self.normal_at(x, z)
        return np.degrees(np.arccos(np.clip(n[..., 1], -1.0, 1.0)))

    def layer_weight_at(self, name: str, x, z) -> np.ndarray | None:
        """Bilinear weight 0..1 of the layer called `name`; None if no layer has that name."""
        layer = self.layer(name)
        if layer is None:
            return None
        inside, i0, j0, fu, fv = self._grid_coords(x, z)
        w = self._bilinear(layer.weights, i0, j0, fu, fv) / 255.0
        return np.where(inside, w, 0.0)

    def height_range(self) -> tuple[float, float]:
        return float(self.heights.min()), float(self.heights.max())
