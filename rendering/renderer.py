"""What the viewport draws: a list of renderers, each handed the same frame context."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rendering.camera import OrbitCamera
from rendering.frame_stats import FrameStats


@dataclass
class FrameContext:
    """Everything a renderer needs for one frame; matrices are row-major float32 4x4."""

    camera: OrbitCamera
    view: np.ndarray
    projection: np.ndarray
    view_projection: np.ndarray
    width: int
    height: int
    light_direction: np.ndarray  # unit vector pointing towards the light
    stats: FrameStats = field(default_factory=FrameStats)  # counters renderers add to
    pixel_ratio: float = 1.0  # device pixels per widget pixel


class Renderer:
    """Base for things the viewport draws. GL calls happen only with the viewport's context current.

    `initialize` runs once the context exists, `draw` every frame in list order, `release` when
    the renderer is removed or the context goes away. `bounds` (lo, hi) feeds frame-all.
    """

    def initialize(self) -> None:
        pass

    def draw(self, frame: FrameContext) -> None:
        raise NotImplementedError

    def release(self) -> None:
        pass

    def bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        return None
