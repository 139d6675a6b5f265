"""The scene's foliage section: palette as TOML inside the manifest, instances in a side file.

The instance file is named by its checksum, `<stem>.foliage.<crc32>.bin`, like the terrain's side
files, so an interrupted save leaves the previous manifest with the instance file it names; the
stale one is removed once the new manifest is in place. Scenes saved with the older fixed name
`<stem>.foliage.bin` still open, and that file is removed at their next save.

Registered into `model.formats.scene_file` when `model.foliage` is imported. A scene carries its
foliage as `scene.sections["foliage"]`, a `SceneFoliage` (use `foliage_of(scene)`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from model.errors import FormatError
from model.foliage.mesh_files import carried_files
from model.foliage.palette import Palette, palette_from_list, palette_to_list
from model.foliage.store import KIND, SUFFIX, encode_with_crc, load_store
from model.foliage.volume import DEFAULT_CELL_SIZE, FoliageVolume
from model.formats import scene_file
from model.scene import Scene

KEY = "foliage"
_SECTION_KEYS = ("cell_size", "instances", "instances_crc32", "types")


@dataclass
class SceneFoliage:
    """A scene's palette and the volume of instances painted with it."""

    palette: Palette = field(default_factory=Palette)
    volume: FoliageVolume | None = None

    def __post_init__(self) -> None:
        if self.volume is None:
            self.volume = FoliageVolume(self.palette)
        elif self.volume.palette is not self.palette:
            self.volume.palette = self.palette

    def counts(self) -> dict[str, int]:
        """Instances per type name."""
        return self.volume.counts()

    def __len__(self) -> int:
        return len(self.volume)


def foliage_of(scene: Scene, palette: Palette | None = None) -> SceneFoliage:
    """The scene's foliage, created on first use: empty, or with `palette` (e.g. `builtin_palette()`)."""
    section = scene.sections.get(KEY)
    if section is None:
        section = scene.sections[KEY] = SceneFoliage(palette if palette is not None else Palette())
    return section  # type: ignore[return-value]


def write_section(scene: Scene, manifest: Path, files: dict[Path, bytes]) -> dict | None:
    """Hook for `save_scene`: adds the instance file (and the mesh files the scene's folder lacks)
    to `files`, returns the manifest table. The scene itself is left as it is."""
    foliage = scene.sections.get(KEY)
    if foliage is None:
        return None
    # the mesh files travel with the scene, so it opens wherever it is written
    files.update(carried_files(foliage.palette, _mesh_source(scene), manifest.parent))
    data, crc = encode_with_crc(foliage.volume)
    side = scene_file.versioned_side_path(manifest, KIND, data, crc32=crc)
    files[side] = memoryview(data)
    return {
        "cell_size": foliage.volume.cell_size,
        "instances": side.name,
        # the file's own trailing CRC-32 (a CRC over data that ends in its CRC is a constant)
        "instances_crc32": f"{crc:08x}",
        "types": palette_to_list(foliage.palette),
    }


def _mesh_source(scene: Scene) -> Path | None:
    folder = scene.sections[KEY].volume.mesh_folder
    if folder is None and scene.path is not None:
        folder = Path(scene.path).parent
    return None if folder is None else Path(folder)


def section_saved(scene: Scene, manifest: Path) -> None:
    """Hook for `save_scene` after the scene became `manifest`: mesh paths resolve beside it now."""
    foliage = scene.sections.get(KEY)
    if foliage is not None:
        foliage.volume.mesh_folder = manifest.parent


def read_section(scene: Scene, manifest: Path, doc: object) -> None:
    """Hook for `load_scene`: the palette from the manifest, instances re-celled from the side file."""
    doc = scene_file.section_table(manifest, doc, KEY, _SECTION_KEYS)
    if doc is None:
        return
    palette = palette_from_list(doc.get("types", []), manifest, f"{KEY}.types")
    cell_size = doc.get("cell_size", DEFAULT_CELL_SIZE)
    if isinstance(cell_size, bool) or not isinstance(cell_size, (int, float)) or not 0 < cell_size < 1e6:
        raise FormatError(manifest, f"{KEY}.cell_size", f"must be a positive number, got {cell_size!r}")
    volume = FoliageVolume(palette, float(cell_size))
    volume.mesh_folder = manifest.parent
    name = doc.get("instances")
    if name is not None:
        side = scene_file.side_file(manifest, name, f"{KEY}.instances", "foliage instance")
        crc = doc.get("instances_crc32")
        expect = None
        if isinstance(crc, str):
            try:
                expect = int(crc, 16)
            except ValueError:
                raise FormatError(manifest, f"{KEY}.instances_crc32",
                                  f"must be 8 hexadecimal digits, got {crc!r}") from None
        load_store(side, volume, expect_crc=expect)
    scene.sections[KEY] = SceneFoliage(palette, volume)


def register() -> None:
    scene_file.RETIRED_SIDE_SUFFIXES.add(SUFFIX)
    scene_file.SECTION_WRITERS[KEY] = write_section
    scene_file.SECTION_READERS[KEY] = read_section
    scene_file.SECTION_SAVED[KEY] = section_saved
