"""Imported foliage into a scene's volume, as one step an undo command can revert exactly.

Types are matched by name first; a new name becomes a new palette type built from the palette
keys the file carried (its extras), with its mesh: a built-in name as such, geometry from the file
written as a `.glb` beside the scene with its materials and images (when the scene has a folder; a
stand-in otherwise); the variants' file meshes likewise, as `<type>_vK.glb`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from model.errors import FormatError
from model.foliage.foliage_type import FoliageType, foliage_type_from_dict
from model.foliage.section import foliage_of
from model.foliage.volume import Removed, Selection
from model.interchange.geometry import IndexedMesh
from model.interchange.options import ImportedFoliage, check_instances
from model.scene import Scene

STAND_IN = "builtin:bush"


@dataclass
class MergeResult:
    """Exactly what `add_to_scene` changed."""

    added: Selection = field(default_factory=dict)        # chunk -> indices of the new records
    new_types: list[FoliageType] = field(default_factory=list)  # appended to the palette, in order
    counts: dict[str, int] = field(default_factory=dict)  # type -> records added
    mesh_files: list[Path] = field(default_factory=list)  # mesh files written beside the scene
    warnings: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _from_json(value):
    """Palette values back from JSON: "inf" / "-inf" strings (open ranges) as floats."""
    if value in ("inf", "-inf"):
        return math.inf if value == "inf" else -math.inf
    if isinstance(value, dict):
        return {k: _from_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    return value


def _safe_file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "mesh"


def _write_mesh(mesh: IndexedMesh, folder: Path, name: str) -> Path:
    """The geometry as `<folder>/<name>.glb` (a new name when one exists), with its materials and
    their images embedded."""
    from model.atomic import atomic_write
    from model.interchange.gltf import mesh_glb

    stem = _safe_file_name(name)
    target = folder / f"{stem}.glb"
    k = 2
    while target.exists():
        target = folder / f"{stem}_{k}.glb"
        k += 1
    atomic_write(target, mesh_glb(mesh))
    return target


def _new_type(name: str, imported: ImportedFoliage, folder: Path | None, write_meshes: bool,
              result: MergeResult) -> FoliageType:
    doc = imported.extras.get(name)
    ftype = FoliageType(name, STAND_IN)
    if isinstance(doc, dict):
        try:
            ftype = foliage_type_from_dict({**_from_json(doc), "name": name}, None, f"type {name!r}")
        except FormatError as e:
            result.warnings.append(f"{name}: palette keys in the file ignored ({e.reason})")
    mesh = imported.meshes.get(name)
    if isinstance(mesh, str) and mesh.startswith("builtin:"):
        ftype = replace(ftype, mesh=mesh)
    elif isinstance(mesh, IndexedMesh) and mesh.triangle_count:
        if not write_meshes:
            ftype = replace(ftype, mesh=STAND_IN)
            result.warnings.append(f"{name}: the file's mesh is written beside the scene when it is saved")
        elif folder is None:
            ftype = replace(ftype, mesh=STAND_IN)
            result.warnings.append(f"{name}: the scene has no folder yet, so its mesh stands in as "
                                   f"{STAND_IN}; save the scene and import again to keep the file's mesh")
        else:
            path = _write_mesh(mesh, folder, name)
            result.mesh_files.append(path)
            ftype = replace(ftype, mesh=path.name)
    elif not ftype.mesh.startswith("builtin:"):
        ftype = replace(ftype, mesh=STAND_IN)  # a mesh file of the exporting scene, not ours
        result.warnings.append(f"{name}: its mesh file did not travel with the data; stands in as {STAND_IN}")
    if ftype.variants:
        ftype = replace(ftype, variants=_new_variants(name, ftype, doc, imported, folder, write_meshes,
                                                      result))
    if ftype.derived:
        ftype = replace(ftype, storage="stored")
    return ftype


def _new_variants(name: str, ftype: FoliageType, doc, imported: ImportedFoliage, folder: Path | None,
                  write_meshes: bool, result: MergeResult) -> tuple:
    """The new type's variants with each file mesh of the exporting scene replaced: by the geometry
    the file carries, written beside the scene as `<type>_vK.glb` (the type's own mesh file where
    the variant named the same one), else by a stand-in with a warning."""
    original = doc.get("mesh") if isinstance(doc, dict) else None
    carried = imported.variant_meshes.get(name, {})
    out = []
    for k, variant in enumerate(ftype.variants):
        if variant.mesh.startswith("builtin:"):
            out.append(variant)
        elif variant.mesh == original and not ftype.mesh.startswith("builtin:"):
            out.append(replace(variant, mesh=ftype.mesh))  # the type's mesh, written above
        elif isinstance(carried.get(k), IndexedMesh) and carried[k].triangle_count and write_meshes \
                and folder is not None:
            path = _write_mesh(carried[k], folder, f"{name}_v{k}")
            result.mesh_files.append(path)
            out.append(replace(variant, mesh=path.name))
        else:
            out.append(replace(variant, mesh=STAND_IN))
            result.warnings.append(f"{name}: variant {k}'s mesh {variant.mesh!r} did not come along; "
                                   f"stands in as {STAND_IN}")
    return tuple(out)


def add_to_scene(scene: Scene, imported: ImportedFoliage, folder: str | Path | None = None,
                 write_meshes: bool = True) -> MergeResult:
    """Add every imported record to the scene's volume (creating the foliage section and new types
    as needed). `folder` is where new mesh files go: the scene's folder by default; with
    `write_meshes=False` (a dry run) none is written and such types stand in as a built-in mesh."""
    foliage = foliage_of(scene)
    palette, volume = foliage.palette, foliage.volume
    if folder is None and scene.path is not None:
        folder = Path(scene.path).parent
    folder = Path(folder) if folder is not None else None
    result = MergeResult(warnings=list(imported.warnings))
    records = {name: np.ascontiguousarray(rec, np.float32).reshape(-1, 7)
               for name, rec in imported.records.items()}
    for name, rec in records.items():  # all of it checked before anything is added
        check_instances(imported.source or "(imported foliage)", name, rec,
                        lambda k: f"instance {k}")
    for name, rec in records.items():
        if not len(rec):
            continue
        existing = palette.get(name)
        if existing is not None and existing.derived:
            result.warnings.append(f"{name}: a derived type in this palette (never stored); "
                                   f"{len(rec)} instances left out")
            continue
        if existing is None:
            ftype = _new_type(name, imported, folder, write_meshes, result)
            palette.add(ftype)
            result.new_types.append(ftype)
        sel = volume.add(name, rec)
        for key, idx in sel.items():
            result.added[key] = idx
        result.counts[name] = result.counts.get(name, 0) + len(rec)
    return result


def revert(scene: Scene, result: MergeResult) -> Removed:
    """Undo `add_to_scene`: the added records and the new types go; returns what was removed
    (give it to `reapply` to redo the step exactly). Mesh files written stay on disk."""
    foliage = foliage_of(scene)
    removed = foliage.volume.remove(result.added)
    for ftype in reversed(result.new_types):
        foliage.palette.remove(ftype.name)
    return removed


def reapply(scene: Scene, result: MergeResult, removed: Removed) -> None:
    """Redo after `revert`: the same types and the same records at the same addresses."""
    foliage = foliage_of(scene)
    for ftype in result.new_types:
        foliage.palette.add(ftype)
    foliage.volume.restore(removed)
