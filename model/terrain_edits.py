"""Procedural edit layers run on a terrain: erosion, terrace and stamps, each computed over the
heights beneath its layer and stored as that layer's deltas (added on top, or recomputed in
place when the layer exists). Shared by the command line and the editor."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from model.edit_layers import EditLayer, EditLayerError, EditStack, stack_of
from model.paged import PagedGrid
from model.terrain import Terrain

Reader = Callable[[slice, slice], np.ndarray]


class Applied(NamedTuple):
    """What `run_layer` changed, for undo: the layer, whether it was new, its old deltas/params."""

    layer: EditLayer
    created: bool
    old: tuple[PagedGrid, dict] | None


def beneath_of(terrain: Terrain, name: str) -> Reader:
    """Heights beneath the named edit layer (all of them where it does not exist yet: it will be
    added on top), window by window."""
    stack = terrain.edits
    if stack is None or stack.get(name) is None:
        return terrain.read_heights
    index = stack.index(name)
    return lambda rows, cols: stack.composite(rows, cols, index)


def mask_of(terrain: Terrain, layer_name: str | None) -> Reader | None:
    """A paint layer's weights as a mask reader (None: no mask)."""
    if layer_name is None:
        return None
    layer = terrain.layer(layer_name)
    if layer is None:
        names = ", ".join(la.name for la in terrain.layers) or "none"
        raise EditLayerError(f"no paint layer named {layer_name!r} to use as a mask "
                             f"(the terrain has: {names})")
    return layer.read


def region_window(terrain: Terrain, region: tuple[float, float, float, float] | None
                  ) -> tuple[slice, slice] | None:
    """The grid window of samples inside the box (x0, z0, x1, z1); None for the whole terrain."""
    if region is None:
        return None
    x0, z0, x1, z1 = region
    (ox, oz), s = terrain.origin, terrain.spacing
    c0, c1 = max(0, math.ceil((x0 - ox) / s)), min(terrain.columns, math.floor((x1 - ox) / s) + 1)
    r0, r1 = max(0, math.ceil((z0 - oz) / s)), min(terrain.rows, math.floor((z1 - oz) / s) + 1)
    if c1 - c0 < 2 or r1 - r0 < 2:
        b = terrain.bounds()
        raise EditLayerError(f"the region {x0:g},{z0:g},{x1:g},{z1:g} holds fewer than 2 x 2 samples of "
                             f"the terrain (which spans {b[0]:g},{b[1]:g},{b[2]:g},{b[3]:g})")
    return slice(r0, r1), slice(c0, c1)


def run_layer(terrain: Terrain, name: str, kind: str, params: dict,
              make: Callable[[Reader], PagedGrid]) -> Applied:
    """Compute the layer's deltas with `make(beneath)` and put them in: a new layer on top, or the
    existing one of that name (which must be of that kind) recomputed in place. Nothing changes
    until the deltas are made, so a failure or a cancel leaves the terrain as it was."""
    stack = terrain.edits
    existing = stack.get(name) if stack is not None else None
    if existing is not None and existing.kind != kind:
        raise EditLayerError(f"the edit layer {name!r} is a {existing.kind} layer, not a {kind} one")
    if existing is None and stack is not None:
        stack.check_name(name)
    deltas = make(beneath_of(terrain, name))
    stack = stack_of(terrain, create=True)
    if existing is not None:
        return Applied(existing, False, stack.replace_deltas(name, deltas, params))
    layer = stack.new_layer(name, kind, params)
    layer.deltas = deltas
    stack.insert(layer)
    return Applied(layer, True, None)


def run_layer_following(scene, name: str, kind: str, params: dict,
                        make: Callable[[Reader], PagedGrid], then: Callable[[], object] | None = None):
    """`run_layer` on the scene's terrain with its foliage following the ground the layer changes
    (stored instances re-grounded, spawners re-run there: `model.ground_follow`); (Applied,
    GroundFollow). `then()` runs before the spawners do (erosion's output layers, which they may read)."""
    from model.ground_follow import GroundFollow, layer_window

    terrain = scene.terrain
    follow: list = []

    def made(beneath: Reader) -> PagedGrid:
        deltas = make(beneath)
        # where the layer held deltas and where it holds them now: read before they are put in
        follow.append(GroundFollow(scene, layer_window(terrain, name, deltas.held_tiles())))
        return deltas

    applied = run_layer(terrain, name, kind, params, made)
    if then is not None:
        then()
    return applied, follow[0].after()


def undo_run(stack: EditStack, applied: Applied) -> None:
    if applied.created:
        stack.remove(applied.layer.name)
    else:
        stack.replace_deltas(applied.layer.name, *applied.old)


OUTPUT_COLOURS = {"flow": (40, 110, 220), "deposition": (196, 170, 110), "wear": (150, 60, 40)}


def write_outputs(terrain: Terrain, outputs: dict, area: tuple[slice, slice],
                  names: list[str], prefix: str = "erosion_") -> list[str]:
    """Put erosion outputs (`model.erosion.run.OutputPlane` by name) into paint layers `<prefix><name>`
    (made as layers that are not weight-blended, so they take no weight from the others); the layers
    written."""
    written = []
    for name in names:
        if name not in outputs:
            raise EditLayerError(f"no erosion output named {name!r} (this run gives: "
                                 f"{', '.join(sorted(outputs)) or 'none'})")
        layer_name = prefix + name
        layer = terrain.layer(layer_name)
        if layer is None:
            layer = terrain.add_layer(layer_name, OUTPUT_COLOURS.get(name, (128, 128, 128)))
            layer.weight_blend = False
        grid = layer.grid()
        for rows, cols, weights in outputs[name].weights():  # block by block: no array of the area
            grid[rows, cols] = weights
        terrain.layer_weights_changed.emit(terrain.layer_index(layer_name), *area)
        written.append(layer_name)
    return written
