"""Non-destructive edit layers over a terrain's heights (as Unreal's landscape edit layers).

What every reader sees (`Terrain.heights_grid`: viewport, foliage, spawners, exports) is the
composite: the base grid (what is sculpted and imported) plus, bottom to top, each visible edit
layer's float32 deltas times its opacity, summed in float64 and rounded once to float32.

Why deltas added in a fixed order and rounded once: the composite is then a pure function of the
base and of the visible layers, so switching a layer off gives exactly (bit for bit) the heights
of the stack without it, and switching it on again the heights it had; a layer keeps its shape
when what lies beneath it changes (it adds to it, where stored output heights would hide it); and
a layer takes memory and disk only in the tiles it touches (its deltas are tiled like the heights,
zeros elsewhere). Where the sum is zero and the base is zero, the base's zero is kept (-0 + 0 would
be +0), so a stack of layers with no deltas somewhere gives the base there bit for bit.

Procedural layers (erosion, terrace, stamp) keep their parameters and store their result as deltas
over the heights beneath them when they ran; running them again recomputes them over what is
beneath them then. A change recomposites only the area it touches (a brush's window, a layer's
tiles). Where no layer holds a tile of deltas the composite equals the base bit for bit, so a
scene stores the base only in those tiles (`model.formats.edit_layers_file`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

import numpy as np

from model.events import Event
from model.formats import tiles as tiling
from model.paged import PagedGrid, PagedPlane
from model.terrain import Terrain

KINDS = ("sculpt", "stamp", "erosion", "terrace", "spline")
MAX_EDIT_LAYERS = 64
PREFIX_TILES = 16  # tiles of sums beneath the selected layer kept for brushes (2 MiB each)


class EditLayerError(ValueError):
    """An edit-layer operation that cannot be done (a name taken or unknown, a bad value)."""


def delta_grid(rows: int, columns: int, tile: int | None = None) -> PagedGrid:
    """Zero deltas that take memory only in the tiles written."""
    return PagedGrid.zeros(1, rows, columns, np.float32, tiling.TILE if tile is None else tile)


class EditLayer:
    """A named layer of height deltas: its kind, parameters, visibility and opacity (0..1)."""

    def __init__(self, name: str, kind: str, deltas: PagedGrid, params: dict | None = None,
                 visible: bool = True, opacity: float = 1.0, uid: int = 0) -> None:
        if kind not in KINDS:
            raise EditLayerError(f"unknown edit layer kind {kind!r} (expected one of {', '.join(KINDS)})")
        self.name, self.kind, self.deltas = name, kind, deltas
        self.params = dict(params or {})
        self.visible, self.opacity, self.uid = bool(visible), float(opacity), int(uid)

    def __repr__(self) -> str:
        return (f"EditLayer({self.name!r}, {self.kind!r}, visible={self.visible}, "
                f"opacity={self.opacity}, tiles={len(self.held_tiles())})")

    @property
    def plane(self) -> PagedPlane:
        return PagedPlane(self.deltas, 0)

    def read(self, rows: slice, cols: slice) -> np.ndarray:
        return self.deltas.read(rows, cols, 0)

    def held_tiles(self) -> set[tuple[int, int]]:
        return self.deltas.held_tiles()

    def meets(self, rows: slice, cols: slice) -> bool:
        """Whether any tile of deltas lies in the window."""
        grid = self.deltas
        return any(grid.holds(i, j) for i, j in tiling.tiles_meeting(rows, cols, grid.tile))

    @property
    def shows(self) -> bool:
        return self.visible and self.opacity > 0.0


def grid_from(window: np.ndarray, rows: slice, cols: slice, shape: tuple[int, int],
              tile: int | None = None) -> PagedGrid:
    """Deltas that hold `window` at (rows, cols) and zeros elsewhere: only tiles with a value not
    zero are made."""
    grid = delta_grid(*shape, tile)
    for i, j in tiling.tiles_meeting(rows, cols, grid.tile):
        rs, cs = tiling.tile_slices(i, j, *shape, grid.tile)
        a0, a1 = max(rows.start, rs.start), min(rows.stop, rs.stop)
        b0, b1 = max(cols.start, cs.start), min(cols.stop, cs.stop)
        block = window[a0 - rows.start:a1 - rows.start, b0 - cols.start:b1 - cols.start]
        if np.any(block != 0):
            grid.write(slice(a0, a1), slice(b0, b1), block, 0)
    return grid


def tile_windows(keys: Iterable[tuple[int, int]], shape: tuple[int, int],
                 tile: int) -> list[tuple[slice, slice]]:
    return [tiling.tile_slices(i, j, *shape, tile) for i, j in sorted(keys)]


class EditStack:
    """The base heights and the edit layers of one terrain, bottom first; keeps the terrain's
    heights equal to their composite. `selected` names the layer sculpt brushes paint into (None:
    the base)."""

    def __init__(self, terrain: Terrain, base: np.ndarray | PagedPlane | None = None,
                 layers: list[EditLayer] | None = None) -> None:
        self.terrain = terrain
        self.layers: list[EditLayer] = list(layers or [])
        self.base = base
        self.selected: str | None = None
        self.changed = Event()  # (): layers added, removed, moved or their properties changed
        # per tile, the float64 sum of the base and the layers below the selected one: a brush
        # then adds only the layers from the selected one up, however many lie beneath it
        self._prefix_key: tuple | None = None
        self._prefix: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()
        self._versions: dict[object, int] = {}  # a layer's uid (or "base") → writes announced
        if self.layers and self.base is None:
            self.base = self._snapshot()
        terrain.edits = self

    # ---- queries -----------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        return self.terrain.rows, self.terrain.columns

    @property
    def tile(self) -> int:
        return self.layers[0].deltas.tile if self.layers else tiling.TILE

    def names(self) -> list[str]:
        return [la.name for la in self.layers]

    def index(self, name: str) -> int:
        for k, layer in enumerate(self.layers):
            if layer.name == name:
                return k
        raise EditLayerError(f"no edit layer named {name!r}" + (
            f" (the terrain has: {', '.join(self.names())})" if self.layers else " (the terrain has none)"))

    def layer(self, name: str) -> EditLayer:
        return self.layers[self.index(name)]

    def get(self, name: str) -> EditLayer | None:
        return next((la for la in self.layers if la.name == name), None)

    def _snapshot(self) -> np.ndarray | PagedPlane:
        """The terrain's heights now, as a base that later writes to either leave the other."""
        grid = self.terrain.heights_grid()
        if isinstance(grid, PagedPlane):
            return PagedPlane(grid.grid.snapshot(), grid.plane)
        return grid.copy()

    def composite(self, rows: slice, cols: slice, upto: int | None = None) -> np.ndarray:
        """float32 composite of the window over the base and the visible layers below `upto`
        (all of them by default): what `Terrain.heights_grid` holds there when upto is None."""
        if self.base is None:
            return self.terrain.read_heights(rows, cols)
        base = np.asarray(self.base[rows, cols], np.float32)
        start, acc = 0, None
        below = self._selected_index() if upto is None else None
        if below:  # the same sums in the same order, the ones beneath kept from the last call
            start, acc = below, self._prefix_window(rows, cols, below)
        if acc is None:
            start, acc = 0, base.astype(np.float64)
        self._add_layers(acc, rows, cols, start, upto)
        out = acc.astype(np.float32)
        # a zero keeps the base's sign (-0 + 0 would be +0); adding zeros changes nothing else,
        # so skipping a layer's empty tiles or not gives the same bits
        np.copyto(out, base, where=(out == 0) & (base == 0))
        return out

    def _add_layers(self, acc: np.ndarray, rows: slice, cols: slice, start: int, stop: int | None) -> None:
        for layer in self.layers[start:stop]:
            if not layer.shows or not layer.meets(rows, cols):
                continue
            d = layer.read(rows, cols)
            if layer.opacity != 1.0:
                d = d * np.float64(layer.opacity)
            np.add(acc, d, out=acc)

    def _selected_index(self) -> int | None:
        if self.selected is None:
            return None
        return next((k for k, la in enumerate(self.layers) if la.name == self.selected), None)

    def _prefix_window(self, rows: slice, cols: slice, below: int) -> np.ndarray | None:
        """float64 sums of the base and layers[:below] over the window, from per-tile sums kept
        while nothing beneath the selected layer changes; None for a window too big to keep."""
        keys = list(tiling.tiles_meeting(rows, cols, self.tile))
        if len(keys) > PREFIX_TILES // 2:
            return None
        key = (below, self._versions.get("base", 0), tuple(
            (la.uid, la.visible, la.opacity, id(la.deltas), self._versions.get(la.uid, 0))
            for la in self.layers[:below]))
        if key != self._prefix_key:
            self._prefix.clear()
            self._prefix_key = key
        out = np.empty((rows.stop - rows.start, cols.stop - cols.start), np.float64)
        for i, j in keys:
            rs, cs = tiling.tile_slices(i, j, *self.shape, self.tile)
            tile = self._prefix.get((i, j))
            if tile is None:
                tile = np.asarray(self.base[rs, cs], np.float32).astype(np.float64)
                self._add_layers(tile, rs, cs, 0, below)
                self._prefix[(i, j)] = tile
                if len(self._prefix) > PREFIX_TILES:
                    self._prefix.popitem(last=False)
            else:
                self._prefix.move_to_end((i, j))
            a0, a1 = max(rows.start, rs.start), min(rows.stop, rs.stop)
            b0, b1 = max(cols.start, cs.start), min(cols.stop, cs.stop)
            out[a0 - rows.start:a1 - rows.start, b0 - cols.start:b1 - cols.start] = \
                tile[a0 - rs.start:a1 - rs.start, b0 - cs.start:b1 - cs.start]
        return out

    def _written(self) -> None:
        """The sculpt target (the selected layer, or the base) may have been written."""
        target = self._selected_index()
        who = "base" if target is None else self.layers[target].uid
        self._versions[who] = self._versions.get(who, 0) + 1

    def beneath(self, name: str, rows: slice, cols: slice) -> np.ndarray:
        """The composite of everything below the named layer (what it was computed over)."""
        return self.composite(rows, cols, self.index(name))

    # ---- keeping the terrain's heights the composite -----------------------------------
    def recomposite(self, rows: slice, cols: slice) -> None:
        """Write the composite of the window into the terrain's heights, tile by tile, and
        announce the window once."""
        if rows.stop <= rows.start or cols.stop <= cols.start:
            return
        self._written()
        if self.base is not None:
            heights = self.terrain.heights_grid()
            if (rows.stop - rows.start) * (cols.stop - cols.start) <= self.tile * self.tile:
                heights[rows, cols] = self.composite(rows, cols)  # a brush's window: in one go
                self.terrain.heights_changed.emit(rows, cols)
                return
            for i, j in tiling.tiles_meeting(rows, cols, self.tile):
                rs, cs = tiling.tile_slices(i, j, *self.shape, self.tile)
                r = slice(max(rows.start, rs.start), min(rows.stop, rs.stop))
                c = slice(max(cols.start, cs.start), min(cols.stop, cs.stop))
                heights[r, c] = self.composite(r, c)
        self.terrain.heights_changed.emit(rows, cols)

    def base_replaced(self, rows: slice, cols: slice) -> None:
        """The base was written in the window (not through a brush: an import): recomposite it."""
        self._versions["base"] = self._versions.get("base", 0) + 1
        selected, self.selected = self.selected, None  # so `recomposite` counts the base as written
        try:
            self.recomposite(rows, cols)
        finally:
            self.selected = selected

    def recomposite_tiles(self, keys: Iterable[tuple[int, int]]) -> None:
        keys = set(keys)
        if not keys:
            return
        for rows, cols in tile_windows(keys, self.shape, self.tile):
            if self.base is not None:
                self.terrain.heights_grid()[rows, cols] = self.composite(rows, cols)
        # one announcement over the box the tiles span: a view refreshes once
        windows = tile_windows(keys, self.shape, self.tile)
        self.terrain.heights_changed.emit(
            slice(min(w[0].start for w in windows), max(w[0].stop for w in windows)),
            slice(min(w[1].start for w in windows), max(w[1].stop for w in windows)))

    # ---- layer operations (each returns what its undo needs) ----------------------------
    def check_name(self, name: object, allow: str | None = None) -> str:
        if not isinstance(name, str) or not name.strip():
            raise EditLayerError("an edit layer needs a name")
        name = name.strip()
        if len(name) > 128 or any(ord(ch) < 32 for ch in name):
            raise EditLayerError(f"edit layer name {name!r} must be at most 128 printable characters")
        if name != allow and self.get(name) is not None:
            raise EditLayerError(f"an edit layer named {name!r} already exists")
        return name

    def new_layer(self, name: str, kind: str, params: dict | None = None) -> EditLayer:
        """A layer with no deltas, not yet in the stack (see `insert`)."""
        name = self.check_name(name)
        uid = max((la.uid for la in self.layers), default=-1) + 1
        return EditLayer(name, kind, delta_grid(*self.shape), params, uid=uid)

    def insert(self, layer: EditLayer, index: int | None = None) -> int:
        """Put `layer` in the stack (on top by default); its index."""
        if len(self.layers) >= MAX_EDIT_LAYERS:
            raise EditLayerError(f"a terrain holds at most {MAX_EDIT_LAYERS} edit layers")
        self.check_name(layer.name)
        if layer.deltas.shape != self.shape:
            raise EditLayerError("the layer's deltas do not match the height grid")
        if self.base is None:
            self.base = self._snapshot()
        index = len(self.layers) if index is None else max(0, min(index, len(self.layers)))
        self.layers.insert(index, layer)
        self.recomposite_tiles(layer.held_tiles() if layer.shows else ())
        self.changed.emit()
        return index

    def add_layer(self, name: str, kind: str, params: dict | None = None,
                  index: int | None = None) -> EditLayer:
        layer = self.new_layer(name, kind, params)
        self.insert(layer, index)
        return layer

    def remove(self, name: str) -> tuple[int, EditLayer]:
        """Take the layer out; (its index, the layer) for `insert` to put it back."""
        k = self.index(name)
        layer = self.layers.pop(k)
        if self.selected == name:
            self.selected = None
        self.recomposite_tiles(layer.held_tiles() if layer.shows else ())
        if not self.layers:
            self.base = None  # the heights are the base again, bit for bit
        self.changed.emit()
        return k, layer

    def set_visible(self, name: str, visible: bool) -> bool:
        """Show or hide a layer; what it was."""
        layer = self.layer(name)
        old = layer.visible
        if old != bool(visible):
            layer.visible = bool(visible)
            self.recomposite_tiles(layer.held_tiles())
            self.changed.emit()
        return old

    def set_opacity(self, name: str, opacity: float) -> float:
        if not (isinstance(opacity, (int, float)) and 0.0 <= opacity <= 1.0):
            raise EditLayerError(f"opacity must be between 0 and 1, got {opacity!r}")
        layer = self.layer(name)
        old = layer.opacity
        if old != float(opacity):
            layer.opacity = float(opacity)
            if layer.visible:
                self.recomposite_tiles(layer.held_tiles())
            self.changed.emit()
        return old

    def rename(self, old: str, new: str) -> str:
        layer = self.layer(old)
        layer.name = self.check_name(new, allow=old)
        if self.selected == old:
            self.selected = layer.name
        self.changed.emit()
        return old

    def move(self, name: str, to_index: int) -> int:
        """Move a layer to `to_index`; where it was."""
        k = self.index(name)
        to_index = max(0, min(int(to_index), len(self.layers) - 1))
        if k != to_index:
            layer = self.layers.pop(k)
            self.layers.insert(to_index, layer)
            self.recomposite_tiles(layer.held_tiles() if layer.shows else ())
            self.changed.emit()
        return k

    def replace_deltas(self, name: str, deltas: PagedGrid, params: dict | None = None
                       ) -> tuple[PagedGrid, dict]:
        """Give a layer new deltas (and parameters); the old ones, for undo."""
        layer = self.layer(name)
        if deltas.shape != self.shape:
            raise EditLayerError("the deltas do not match the height grid")
        old = layer.deltas, layer.params
        touched = layer.held_tiles() | deltas.held_tiles()
        layer.deltas = deltas
        if params is not None:
            layer.params = dict(params)
        if layer.shows:
            self.recomposite_tiles(touched)
        self.changed.emit()
        return old

    def write_window(self, name: str, rows: slice, cols: slice, values: np.ndarray) -> np.ndarray:
        """Write a window of a layer's deltas (tiles it leaves all zeros are not made) and
        recomposite only that window; the values it held, for undo."""
        layer = self.layer(name)
        old = layer.read(rows, cols)
        values = np.asarray(values, np.float32)
        grid = layer.deltas
        for i, j in tiling.tiles_meeting(rows, cols, grid.tile):
            rs, cs = tiling.tile_slices(i, j, *self.shape, grid.tile)
            r = slice(max(rows.start, rs.start), min(rows.stop, rs.stop))
            c = slice(max(cols.start, cs.start), min(cols.stop, cs.stop))
            block = values[r.start - rows.start:r.stop - rows.start, c.start - cols.start:c.stop - cols.start]
            if grid.holds(i, j) or np.any(block != 0):
                grid.write(r, c, block, 0)
        # sums kept beneath a selected layer above this one are stale now
        self._versions[layer.uid] = self._versions.get(layer.uid, 0) + 1
        if layer.shows:
            self.recomposite(rows, cols)
        return old

    def collapse(self, name: str) -> tuple[int, EditLayer, dict]:
        """Fold a layer into the base (its deltas times its opacity, where visible) and remove it;
        (index, layer, the base tiles it changed as {key: values}) for undo."""
        layer = self.layer(name)
        before: dict[tuple[int, int], np.ndarray] = {}
        if layer.shows:
            for key in sorted(layer.held_tiles()):
                rows, cols = tiling.tile_slices(*key, *self.shape, self.tile)
                base = np.array(self.base[rows, cols], np.float32)
                before[key] = base
                d = layer.read(rows, cols).astype(np.float64)
                if layer.opacity != 1.0:
                    d *= layer.opacity
                acc = base.astype(np.float64)
                np.add(acc, d, out=acc, where=d != 0)
                self.base[rows, cols] = acc.astype(np.float32)
        self._versions["base"] = self._versions.get("base", 0) + 1
        k, layer = self.remove(name)
        return k, layer, before

    def uncollapse(self, index: int, layer: EditLayer, before: dict) -> None:
        """Undo `collapse`: the base as it was, the layer back in place."""
        if self.base is None:
            self.base = self._snapshot()
        for key, values in before.items():
            rows, cols = tiling.tile_slices(*key, *self.shape, self.tile)
            self.base[rows, cols] = values
        self._versions["base"] = self._versions.get("base", 0) + 1
        self.insert(layer, index)
        self.recomposite_tiles(before)

    # ---- sculpting through the stack ----------------------------------------------------
    def sculpt_grid(self) -> np.ndarray | PagedPlane:
        """What a sculpt brush writes: the base, or the selected layer's deltas."""
        if self.selected is None or self.get(self.selected) is None:
            return self.base
        return self.layer(self.selected).plane

    def sculpt_values(self, rows: slice, cols: slice, old: np.ndarray, new: np.ndarray) -> np.ndarray:
        """The values the sculpt target takes for the composite to go from `old` to `new`."""
        change = np.asarray(new, np.float64) - np.asarray(old, np.float64)
        layer = None if self.selected is None else self.get(self.selected)
        if layer is not None and layer.opacity > 0.0 and layer.opacity != 1.0:
            change /= layer.opacity
        current = np.asarray(self.sculpt_grid()[rows, cols], np.float64)
        return (current + change).astype(np.float32)

    def active(self) -> bool:
        return bool(self.layers)


def stack_of(terrain: Terrain, create: bool = False) -> EditStack | None:
    """The terrain's edit stack (made empty with `create`, else None when it has none)."""
    if terrain.edits is None and create:
        EditStack(terrain)
    return terrain.edits


def describe(stack: EditStack | None) -> list[dict]:
    """Each layer as plain values, bottom first (for `--json` and the panel)."""
    if stack is None:
        return []
    return [{"name": la.name, "kind": la.kind, "visible": la.visible, "opacity": la.opacity,
             "tiles": len(la.held_tiles()), "params": dict(la.params)} for la in stack.layers]
