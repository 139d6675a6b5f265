"""Per-frame counters the renderers fill and the corner overlay shows."""

from __future__ import annotations

from dataclasses import dataclass, field

LEVEL_ORDER = {"impostor": 1, "proxy": 2}  # after the LODs, finest first


def _level_key(name: str) -> tuple[int, int, str]:
    if name.startswith("proxy"):  # `proxy` (chunks), then `proxy 1`, `proxy 2`… (groups of 2^L cells a side)
        rest = name.removeprefix("proxy").strip()
        return LEVEL_ORDER["proxy"], int(rest) if rest.isdigit() else 0, name
    return LEVEL_ORDER.get(name, 0), 0, name


@dataclass
class FrameStats:
    """Counters for one frame; `uploads` counts chunk buffers re-uploaded, by renderer name;
    `levels` counts stored instances drawn per level of detail (`LOD 0`, `LOD 1`, …, `impostor`)
    and, as `proxy`, those that far chunks' proxies stand for (`proxy 1`, `proxy 2`…: the group
    proxies of 2^L × 2^L cells); `proxy_cards` counts the cards all proxies drew, `level_cards`
    per proxy level."""

    frame_ms: float = 0.0
    instances: int = 0
    chunks_drawn: int = 0
    chunks_culled: int = 0
    grass: int = 0
    proxy_cards: int = 0
    level_cards: dict[str, int] = field(default_factory=dict)
    uploads: dict[str, int] = field(default_factory=dict)
    levels: dict[str, int] = field(default_factory=dict)

    def reset(self) -> None:
        self.instances = self.chunks_drawn = self.chunks_culled = self.grass = self.proxy_cards = 0
        self.uploads = {}
        self.levels = {}
        self.level_cards = {}

    def count_upload(self, what: str, n: int = 1) -> None:
        self.uploads[what] = self.uploads.get(what, 0) + n

    def count_level(self, level: str, n: int) -> None:
        if n:
            self.levels[level] = self.levels.get(level, 0) + int(n)

    def count_proxy_cards(self, level: str, n: int) -> None:
        self.proxy_cards += int(n)
        if n:
            self.level_cards[level] = self.level_cards.get(level, 0) + int(n)

    def level_text(self) -> str:
        """`LOD 0 1,200 · LOD 1 300 · impostor 9,000 · proxy 80,000 (2,100 cards)`, finest first."""
        parts = []
        for k in sorted(self.levels, key=_level_key):
            extra = f" ({self.level_cards.get(k, 0):,} cards)" if k.startswith("proxy") else ""
            parts.append(f"{k} {self.levels[k]:,}{extra}")
        return " · ".join(parts)

    def to_dict(self) -> dict:
        """The frame's numbers for `--stats FILE.json`."""
        return {"frame_ms": round(self.frame_ms, 3), "instances": self.instances,
                "instances_per_level": dict(sorted(self.levels.items(), key=lambda kv: _level_key(kv[0]))),
                "proxy_cards": self.proxy_cards,
                "proxy_cards_per_level": dict(sorted(self.level_cards.items(),
                                                     key=lambda kv: _level_key(kv[0]))),
                "chunks_drawn": self.chunks_drawn, "chunks_culled": self.chunks_culled,
                "grass": self.grass, "uploads": dict(self.uploads)}

    def text(self) -> str:
        levels = f"\n{self.level_text()}" if self.levels else ""
        return (f"{self.frame_ms:6.1f} ms\n{self.instances:,} instances{levels}\n"
                f"chunks {self.chunks_drawn:,} drawn / {self.chunks_culled:,} culled\n"
                f"grass {self.grass:,} candidates")
