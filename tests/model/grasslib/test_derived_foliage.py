"""Derived grass as real foliage types, validated by the foliage model's own reader."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from model.foliage import foliage_type
from model.grasslib import MAPPING_NOTE, derive_group, parse_library, vxfoliage_text
from model.grasslib.derived import foliage_types
from tests.model.grasslib import fixtures as fx


@pytest.fixture(scope="module")
def lib():
    return parse_library(fx.small_library_bytes())


def test_vxfoliage_text_states_the_mapping_and_reads_back(lib) -> None:
    doc = derive_group(lib, 3).types[1]
    text = vxfoliage_text(doc)
    assert text.startswith("# " + MAPPING_NOTE)
    assert tomllib.loads(text) == doc
    ftype = foliage_type.parse_foliage_type(text)
    assert ftype.derived and ftype.name == doc["name"]
    assert ftype.scale == tuple(doc["scale"])


def test_foliage_types_are_real_derived_types(lib) -> None:
    seed_lib = parse_library(fx.seed_shaped_bytes())
    for g in range(len(seed_lib.groups)):
        d = derive_group(seed_lib, g, weight=48)
        types = foliage_types(d)
        assert all(isinstance(t, foliage_type.FoliageType) and t.derived for t in types)
        assert [t.density for t in types] == [doc["density"] for doc in d.types]
    first = derive_group(lib, 3)
    assert np.isclose(foliage_types(first)[0].density, first.types[0]["density"])


def test_merge_into_palette_adds_then_replaces(lib) -> None:
    from model.foliage.palette import Palette
    from model.grasslib.derived import merge_into_palette

    palette = Palette()
    full = foliage_types(derive_group(lib, 3))
    assert merge_into_palette(palette, full) == ([t.name for t in full], [])
    light = foliage_types(derive_group(lib, 3, weight=10))
    assert merge_into_palette(palette, light) == ([], [t.name for t in light])
    assert [palette[t.name].density for t in light] == [t.density for t in light]
    assert all(palette[t.name].derived for t in light)
