"""A resolved biome asset: its files, inheritance chain, merged fields and their origins."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from model.biomes.colors import map_color
from model.biomes.issues import ERROR, WARNING, Issue
from model.biomes.merge import Provenance
from model.biomes.paths import JsonPath
from model.biomes.reader import AssetFile
from model.biomes.tags import expand_tags

ASSET_TYPES = ("Custom", "Tile")
CHAIN_SHOWN = 6  # links named at each end of a long chain in messages and tooltips


@dataclass(eq=False)
class BiomeAsset:
    """One key of a biome set. `value` is None when the asset could not be resolved."""

    key: str
    files: list[AssetFile]  # base first, then same-key overlays
    type: str | None = None
    parent: str | None = None
    # The chain is stored as a link to the parent asset (shared, not copied per asset: a list per
    # asset would make a 5,000-deep chain quadratic), its length and its last key.
    link: BiomeAsset | None = field(default=None, repr=False)
    chain_length: int = 0
    chain_end: str | None = None
    value: dict | None = None
    provenance: Provenance = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)

    @property
    def chain(self) -> list[str]:
        """This key, its parent, grandparent, … as far as the chain could be followed."""
        return self.chain_head(self.chain_length)

    def chain_head(self, n: int) -> list[str]:
        """The first `n` keys of the chain (fewer when it is shorter)."""
        out: list[str] = []
        node: BiomeAsset | None = self
        while node is not None and len(out) < min(n, self.chain_length):
            out.append(node.key)
            node = node.link
        return out

    def chain_text(self, shown: int = CHAIN_SHOWN) -> str:
        """`A → B → C`; a chain longer than 2·`shown` + 1 links is elided in the middle."""
        if self.chain_length <= 2 * shown + 1:
            return " → ".join(self.chain) or self.key
        hidden = self.chain_length - shown - 1
        return f"{' → '.join(self.chain_head(shown))} → … {hidden:,} more … → {self.chain_end}"

    @property
    def resolved(self) -> bool:
        return self.value is not None

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == ERROR]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == WARNING]

    @property
    def valid(self) -> bool:
        return self.resolved and not self.errors

    @property
    def own_file(self) -> AssetFile:
        """The last file of this key: where its own fields were last set."""
        return self.files[-1]

    @property
    def tags(self) -> list[str]:
        return expand_tags(self.value.get("Tags")) if self.value else []

    @property
    def color(self) -> tuple[int, int, int]:
        return map_color(self.value.get("MapColor") if self.value else None)

    def get(self, path: JsonPath, default: object = None) -> object:
        """The resolved value at `path`, or `default`."""
        node: object = self.value
        for part in path:
            if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
                node = node[part]
            elif isinstance(part, str) and isinstance(node, dict) and part in node:
                node = node[part]
            else:
                return default
        return node

    def origin(self, path: JsonPath) -> AssetFile | None:
        """The file that set `path` (or the nearest enclosing field that has an origin)."""
        for n in range(len(path), 0, -1):
            source = self.provenance.get(path[:n])
            if source is not None:
                return source
        return None

    def fields(self) -> Iterator[tuple[JsonPath, object, AssetFile | None]]:
        """Every object field of the resolved asset, depth first, with the file that set it."""
        if self.value is None:
            return
        stack: list[tuple[JsonPath, object]] = [((), self.value)]
        while stack:
            path, node = stack.pop()
            if path:
                yield path, node, self.origin(path)
            if isinstance(node, dict):
                stack.extend(reversed([(path + (k,), v) for k, v in node.items()]))
