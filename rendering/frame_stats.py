"""Per-frame counters the renderers fill and the corner overlay shows."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FrameStats:
    """Counters for one frame; `uploads` counts chunk buffers re-uploaded, by renderer name;
    `levels` counts stored instances drawn per level of detail (`LOD 0`, `LOD 1`, …, `impostor`)."""

    frame_ms: float = 0.0
    instances: int = 0
    chunks_drawn: int = 0
    chunks_culled: int = 0
    grass: int = 0
    uploads: dict[str, int] = field(default_factory=dict)
    levels: dict[str, int] = field(default_factory=dict)

    def reset(self) -> None:
        self.instances = self.chunks_drawn = self.chunks_culled = self.grass = 0
        self.uploads = {}
        self.levels = {}

    def count_upload(self, what: str, n: int = 1) -> None:
        self.uploads[what] = self.uploads.get(what, 0) + n

    def count_level(self, level: str, n: int) -> None:
        if n:
            self.levels[level] = self.levels.get(level, 0) + int(n)

    def level_text(self) -> str:
        """`LOD 0 1,200 · LOD 1 300 · impostor 9,000`, finest first."""
        order = sorted(self.levels, key=lambda k: (k == "impostor", k))
        return " · ".join(f"{k} {self.levels[k]:,}" for k in order)

    def to_dict(self) -> dict:
        """The frame's numbers for `--stats FILE.json`."""
        return {"frame_ms": round(self.frame_ms, 3), "instances": self.instances,
                "instances_per_level": dict(sorted(self.levels.items(), key=lambda kv: (
                    kv[0] == "impostor", kv[0]))),
                "chunks_drawn": self.chunks_drawn, "chunks_culled": self.chunks_culled,
                "grass": self.grass, "uploads": dict(self.uploads)}

    def text(self) -> str:
        levels = f"\n{self.level_text()}" if self.levels else ""
        return (f"{self.frame_ms:6.1f} ms\n{self.instances:,} instances{levels}\n"
                f"chunks {self.chunks_drawn:,} drawn / {self.chunks_culled:,} culled\n"
                f"grass {self.grass:,} candidates")
