"""Terrain group picker: material byte → group via the table, block 5 overrides, block 4 weighs.

group = table[material], unless block 5 is not 0xFE, in which case group = block 5; 0xFF is no
group. Weight w = block4 >> 1, except block4 == 1 gives 1; weight 0 disables the group.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.grasslib.library import KEEP_MATERIAL_GROUP, NO_GROUP, GrassLibrary


def weight_of(block4: np.ndarray | int) -> np.ndarray:
    """Block-4 value(s) → weight(s): value >> 1, except value 1 → 1."""
    v = np.asarray(block4, dtype=np.uint8)
    return np.where(v == 1, np.uint8(1), v >> 1).astype(np.uint8)


def group_of(table: np.ndarray, material: np.ndarray | int, block5: np.ndarray | int) -> np.ndarray:
    """Material and block-5 value(s) → group byte(s); 0xFF means no group."""
    m = np.asarray(material, dtype=np.uint8)
    b5 = np.asarray(block5, dtype=np.uint8)
    t = np.asarray(table, dtype=np.uint8)
    return np.where(b5 == KEEP_MATERIAL_GROUP, t[m], b5).astype(np.uint8)


@dataclass
class PickRaster:
    """Per-node results: the group byte (0xFF none), the weight, and whether grass is active there."""

    group: np.ndarray   # uint8
    weight: np.ndarray  # uint8
    active: np.ndarray  # bool: a group that exists in the library, and weight > 0

    def summary(self) -> dict[int, int]:
        """Active group → node count."""
        values, counts = np.unique(self.group[self.active], return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


def pick_raster(lib: GrassLibrary, material: np.ndarray, block4: np.ndarray,
                block5: np.ndarray) -> PickRaster:
    """Pick every node of three same-shaped rasters at once."""
    material, block4, block5 = (np.asarray(a) for a in (material, block4, block5))
    if not (material.shape == block4.shape == block5.shape):
        raise ValueError(f"rasters differ in shape: material {material.shape}, block 4 "
                         f"{block4.shape}, block 5 {block5.shape}")
    for name, a in (("material", material), ("block 4", block4), ("block 5", block5)):
        if a.size and (a.min() < 0 or a.max() > 255):
            raise ValueError(f"{name} raster holds values outside 0..255")
    group = group_of(lib.table, material, block5)
    weight = weight_of(block4)
    active = (group != NO_GROUP) & (group < len(lib.groups)) & (weight > 0)
    return PickRaster(group=group, weight=weight, active=active)


@dataclass
class PickResult:
    """One node's pick, with the reasoning the browser and the CLI show."""

    material: int
    block4: int
    block5: int
    table_group: int   # table[material]
    group: int | None  # None: no group
    source: str        # where the group came from
    weight: int
    active: bool
    rules: list[int] = field(default_factory=list)  # rule indices within the group reached
    missing_models: list[int] = field(default_factory=list)  # rule indices naming absent models
    explanation: str = ""

    def as_json(self) -> dict:
        return {"material": self.material, "block4": self.block4, "block5": self.block5,
                "table_group": self.table_group, "group": self.group, "source": self.source,
                "weight": self.weight, "active": self.active, "rules": self.rules,
                "rules_with_missing_models": self.missing_models, "explanation": self.explanation}


def pick(lib: GrassLibrary, material: int, block4: int, block5: int) -> PickResult:
    """Pick one node and explain the result."""
    for name, v in (("material", material), ("block 4", block4), ("block 5", block5)):
        if not 0 <= int(v) <= 255:
            raise ValueError(f"{name} value {v} is outside 0..255")
    table_group = int(lib.table[material])
    g = int(group_of(lib.table, material, block5))
    w = int(weight_of(block4))
    if block5 == KEEP_MATERIAL_GROUP:
        source = f"material table (block 5 = 0xFE keeps table[{material}] = 0x{table_group:02X})"
    else:
        source = f"block 5 override (0x{block5:02X})"
    weight_text = (f"weight {w} (block 4 = 1 counts as 1)" if block4 == 1
                   else f"weight {w} (block 4 0x{block4:02X} >> 1)")
    result = PickResult(material, block4, block5, table_group, None if g == NO_GROUP else g,
                        source, w, False)
    if g == NO_GROUP:
        result.explanation = f"no group: {source} gives 0xFF; {weight_text}"
        return result
    if g >= len(lib.groups):
        result.explanation = (f"group {g} from {source} is not in the library "
                              f"({len(lib.groups)} groups): nothing is reached")
        return result
    if w == 0:
        result.explanation = f"group {g} from {source}, but {weight_text} disables it"
        return result
    rules = lib.groups[g].rules
    result.active = True
    result.rules = list(range(len(rules)))
    result.missing_models = [int(i) for i in np.flatnonzero(rules["model"] >= lib.model_count)]
    result.explanation = f"group {g} from {source}; {weight_text}; {len(rules)} rule(s) reached"
    if result.missing_models:
        result.explanation += (f"; rule(s) {result.missing_models} name models beyond the "
                               f"{lib.model_count} in the library")
    return result
