"""Flattening: a resolved asset written as one standalone JSON file, no Parent left to follow."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from model.atomic import atomic_write_text
from model.biomes.asset import BiomeAsset
from model.errors import FormatError


def flatten(asset: BiomeAsset) -> dict:
    """The resolved fields with `Parent` dropped: loading it alone gives the same asset."""
    if asset.value is None:
        first = asset.errors[0] if asset.errors else None
        reason = first.reason if first else "the asset is not resolved"
        raise FormatError(first.file if first else asset.own_file.name, first.place if first else None,
                          f"cannot flatten {asset.key!r}: {reason}")
    flat = {"Type": asset.value.get("Type")}
    flat.update((k, copy.deepcopy(v)) for k, v in asset.value.items() if k not in ("Type", "Parent"))
    return flat


def flattened_json(asset: BiomeAsset) -> str:
    return json.dumps(flatten(asset), indent=2, ensure_ascii=False) + "\n"


def export_flattened(asset: BiomeAsset, path: str | Path) -> None:
    """Write the flattened asset atomically."""
    atomic_write_text(path, flattened_json(asset))
