"""A version 2 scene written tile by tile, for importers of terrains too big to hold whole.

An importer hands over one tile (or one band of tiles) of heights and layer weights at a time;
each is written at once under its position and CRC-32 (`tiles.tile_path`) and dropped, so memory
stays at a tile or a band whatever the terrain's size. `finish` then saves the scene through
`save_scene` over the written tiles, paged: it reads none of them back and writes the manifest
(and sections, such as foliage) last. The bytes are those `save_scene` writes for the same
arrays held whole. Until the manifest is in place nothing is a scene: a cancel or a failure
(`abort`, or leaving the `with` block by an exception) removes every tile this writer created,
and each tile's own write is atomic, so no temp file stays either.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from model.atomic import atomic_write, retarget
from model.checksum import crc32
from model.errors import WriteError
from model.extent import grid_problem
from model.formats import tiles as tiling
from model.layer_material import NO_MATERIAL, LayerMaterial
from model.paged import PagedGrid, PagedPlane, file_identity
from model.scene import Scene
from model.terrain import Terrain, TerrainLayer

# name, colour, weight-blended and, optionally, the layer's material (texture maps, tiling, projection)
Layer = tuple[str, tuple[int, int, int], bool] | tuple[str, tuple[int, int, int], bool, LayerMaterial]


class SceneWriter:
    """Writes the tiles of a `rows` x `columns` terrain beside `path`, then its manifest."""

    def __init__(self, path: str | Path, rows: int, columns: int, spacing: float = 1.0,
                 origin: tuple[float, float] = (0.0, 0.0), tile: int | None = None) -> None:
        self.path = Path(path)
        if self.path.is_dir():  # refused before any tile is written beside it
            raise WriteError(self.path, "cannot write: a folder has that name")
        problem = grid_problem(columns, rows, spacing, origin)  # what the scene reader will check
        if problem is not None:
            raise ValueError(f"terrain {problem[0]}: {problem[1]}")
        self.rows, self.columns = int(rows), int(columns)
        self.spacing, self.origin = float(spacing), (float(origin[0]), float(origin[1]))
        self.tile = tiling.TILE if tile is None else int(tile)
        n_i, n_j = tiling.tile_counts(self.rows, self.columns, self.tile)
        self._files: dict[str, list[list[Path | None]]] = {
            kind: [[None] * n_j for _ in range(n_i)] for kind in ("heights", "layers")}
        self._identities: dict[str, dict] = {"heights": {}, "layers": {}}
        self._ranges: dict[tuple[int, int], list[tuple[float, float]]] = {}
        self._created: list[Path] = []
        self.layers: list[tuple[str, tuple[int, int, int], bool, LayerMaterial]] = []
        self.bytes_written = 0
        self.finished = False

    # ---- the grid ----------------------------------------------------------------------
    @property
    def tile_counts(self) -> tuple[int, int]:
        return tiling.tile_counts(self.rows, self.columns, self.tile)

    def tiles(self) -> Iterator[tuple[int, int, slice, slice]]:
        """(i, j, rows, cols) of every tile, row by row."""
        return tiling.tiles_of(self.rows, self.columns, self.tile)

    def band(self, i: int) -> slice:
        """The grid rows tile row `i` holds."""
        return slice(i * self.tile, min(self.rows, (i + 1) * self.tile))

    def set_layers(self, layers: list[Layer]) -> None:
        """The paint layers, in order; their weights come with `put_layers`/`put_band`."""
        if any(row.count(None) != len(row) for row in self._files["layers"]):
            raise ValueError("layers are declared before their first tile")
        self.layers = [(str(n), tuple(int(c) for c in color), bool(blend),
                        rest[0] if rest else NO_MATERIAL) for n, color, blend, *rest in layers]

    # ---- tiles -------------------------------------------------------------------------
    def _put(self, kind: str, i: int, j: int, data: bytes) -> None:
        if self.finished:
            raise ValueError("the scene is finished")
        if self._files[kind][i][j] is not None:
            raise ValueError(f"{kind} tile {i}, {j} is written already")
        path = tiling.tile_path(self.path, kind, i, j, crc32(data))
        if not _on_disk(path, len(data)):  # same name, same size: those bytes are there already
            self._created.append(path)  # before the write: a failed write leaves nothing either
            try:
                atomic_write(path, data)
            except OSError as e:  # said of the scene being written, not of one of its tiles
                raise retarget(e, self.path) from None
            self.bytes_written += len(data)
        self._files[kind][i][j] = path
        self._identities[kind][(i, j)] = file_identity(os.stat(path))

    def _shape(self, i: int, j: int) -> tuple[int, int]:
        rs, cs = tiling.tile_slices(i, j, self.rows, self.columns, self.tile)
        return rs.stop - rs.start, cs.stop - cs.start

    def put_heights(self, i: int, j: int, heights: np.ndarray) -> None:
        """Tile (i, j) of the heights: float32 of the tile's shape, finite."""
        heights = np.asarray(heights)
        if heights.shape != self._shape(i, j):
            raise ValueError(f"heights tile {i}, {j} must be {self._shape(i, j)}, got {heights.shape}")
        data = np.ascontiguousarray(heights, "<f4")
        lo, hi = float(data.min()), float(data.max())
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"heights tile {i}, {j} holds NaN or infinity")
        self._put("heights", i, j, data.tobytes())
        self._ranges[(i, j)] = [(lo, hi)]

    def put_layers(self, i: int, j: int, weights: np.ndarray) -> None:
        """Tile (i, j) of every layer's weights: uint8 (layers, h, w), in `set_layers` order."""
        weights = np.asarray(weights)
        shape = (len(self.layers), *self._shape(i, j))
        if weights.shape != shape:
            raise ValueError(f"layers tile {i}, {j} must be {shape}, got {weights.shape}")
        if self.layers:
            self._put("layers", i, j, np.ascontiguousarray(weights, np.uint8).tobytes())

    def put_band(self, i: int, heights: np.ndarray, weights: np.ndarray | None = None) -> None:
        """Tile row `i` whole: heights (h, columns) and, with layers, weights (layers, h, columns)."""
        for j in range(self.tile_counts[1]):
            cs = slice(j * self.tile, min(self.columns, (j + 1) * self.tile))
            self.put_heights(i, j, heights[:, cs])
            if self.layers:
                self.put_layers(i, j, weights[:, :, cs])

    # ---- the result --------------------------------------------------------------------
    def _grid(self, kind: str, planes: int, dtype) -> PagedGrid:
        missing = [(i, j) for i, row in enumerate(self._files[kind]) for j, f in enumerate(row) if f is None]
        if missing:
            raise ValueError(f"{len(missing)} {kind} tiles are not written yet (first: {missing[0]})")
        grid = PagedGrid(planes, self.rows, self.columns, dtype, self.tile,
                         [list(row) for row in self._files[kind]], dict(self._identities[kind]))
        return grid

    def heights_terrain(self) -> Terrain:
        """The written heights as a paged terrain (no layers): for sampling ground heights."""
        grid = self._grid("heights", 1, "<f4")
        grid.ranges = dict(self._ranges)
        return Terrain(PagedPlane(grid, 0), self.spacing, self.origin)

    def finish(self, name: str, sections: dict | None = None) -> Scene:
        """Write the manifest (and sections) over the written tiles; the scene, paged."""
        from model.formats.scene_file import save_scene

        try:
            terrain = self.heights_terrain()
            if self.layers:
                lgrid = self._grid("layers", len(self.layers), np.uint8)
                for k, (lname, color, blend, material) in enumerate(self.layers):
                    terrain.layers.append(TerrainLayer(lname, color, PagedPlane(lgrid, k), blend, material))
            scene = Scene(terrain=terrain, name=name, sections=dict(sections or {}))
            save_scene(scene, self.path)
        except BaseException:
            self.abort()
            raise
        scene.file_version = 2
        self.finished = True
        self._created = []
        return scene

    def abort(self) -> None:
        """Remove every tile this writer created (tiles that were there already stay)."""
        for path in self._created:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError:  # a leftover is harmless: the next save of that scene drops it
                pass
        self._created = []

    def __enter__(self) -> SceneWriter:
        """Take the scene's lock for the whole write, and remove what a writer of this scene that
        was killed before its manifest left: with no manifest, no side file of its name is any
        scene's (a killed import to a new name leaves nothing that the next one keeps)."""
        from contextlib import ExitStack

        from model.atomic import make_folder
        from model.scene_lock import scene_lock

        make_folder(self.path.parent, self.path)
        self._stack = ExitStack()
        self._stack.enter_context(scene_lock(self.path))
        try:
            if not self.path.exists():
                remove_orphans(self.path)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, kind, value, tb) -> None:
        try:
            if kind is not None and not self.finished:
                self.abort()
        finally:
            self._stack.close()


def remove_orphans(manifest: Path) -> list[Path]:
    """Side files (and temp files) named for `manifest` while it does not exist: what a write
    killed before its manifest left. Call with the scene's lock held."""
    from model.atomic import remove_stale_temps
    from model.formats.scene_file import _is_scene_file

    removed = remove_stale_temps(manifest.parent, lambda name: _is_scene_file(manifest, name))
    for entry in list(manifest.parent.iterdir()):
        if entry.name != manifest.name and _is_scene_file(manifest, entry.name) and entry.is_file():
            try:
                entry.unlink()
                removed.append(entry)
            except OSError:  # harmless: the next write of this scene tries again
                pass
    return removed


def _on_disk(path: Path, size: int) -> bool:
    from model.formats.scene_file import _on_disk as on_disk

    return on_disk(path, size)
