"""A scene: terrain with paint layers, plus the foliage that stands on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from model.terrain import Terrain


@dataclass
class Scene:
    """What one `.boscage` document holds."""

    terrain: Terrain
    name: str = "Untitled"
    path: Path | None = None
    # Extension data for subsystems that attach to a scene (e.g. foliage), keyed by section.
    sections: dict[str, object] = field(default_factory=dict)
    # Where the layers' texture paths start: the folder the scene was opened from or saved to
    # (kept when `path` is cleared, as for the bundled demo, which is never saved over).
    asset_folder: Path | None = None

    def textures_folder(self) -> Path | None:
        return self.asset_folder if self.asset_folder is not None else (
            self.path.parent if self.path is not None else None)
