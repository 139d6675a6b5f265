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

from model.terrain import Terrain, TerrainLayer

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
        weights = np.zeros(terrain.heights.shape, np.uint8)
    weights = np.ascontiguousarray(weights, dtype=np.uint8)
    if weights.shape != terrain.heights.shape:
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
