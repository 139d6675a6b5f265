"""Foliage and terrain in and out of engines: glTF, USD, CSV and JSON.

`export_scene` and `read_foliage` dispatch on the file's suffix; each format's module is imported
only when used, so `pxr` is needed for USD alone.
"""

from __future__ import annotations

from pathlib import Path

from model.errors import FormatError
from model.interchange.conventions import ENGINE_PRESETS, Conventions
from model.interchange.options import (
    DEFAULT_OPTIONS,
    Cancelled,
    ExportOptions,
    ExportReport,
    ImportedFoliage,
    Progress,
)
from model.scene import Scene

# suffix -> what it is
FORMATS: dict[str, str] = {
    ".glb": "glTF 2.0 binary",
    ".gltf": "glTF 2.0 (JSON + .bin)",
    ".usda": "USD text",
    ".usdc": "USD binary (crate)",
    ".usdz": "USD zip package",
    ".csv": "CSV of instances",
    ".json": "JSON of instances",
}


def format_of(path: str | Path) -> str:
    """The lower-case suffix of `path`, or ValueError naming the formats known."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{Path(path).name}: unknown format {suffix or '(no suffix)'!r} "
                         f"(known: {', '.join(FORMATS)})")
    return suffix


def export_scene(scene: Scene, path: str | Path, options: ExportOptions = DEFAULT_OPTIONS,
                 progress: Progress | None = None) -> ExportReport:
    """Write the scene's terrain and foliage to `path` in the format its suffix names (atomic:
    a cancelled or failed export leaves any previous file untouched)."""
    path = Path(path)
    suffix = format_of(path)
    if suffix in (".glb", ".gltf"):
        from model.interchange.gltf import write_gltf
        return write_gltf(scene, path, options, progress)
    if suffix in (".usda", ".usdc", ".usdz"):
        from model.interchange.usd import write_usd
        return write_usd(scene, path, options, progress)
    from model.interchange.tabular import write_tabular
    return write_tabular(scene, path, options, progress)


def read_foliage(path: str | Path, progress: Progress | None = None) -> ImportedFoliage:
    """Foliage instances from a glTF, USD, CSV or JSON file, in the scene frame; FormatError on a
    bad file."""
    path = Path(path)
    try:
        suffix = format_of(path)
    except ValueError as e:
        raise FormatError(path, None, str(e).split(": ", 1)[1]) from None
    if not path.is_file():
        raise FormatError(path, None, "file not found")
    if suffix in (".glb", ".gltf"):
        from model.interchange.gltf_reader import read_gltf_foliage as read
    elif suffix in (".usda", ".usdc", ".usdz"):
        from model.interchange.usd import read_usd_foliage as read
    else:
        from model.interchange.tabular import read_tabular as read
    imported = read(path, progress)
    imported.source = path
    return imported


__all__ = ["ENGINE_PRESETS", "FORMATS", "Cancelled", "Conventions", "ExportOptions", "ExportReport",
           "ImportedFoliage", "export_scene", "format_of", "read_foliage"]
