"""Editor operations on a scene's foliage that undo needs exactly: type insert/rename/remove and
gizmo transforms. Each returns what it changed so the caller can put it back."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from model import portable_math as pmath
from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.scatter import ReapplyResult
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
    c, s = pmath.cos(angle), pmath.sin(angle)
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


# ---- strokes ---------------------------------------------------------------------------------
class FoliageStroke:
    """The edits of one drag, in order: ("add", type, records, addresses), ("remove", Removed),
    ("reapply", ReapplyResult). Undo walks them backwards, redo forwards."""

    def __init__(self, volume: FoliageVolume) -> None:
        self.volume = volume
        self.ops: list[tuple] = []

    def added(self, type_name: str, records: np.ndarray, addresses: Selection) -> None:
        if len(records):
            self.ops.append(("add", type_name, np.array(records, np.float32, copy=True), addresses))

    def removed(self, removed: Removed) -> None:
        if len(removed):
            self.ops.append(("remove", removed))

    def reapplied(self, result: ReapplyResult) -> None:
        if len(result.old) or len(result.removed):
            self.ops.append(("reapply", result))

    def undo(self) -> None:
        for op in reversed(self.ops):
            if op[0] == "add":
                self.volume.remove(op[3])
            elif op[0] == "remove":
                self.volume.restore(op[1])
            else:
                result: ReapplyResult = op[1]
                self.volume.restore(result.removed)
                self.volume.replace(result.replaced, result.old)

    def redo(self) -> None:
        for op in self.ops:
            if op[0] == "add":
                self.volume.add(op[1], op[2])  # same chunks in the same state: the same addresses
            elif op[0] == "remove":
                self.volume.remove({key: idx for key, (idx, _) in op[1].parts.items()})
            else:
                result = op[1]
                self.volume.replace(result.replaced, result.new)
                self.volume.remove({key: idx for key, (idx, _) in result.removed.parts.items()})

    def touched(self) -> int:
        """Instances this stroke added, removed or rewrote."""
        n = 0
        for op in self.ops:
            n += len(op[2]) if op[0] == "add" else len(op[1]) if op[0] == "remove" \
                else len(op[1].old) + len(op[1].removed)
        return n

    def nbytes(self) -> int:
        """Memory the stroke keeps for undo (records and addresses)."""
        n = 0
        for op in self.ops:
            if op[0] == "add":
                n += op[2].nbytes + sum(v.nbytes for v in op[3].values())
            elif op[0] == "remove":
                n += sum(i.nbytes + r.nbytes for i, r in op[1].parts.values())
            else:
                r = op[1]
                n += r.old.nbytes + r.new.nbytes + sum(v.nbytes for v in r.replaced.values())
                n += sum(i.nbytes + rr.nbytes for i, rr in r.removed.parts.values())
        return n
