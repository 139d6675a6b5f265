"""Resolving a biome set: same-key overlays, then `Parent` inheritance, then validation.

Order for one key: the parent's resolved asset (less its SeedName), then this key's base file,
then its overlays in folder order. SeedName therefore carries from a base to its same-key
overlays but never through `Parent`: each key keeps its own seed identity.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from model.biomes.asset import ASSET_TYPES, BiomeAsset
from model.biomes.issues import ERROR, WARNING, Issue
from model.biomes.merge import apply_layer, forget
from model.biomes.paths import format_path
from model.biomes.reader import AssetFile, read_folders
from model.biomes.schema import COMMON_KEYS, TYPE_KEYS
from model.biomes.validate import validate_asset, validate_set
from model.biomes.zone_order import ZoneRow, zone_order_table


@dataclass(eq=False)
class BiomeSet:
    """Every asset of one or more folders, resolved as far as each can be, and every issue."""

    folders: list[Path]
    assets: dict[str, BiomeAsset]
    zones: dict[str, list[ZoneRow]]

    @property
    def issues(self) -> list[Issue]:
        return [i for a in self.assets.values() for i in a.issues]

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == ERROR]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == WARNING]

    def of_type(self, kind: str) -> list[BiomeAsset]:
        return [a for a in self.assets.values() if a.type == kind]

    def __getitem__(self, key: str) -> BiomeAsset:
        return self.assets[key]

    def __contains__(self, key: object) -> bool:
        return key in self.assets


def load_biome_set(folders: Sequence[str | Path]) -> BiomeSet:
    """Load, overlay, resolve and validate. Only a missing folder raises; bad assets become issues."""
    stacks, read_issues = read_folders(folders)
    assets = {key: BiomeAsset(key, files) for key, files in stacks.items()}
    for issue in read_issues:
        assets[issue.asset].issues.append(issue)
    for asset in assets.values():
        _own_type_and_parent(asset)
    _resolve_all(assets)
    for asset in assets.values():
        validate_asset(asset)
    zones = zone_order_table(assets.values())
    validate_set(assets, zones)
    return BiomeSet([Path(f) for f in folders], assets, zones)


def _own_type_and_parent(asset: BiomeAsset) -> None:
    """Type and Parent from the key's own files; an unreadable or untyped stack stays unresolvable."""
    if any(f.doc is None for f in asset.files):
        return
    kinds: list[str] = []
    for f in asset.files:
        kind = f.doc.get("Type")
        if "Type" not in f.doc:
            near = next((k for k in f.doc if isinstance(k, str) and k.lower() == "type"), None)
            hint = f" (found {near!r}: keys are case-sensitive)" if near else ""
            _error(asset, f, "Type", f'Type is required ("Custom" or "Tile"){hint}')
        elif kind not in ASSET_TYPES:
            hint = next((f" (did you mean {t!r}? the value is case-sensitive)" for t in ASSET_TYPES
                         if isinstance(kind, str) and kind.lower() == t.lower()), "")
            _error(asset, f, "Type", f'Type must be "Custom" or "Tile", got {_show(kind)}{hint}')
        elif kinds and kind != kinds[0]:
            _error(asset, f, "Type", f"overlay changes Type from {kinds[0]!r} "
                                     f"(set by {asset.files[0].name}) to {kind!r}")
        else:
            kinds.append(kind)
    if len(kinds) != len(asset.files):
        return
    parent_files = [f for f in asset.files if "Parent" in f.doc]
    parent = parent_files[-1].doc["Parent"] if parent_files else None
    if parent is not None and not (isinstance(parent, str) and parent):
        _error(asset, parent_files[-1], "Parent", f"Parent must name an asset, got {_show(parent)}")
        return
    if isinstance(parent, str) and any(c in parent for c in "/\\") or parent in (".", ".."):
        _error(asset, parent_files[-1], "Parent",
               f"Parent must name an asset key, not a path: {parent!r}")
        return
    asset.type = kinds[0]
    asset.parent = parent


