"""Plain, JSON-ready views of a library: counts, classes, rules; shared by the CLI and the browser."""

from __future__ import annotations

from collections import Counter

import numpy as np

from model.grasslib.classes import describe_class
from model.grasslib.library import NO_GROUP, GrassLibrary, rule_floats


def _f(v) -> float | None:
    """A float for JSON; NaN and infinities become None."""
    v = float(v)
    return round(v, 6) if np.isfinite(v) else None


def rule_fields(rule: np.void, model_count: int | None = None) -> dict:
    """One rule's named fields, plus its unnamed bytes as hex and as the ten floats they seem to hold."""
    doc = {
        "identity": f"0x{int(rule['identity']):016X}",
        "model": int(rule["model"]),
        "tiling_log_count": int(rule["tiling"]),
        "density": _f(rule["density"]),
        "tilt_factor": _f(rule["tilt"]),
        "scaling_enabled": int(rule["scaling"]),
        "scale": [_f(rule["scale_a"]), _f(rule["scale_b"])],
        "height_scaling_enabled": int(rule["height_scaling"]),
        "height_scale": [_f(rule["height_scale_a"]), _f(rule["height_scale_b"])],
        "unnamed_float": _f(rule["unnamed_float"]),
        "unnamed_hex": bytes(rule["unnamed"]).hex(" "),
        "unnamed_floats": [_f(v) for v in rule_floats(rule["unnamed"])],
    }
    if model_count is not None:
        doc["missing_model"] = int(rule["model"]) >= model_count
    return doc


def model_fields(lib: GrassLibrary, index: int) -> dict:
    """One model: class, LOD table and distances (inferred), and the raw bytes of both objects."""
    pair = lib.models[index]
    m, b = pair["model"], pair["bounds"]
    return {
        "index": index,
        "offset": lib.model_offset(index),
        "identity": f"0x{int(m['identity']):016X}",
        "class": describe_class(int(m["class_id"])),
        "bounds_class": describe_class(int(b["class_id"])),
        "lod_table_inferred": [int(v) for v in m["lod"]],
        "distances_m_inferred": [_f(v) for v in m["distances"]],
        "settings_hex": bytes(m["settings"]).hex(" "),
        "bounds_floats": [_f(v) for v in b["body"]],
        "raw_hex": pair.tobytes().hex(" "),
    }


def library_summary(lib: GrassLibrary, path: str | None = None) -> dict:
    """The facts `grasslib info` reports."""
    table = {int(i): int(lib.table[i]) for i in np.flatnonzero(lib.table != NO_GROUP)}
    lods = Counter(" ".join(f"{v:02x}" for v in row) for row in lib.models["model"]["lod"])
    dists = Counter("/".join(f"{v:g}" for v in row) for row in lib.models["model"]["distances"])
    return {
        "path": path,
        "size": lib.size(),
        "models": lib.model_count,
        "groups": len(lib.groups),
        "rules": lib.rule_count,
        "groups_by_rule_count": {str(k): v for k, v in lib.group_size_histogram().items()},
        "tail_bytes": len(lib.tail_raw) + len(lib.table),
        "table_entries_with_group": {str(k): v for k, v in table.items()},
        "table_entries_no_group": int(np.count_nonzero(lib.table == NO_GROUP)),
        "classes": {
            "model": sorted({describe_class(int(c)) for c in lib.models["model"]["class_id"]}),
            "bounding_volume": sorted({describe_class(int(c)) for c in lib.models["bounds"]["class_id"]}),
            "group": sorted({describe_class(g.class_id) for g in lib.groups}),
            "rule": sorted({describe_class(int(c)) for c in lib.all_rules()["class_id"]}),
        },
        "lod_tables_inferred": dict(lods),
        "distance_triples_inferred": dict(dists),
        "rules_with_missing_models": [{"group": g, "rule": r, "model": m}
                                      for g, r, m in lib.missing_model_rules()],
        "notes": list(lib.notes),
    }
