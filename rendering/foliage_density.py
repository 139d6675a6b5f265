"""Where the stored foliage is, as a coarse cover grid over the terrain (numpy only, no GL).

Seen from an overview, every chunk is past its cull distance and no instance is drawn; the
terrain shader tints the ground by this grid there instead, so the forest still shows. Each
texel holds the share of its area covered by instance footprints (π (radius × scale)², clamped
to 1) and their mean colour (each type's mesh colour, its upper half: crowns, not trunks), so
conifers read dark green and boulders grey. An edit recomputes only the texels under the cells
it touched.
"""

from __future__ import annotations

import math

import numpy as np

from model.foliage.palette import changed_types

CANOPY = (0.2, 0.33, 0.14)  # a type whose mesh cannot be read
TEXELS_PER_CELL = 4  # 8 m texels for the usual 32 m cells: a clearing or a path still shows
MAX_TEXELS = 2048  # per side; a huge terrain gets coarser texels instead of a huge texture


class FoliageDensity:
    """Cover grid of one scene's stored foliage, following `scene.sections["foliage"]`.

    `cover` is float32 (rows, columns, 4): colour r, g, b and cover share, over the terrain from
    its origin, texel `texel` metres;
    `take_dirty()` returns the texel rectangles changed since the last call (None: all of it).
    """

    def __init__(self, scene) -> None:
        self.scene = scene
        self.volume = None
        self._palette = None
        self.texel = 8.0
        self.cover = np.zeros((1, 1, 4), np.float32)
        self._colours: dict[str, np.ndarray] = {}
        self._dirty: list[tuple[int, int, int, int]] | None = None  # None: everything
        self.texels_updated = 0  # cumulative, for tests and statistics
        self._layout()
        self.bind()

    # ---- following the scene ------------------------------------------------------------
    def bind(self) -> None:
        """Follow the scene's current foliage volume (it may be replaced); rebuild on a change."""
        section = self.scene.sections.get("foliage")
        volume = getattr(section, "volume", None)
        palette = getattr(volume, "palette", None)
        if volume is self.volume and palette is self._palette:
            return
        self.release()
        self.volume, self._palette = volume, palette
        if volume is not None:
            volume.changed.connect(self._on_changed)
        if palette is not None:
            palette.changed.connect(self._on_palette_changed)
        self._seen = changed_types({}, palette)[1]
        self._layout()
        self._dirty = None

    def _on_palette_changed(self) -> None:
        """A type's mesh, extent or storage may have changed: colours and footprints with it, in
        the cells that type has instances in."""
        self._colours.clear()
        changed, self._seen = changed_types(self._seen, self._palette)
        if self._dirty is None or self.volume is None:
            return
        self._on_changed([k for k in self.volume.keys() if k[1] in changed])

    def release(self) -> None:
        if self.volume is not None:
            self.volume.changed.disconnect(self._on_changed)
        if self._palette is not None:
            self._palette.changed.disconnect(self._on_palette_changed)
        self.volume = self._palette = None

    def _layout(self) -> None:
        t = self.scene.terrain
        sx, sz = t.size
        cell = self.volume.cell_size if self.volume is not None else 32.0
        self.texel = max(cell / TEXELS_PER_CELL, max(sx, sz) / MAX_TEXELS, 1e-3)
        self.shape = (max(1, math.ceil(sz / self.texel)), max(1, math.ceil(sx / self.texel)))
        self.cover = np.zeros(self.shape + (4,), np.float32)

    def _on_changed(self, keys) -> None:
        if self._dirty is None:
            return
        for cell, _ in keys:
            x0, z0, x1, z1 = self.volume.cell_box(cell)
            rect = self._texel_rect(x0, z0, x1, z1)
            if rect is not None:
                self._dirty.append(rect)

    def _texel_rect(self, x0: float, z0: float, x1: float, z1: float) -> tuple[int, int, int, int] | None:
        """Texel rows [r0, r1) and columns [c0, c1) meeting a world box, clipped to the grid."""
        ox, oz = self.scene.terrain.origin
        c0 = max(0, math.floor((x0 - ox) / self.texel))
        c1 = min(self.shape[1], math.floor((x1 - ox) / self.texel) + 1)
        r0 = max(0, math.floor((z0 - oz) / self.texel))
        r1 = min(self.shape[0], math.floor((z1 - oz) / self.texel) + 1)
        return (r0, r1, c0, c1) if r1 > r0 and c1 > c0 else None

    def invalidate(self) -> None:
        """Recompute every texel next time (a new GL texture needs all of them)."""
        self._dirty = None

    # ---- computing ------------------------------------------------------------------------
    def take_dirty(self) -> list[tuple[int, int, int, int]] | None:
        """Recompute what changed and return those texel rectangles (None: the whole grid)."""
        self.bind()
        dirty, self._dirty = self._dirty, []
        if dirty is None:
            self._compute(0, self.shape[0], 0, self.shape[1])
            return None
        merged = sorted(set(dirty))
        for rect in merged:
            self._compute(*rect)
        return merged

    def _compute(self, r0: int, r1: int, c0: int, c1: int) -> None:
        """Cover of texels [r0, r1) x [c0, c1) from the instances standing in them, summed per
        occupied texel (memory follows the instances, not the texels: no working grid)."""
        self.texels_updated += (r1 - r0) * (c1 - c0)
        out = self.cover[r0:r1, c0:c1]
        out[...] = np.asarray(CANOPY + (0.0,), np.float32)  # no instance: canopy colour, no cover
        v = self.volume
        if v is None or not len(v.keys()):
            return
        ox, oz = self.scene.terrain.origin
        s = self.texel
        whole = (r0, r1, c0, c1) == (0, self.shape[0], 0, self.shape[1])
        per_type: dict[str, list[np.ndarray]]  # a type's records in chunk order, taken at once
        if whole:  # every chunk, in the order a box query gives them (type, then cell)
            per_type = v.records_by_type()
        else:
            lo, hi = (ox + c0 * s, oz + r0 * s), (ox + c1 * s, oz + r1 * s)
            per_type = {}
            for key, idx in v.query_box(lo, hi).items():
                per_type.setdefault(key[1], []).append(v.chunk(*key).records[idx])
        flats, areas, colours = [], [], []
        for name, chunks in per_type.items():
            ftype = v.palette.get(name) if v.palette is not None else None
            if ftype is not None and not ftype.stored:
                continue
            rec = np.concatenate(chunks)
            radius = v.extent_of(name)[0] or 1.0
            ci = np.floor((rec[:, 0].astype(np.float64) - ox) / s) - c0
            ri = np.floor((rec[:, 2].astype(np.float64) - oz) / s) - r0
            inside = (ci >= 0) & (ci < c1 - c0) & (ri >= 0) & (ri < r1 - r0) & ~np.isnan(rec[:, 1])
            flats.append(ri[inside].astype(np.int64) * (c1 - c0) + ci[inside].astype(np.int64))
            areas.append(math.pi * (radius * np.abs(rec[inside, 6].astype(np.float64))) ** 2)
            colours.append(np.broadcast_to(self.colour_of(name), (len(flats[-1]), 3)))
        if not flats or not sum(len(f) for f in flats):
            return
        texel, which = np.unique(np.concatenate(flats), return_inverse=True)
        area = np.concatenate(areas)
        colour = np.concatenate(colours)
        total = np.bincount(which, area, len(texel))  # in instance order, as the sums always were
        rows, cols = np.divmod(texel, c1 - c0)
        some = total > 0  # a texel whose instances have no footprint keeps the canopy colour
        for k in range(3):
            mean = np.bincount(which, area * colour[:, k], len(texel)) / np.maximum(total, 1e-12)
            out[rows[some], cols[some], k] = mean[some]
        out[rows, cols, 3] = np.minimum(total / (self.texel * self.texel), 1.0)

    def colour_of(self, type_name: str) -> np.ndarray:
        """A type's colour from afar: the mean colour (textures included) of its mesh's upper half."""
        v = self.volume
        ftype = v.palette.get(type_name) if v is not None and v.palette is not None else None
        mesh = ftype.mesh if ftype is not None else ""
        if mesh not in self._colours:
            self._colours[mesh] = np.asarray(CANOPY, np.float64)
            try:
                from rendering.meshes import mesh_for

                folder = getattr(v, "mesh_folder", None) or (
                    self.scene.path.parent if self.scene.path is not None else None)
                found = mesh_for(mesh, folder) if mesh else None
            except Exception:  # unreadable: the renderer reports it; the overlay keeps a canopy green
                found = None
            if found is not None and len(found.vertices):
                y = found.vertices[:, 1]
                self._colours[mesh] = found.surface_colours()[y >= np.median(y)].mean(axis=0)
        return self._colours[mesh]

    def fade(self) -> tuple[float, float]:
        """Distances over which the overlay fades in: where the nearest-culled stored type fades out."""
        v = self.volume
        palette = getattr(v, "palette", None)
        ranges = [t.cull for t in palette if t.stored] if palette is not None else []
        if not ranges:
            return (150.0, 200.0)
        start = min(float(r[0]) for r in ranges)
        end = min(float(max(r[1], r[0] + 1e-3)) for r in ranges)
        return start, max(end, start + 1e-3)
