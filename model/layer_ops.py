"""Edits of a terrain's paint layers: add, rename, recolour, reorder, delete — each returns its undo data.

Foliage types filter by layer *name*, so a rename can carry the types along
(`retarget_types`) and a delete can say which types will refuse with "layer missing"
(`types_using_layer`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from model.brush import Brush
from model.layer_material import LayerMaterial
from model.sculpt import TileUndo, union_window, window_influence
from model.terrain import Terrain, TerrainLayer, blank_weights

MAX_NAME = 64
MAX_LAYERS = 256


class LayerError(ValueError):
    """A layer edit that cannot be made (bad or duplicate name, unknown layer, bad index)."""


class RemovedLayer(NamedTuple):
    """A deleted layer and where it stood, so undo puts back the very same object."""

    index: int
    layer: TerrainLayer


# ---- checks -----------------------------------------------------------------------------------
def check_name(terrain: Terrain, name: object, allow: str | None = None) -> str:
    """A usable new layer name (surrounding blanks dropped); `allow` is the layer being renamed."""
    if not isinstance(name, str):
        raise LayerError("a layer name must be text")
    name = name.strip()
    if not name:
        raise LayerError("a layer name cannot be empty")
    if len(name) > MAX_NAME:
        raise LayerError(f"a layer name is at most {MAX_NAME} characters")
    if any(ord(ch) < 32 for ch in name):
        raise LayerError("a layer name cannot hold control characters")
    if name != allow and terrain.layer_index(name) is not None:
        raise LayerError(f"a layer named {name!r} already exists")
    return name


def check_color(color: object) -> tuple[int, int, int]:
    try:
        rgb = tuple(int(c) for c in color)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise LayerError(f"a colour is three numbers 0..255, got {color!r}") from None
    if len(rgb) != 3 or not all(0 <= c <= 255 for c in rgb):
        raise LayerError(f"a colour is three numbers 0..255, got {color!r}")
    return rgb  # type: ignore[return-value]


def index_of(terrain: Terrain, name: str) -> int:
    index = terrain.layer_index(name)
    if index is None:
        raise LayerError(f"no layer named {name!r}")
    return index


def unique_name(terrain: Terrain, base: str = "layer") -> str:
    """`base`, or `base 2`, `base 3`… whichever is free."""
    if terrain.layer_index(base) is None:
        return base
    n = 2
    while terrain.layer_index(f"{base} {n}") is not None:
        n += 1
    return f"{base} {n}"


# ---- edits ------------------------------------------------------------------------------------
def add_layer(terrain: Terrain, name: str, color: tuple[int, int, int], index: int | None = None,
              weights: np.ndarray | None = None) -> int:
    """Insert a new layer (at the end by default); returns its index. Undo: `delete_layer`."""
    name = check_name(terrain, name)
    rgb = check_color(color)
    if len(terrain.layers) >= MAX_LAYERS:
        raise LayerError(f"a terrain holds at most {MAX_LAYERS} layers")
    if weights is None:
        weights = blank_weights(terrain.rows, terrain.columns)  # tiles made only where painted
    else:
        weights = np.ascontiguousarray(weights, dtype=np.uint8)
    if weights.shape != (terrain.rows, terrain.columns):
        raise LayerError(f"layer weights are {weights.shape[1]} x {weights.shape[0]}, expected "
                         f"{terrain.columns} x {terrain.rows} to match the terrain")
    index = len(terrain.layers) if index is None else int(index)
    if not 0 <= index <= len(terrain.layers):
        raise LayerError(f"layer index {index} is out of range")
    insert_layer(terrain, RemovedLayer(index, TerrainLayer(name, rgb, weights)))
    return index


def delete_layer(terrain: Terrain, name: str) -> RemovedLayer:
    """Remove a layer; returns it and its index. Undo: `insert_layer`."""
    index = index_of(terrain, name)
    layer = terrain.layers.pop(index)
    terrain.layers_changed.emit()
    return RemovedLayer(index, layer)


def insert_layer(terrain: Terrain, removed: RemovedLayer) -> None:
    """Put a layer back at its index (the inverse of `delete_layer`)."""
    if terrain.layer_index(removed.layer.name) is not None:
        raise LayerError(f"a layer named {removed.layer.name!r} already exists")
    terrain.layers.insert(removed.index, removed.layer)
    terrain.layers_changed.emit()


def rename_layer(terrain: Terrain, old: str, new: str) -> str:
    """Rename; returns the name actually given (trimmed). Undo: rename back."""
    index = index_of(terrain, old)
    new = check_name(terrain, new, allow=old)
    if new != old:
        terrain.layers[index].name = new
        terrain.layers_changed.emit()
    return new


def recolour_layer(terrain: Terrain, name: str, color: tuple[int, int, int]) -> tuple[int, int, int]:
    """Set the display colour; returns the previous one. Undo: recolour with it."""
    layer = terrain.layers[index_of(terrain, name)]
    rgb = check_color(color)
    old = layer.color
    if rgb != old:
        layer.color = rgb
        terrain.layers_changed.emit()
    return old


def move_layer(terrain: Terrain, name: str, to_index: int) -> int:
    """Move a layer to `to_index`; returns where it was. Undo: move it back there."""
    index = index_of(terrain, name)
    if not 0 <= to_index < len(terrain.layers):
        raise LayerError(f"layer index {to_index} is out of range 0..{len(terrain.layers) - 1}")
    if to_index != index:
        terrain.layers.insert(to_index, terrain.layers.pop(index))
        terrain.layers_changed.emit()
    return index


# ---- foliage types that filter by layer name --------------------------------------------------
def types_using_layer(types: Iterable, name: str) -> list[str]:
    """Names of the foliage types whose layer filter names `name`."""
    return [t.name for t in types if getattr(t, "layer", None) is not None and t.layer.name == name]


def retarget_types(palette, old: str, new: str) -> list:
    """Point every type filtering on layer `old` at `new`; returns the replaced definitions (for undo).

    `palette` needs iteration over types and `replace(type)`; types are frozen dataclasses
    with a `layer` filter that has a `name`.
    """
    replaced = []
    for ftype in list(palette):
        if ftype.layer is not None and ftype.layer.name == old:
            replaced.append(palette.replace(replace(ftype, layer=replace(ftype.layer, name=new))))
    return replaced


def restore_types(palette, definitions: Iterable) -> None:
    """Put back definitions returned by `retarget_types`."""
    for ftype in definitions:
        palette.replace(ftype)


# ---- weight-blended painting ------------------------------------------------------------------
def set_weight_blend(terrain: Terrain, name: str, on: bool) -> bool:
    """Whether painting the layer takes weight from the others; returns the previous setting."""
    layer = terrain.layers[index_of(terrain, name)]
    old = layer.weight_blend
    if bool(on) != old:
        layer.weight_blend = bool(on)
        terrain.layers_changed.emit()
    return old


def set_material(terrain: Terrain, name: str, material: LayerMaterial) -> LayerMaterial:
    """Give the layer a material (texture maps, tiling, projection); returns the previous one."""
    layer = terrain.layers[index_of(terrain, name)]
    old = layer.material
    if material != old:
        layer.material = material
        terrain.layers_changed.emit()
    return old


class LayerPatch(NamedTuple):
    """New weights for one layer's window (the window is shared by every layer of one stamp)."""

    layer: TerrainLayer
    old: np.ndarray
    new: np.ndarray


