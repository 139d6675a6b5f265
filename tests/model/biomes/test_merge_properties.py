"""Resolution against a plain recursive reference, and provenance that always names a real setter."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model.biomes import load_biome_set

KEYS = st.sampled_from(["Fade", "Layers", "Tint", "Zones", "Weight", "MapColor", "Extra"])
SUB = st.sampled_from(["A", "B", "C"])
LEAF = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["x", "y"]),
                 st.lists(st.integers(0, 3), max_size=2))
VALUE = st.recursive(LEAF, lambda inner: st.dictionaries(SUB, inner, max_size=3), max_leaves=6)
DOC = st.dictionaries(KEYS, VALUE, max_size=4)


def reference_merge(base: dict, top: dict) -> dict:
    """The rule written plainly: objects merge key by key, anything else replaces."""
    out = copy.deepcopy(base)
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = reference_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def at(doc: object, path: tuple) -> object:
    for part in path:
        doc = doc[part]
    return doc


def contains(doc: object, path: tuple) -> bool:
    try:
        at(doc, path)
    except (KeyError, IndexError, TypeError):
        return False
    return True


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(chain=st.lists(DOC, min_size=1, max_size=4), overlay=DOC)
def test_resolution_matches_the_reference_and_provenance_names_the_setter(chain, overlay) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base, over = Path(tmp, "base"), Path(tmp, "over")
        base.mkdir()
        over.mkdir()
        docs = {}
        for i, doc in enumerate(chain):
            d = {"Type": "Tile", **doc}
            if i:
                d["Parent"] = f"L{i - 1}"
            docs[f"L{i}"] = d
            (base / f"L{i}.json").write_text(json.dumps(d))
        (over / "L0.json").write_text(json.dumps({"Type": "Tile", **overlay}))
        s = load_biome_set([base, over])
        expected = reference_merge(docs["L0"], {"Type": "Tile", **overlay})
        for i in range(1, len(chain)):
            expected = reference_merge(expected, docs[f"L{i}"])
        leaf = s[f"L{len(chain) - 1}"]
        assert leaf.value == expected
        assert leaf.chain == [f"L{i}" for i in range(len(chain) - 1, -1, -1)]
        for path, value, origin in leaf.fields():
            # The origin file really holds this field; leaves hold exactly the resolved value.
            source = json.loads(origin.path.read_text())
            assert contains(source, path)
            if not isinstance(value, dict):
                assert at(source, path) == value
