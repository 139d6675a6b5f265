"""Per-frame counters the renderers fill and the corner overlay shows."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FrameStats:
    """Counters for one frame; `uploads` counts chunk buffers re-uploaded, by renderer name."""

    frame_ms: float = 0.0
    instances: int = 0
    chunks_drawn: int = 0
    chunks_culled: int = 0
    grass: int = 0
    uploads: dict[str, int] = field(default_factory=dict)

    def reset(self) -> None:
        self.instances = self.chunks_drawn = self.chunks_culled = self.grass = 0
        self.uploads = {}

    def count_upload(self, what: str, n: int = 1) -> None:
        self.uploads[what] = self.uploads.get(what, 0) + n

    def text(self) -> str:
        return (f"{self.frame_ms:6.1f} ms\n{self.instances:,} instances\n"
                f"chunks {self.chunks_drawn:,} drawn / {self.chunks_culled:,} culled\n"
                f"grass {self.grass:,} candidates")
