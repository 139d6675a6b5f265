"""Editor operations on a scene's foliage that undo needs exactly: type insert/rename/remove and
gizmo transforms. Each returns what it changed so the caller can put it back."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.volume import ChunkKey, FoliageVolume, Removed, Selection
from model.terrain import Terrain


# ---- palette ----------------------------------------------------------------------------------
def insert_type(palette: Palette, ftype: FoliageType, index: int | None = None) -> None:
    """Add `ftype` at `index` (the end when None); names stay unique."""
    names = palette.names()
    if ftype.name in names:
        raise ValueError(f"the palette already has a type named {ftype.name!r}")
    types = list(palette)
    types.insert(len(types) if index is None else max(0, min(index, len(types))), ftype)
    _reorder(palette, types)


def _reorder(palette: Palette, types: list[FoliageType]) -> None:
    palette._types = {t.name: t for t in types}
    palette.changed.emit()


def unique_name(palette: Palette, base: str) -> str:
    """`base`, or `base 2`, `base 3`… whichever the palette does not have yet."""
    if base not in palette:
        return base
    i = 2
    while f"{base} {i}" in palette:
        i += 1
    return f"{base} {i}"


def remove_type(palette: Palette, volume: FoliageVolume, name: str) -> tuple[int, FoliageType, Removed]:
    """Remove a type and all its instances; returns (its index, the type, the removed instances)."""
    index = palette.index_of(name)
    removed = volume.remove(type_selection(volume, name))
    ftype = palette.remove(name)
    return index, ftype, removed


def restore_type(palette: Palette, volume: FoliageVolume, index: int, ftype: FoliageType,
                 removed: Removed) -> None:
    """Exact inverse of `remove_type`."""
    insert_type(palette, ftype, index)
    volume.restore(removed)


def type_selection(volume: FoliageVolume, name: str) -> Selection:
    """Every instance of one type."""
    return {key: np.arange(len(chunk)) for key, chunk in volume.chunks(name)}


def rename_type(palette: Palette, volume: FoliageVolume, old: str, new: str) -> None:
    """Rename a type in place (keeping its palette position) and move its chunks to the new name."""
    if new in palette:
        raise ValueError(f"the palette already has a type named {new!r}")
    types = [t.renamed(new) if t.name == old else t for t in palette]
    removed = volume.remove(type_selection(volume, old))
    for _key, (_, records) in removed.parts.items():
        volume.add(new, records)  # one chunk's records share its cell: same order, same chunk
    _reorder(palette, types)


# ---- gizmo transforms -------------------------------------------------------------------------
def transform_records(records: np.ndarray, pivot: tuple[float, float], offset: tuple[float, float] = (0, 0),
                      angle: float = 0.0, factor: float = 1.0, terrain: Terrain | None = None) -> np.ndarray:
    """Records rotated by `angle` radians about world up through `pivot` (x, z), moved by `offset`
    and scaled by `factor`; with a terrain, each keeps its height above (or sink into) the ground."""
    rec = np.asarray(records, np.float64)
    out = rec.copy()
    dx, dz = rec[:, 0] - pivot[0], rec[:, 2] - pivot[1]
    c, s = np.cos(angle), np.sin(angle)
    # the same rotation a record's yaw applies (R_y): x' = x cos + z sin, z' = -x sin + z cos
    out[:, 0] = pivot[0] + dx * c + dz * s + offset[0]
    out[:, 2] = pivot[1] - dx * s + dz * c + offset[1]
    out[:, 3] = rec[:, 3] + angle
    out[:, 6] = rec[:, 6] * factor
    if terrain is not None:
        before = terrain.height_at(rec[:, 0], rec[:, 2])
        after = terrain.height_at(out[:, 0], out[:, 2])
        lift = np.where(np.isfinite(before) & np.isfinite(after), after - before, 0.0)
        out[:, 1] = rec[:, 1] + lift
    return out.astype(np.float32)


def selection_records(volume: FoliageVolume, selection: Mapping[ChunkKey, np.ndarray]) -> np.ndarray:
    parts = [volume.records(*key)[np.asarray(idx, np.int64)] for key, idx in selection.items()]
    return np.concatenate(parts) if parts else np.empty((0, 7), np.float32)


def selection_size(selection: Mapping[ChunkKey, np.ndarray]) -> int:
    return int(sum(len(v) for v in selection.values()))


def add_by_type(volume: FoliageVolume, removed: Removed, records: np.ndarray) -> Selection:
    """Add `records` (in the order of `removed.records()`) back under their types; the new addresses."""
    added: Selection = {}
    start = 0
    by_type: dict[str, list[np.ndarray]] = {}
    for (_, name), (idx, _) in removed.parts.items():
        by_type.setdefault(name, []).append(records[start:start + len(idx)])
        start += len(idx)
    for name, parts in by_type.items():
        for key, idx in volume.add(name, np.concatenate(parts)).items():
            added[key] = np.concatenate([added[key], idx]) if key in added else idx
    return added
