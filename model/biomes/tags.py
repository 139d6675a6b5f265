"""Tags expansion: a map of key → values becomes one flat list of tags."""

from __future__ import annotations


def expand_tags(tags: object) -> list[str]:
    """Plain tags (keys without values) first, then the other keys, their values, then `key=value`.

    `{"Material": ["Solid", "Stone"], "Ore": []}` → Ore, Material, Solid, Stone, Material=Solid,
    Material=Stone. Each tag appears once; anything that is not a list of strings is skipped
    (the validator reports it).
    """
    if not isinstance(tags, dict):
        return []
    values = {k: [s for s in v if isinstance(s, str)] if isinstance(v, list) else []
              for k, v in tags.items()}
    ordered = [k for k, v in values.items() if not v]
    ordered += [k for k, v in values.items() if v]
    ordered += [s for v in values.values() for s in v]
    ordered += [f"{k}={s}" for k, v in values.items() for s in v]
    return list(dict.fromkeys(ordered))
