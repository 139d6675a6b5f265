"""Road and river splines put on a scene: an edit layer of kind "spline" (its deltas over the
heights beneath it, its spline in its parameters), the paint layer it names, and the stored
foliage it clears. Shared by the command line and the editor.

The foliage follows the ground the change reshapes (`model.ground_follow`): stored instances beside
the road are re-grounded, the spawners re-run over the old and the new path together (they leave the
new bed as their own instances, so they grow back on the old one when the road moves away), and then
what still stands on the new bed (painted by hand) is cleared.

A change recomputes only the area it reaches: the bounding box of the path's samples that differ
(`model.splines.changed_segments`), cut along the grid's tiles, so moving one point touches the
ground, the paint and the foliage near it. A change returns a `SplineChange` holding only the
windows it wrote and what they held, so undo and redo give back the same bytes.

The painted layer is the spline's own where it paints: a recompute first clears the weights its
previous shape gave (where they were above 0), then raises the layer to the new shape's weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from model import layer_ops
from model.edit_layers import EditLayer, EditLayerError, stack_of
from model.formats import tiles as tiling
from model.ground_follow import GroundFollow
from model.ground_follow import union as union_window
from model.scene import Scene
from model.splines import (
    CLEARANCE,
    Nearest,
    Path,
    Spline,
    SplineError,
    box_of,
    centreline,
    changed_segments,
    core_margin,
    deltas_window,
    inside,
    nearest_grid,
    paint_weights,
    sample_path,
)
from model.terrain import Terrain, TerrainLayer, blank_weights

KIND = "spline"
PAINT_COLOURS = {"road": (122, 112, 98), "river": (60, 110, 170)}
Box = tuple[float, float, float, float]


@dataclass
class SplineChange:
    """What one spline edit did, for undo: the windows of deltas and paint it wrote (old and new
    values), its parameters before and after, the foliage it removed, and what it created."""

    name: str
    old_params: dict | None
    new_params: dict
    deltas: list[tuple[slice, slice, np.ndarray, np.ndarray]] = field(default_factory=list)
    paint: list[tuple[str, slice, slice, np.ndarray, np.ndarray]] = field(default_factory=list)
    removed: object = None  # model.foliage.volume.Removed
    follow: object = None  # model.ground_follow.GroundFollow: instances re-grounded, spawners re-run
    created: EditLayer | None = None
    created_index: int = 0
    paint_created: object = None  # model.layer_ops.RemovedLayer, once undone
    paint_name: str | None = None
    box: Box | None = None  # the area recomputed (metres)

    def windows(self) -> list[tuple[slice, slice]]:
        return [(r, c) for r, c, _, _ in self.deltas]


def spline_of(layer: EditLayer) -> Spline:
    if layer.kind != KIND:
        raise EditLayerError(f"the edit layer {layer.name!r} is a {layer.kind} layer, not a spline")
    return Spline.from_params(layer.params)


def _union(a: Box | None, b: Box | None) -> Box | None:
    if a is None or b is None:
        return a if b is None else b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def grid_window(terrain: Terrain, box: Box) -> tuple[slice, slice] | None:
    """The samples inside a box (metres); None where it misses the terrain."""
    (ox, oz), s = terrain.origin, terrain.spacing
    c0, c1 = max(0, math.ceil((box[0] - ox) / s)), min(terrain.columns, math.floor((box[2] - ox) / s) + 1)
    r0, r1 = max(0, math.ceil((box[1] - oz) / s)), min(terrain.rows, math.floor((box[3] - oz) / s) + 1)
    if c1 <= c0 or r1 <= r0:
        return None
    return slice(r0, r1), slice(c0, c1)


def _pieces(terrain: Terrain, window: tuple[slice, slice] | None, extra_tiles: set, tile: int):
    """The window (and whole extra tiles) cut along the grid's tiles."""
    shape = (terrain.rows, terrain.columns)
    keys = set(extra_tiles)
    if window is not None:
        keys |= set(tiling.tiles_meeting(*window, tile))
    for i, j in sorted(keys):
        rs, cs = tiling.tile_slices(i, j, *shape, tile)
        if window is not None and (i, j) not in extra_tiles:
            rows, cols = window
            rs = slice(max(rows.start, rs.start), min(rows.stop, rs.stop))
            cs = slice(max(cols.start, cs.start), min(cols.stop, cs.stop))
            if rs.stop <= rs.start or cs.stop <= cs.start:
                continue
        yield rs, cs


