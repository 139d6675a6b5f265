"""The instances an export writes: the scene's stored foliage filtered by type and region, one
chunk (one 32 m cell × one type) at a time, so a million instances never sit in memory twice."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from model.foliage.section import KEY as FOLIAGE_KEY
from model.foliage.variants import colour_shifts, variant_indices
from model.foliage.volume import Cell, FoliageVolume
from model.interchange.options import DEFAULT_OPTIONS, ExportOptions
from model.scene import Scene


class InstanceChunk(NamedTuple):
    """One cell × one type: its records (n, 7) float32 in the scene frame (a view when unfiltered)."""

    type_name: str
    cell: Cell
    records: np.ndarray


def volume_of(scene: Scene) -> FoliageVolume | None:
    """The scene's foliage volume, or None when it has no foliage section (nothing is created)."""
    section = scene.sections.get(FOLIAGE_KEY)
    return None if section is None else section.volume


def selected_types(scene: Scene, options: ExportOptions = DEFAULT_OPTIONS) -> list[str]:
    """The type names an export covers, in a stable order (sorted): every type with stored instances,
    or those `options.types` names. A name that is neither in the palette nor stored is a ValueError."""
    volume = volume_of(scene)
    stored = volume.type_names() if volume is not None else []
    if options.types is None:
        return stored
    known = set(stored) | (set(volume.palette.names()) if volume is not None else set())
    missing = [t for t in options.types if t not in known]
    if missing:
        raise ValueError(f"no foliage type {', '.join(map(repr, missing))} in the scene "
                         f"(known: {', '.join(sorted(known)) or 'none'})")
    return sorted(set(options.types))


def _in_region(volume: FoliageVolume, cell: Cell, region) -> bool | None:
    """True: the whole cell is inside; False: none of it; None: it straddles the edge."""
    if region is None:
        return True
    x0, z0, x1, z1 = region
    cx0, cz0, cx1, cz1 = volume.cell_box(cell)
    if cx1 <= x0 or cx0 >= x1 or cz1 <= z0 or cz0 >= z1:
        return False
    if cx0 >= x0 and cx1 <= x1 and cz0 >= z0 and cz1 <= z1:
        return True
    return None


def _ordered(volume: FoliageVolume, names: list[str]) -> list[tuple[str, Cell]]:
    """(type, cell) of every chunk of the named types, by type then cell (one sort for all)."""
    wanted = set(names)
    return sorted((t, cell) for cell, t in volume.keys() if t in wanted)


def instance_chunks(scene: Scene, options: ExportOptions = DEFAULT_OPTIONS) -> Iterator[InstanceChunk]:
    """Every non-empty chunk of the selected types inside the region (x0 ≤ x < x1, z0 ≤ z < z1),
    type by type, cells in sorted order: the order every writer uses."""
    volume = volume_of(scene)
    if volume is None:
        return
    keys = _ordered(volume, selected_types(scene, options))
    if options.region is None:
        for type_name, cell in keys:
            yield InstanceChunk(type_name, cell, volume.chunk(cell, type_name).records)
        return
    for type_name, cell in keys:
        chunk = volume.chunk(cell, type_name)
        inside = _in_region(volume, cell, options.region)
        rec = chunk.records
        if inside is False:
            continue
        if inside is None:
            x0, z0, x1, z1 = options.region
            x, z = rec[:, 0].astype(np.float64), rec[:, 2].astype(np.float64)
            rec = rec[(x >= x0) & (x < x1) & (z >= z0) & (z < z1)]
        if len(rec):
            yield InstanceChunk(type_name, cell, rec)


def instance_counts(scene: Scene, options: ExportOptions = DEFAULT_OPTIONS) -> list[tuple[str, Cell, int]]:
    """(type, cell, count) of each chunk `instance_chunks` yields, in the same order, without copying
    records (a writer lays out its file from these before streaming the records)."""
    volume = volume_of(scene)
    if volume is None:
        return []
    out = []
    for type_name, cell in _ordered(volume, selected_types(scene, options)):
        chunk = volume.chunk(cell, type_name)
        inside = _in_region(volume, cell, options.region)
        if inside is False:
            continue
        n = len(chunk)
        if inside is None:
            x0, z0, x1, z1 = options.region
            x = chunk.records[:, 0].astype(np.float64)
            z = chunk.records[:, 2].astype(np.float64)
            n = int(np.count_nonzero((x >= x0) & (x < x1) & (z >= z0) & (z < z1)))
        if n:
            out.append((type_name, cell, n))
    return out


