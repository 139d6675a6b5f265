"""What follows a change of the ground (the composite heights) over a window: the stored foliage standing
there re-grounded (each instance keeps its height above the terrain, as after a sculpt stroke) and the
scene's spawners re-run over it (their instances sit on the new ground; a road or a hole they avoid).

Shared by every edit that changes the composite without a brush: roads and rivers, erosion, terraces,
stamps run from the command line, and showing, hiding, fading, deleting or reordering edit layers.
Capture before the change (`GroundFollow(scene, window)`), call `after()` once it is made; `undo()` and
`redo()` give back the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable

from model.formats import tiles as tiling
from model.reground import FoliageLift
from model.scene import Scene

Window = tuple[slice, slice]


class GroundFollow:
    """The foliage's part of one ground edit over `window` (None: the edit changed no ground)."""

    def __init__(self, scene: Scene, window: Window | None) -> None:
        self.scene, self.window = scene, window
        volume = getattr(scene.sections.get("foliage"), "volume", None)
        self.lift = FoliageLift(scene.terrain, volume) if volume is not None and window is not None else None
        self._pending = self.lift.before(*window) if self.lift is not None else None
        self.followed = None  # the spawners' re-runs (SpawnEdits), or None when nothing changed
        self._grounded = self._done = False

    def after(self) -> GroundFollow:
        """The ground has changed: move the stored instances with it, then re-run the spawners."""
        self.reground()
        return self.respawn()

    def reground(self) -> GroundFollow:
        """The first half of `after`: the stored instances keep their height above the new ground
        (an edit that removes some of them does so between the halves: the lift goes by index)."""
        if self._grounded or self.window is None:
            return self
        self._grounded = True
        if self.lift is not None:
            self.lift.after(self._pending)
            self.lift.seal()
            self._pending = None
        return self

    def respawn(self) -> GroundFollow:
        """The second half of `after`: the spawners re-run over the window."""
        if self._done or self.window is None:
            return self
        self._done = True
        from model.foliage.spawner_section import terrain_follower  # spawners read the splines' layers

        follow = terrain_follower(self.scene)
        if follow is not None:
            self.followed = follow(None, *self.window)
        return self

    @property
    def regrounded(self) -> int:
        return 0 if self.lift is None else self.lift.count

    @property
    def respawned(self) -> int:
        """Spawners whose instances changed."""
        return 0 if self.followed is None else len(self.followed.changes)

    def undo(self) -> None:
        self.undo_respawn()
        self.undo_reground()

    def redo(self) -> None:
        self.redo_reground()
        self.redo_respawn()

    def undo_respawn(self) -> None:
        if self.followed is not None:
            self.followed.undo()

    def undo_reground(self) -> None:
        if self.lift is not None:
            self.lift.undo()

    def redo_reground(self) -> None:
        if self.lift is not None:
            self.lift.redo()

    def redo_respawn(self) -> None:
        if self.followed is not None:
            self.followed.redo()


def union(a: Window | None, b: Window | None) -> Window | None:
    if a is None or b is None:
        return a if b is None else b
    return (slice(min(a[0].start, b[0].start), max(a[0].stop, b[0].stop)),
            slice(min(a[1].start, b[1].start), max(a[1].stop, b[1].stop)))


def tiles_window(keys: Iterable[tuple[int, int]], shape: tuple[int, int], tile: int) -> Window | None:
    """The window spanning the tiles (None for none)."""
    out = None
    for i, j in keys:
        out = union(out, tiling.tile_slices(i, j, *shape, tile))
    return out


def layer_window(terrain, name: str, extra: Iterable[tuple[int, int]] = ()) -> Window | None:
    """The window an edit layer's deltas (and the `extra` tiles) span: where showing, hiding, fading,
    moving, replacing or collapsing it changes the composite; for a road or river also the ground it
    keeps spawners off (showing, hiding or collapsing it changes where they may grow)."""
    from model.spline_edits import clearance_window  # it builds on this module

    stack = terrain.edits
    layer = None if stack is None else stack.get(name)
    keys = set(extra) | (set() if layer is None else layer.held_tiles())
    tile = layer.deltas.tile if layer is not None else stack.tile if stack is not None else tiling.TILE
    return union(tiles_window(keys, (terrain.rows, terrain.columns), tile), clearance_window(terrain, name))
