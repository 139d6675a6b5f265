"""Biome sets written for tests: folders of JSON assets in a temporary directory."""

from __future__ import annotations

import json
from pathlib import Path


def write_set(root: Path, *folders: dict[str, dict | str]) -> list[Path]:
    """Write each folder's assets (key → document, or raw text) under `root`; return the folders."""
    paths = []
    for i, assets in enumerate(folders):
        folder = root / ("base" if i == 0 else f"overlay{i}")
        folder.mkdir(parents=True, exist_ok=True)
        for key, doc in assets.items():
            text = doc if isinstance(doc, str) else json.dumps(doc, indent=2)
            (folder / f"{key}.json").write_text(text, encoding="utf-8")
        paths.append(folder)
    return paths


def origins(asset) -> dict[str, str]:
    """Field path → 'folder/file' that set it, for compact assertions."""
    from model.biomes import format_path

    return {format_path(p): f"{o.path.parent.name}/{o.path.name}" for p, _, o in asset.fields()}


def messages(issues) -> list[str]:
    """Issues as 'asset | folder/file | place | reason' (paths relative to the set's root)."""
    out = []
    for i in issues:
        f = Path(i.file)
        out.append(f"{i.asset} | {f.parent.name}/{f.name} | {i.place} | {i.reason}")
    return sorted(out)
