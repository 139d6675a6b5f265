"""Cutting or filling holes as one edit with what the foliage does about it: shared by the editor's
Holes tool (one drag) and `boscage terrain holes` (its dabs), so both leave the same bytes.

When the edit ends the spawners re-run over the touched ground first (they grow nothing in a hole, so
their own instances in a new hole leave as theirs, and they grow back where one is filled), then the
stored instances still standing in a hole (painted by hand) go. Undo and redo give back the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable

from model.holes import HolePatch, apply_patch, instances_in_holes, paint_holes
from model.scene import Scene
from model.terrain import Terrain


class HoleStroke:
    """The stamps of one hole edit (each the mask window it changed) and, once it ends (`finish`),
    the spawners' re-runs over the touched ground and the stored instances removed from the holes."""

    def __init__(self, terrain: Terrain, volume=None, follow=None) -> None:
        self.terrain, self.volume, self.follow = terrain, volume, follow
        self.patches: list[HolePatch] = []
        self.followed = None  # the spawners' changes (undo, redo), or None
        self.removed = None  # the volume's Removed, or None
        self._finished = False

    def stamp(self, x: float, z: float, radius: float, erase: bool) -> bool:
        """Cut (or fill) the holes within `radius` of (x, z); False when nothing changed."""
        patch = paint_holes(self.terrain, x, z, radius, erase)
        if patch is not None:
            self.patches.append(patch)
        return patch is not None

    def window(self) -> tuple[slice, slice] | None:
        if not self.patches:
            return None
        rows = slice(min(p.rows.start for p in self.patches), max(p.rows.stop for p in self.patches))
        cols = slice(min(p.cols.start for p in self.patches), max(p.cols.stop for p in self.patches))
        return rows, cols

    def finish(self) -> None:
        """The edit ended: the foliage follows the holes (spawners first, so their own instances in
        a new hole leave as theirs, not as ones deleted by hand)."""
        window = self.window()
        if self._finished or window is None:
            return
        self._finished = True
        if self.follow is not None:
            self.followed = self.follow(None, *window)
        if self.volume is not None and self.terrain.holes is not None:
            t, (rows, cols) = self.terrain, window
            # the cells around the window's samples: a hole sample makes each cell it is a corner of a hole
            x0, z0 = t.origin[0] + (cols.start - 1) * t.spacing, t.origin[1] + (rows.start - 1) * t.spacing
            x1, z1 = t.origin[0] + cols.stop * t.spacing, t.origin[1] + rows.stop * t.spacing
            doomed = instances_in_holes(self.volume, t, (x0, z0, x1, z1))
            self.removed = self.volume.remove(doomed) if doomed else None

    @property
    def changed(self) -> int:
        """Mask samples the stamps changed (a sample stamped twice counts each time it changed)."""
        return sum(int((p.old != p.new).sum()) for p in self.patches)

    @property
    def removed_count(self) -> int:
        return 0 if self.removed is None else len(self.removed)

    @property
    def respawned(self) -> int:
        """Spawners whose instances changed."""
        return 0 if self.followed is None else len(self.followed.changes)

    def undo(self) -> None:
        self.finish()
        if self.removed is not None:
            self.volume.restore(self.removed)
        if self.followed is not None:
            self.followed.undo()
        for patch in reversed(self.patches):
            apply_patch(self.terrain, patch, undo=True)

    def redo(self) -> None:
        for patch in self.patches:
            apply_patch(self.terrain, patch)
        if self.followed is not None:
            self.followed.redo()
        if self.removed is not None:  # the same addresses: undo put the records back where they were
            self.removed = self.volume.remove({key: idx for key, (idx, _rec) in self.removed.parts.items()})


def scene_hole_stroke(scene: Scene) -> HoleStroke:
    """An empty hole edit of the scene, its stored foliage and its spawners following."""
    from model.foliage.spawner_section import terrain_follower

    volume = getattr(scene.sections.get("foliage"), "volume", None)
    return HoleStroke(scene.terrain, volume, terrain_follower(scene))


def paint_scene_holes(scene: Scene, dabs: Iterable[tuple[float, float]], radius: float,
                      erase: bool = False) -> HoleStroke:
    """Cut (or with `erase` fill) holes within `radius` metres of each dab, then have the foliage
    follow, as one finished edit (what a drag of the Holes tool through those points does)."""
    stroke = scene_hole_stroke(scene)
    for x, z in dabs:
        stroke.stamp(x, z, radius, erase)
    stroke.finish()
    return stroke
