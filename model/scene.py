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
