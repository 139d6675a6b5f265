"""Any library the layout can hold reads back with its counts and writes back byte for byte."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from model.grasslib import library_bytes, parse_library
from tests.model.grasslib import fixtures as fx


@settings(max_examples=40, deadline=None)
@given(models=st.integers(0, 6), sizes=st.lists(st.integers(0, 4), max_size=12),
       table=st.binary(min_size=256, max_size=256), seed=st.integers(0, 2**31))
def test_generated_libraries_round_trip(models: int, sizes: list[int], table: bytes, seed: int) -> None:
    data = fx.library_bytes(models, sizes, table, seed=seed)
    lib = parse_library(data)
    assert lib.model_count == models
    assert [len(g.rules) for g in lib.groups] == sizes
    assert lib.table.tobytes() == table
    assert library_bytes(lib) == data


@settings(max_examples=40, deadline=None)
@given(cut=st.integers(1, 2000), seed=st.integers(0, 3))
def test_any_shortened_library_is_refused_with_an_offset(cut: int, seed: int) -> None:
    import pytest

    from model.errors import FormatError

    data = fx.library_bytes(5, [1, 0, 2, 3, 1, 2, 0, 1], b"\xff" * 256, seed=seed)
    with pytest.raises(FormatError) as e:
        parse_library(data[:-cut])
    assert isinstance(e.value.place, int) and 0 <= e.value.place <= len(data)
