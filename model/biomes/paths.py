"""JSON paths as tuples (`("Zones", 0, "Zone")`) and their display form (`Zones[0].Zone`)."""

from __future__ import annotations

import json
import re

JsonPath = tuple[str | int, ...]
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def format_path(path: JsonPath) -> str:
    """`("Tags", "Material")` → `Tags.Material`; keys that are not plain names are quoted."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN.match(part):
            out += f".{part}" if out else part
        else:
            try:
                part.encode("utf-8")
                out += f"[{json.dumps(part, ensure_ascii=False)}]"
            except UnicodeEncodeError:  # a lone surrogate: written as its escape, so it can be shown
                out += f"[{json.dumps(part)}]"
    return out


def under(path: JsonPath, prefix: JsonPath) -> bool:
    return path[:len(prefix)] == prefix
