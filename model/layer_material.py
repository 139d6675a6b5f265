"""A paint layer's material: texture maps (paths relative to the scene's folder), repeat size, projection.

A layer without maps draws its flat colour, as scenes before materials did; with an albedo map the
colour is the texture's tint (the texture's mean is shifted to it) and what is drawn wherever the
texture cannot be read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from model.errors import FormatError, is_finite_number

MAP_KINDS = ("albedo", "normal", "roughness", "height")
DEFAULT_TILING = 4.0  # metres of ground one repeat of the textures covers
MIN_TILING, MAX_TILING = 0.05, 10000.0
TEXTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".exr")
MAX_PATH_CHARS = 1024


@dataclass(frozen=True)
class LayerMaterial:
    """Texture maps of one layer (None: not set), the size of one repeat in metres, and whether the
    textures are always projected from the three axes (else only on ground steeper than a threshold)."""

    albedo: str | None = None
    normal: str | None = None
    roughness: str | None = None
    height: str | None = None
    tiling: float = DEFAULT_TILING
    triplanar: bool = False

    def map(self, kind: str) -> str | None:
        return getattr(self, kind)

    def with_map(self, kind: str, path: str | None) -> LayerMaterial:
        if kind not in MAP_KINDS:
            raise ValueError(f"unknown map kind {kind!r}")
        return replace(self, **{kind: path})

    @property
    def textured(self) -> bool:
        """Whether any map is set (an albedo-less layer with a height map still height-blends)."""
        return any(self.map(k) for k in MAP_KINDS)

    def maps(self) -> dict[str, str]:
        return {k: p for k in MAP_KINDS if (p := self.map(k))}


NO_MATERIAL = LayerMaterial()


def check_relative_path(text: object) -> str | None:
    """Why `text` cannot name a texture inside the scene's folder, or None where it can."""
    if not isinstance(text, str) or not text.strip():
        return f"expected a file path relative to the scene's folder, got {text!r}"
    if len(text) > MAX_PATH_CHARS or "\0" in text:
        return "the path is not a usable file name"
    if "\\" in text:
        return f"write {text!r} with '/' between folders"
    p = PurePosixPath(text)
    if p.is_absolute() or (p.parts and p.parts[0].endswith(":")):
        return f"{text!r} must be relative to the scene's folder, not absolute"
    if ".." in p.parts:
        return f"{text!r} leaves the scene's folder ('..' is not allowed)"
    if p.suffix.lower() not in TEXTURE_SUFFIXES:
        return f"{text!r} is not a PNG, JPEG or EXR file name"
    return None


def resolve(folder: Path, relative: str) -> Path:
    """The file a material path names inside `folder` (checked with `check_relative_path` first)."""
    return Path(folder) / PurePosixPath(relative)


def relative_to_folder(folder: Path, file: Path) -> str | None:
    """`file` as a material path relative to `folder`, or None where it lies outside it."""
    try:
        rel = Path(file).resolve().relative_to(Path(folder).resolve())
    except (ValueError, OSError):
        return None
    text = rel.as_posix()
    return text if check_relative_path(text) is None else None


def parse_material(manifest: Path, where: str, entry: dict) -> LayerMaterial:
    """The material keys of one `[[layers]]` entry (all optional); FormatError naming the key."""
    values: dict[str, object] = {}
    for kind in MAP_KINDS:
        if kind in entry:
            why = check_relative_path(entry[kind])
            if why is not None:
                raise FormatError(manifest, f"{where}.{kind}", why)
            values[kind] = entry[kind]
    if "tiling" in entry:
        tiling = entry["tiling"]
        if isinstance(tiling, bool) or not is_finite_number(tiling) or not MIN_TILING <= tiling <= MAX_TILING:
            raise FormatError(manifest, f"{where}.tiling", f"must be metres from {MIN_TILING:g} to "
                              f"{MAX_TILING:g}, got {tiling!r}")
        values["tiling"] = float(tiling)
    if "triplanar" in entry:
        if not isinstance(entry["triplanar"], bool):
            raise FormatError(manifest, f"{where}.triplanar",
                              f"expected true or false, got {entry['triplanar']!r}")
        values["triplanar"] = entry["triplanar"]
    return LayerMaterial(**values)


def material_entry(material: LayerMaterial) -> dict:
    """The keys a save writes for `material`: none for a layer without one (older scenes save as
    they were)."""
    out: dict = dict(material.maps())
    if material.tiling != DEFAULT_TILING:
        out["tiling"] = material.tiling
    if material.triplanar:
        out["triplanar"] = True
    return out