def apply_spline(scene: Scene, name: str, spline: Spline, full: bool = False) -> SplineChange:
    """Add the spline as edit layer `name` (on top), or reshape the spline layer of that name:
    only where its path changed, or everywhere with `full` (after the ground beneath changed)."""
    spline.check()
    terrain = scene.terrain
    stack = stack_of(terrain, create=True)
    layer = stack.get(name)
    old = None
    if layer is not None:
        if layer.kind != KIND:
            raise EditLayerError(f"the edit layer {name!r} is a {layer.kind} layer, not a spline")
        try:
            old = spline_of(layer)
        except SplineError:
            full = True  # an unreadable old shape: start again everywhere it held deltas
    else:
        stack.check_name(name)
    if spline.paint is not None and terrain.layer(spline.paint) is None:
        layer_ops.check_name(terrain, spline.paint)
    change = SplineChange(name, None if layer is None else dict(layer.params), spline.params())
    if layer is None:
        layer = stack.new_layer(name, KIND, change.new_params)
        change.created, change.created_index = layer, stack.insert(layer)
    index = stack.index(name)

    def beneath(rows: slice, cols: slice) -> np.ndarray:
        return stack.composite(rows, cols, index)

    geometry = ((terrain.rows, terrain.columns), terrain.spacing, terrain.origin)
    new_path = sample_path(spline, beneath, *geometry)
    old_path = sample_path(old, beneath, *geometry) if old is not None else None
    margin = CLEARANCE + core_margin(terrain.spacing)
    if old_path is not None and not full:
        old_segs, new_segs = changed_segments(old_path, new_path)
        box = _union(box_of(old_path, old_segs, margin), box_of(new_path, new_segs, margin))
    else:
        box = _union(box_of(new_path, None, margin),
                     None if old_path is None else box_of(old_path, None, margin))
    change.box = box
    window = None if box is None else grid_window(terrain, box)
    extra = layer.held_tiles() if full else set()
    pieces = list(_pieces(terrain, window, extra, stack.tile))
    span = None
    for piece in pieces:
        span = union_window(span, piece)
    follow = GroundFollow(scene, span)  # reads the ground before it changes
    _reshape(scene, stack, change, spline, old, new_path, old_path, pieces, beneath)
    layer.params = dict(change.new_params)  # the spawners see the new path
    change.follow = follow.reground()
    # the hand-placed foliage on the new bed goes before the spawners re-run, so they decide as
    # where the road came first; their own instances there leave as theirs (not as deleted by hand)
    if spline.clear_foliage and change.box is not None:
        change.removed = _clear_foliage(scene, new_path, change.box)
    follow.respawn()
    stack.changed.emit()
    return change


def _reshape(scene, stack, change, spline, old, new_path, old_path, pieces, beneath) -> None:
    terrain = scene.terrain
    grow = core_margin(terrain.spacing)
    geometry = (terrain.spacing, terrain.origin, grow)
    paint = _paint_layer(terrain, spline, change)
    for rows, cols in pieces:
        near = nearest_grid(new_path, rows, cols, *geometry)
        if near is None:
            values = np.zeros((rows.stop - rows.start, cols.stop - cols.start), np.float32)
        else:
            values = deltas_window(new_path, beneath(rows, cols), near, grow)
        before = stack.write_window(change.name, rows, cols, values)
        if not np.array_equal(before.view(np.uint32), values.view(np.uint32)):
            change.deltas.append((rows, cols, before, values))
        was = (nearest_grid(old_path, rows, cols, *geometry)
               if old_path is not None and old is not None and old.paint else None)
        _repaint(terrain, change, old.paint if old is not None else None, paint, rows, cols, was, near, grow)


def _paint_layer(terrain: Terrain, spline: Spline, change: SplineChange):
    if spline.paint is None:
        return None
    layer = terrain.layer(spline.paint)
    if layer is None:
        layer = TerrainLayer(layer_ops.check_name(terrain, spline.paint), PAINT_COLOURS[spline.type],
                             blank_weights(terrain.rows, terrain.columns))
        layer.weight_blend = False  # the road's paint takes no weight from the ground's layers
        layer_ops.insert_layer(terrain, layer_ops.RemovedLayer(len(terrain.layers), layer))
        change.paint_name = spline.paint
    return layer


def _repaint(terrain: Terrain, change: SplineChange, old_name: str | None, layer, rows: slice,
             cols: slice, was: Nearest | None, near: Nearest | None, grow: float) -> None:
    old_w = paint_weights(was, grow) if was is not None else None
    new_w = paint_weights(near, grow) if near is not None and layer is not None else None
    targets = {old_name} if old_w is not None and old_w.any() else set()
    if new_w is not None and new_w.any():
        targets.add(layer.name)
    for target in sorted(t for t in targets if t is not None):
        paint = terrain.layer(target)
        if paint is None:
            continue
        cur = paint.read(rows, cols)
        out = cur.copy()
        if target == old_name and old_w is not None:
            out[old_w > 0] = 0
        if layer is not None and target == layer.name and new_w is not None:
            np.maximum(out, new_w, out=out)
        if not np.array_equal(out, cur):
            _write_paint(terrain, target, rows, cols, out)
            change.paint.append((target, rows, cols, cur, out))


def _write_paint(terrain: Terrain, name: str, rows: slice, cols: slice, values: np.ndarray) -> None:
    terrain.layer(name).grid()[rows, cols] = values
    terrain.layer_weights_changed.emit(terrain.layer_index(name), rows, cols)


