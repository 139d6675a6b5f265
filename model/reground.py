"""Stored foliage follows sculpted ground: each instance keeps its height above (or into) the terrain.

The volume is used through `query_box`, `at` and `replace` only, so sculpting does not depend on
how foliage is stored. Records keep their first value and their final value, for one undo step.
"""

from __future__ import annotations

import numpy as np

from model.terrain import Terrain


def affected_box(terrain: Terrain, rows: slice, cols: slice) -> tuple[float, float, float, float]:
    """World (x0, z0, x1, z1) whose bilinear ground reads a grid point in the window."""
    sp = terrain.spacing
    x0 = terrain.origin[0] + (cols.start - 1) * sp
    z0 = terrain.origin[1] + (rows.start - 1) * sp
    x1 = terrain.origin[0] + cols.stop * sp
    z1 = terrain.origin[1] + rows.stop * sp
    return x0, z0, x1, z1


class FoliageLift:
    """Re-grounds the instances standing on the windows a stroke changes."""

    def __init__(self, terrain: Terrain, volume) -> None:
        self.terrain = terrain
        self.volume = volume
        self._first: dict = {}  # chunk key → (indices, records before the stroke)
        self._final: dict = {}

    def before(self, rows: slice, cols: slice):
        """Ground heights under the instances near a window, read before it changes."""
        x0, z0, x1, z1 = affected_box(self.terrain, rows, cols)
        selection = self.volume.query_box((x0, z0), (x1, z1))
        if not selection:
            return None
        records = self.volume.at(selection)
        return selection, records, self.terrain.height_at(records[:, 0], records[:, 2])

    def after(self, pending) -> int:
        """Move those instances by the change of ground under them; returns how many moved."""
        if pending is None:
            return 0
        selection, records, ground_before = pending
        ground_after = self.terrain.height_at(records[:, 0], records[:, 2])
        delta = ground_after - ground_before
        moved = np.isfinite(delta) & (delta != 0)
        if not moved.any():
            return 0
        sel, old, offsets = {}, [], 0
        new_parts = []
        for key, idx in selection.items():
            part = slice(offsets, offsets + len(idx))
            offsets += len(idx)
            mask = moved[part]
            if not mask.any():
                continue
            sel[key] = idx[mask]
            rec = records[part][mask].copy()
            old.append((key, idx[mask], rec.copy()))
            rec[:, 1] = (rec[:, 1].astype(np.float64) + delta[part][mask]).astype(np.float32)
            new_parts.append(rec)
        for key, idx, rec in old:
            self._remember(key, idx, rec)
        self.volume.replace(sel, np.concatenate(new_parts))
        return int(moved.sum())

    def _remember(self, key, idx: np.ndarray, rec: np.ndarray) -> None:
        """Keep the first value each instance had in this stroke."""
        if key not in self._first:
            self._first[key] = (idx.copy(), rec.copy())
            return
        known, known_rec = self._first[key]
        fresh = ~np.isin(idx, known)
        if fresh.any():
            all_idx = np.concatenate([known, idx[fresh]])
            all_rec = np.concatenate([known_rec, rec[fresh]])
            order = np.argsort(all_idx, kind="stable")
            self._first[key] = (all_idx[order], all_rec[order])

    def seal(self) -> None:
        """Remember the current records of every moved instance as the redo state."""
        self._final = {key: (idx, self.volume.at({key: idx}).copy()) for key, (idx, _) in self._first.items()}

    @property
    def count(self) -> int:
        return sum(len(idx) for idx, _ in self._first.values())

    def undo(self) -> None:
        self._write(self._first)

    def redo(self) -> None:
        self._write(self._final)

    def _write(self, values: dict) -> None:
        if not values:
            return
        selection = {key: idx for key, (idx, _) in values.items()}
        self.volume.replace(selection, np.concatenate([rec for _, rec in values.values()]))
