"""Property: any document the writer can express reads back equal and writes back byte for byte."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from model.trn import build, document, layouts

f32 = st.floats(width=32, allow_nan=False, allow_infinity=True)
i32 = st.integers(-2**31, 2**31 - 1)
u32 = st.integers(0, 2**32 - 1)
text = st.text(st.characters(min_codepoint=1, max_codepoint=255), max_size=12)


def values_for(layout):
    fields = {}
    for name, kind in layout:
        if kind == "f32":
            fields[name] = f32
        elif kind == "i32":
            fields[name] = i32
        elif kind == "u32":
            fields[name] = u32
        elif kind == "u8":
            fields[name] = st.integers(0, 255)
        elif kind == "bool8":
            fields[name] = st.booleans()
        elif kind == "cstr":
            fields[name] = text
        elif kind == "rgb":
            fields[name] = st.tuples(*[st.integers(0, 255)] * 3)
        elif kind == "xz*":
            fields[name] = st.lists(st.tuples(f32, f32), max_size=5)
        elif kind == "f32*":
            fields[name] = st.lists(f32, max_size=5)
        else:
            fields[name] = st.lists(values_for(kind[1]), max_size=3)
    return st.fixed_dictionaries(fields)


ITEM_KEYS = sorted(layouts.ITEMS)


@st.composite
def items(draw):
    tag, ver = draw(st.sampled_from(ITEM_KEYS))
    vals = draw(values_for(layouts.ITEMS[(tag, ver)]))
    return tag, ver, draw(text), draw(st.booleans()), vals


@settings(max_examples=60, deadline=None)
@given(version=st.sampled_from(layouts.VERSIONS), header=values_for(layouts.HEADER["0013"]),
       tops=st.lists(st.lists(items(), max_size=4), min_size=1, max_size=3),
       nested=st.lists(items(), max_size=3))
def test_random_documents_round_trip(version, header, tops, nested):
    header = dict(header, legacyMap=True)
    layers = []
    for n, group in enumerate(tops):
        forms = [build.item(tag, ver, name=name or "x", active=on, **vals)
                 for tag, ver, name, on, vals in group]
        if n == 0:
            forms.append(build.layer("sub", [build.item(t, v, name=nm or "y", active=on, **vals)
                                             for t, v, nm, on, vals in nested]))
        layers.append(build.layer(f"layer {n}", forms, version=("0001", "0002", "0003", "0004")[n % 4]))
    data = build.to_bytes(build.document(version, header, None, layers))
    doc = document.parse(data)
    assert doc.to_bytes() == data
    read = [(it.tag, it.version, it.params.values) for it in doc.items() if it.tag != "LAYR"]
    want = [(t, v, vals) for group in tops for t, v, _, _, vals in group]
    want[len(tops[0]):len(tops[0])] = [(t, v, vals) for t, v, _, _, vals in nested]
    assert read == want
    expect_header = {k: header[k] for k, _ in layouts.HEADER[version]}
    assert doc.header.values == expect_header
    assert struct.unpack(">I", data[4:8])[0] == len(data) - 8
