"""Layering one asset document over another, remembering which file set every field.

Objects merge field by field, recursively; arrays and scalars replace whole; an explicit null
replaces too. The spec states no exception for a nested object whose `Type` changes (a Basic
height threshold over a Noise one), so it merges like any other; the fields it keeps from the
other variant are reported, so the mix is never silent.
"""

from __future__ import annotations

import copy

from model.biomes.paths import JsonPath, under
from model.biomes.reader import AssetFile

Provenance = dict[JsonPath, AssetFile]


def apply_layer(value: dict, provenance: Provenance, doc: dict, source: AssetFile,
                prefix: JsonPath = (), variants: list[tuple[JsonPath, str, str, list[str]]] | None = None,
                ) -> None:
    """Merge `doc` into `value` in place; every field `doc` sets is credited to `source`.

    `variants` collects (path, old Type, new Type, fields kept from the old variant) for every
    nested object whose `Type` this layer changes.
    """
    for key, new in doc.items():
        path = prefix + (key,)
        old = value.get(key)
        if isinstance(new, dict) and isinstance(old, dict):
            if variants is not None and _variant_changed(old, new):
                kept = [k for k in old if k != "Type" and k not in new]
                variants.append((path, str(old["Type"]), str(new["Type"]), kept))
            apply_layer(old, provenance, new, source, path, variants)
            provenance.setdefault(path, source)
            continue
        forget(provenance, path)
        value[key] = copy.deepcopy(new)
        _credit(provenance, value[key], source, path)


def forget(provenance: Provenance, prefix: JsonPath) -> None:
    """Drop the origin of `prefix` and of everything under it."""
    for path in [p for p in provenance if under(p, prefix)]:
        del provenance[path]


def _credit(provenance: Provenance, value: object, source: AssetFile, path: JsonPath) -> None:
    provenance[path] = source
    if isinstance(value, dict):
        for key, child in value.items():
            _credit(provenance, child, source, path + (key,))


def _variant_changed(old: dict, new: dict) -> bool:
    return "Type" in old and "Type" in new and old["Type"] != new["Type"]
