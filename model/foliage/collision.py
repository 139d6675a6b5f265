"""FoliageCollision: which stored instances are near enough to something to deserve a body.

Bodies are pooled by the caller, so `update` hands back only the difference since the last
call. Instances beyond their type's `activation_radius` of every point have no body: a
projectile fired at a distant tree passes through it (raise the radius for types that need it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from model.foliage.volume import ChunkKey, FoliageAddress, FoliageVolume, group_addresses


class FoliageCollision:
    """The set of addresses that currently have a body, kept in step by `update` and `forget`."""

    def __init__(self, volume: FoliageVolume) -> None:
        self.volume = volume
        self.active: set[FoliageAddress] = set()

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
                        idx = idx[np.einsum("ij,ij->i", d, d) <= r * r]
                    out.update(FoliageAddress(cell, name, int(i)) for i in idx)
        return out

    def update(self, points) -> tuple[list[FoliageAddress], list[FoliageAddress]]:
        """Recompute who has a body near `points`; returns (added, removed), sorted."""
        now = self.wanted(points)
        added = sorted(now - self.active)
        removed = sorted(self.active - now)
        self.active = now
        return added, removed

    def forget(self, addresses: Iterable[FoliageAddress] | Mapping[ChunkKey, object]) -> None:
        """Call after an erase: the instance that shifted down into an address has no body yet."""
        for (cell, name), idx in group_addresses(addresses).items():
            for i in idx:
                self.active.discard(FoliageAddress(cell, name, int(i)))

    def clear(self) -> None:
        self.active.clear()
