"""Parent chains thousands of links long: memory proportional to the set, messages bounded."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from model.biomes import load_biome_set
from model.biomes.summary import set_document
from tests.model.biomes.biome_sets import write_set


def _chain(prefix: str, n: int, root_parent: str | None) -> dict[str, dict]:
    assets = {}
    for i in range(n):
        doc = {"Type": "Tile", "Weight": 1.0 + i, "MapColor": "#112233", "Fade": {"FadeStart": float(i)},
               "Zones": [{"Zone": f"z{i % 7}", "Order": i, "ConvertedPin": False}],
               "Tags": {"Material": ["Stone"]}}
        parent = f"{prefix}{i - 1:04d}" if i else root_parent
        if parent is not None:
            doc["Parent"] = parent
        assets[f"{prefix}{i:04d}"] = doc
    return assets


@pytest.mark.parametrize("n", [1000, pytest.param(2500, marks=pytest.mark.slow)])
def test_long_chains_use_memory_proportional_to_the_set(tmp_path, n) -> None:
    """n links resolving to a root and n whose root names a missing parent (every link then reports
    the broken chain): 2,000 files by default, 5,000 with --runslow. Storing each asset's whole
    chain, or naming it whole in each message and in the JSON document, took 976 MB (healthy) and
    3.5 GB (broken) for 5,000 files, about 100 KB per file already at 2,000."""
    folders = write_set(tmp_path, {**_chain("Ok", n, None), **_chain("Bad", n, "Ghost")})
    tracemalloc.start()
    try:
        s = load_biome_set(folders)
        doc = set_document(s)
        text = json.dumps(doc)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    files = 2 * n
    # ~12 KB per file measured (the parsed documents, resolved values, provenance, issues); a
    # quadratic term costs hundreds of KB per file at this length
    assert peak < files * 30_000, f"{peak / 1e6:.0f} MB for {files} files"
    assert len(text) < files * 4_000
    leaf = s[f"Ok{n - 1:04d}"]
    assert leaf.chain_length == n and leaf.valid and leaf.value["Weight"] == float(n)
    assert leaf.chain[:3] == [f"Ok{n - 1:04d}", f"Ok{n - 2:04d}", f"Ok{n - 3:04d}"]
    assert leaf.chain[-1] == "Ok0000"
    assert len(leaf.chain) == n
    bad = s[f"Bad{n - 1:04d}"]
    assert not bad.resolved and len(s.errors) == n
    (error,) = bad.errors
    head = " → ".join(f"Bad{i:04d}" for i in range(n - 1, n - 7, -1))
    assert error.reason == (f"Parent chain {head} → … {n - 7:,} more … → Bad0000 → Ghost: "
                            "no asset named 'Ghost'")
    row = next(a for a in doc["assets"] if a["key"] == f"Ok{n - 1:04d}")
    assert row["chain_length"] == n and row["parent"] == f"Ok{n - 2:04d}" and row["chain_end"] == "Ok0000"
    assert row["chain"] == [f"Ok{i:04d}" for i in range(n - 1, n - 65, -1)]  # the first 64 links


def test_long_cycles_are_settled_once_with_bounded_messages(tmp_path) -> None:
    n = 40
    assets = _chain("C", n, f"C{n - 1:04d}")  # C0000's parent is the last link: one loop of 40
    assets["Tail"] = {"Type": "Tile", "Parent": "C0005"}
    s = load_biome_set(write_set(tmp_path, assets))
    assert all(s[f"C{i:04d}"].chain_length == n for i in range(n))
    assert s["C0010"].errors[0].reason == (
        "Parent chain C0010 → C0009 → C0008 → C0007 → C0006 → C0005 → … 33 more … → C0011 → C0010: "
        "cycle back to 'C0010'")
    assert s["Tail"].chain_length == n + 1 and s["Tail"].chain[-1] == "C0006"
    assert s["Tail"].errors[0].reason.endswith("→ C0006 → C0005: cycle back to 'C0005'")
