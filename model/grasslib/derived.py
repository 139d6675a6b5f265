"""Derived grass: a group's rules turned into derived foliage types, by Boscage's own mapping.

The source stores density, tilt and scale ranges per rule but not how its runtime scatters them
(instance count, position in the cell, seed, rotation). This mapping is Boscage's, not the game's:

- density (instances per 100 m²) = Density × 100 × weight / 127 (weight 127 = full block-4 value)
- tilt = [0, 90° × TiltFactor] with TiltFactor clamped to 0..1
- scale = [ScaleA, ScaleB] when ScalingEnabled, times [HeightScaleA, HeightScaleB] when
  HeightScalingEnabled (a FoliageType has one uniform scale), ordered and clamped
- mesh builtin:grass, storage derived; rules naming a model the library lacks are left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import tomli_w

from model.grasslib.library import GrassLibrary

MAPPING_NOTE = ("Boscage's own mapping: the library stores density, tilt and scale ranges per rule but "
                "not how the game scatters them, so these derived grass types are Boscage's reading, "
                "not the game's placement.")
FULL_WEIGHT = 127  # 0xFF >> 1
SCALE_LIMITS = (1e-4, 1e4)
DENSITY_LIMIT = 1e6


@dataclass
class DerivedGrass:
    """The `.vxfoliage` tables for one group's rules, and what was left out and why."""

    group: int
    weight: int
    types: list[dict] = field(default_factory=list)
    rule_indices: list[int] = field(default_factory=list)  # rule in group behind each type
    notes: list[str] = field(default_factory=list)


def _finite(value: float, fallback: float) -> tuple[float, bool]:
    v = float(value)
    return (v, True) if math.isfinite(v) else (fallback, False)


def rule_to_type(rule: np.void, name: str, weight: int = FULL_WEIGHT) -> tuple[dict, list[str]]:
    """One rule → a `.vxfoliage` table (plain dict) and notes on values that had to be corrected."""
    notes: list[str] = []
    density, ok = _finite(rule["density"], 0.0)
    if not ok:
        notes.append("density is not a finite number: 0 used")
    density = min(max(density * 100.0 * weight / FULL_WEIGHT, 0.0), DENSITY_LIMIT)
    tilt, ok = _finite(rule["tilt"], 0.0)
    if not ok:
        notes.append("tilt factor is not a finite number: 0 used")
    tilt_max = 90.0 * min(max(tilt, 0.0), 1.0)
    lo, hi = 1.0, 1.0
    for enabled, a_key, b_key in ((rule["scaling"], "scale_a", "scale_b"),
                                  (rule["height_scaling"], "height_scale_a", "height_scale_b")):
        if not enabled:
            continue
        a, ok_a = _finite(rule[a_key], 1.0)
        b, ok_b = _finite(rule[b_key], 1.0)
        if not (ok_a and ok_b):
            notes.append(f"{a_key}/{b_key} not finite: 1 used")
        lo, hi = lo * min(a, b), hi * max(a, b)
    lo, hi = (min(max(v, SCALE_LIMITS[0]), SCALE_LIMITS[1]) for v in (lo, hi))
    doc = {"name": name, "mesh": "builtin:grass", "storage": "derived",
           "density": round(density, 6), "tilt": [0.0, round(tilt_max, 6)],
           "scale": [round(lo, 6), round(hi, 6)]}
    return doc, notes


def derive_group(lib: GrassLibrary, group: int, weight: int = FULL_WEIGHT,
                 prefix: str = "grass") -> DerivedGrass:
    """Derived grass types for every rule of `group` that names an existing model."""
    if not 0 <= group < len(lib.groups):
        raise IndexError(f"group {group} is not in the library ({len(lib.groups)} groups)")
    out = DerivedGrass(group=group, weight=int(weight))
    if weight <= 0:
        out.notes.append("weight 0 disables the group: no derived grass")
        return out
    for k, rule in enumerate(lib.groups[group].rules):
        model = int(rule["model"])
        if model >= lib.model_count:
            out.notes.append(f"rule {k} names model {model}, beyond the {lib.model_count} models: "
                             "left out")
            continue
        name = f"{prefix} g{group:03d} r{k} m{model:02d}"
        doc, notes = rule_to_type(rule, name, weight)
        out.types.append(doc)
        out.rule_indices.append(k)
        out.notes.extend(f"rule {k}: {n}" for n in notes)
    return out


def vxfoliage_text(doc: dict) -> str:
    """The `.vxfoliage` TOML text for one derived type, headed by the mapping note."""
    return f"# {MAPPING_NOTE}\n" + tomli_w.dumps(doc)


def foliage_types(derived: DerivedGrass) -> list:
    """Real FoliageType objects for the derived tables (validated by the foliage model's reader)."""
    from model.foliage.foliage_type import foliage_type_from_dict

    return [foliage_type_from_dict(doc, None, doc["name"]) for doc in derived.types]


def merge_into_palette(palette, types: list) -> tuple[list[str], list[str]]:
    """Add derived FoliageTypes to a palette, replacing same-named ones; returns (added, replaced)."""
    added, replaced = [], []
    for ftype in types:
        if ftype.name in palette:
            palette.replace(ftype)
            replaced.append(ftype.name)
        else:
            palette.add(ftype)
            added.append(ftype.name)
    return added, replaced