def tiled_chunks(scene: Scene, options: ExportOptions = DEFAULT_OPTIONS,
                 tile: int = 8) -> dict[str, tuple[np.ndarray, list[np.ndarray]]]:
    """Every selected type (sorted) with instances inside the region → (cells (m, 2) int64, their
    records) of its chunks, ordered by tile of `tile` × `tile` cells, then by cell: neighbouring
    chunks together, so a writer can group them into colocated nodes. Records are views (copies
    only of cells the region cuts); one pass over the chunk keys, the ordering vectorised."""
    volume = volume_of(scene)
    if volume is None:
        return {}
    names = selected_types(scene, options)
    if options.region is None:
        keys = volume.keys()
        cells_of = [cell for cell, _ in keys]
        types_of = [t for _, t in keys]
        chunk = volume.chunk
        records = [chunk(cell, t).records for cell, t in keys]
    else:
        found = list(instance_chunks(scene, options))
        cells_of = [c.cell for c in found]
        types_of = [c.type_name for c in found]
        records = [c.records for c in found]
    # one lexsort for every chunk (type, tile, cell): no Python sort of 16,000 tuples
    index = {name: k for k, name in enumerate(names)}
    kind = np.array([index.get(t, -1) for t in types_of], np.int64)
    c = np.array(cells_of, np.int64).reshape(-1, 2)
    t = c // tile
    order = np.lexsort((c[:, 1], c[:, 0], t[:, 1], t[:, 0], kind))
    order = order[kind[order] >= 0]  # types not selected sort first: dropped
    kinds = kind[order]
    bounds = np.searchsorted(kinds, np.arange(len(names) + 1))
    out = {}
    for k, name in enumerate(names):
        a, b = int(bounds[k]), int(bounds[k + 1])
        if a < b:
            mine = order[a:b]
            out[name] = (c[mine], [records[i] for i in mine.tolist()])
    return out


@dataclass(frozen=True)
class TypeLook:
    """What decides each instance's look beyond its record, derived from its position hash
    (`model.foliage.variants`, as the viewport draws it): the variant weights and the colour-shift
    ranges of its type."""

    weights: tuple[float, ...] = (1.0,)
    hue: tuple[float, float] = (0.0, 0.0)
    value: tuple[float, float] = (0.0, 0.0)
    meshes: tuple[str, ...] = ("builtin:bush",)

    @property
    def variants(self) -> int:
        return len(self.weights)

    @property
    def shifted(self) -> bool:
        """Whether the type has colour variation at all."""
        return self.hue != (0.0, 0.0) or self.value != (0.0, 0.0)

    def variant_of(self, records: np.ndarray, type_name: str) -> np.ndarray:
        """int32 variant index per record (zeros for a type with one mesh)."""
        if self.variants == 1:
            return np.zeros(len(records), np.int32)
        return variant_indices(records, type_name, self.weights)

    def shifts_of(self, records: np.ndarray, type_name: str) -> np.ndarray:
        """float32 (n, 2) hue shift in degrees and value change per record (zeros without variation)."""
        if not self.shifted:
            return np.zeros((len(records), 2), np.float32)
        return colour_shifts(records, type_name, self.hue, self.value)


def type_look(scene: Scene, name: str) -> TypeLook:
    """The look of type `name` in the scene's palette (one stand-in bush mesh when it has none)."""
    volume = volume_of(scene)
    ftype = volume.palette.get(name) if volume is not None else None
    if ftype is None:
        return TypeLook()
    return TypeLook(tuple(ftype.weights), tuple(ftype.hue), tuple(ftype.value), tuple(ftype.meshes))
