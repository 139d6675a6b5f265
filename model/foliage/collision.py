"""FoliageCollision: which stored instances are near enough to something to deserve a body.

Bodies are pooled by the caller, so `update` hands back only the difference since the last
call. Instances beyond their type's `activation_radius` of every point have no body: a
projectile fired at a distant tree passes through it (raise the radius for types that need it).

An address names an instance only until its chunk changes. An edit invalidates exactly the bodies
whose address now names another instance: an erased one and every one after it in that chunk
(they shifted down); an append invalidates nothing. `forget_removed` works that out from what
`FoliageVolume.remove` returned; `forget_changed` from the chunks a change announced, by comparing
each body's instance record with what its address holds now (so undo, moves and reapply are covered).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from model.foliage.volume import ChunkKey, FoliageAddress, FoliageVolume, Removed, group_addresses


class FoliageCollision:
    """The set of addresses that currently have a body, kept in step by `update` and `forget`."""

    def __init__(self, volume: FoliageVolume) -> None:
        self.volume = volume
        self.active: set[FoliageAddress] = set()
        # per chunk with bodies: their indices (ascending) and the records they had when given them
        self._held: dict[ChunkKey, tuple[np.ndarray, np.ndarray]] = {}

    def wanted(self, points) -> set[FoliageAddress]:
        """Every stored instance within its type's activation radius of any point.

        `points` are (x, z) or (x, y, z); with y the distance is measured in 3-D.
        """
        pts = np.atleast_2d(np.asarray(points, np.float64))
        out: set[FoliageAddress] = set()
        if pts.size == 0:
            return out
        if pts.shape[1] not in (2, 3):
            raise ValueError("points must be (x, z) or (x, y, z)")
        three_d = pts.shape[1] == 3
        for ftype in self.volume.palette:
            r = ftype.activation_radius
            if ftype.derived or not r > 0:
                continue  # derived types (grass) are never asked
            for p in pts:
                px, pz = p[0], p[2] if three_d else p[1]
                sel = self.volume.query_radius(px, pz, r, [ftype.name])
                for (cell, name), idx in sel.items():
                    if three_d:
                        rec = self.volume.records(cell, name)[idx].astype(np.float64)
                        d = rec[:, :3] - p
                        idx = idx[(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]) + d[:, 2] * d[:, 2] <= r * r]
                    out.update(FoliageAddress(cell, name, int(i)) for i in idx)
        return out

    def update(self, points) -> tuple[list[FoliageAddress], list[FoliageAddress]]:
        """Recompute who has a body near `points`; returns (added, removed), sorted."""
        now = self.wanted(points)
        added = sorted(now - self.active)
        removed = sorted(self.active - now)
        self.active = now
        self._hold()
        return added, removed

    def _hold(self) -> None:
        """Remember which instance each body belongs to (its record), chunk by chunk."""
        self._held = {}
        for key, idx in group_addresses(self.active).items():
            chunk = self.volume.chunk(*key)
            if chunk is not None and len(idx) and idx[-1] < len(chunk):
                self._held[key] = (idx, chunk.records[idx].copy())

    def forget(self, addresses: Iterable[FoliageAddress] | Mapping[ChunkKey, object]) -> None:
        """Call after an erase: the instance that shifted down into an address has no body yet."""
        for (cell, name), idx in group_addresses(addresses).items():
            for i in idx:
                self.active.discard(FoliageAddress(cell, name, int(i)))
            held = self._held.get((cell, name))
            if held is not None:
                keep = ~np.isin(held[0], idx)
                self._held[(cell, name)] = (held[0][keep], held[1][keep])

    def shifted_by(self, removed: Removed) -> list[FoliageAddress]:
        """Bodies a removal invalidates: each removed address that had one, and every body after
        the first removed index of its chunk (that instance moved down), sorted."""
        out = []
        for (cell, name), (idx, _) in removed.parts.items():
            if len(idx) == 0:
                continue
            first = int(np.min(idx))
            out.extend(a for a in self.active if a.cell == cell and a.type == name and a.index >= first)
        return sorted(out)

    def forget_removed(self, removed: Removed) -> list[FoliageAddress]:
        """After `volume.remove` returned `removed`: forget what it invalidated; returns that."""
        stale = self.shifted_by(removed)
        self.forget(stale)
        return stale

    def stale(self, keys: Iterable[ChunkKey] | None = None) -> list[FoliageAddress]:
        """Bodies (in chunks `keys`, or all) whose address no longer names the instance they were
        given to: out of range now, or holding another record. Appends leave every body valid."""
        wanted = self._held if keys is None else {k: self._held[k] for k in set(keys) if k in self._held}
        out: list[FoliageAddress] = []
        for (cell, name), (idx, records) in wanted.items():
            chunk = self.volume.chunk(cell, name)
            n = len(chunk) if chunk is not None else 0
            bad = idx >= n
            inside = np.flatnonzero(~bad)
            if len(inside):
                now = chunk.records[idx[inside]]
                # bit comparison: a moved, erased-over or restored-over slot differs in some field
                same = np.all(now.view(np.uint32) == records[inside].view(np.uint32), axis=1)
                bad[inside[~same]] = True
            out.extend(FoliageAddress(cell, name, int(i)) for i in idx[bad])
        return sorted(out)

    def forget_changed(self, keys: Iterable[ChunkKey] | None = None) -> list[FoliageAddress]:
        """After chunks `keys` changed: forget exactly the bodies that change invalidated; returns them."""
        stale = self.stale(keys)
        self.forget(stale)
        return stale

    def clear(self) -> None:
        self.active.clear()
        self._held = {}