def _clear_foliage(scene: Scene, path: Path, box: Box):
    """Remove the stored instances within the path's clearance that no spawner owns (the spawners'
    re-run takes theirs)."""
    foliage = scene.sections.get("foliage")
    if foliage is None:
        return None
    from model.foliage.spawner_section import KEY, owned_mask

    spawners = scene.sections.get(KEY)
    owners = list(spawners.owned.values()) if spawners is not None else []
    volume = foliage.volume
    selection = volume.query_box((box[0], box[1]), (box[2], box[3]))
    doomed = {}
    for key, idx in selection.items():
        rec = volume.records(*key)[idx]
        hit = inside(path, rec[:, 0].astype(np.float64), rec[:, 2].astype(np.float64), CLEARANCE)
        if hit.any():
            hit &= ~owned_mask(rec, key[1], owners)
        if hit.any():
            doomed[key] = idx[hit]
    return volume.remove(doomed) if doomed else None


def undo_spline(scene: Scene, change: SplineChange) -> None:
    terrain = scene.terrain
    stack = terrain.edits
    if change.follow is not None:
        change.follow.undo_respawn()
    if change.removed is not None:
        scene.sections["foliage"].volume.restore(change.removed)
    if change.follow is not None:
        change.follow.undo_reground()
    for name, rows, cols, old, _new in reversed(change.paint):
        _write_paint(terrain, name, rows, cols, old)
    if change.paint_name is not None:
        change.paint_created = layer_ops.delete_layer(terrain, change.paint_name)
    for rows, cols, old, _new in reversed(change.deltas):
        stack.write_window(change.name, rows, cols, old)
    if change.created is not None:
        stack.remove(change.name)
    else:
        stack.layer(change.name).params = dict(change.old_params)
        stack.changed.emit()


def redo_spline(scene: Scene, change: SplineChange) -> None:
    terrain = scene.terrain
    stack = stack_of(terrain, create=True)
    if change.created is not None:
        stack.insert(change.created, change.created_index)
    for rows, cols, _old, new in change.deltas:
        stack.write_window(change.name, rows, cols, new)
    if change.paint_created is not None:
        layer_ops.insert_layer(terrain, change.paint_created)
    for name, rows, cols, _old, new in change.paint:
        _write_paint(terrain, name, rows, cols, new)
    stack.layer(change.name).params = dict(change.new_params)
    if change.follow is not None:
        change.follow.redo_reground()
    if change.removed is not None:
        scene.sections["foliage"].volume.remove(change.removed.addresses())
    if change.follow is not None:
        change.follow.redo_respawn()
    stack.changed.emit()


def move_point(scene: Scene, name: str, index: int, x: float, z: float,
               y: float | None = None) -> SplineChange:
    """Move one control point of the spline layer `name`: the ground, paint and foliage change
    only near it."""
    layer = scene.terrain.edits.layer(name) if scene.terrain.edits is not None else None
    if layer is None:
        raise EditLayerError(f"no edit layer named {name!r}")
    spline = spline_of(layer)
    if not 0 <= index < len(spline.points):
        raise SplineError(f"the spline {name!r} has no point {index} (it has {len(spline.points)})")
    return apply_spline(scene, name, spline.with_point(index, x, z, y))


# ---- what spawners consult -----------------------------------------------------------------
def exclusion_paths(terrain: Terrain) -> list[tuple[str, Path]]:
    """The visible spline layers' centrelines (no heights: only where they run and how wide)."""
    stack = terrain.edits
    out = []
    for layer in [] if stack is None else stack.layers:
        if layer.kind != KIND or not layer.shows:
            continue
        try:
            spline = spline_of(layer)
        except SplineError:
            continue
        x, z, _y, w, f, segment = centreline(spline, 1.0)
        starts = np.searchsorted(segment, np.arange(len(spline.points) - 1))
        out.append((layer.name, Path(x, z, np.zeros_like(x), w, np.zeros_like(f), segment, starts, spline)))
    return out


def clearance_window(terrain: Terrain, name: str) -> tuple[slice, slice] | None:
    """The samples the spline layer `name` keeps spawners off when shown (its width and the clearance
    beside it, grown by the core margin); None for another kind of layer or an unreadable spline."""
    stack = terrain.edits
    layer = None if stack is None else stack.get(name)
    if layer is None or layer.kind != KIND:
        return None
    try:
        spline = spline_of(layer)
    except SplineError:
        return None
    x, z, _y, w, _f, segment = centreline(spline, 1.0)
    path = Path(x, z, np.zeros_like(x), w, np.zeros_like(w), segment,
                np.searchsorted(segment, np.arange(len(spline.points) - 1)), spline)
    box = box_of(path, None, CLEARANCE + core_margin(terrain.spacing))
    return None if box is None else grid_window(terrain, box)


def on_splines(terrain: Terrain, x: np.ndarray, z: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Per visible spline layer: which points stand on its width or within the clearance beside it
    (the ground a road clears of stored foliage: a spawner grows nothing there either)."""
    return [(name, inside(path, x, z, CLEARANCE)) for name, path in exclusion_paths(terrain)]