class BlendedPaint(NamedTuple):
    """One paint stamp: the window and the layers whose weights it changes (the painted one first)."""

    rows: slice
    cols: slice
    layers: list[LayerPatch]


def blend_weights(painted: np.ndarray, others: np.ndarray, raised: np.ndarray) -> np.ndarray:
    """The other weight-blended layers' weights (k, h, w) after `painted` (h, w) got its new
    weights: where `raised`, they shrink in proportion so that all of them add up to at most 255
    (floored, so the sum never passes 255); elsewhere they are kept as they are."""
    others = np.asarray(others, np.uint8)
    total = others.sum(axis=0, dtype=np.int64)
    room = 255 - painted.astype(np.int64)
    over = raised & (total > room)
    if not over.any():
        return others.copy()
    scale = np.where(over, room / np.maximum(total, 1), 1.0)
    shrunk = np.floor(others.astype(np.float64) * scale[None]).astype(np.uint8)
    return np.where(over[None], shrunk, others)


def paint_blended(terrain: Terrain, name: str, delta: np.ndarray, rows: slice, cols: slice,
                  erase: bool = False) -> BlendedPaint | None:
    """Add (or with `erase` remove) `delta` (0..255 per point of the window) of layer `name`; a
    weight-blended layer takes what it gains from the other weight-blended layers there. Reads
    and returns only the window; writes nothing."""
    index = index_of(terrain, name)
    layer = terrain.layers[index]
    old = layer.read(rows, cols)
    step = np.rint(np.asarray(delta, np.float64))
    new = np.clip(old.astype(np.float64) + (-step if erase else step), 0, 255).astype(np.uint8)
    patches = [LayerPatch(layer, old, new)]
    if layer.weight_blend and not erase:
        blended = [other for i, other in enumerate(terrain.layers) if i != index and other.weight_blend]
        if blended:
            before = np.stack([other.read(rows, cols) for other in blended])
            after = blend_weights(new, before, new > old)
            for other, was, now in zip(blended, before, after, strict=True):
                if not np.array_equal(was, now):
                    patches.append(LayerPatch(other, was.copy(), now))
    if all(np.array_equal(p.old, p.new) for p in patches):
        return None
    return BlendedPaint(rows, cols, patches)


