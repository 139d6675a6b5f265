"""What an export is asked for, what it reports, and what an import brings in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model.errors import FormatError
from model.interchange.conventions import Conventions

# progress(done, total) -> bool: False cancels (as `model.formats.scene_file.load_scene`).
Progress = Callable[[int, int], bool]


class Cancelled(Exception):
    """The progress callback returned False; nothing was written."""


@dataclass(frozen=True)
class ExportOptions:
    conventions: Conventions = Conventions()
    types: tuple[str, ...] | None = None                     # None: every stored type
    region: tuple[float, float, float, float] | None = None  # x0, z0, x1, z1 in scene metres
    terrain: bool = True
    terrain_step: int = 1                                    # keep every Nth terrain sample
    gpu_instancing: bool = True    # glTF: EXT_mesh_gpu_instancing; False: one plain node per instance
    matrix: bool = False           # CSV/JSON: add a 4x4 matrix per instance

    def __post_init__(self) -> None:
        if not isinstance(self.terrain_step, int) or self.terrain_step < 1:
            raise ValueError(f"terrain step must be a whole number ≥ 1, not {self.terrain_step!r}")
        if self.region is not None:
            if len(self.region) != 4 or not all(np.isfinite(v) for v in self.region):
                raise ValueError("region must be four finite numbers x0, z0, x1, z1")
            x0, z0, x1, z1 = self.region
            if not (x1 > x0 and z1 > z0):
                raise ValueError(f"region {x0}, {z0}, {x1}, {z1} is empty: need x0 < x1 and z0 < z1")


@dataclass
class ExportReport:
    path: Path
    instances: int
    types: dict[str, int]
    terrain_vertices: int
    bytes: int
    warnings: list[str] = field(default_factory=list)  # textures that could not be used

    def to_json(self) -> dict:
        out = {"path": str(self.path), "instances": self.instances, "types": dict(self.types),
               "terrain_vertices": self.terrain_vertices, "bytes": self.bytes}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


@dataclass
class ImportedFoliage:
    records: dict[str, np.ndarray] = field(default_factory=dict)  # type -> (n, 7) float32, scene frame
    meshes: dict[str, object] = field(default_factory=dict)   # type -> its mesh (path or geometry)
    extras: dict[str, dict] = field(default_factory=dict)     # type -> palette keys found in the file
    # type -> variant index -> that variant's geometry, where the file carries it (file meshes)
    variant_meshes: dict[str, dict[int, object]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    source: Path | None = None  # the file read, for errors found once it is read

    @property
    def count(self) -> int:
        return sum(len(r) for r in self.records.values())

    def counts(self) -> dict[str, int]:
        return {name: len(r) for name, r in self.records.items()}


def check_progress(progress: Progress | None, done: int, total: int) -> None:
    """Report progress; raise Cancelled when the callback says stop."""
    if progress is not None and progress(done, total) is False:
        raise Cancelled()


DEFAULT_OPTIONS = ExportOptions()


def check_instances(path, name: str, records: np.ndarray, place_of: Callable[[int], str]) -> None:
    """Refuse, before anything is added to a scene, a type name the scene reader would refuse and
    any instance it could not store (not finite, beyond the scene's range, scale ≤ 0), naming the
    row's place in the file (`place_of(row)`: a line, an index, a node)."""
    from model.foliage.foliage_type import type_name_problem
    from model.foliage.volume import first_bad_instance

    problem = type_name_problem(name)
    if problem is not None:
        raise FormatError(path, place_of(0), problem)
    bad = first_bad_instance(records)
    if bad is not None:
        raise FormatError(path, place_of(bad[0]), f"type {name!r}: {bad[1]}")
