"""The instances an export writes: the scene's stored foliage filtered by type and region, one
chunk (one 32 m cell × one type) at a time, so a million instances never sit in memory twice."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from model.foliage.section import KEY as FOLIAGE_KEY
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


def type_records(scene: Scene, options: ExportOptions = DEFAULT_OPTIONS) -> dict[str, list[np.ndarray]]:
    """Every selected type (sorted) with instances inside the region → its chunks' records in cell
    order: what `instance_chunks` yields, grouped by type without a Python object per chunk (views,
    copies only of cells the region cuts)."""
    volume = volume_of(scene)
    if volume is None:
        return {}
    names = selected_types(scene, options)
    if options.region is None:
        by_type = volume.records_by_type()  # one pass over the chunks, cells sorted per type
        return {name: by_type[name] for name in names if name in by_type}
    out: dict[str, list[np.ndarray]] = {}
    for chunk in instance_chunks(scene, options):
        out.setdefault(chunk.type_name, []).append(chunk.records)
    return out