def paint_layer_stamp(terrain: Terrain, name: str, brush: Brush, x: float, z: float,
                      erase: bool = False) -> BlendedPaint | None:
    """One brush stamp of Paint (or Erase) Layer: up to 255 × influence of the layer's weight."""
    index_of(terrain, name)
    w = window_influence(terrain, brush, x, z)
    if w is None:
        return None
    rows, cols, influence = w
    return paint_blended(terrain, name, influence * 255.0, rows, cols, erase)


class LayerPaintStroke:
    """One drag of Paint or Erase Layer: the painted layer and the weight-blended layers it took
    weight from, each with the old and new values of the tiles it touched (one undo step).

    Layers are held by identity, so undo after a rename or a move still finds them."""

    def __init__(self, terrain: Terrain, target: str, follow=None) -> None:
        self.terrain = terrain
        self.target = target
        # follow(layer names, rows, cols) at the end of the drag, as TerrainStroke's (spawners re-run)
        self.follow = follow
        self.followed = None
        self._tiles: list[tuple[TerrainLayer, TileUndo]] = []
        self.stamps = 0
        self.touched: tuple[slice, slice] | None = None
        self._sealed = True

    @property
    def tiles(self):
        """The painted layer's tiles (what a one-layer stroke would keep)."""
        return self._tiles[0][1] if self._tiles else TileUndo()

    @property
    def nbytes(self) -> int:
        return sum(t.nbytes for _, t in self._tiles)

    def layers(self) -> list[TerrainLayer]:
        return [layer for layer, _ in self._tiles]

    def _undo_of(self, layer: TerrainLayer):
        for held, tiles in self._tiles:
            if held is layer:
                return tiles
        tiles = TileUndo()
        self._tiles.append((layer, tiles))
        return tiles

    def _emit(self, layer: TerrainLayer, rows: slice, cols: slice) -> None:
        for i, held in enumerate(self.terrain.layers):
            if held is layer:
                self.terrain.layer_weights_changed.emit(i, rows, cols)
                return

    def apply(self, stamp: BlendedPaint | None) -> bool:
        if stamp is None:
            return False
        for patch in stamp.layers:
            self._undo_of(patch.layer).capture(patch.layer.grid(), stamp.rows, stamp.cols)
        for patch in stamp.layers:
            patch.layer.grid()[stamp.rows, stamp.cols] = patch.new
            self._emit(patch.layer, stamp.rows, stamp.cols)
        self._sealed = False
        self.stamps += 1
        self.touched = union_window(self.touched, (stamp.rows, stamp.cols))
        return True

    def finish(self) -> None:
        for layer, tiles in self._tiles:
            tiles.seal(layer.grid())
        if self.follow is not None and self.touched is not None and self.followed is None:
            self.followed = self.follow([layer.name for layer in self.layers()], *self.touched)
        self._sealed = True

    def _write(self, new: bool) -> None:
        for layer, tiles in self._tiles:
            for rows, cols, values in tiles.regions(layer.shape, new):
                layer.grid()[rows, cols] = values
                self._emit(layer, rows, cols)

    def undo(self) -> None:
        if not self._sealed:
            self.finish()
        if self.followed is not None:
            self.followed.undo()
        self._write(new=False)

    def redo(self) -> None:
        self._write(new=True)
        if self.followed is not None:
            self.followed.redo()
