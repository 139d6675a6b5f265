"""A scene's layer texture files when it is saved into another folder: copied beside the new
manifest under the same relative paths, each atomically, before the manifest is written.

A texture the scene cannot read where it is now (missing, or a link out of its folder) is not
copied: the manifest keeps naming it, as it did, and the next open warns about it. A target file
that already holds other bytes is never overwritten unless the caller says so (another scene in
that folder may use it).
"""

from __future__ import annotations

import filecmp
import shutil
from dataclasses import dataclass
from pathlib import Path

from model.atomic import atomic_write
from model.errors import FormatError, WriteError, refuse_link_outside
from model.layer_material import resolve
from model.scene import Scene


@dataclass(frozen=True)
class TextureCopy:
    """One map file to bring along: its path in the manifest, where it is and where it goes."""

    relative: str
    source: Path
    target: Path

    def conflicts(self) -> bool:
        """Whether a different file stands where the copy goes."""
        return self.target.exists() and not filecmp.cmp(self.source, self.target, shallow=False)

    def needed(self) -> bool:
        """Whether the target lacks these bytes (absent, or another file)."""
        return not self.target.exists() or self.conflicts()


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def texture_copies(scene: Scene, manifest: str | Path) -> tuple[list[TextureCopy], list[str]]:
    """The layer texture files a save of `scene` at `manifest` must copy (none when it stays in its
    folder), and the relative paths it cannot copy (unreadable where they are now), each once."""
    source = scene.textures_folder()
    target = Path(manifest).parent
    if source is None or _same_folder(source, target):
        return [], []
    copies: list[TextureCopy] = []
    skipped: list[str] = []
    seen: set[str] = set()
    for layer in scene.terrain.layers:
        for relative in layer.material.maps().values():
            if relative in seen:
                continue
            seen.add(relative)
            file = resolve(source, relative)
            try:
                refuse_link_outside(source, file, "texture", "scene")
            except FormatError:
                skipped.append(relative)
                continue
            if not file.is_file():
                skipped.append(relative)
                continue
            copies.append(TextureCopy(relative, file, resolve(target, relative)))
    return copies, skipped


def conflicts(copies: list[TextureCopy]) -> list[TextureCopy]:
    """The copies whose target already holds a different file."""
    return [c for c in copies if c.conflicts()]


def copy_textures(copies: list[TextureCopy], replace: bool = False) -> list[Path]:
    """Copy each file that is not there yet (atomically); the files this created (so a failed save
    can take them back). A different file at a target is a WriteError unless `replace`, checked
    for every copy before the first is written."""
    if not replace:
        clash = conflicts(copies)
        if clash:
            names = ", ".join(c.relative for c in clash)
            raise WriteError(clash[0].target, f"a different file already has this name in the target "
                             f"folder (layer texture{'s' if len(clash) > 1 else ''} {names}); refused "
                             "rather than overwritten")
    created: list[Path] = []
    try:
        for c in copies:
            if not c.needed():
                continue
            existed = c.target.exists()
            try:
                source = open(c.source, "rb")
            except OSError as e:  # gone or unreadable between the plan and the copy
                raise WriteError(c.source, f"cannot read the layer texture to copy it: "
                                 f"{e.strerror or e}") from None
            with source:
                atomic_write(c.target, lambda out, f=source: shutil.copyfileobj(f, out, 1 << 20))
            if not existed:
                created.append(c.target)
    except BaseException:
        remove_files(created)
        raise
    return created


def remove_files(files: list[Path]) -> None:
    """Take back files a failed save created (leftovers are harmless: nothing names them)."""
    for f in files:
        try:
            f.unlink()
        except OSError:
            pass