def _resolve_all(assets: dict[str, BiomeAsset]) -> None:
    """Link every asset to its parent, settle each chain once (memoised, so a chain of n links
    costs n steps in all, not n² as walking it from every link would), then resolve root-first."""
    stops: dict[str, tuple[str, str]] = {}  # key → (parent name, why the chain stops there)
    for asset in assets.values():
        if asset.type is None or asset.parent is None:
            continue
        name = asset.parent
        parent = assets.get(name)
        if parent is None:
            stops[asset.key] = (name, f"no asset named {name!r}")
        elif parent.type is None:
            stops[asset.key] = (name, f"{name!r} could not be read or has no valid Type")
        elif parent.type != asset.type:
            stops[asset.key] = (name, f"{asset.key!r} is {asset.type} but {name!r} is {parent.type}")
        else:
            asset.link = parent
    # key → (the name the chain stops at, why), shared by every asset below that point; None: resolves
    trouble: dict[str, tuple[str, str] | None] = {}
    order: list[BiomeAsset] = []  # root-first: each asset after its parent
    for asset in assets.values():
        if asset.type is None or asset.key in trouble:
            continue
        path: list[BiomeAsset] = []
        index: dict[str, int] = {}
        node: BiomeAsset | None = asset
        while node is not None and node.key not in trouble and node.key not in index:
            index[node.key] = len(path)
            path.append(node)
            node = node.link
        below = node
        if node is not None and node.key in index:  # the walk came back: a cycle
            cycle = path[index[node.key]:]
            for i, member in enumerate(cycle):
                member.chain_length = len(cycle)
                member.chain_end = cycle[i - 1].key
                trouble[member.key] = (member.key, f"cycle back to {member.key!r}")
                order.append(member)
            path = path[:index[node.key]]
        for link in reversed(path):
            if below is None:
                link.chain_length, link.chain_end = 1, link.key
                trouble[link.key] = stops.get(link.key)
            else:
                link.chain_length, link.chain_end = below.chain_length + 1, below.chain_end
                trouble[link.key] = trouble[below.key]
            order.append(link)
            below = link
    for asset in order:
        problem = trouble[asset.key]
        if problem is not None:
            name, reason = problem
            where = [f for f in asset.files if "Parent" in f.doc][-1]
            _error(asset, where, "Parent", f"Parent chain {asset.chain_text()} → {name}: {reason}")
        elif asset.value is None:
            _layer(asset, asset.link)


def _layer(asset: BiomeAsset, parent: BiomeAsset | None) -> None:
    value: dict = {}
    provenance: dict = {}
    if parent is not None:
        value = copy.deepcopy(parent.value)
        provenance = dict(parent.provenance)
        value.pop("SeedName", None)
        forget(provenance, ("SeedName",))
    for f in asset.files:
        variants: list = []
        apply_layer(value, provenance, f.doc, f, variants=variants)
        for path, was, now, kept in variants:
            if kept:
                asset.issues.append(Issue(WARNING, asset.key, f.name, format_path(path),
                                          f"Type changes from {was!r} to {now!r}; nested objects merge "
                                          f"field by field, so {', '.join(kept)} stay from the {was} "
                                          "below (set them to null to drop them)"))
    asset.value = _schema_order(value, asset.type)
    asset.provenance = provenance


def _schema_order(value: dict, kind: str) -> dict:
    """Known fields in schema order, then unknown ones as written: stable display and export."""
    known = [k for k in COMMON_KEYS + TYPE_KEYS[kind] if k in value]
    return {k: value[k] for k in known + [k for k in value if k not in known]}


def _error(asset: BiomeAsset, f: AssetFile, place: str, reason: str) -> None:
    asset.issues.append(Issue(ERROR, asset.key, f.name, place, reason))


def _show(value: object) -> str:
    return "null" if value is None else repr(value)
