"""Exact TRN reading and writing: every item of every listed version, nested, unknown, odd-sized."""

from __future__ import annotations

import struct

import pytest

from model.errors import FormatError
from model.trn import build, document, iff, layouts
from model.trn.iff import Chunk, Form
from tests.model.trn.builders import every_item, family_groups_all, kitchen_sink, sample_values


@pytest.mark.parametrize("version", ["0013", "0014", "0015"])
@pytest.mark.parametrize("top", ["PTAT", "MPTA"])
def test_round_trip_is_byte_exact(version, top):
    data = build.to_bytes(kitchen_sink(version, top))
    doc = document.parse(data, "sink.trn")
    assert doc.version == version
    assert doc.to_bytes() == data


def test_odd_length_chunks_are_not_padded():
    data = build.to_bytes(kitchen_sink())
    root = iff.parse(data)
    sizes = [len(n.data) for _, n in iff.walk(root) if isinstance(n, iff.Chunk)]
    assert any(s % 2 for s in sizes)
    assert iff.serialize(root) == data


def test_every_item_reads_back_equal():
    doc = document.parse(build.to_bytes(kitchen_sink("0015")))
    by_name = {it.name: it for it in doc.items()}
    for tag, ver, values in every_item():
        it = by_name[f"{tag} {ver} item"]
        assert (it.tag, it.version) == (tag, ver)
        assert it.unsupported is None
        assert it.params.values == values, (tag, ver)
    assert by_name["old header"].params.values == {"operation": 1, "height": 2.5}
    assert len(list(doc.items())) >= len(layouts.ITEMS) + 7


def test_header_and_families_read_back_equal():
    for version in ("0013", "0014", "0015"):
        header = build.header_values(mapWidth=16384.0, chunkWidth=16.0)
        data = build.to_bytes(build.document(version, header, family_groups_all("0003")))
        doc = document.parse(data)
        assert doc.to_bytes() == data
        expect = {k: header[k] for k, _ in layouts.HEADER[version]}
        assert doc.header.values == expect
        assert doc.pole_spacing == 4.0
    assert doc.families["radial"][0].record.values == sample_values(layouts.RFAM["0003"], 4)
    assert doc.group_versions["RGRP"] == "0003"
    assert [f.id for f in doc.families["shader"]] == [sample_values(layouts.SFAM, i)["id"] for i in (1, 2)]
    frac = doc.families["fractal"]
    assert frac[0].fractal.values == sample_values(layouts.MFRC["0001"], 8)
    assert frac[1].fractal_version == "0000" and "offsetX" not in frac[1].fractal.values
    bitmap_file = sample_values(layouts.MFAM_BITMAP, 11)["bitmapFile"]
    assert doc.families["bitmap"][0].record["bitmapFile"] == bitmap_file
    assert doc.families["environment"][0].record.values == sample_values(layouts.EFAM, 6)


def test_layer_tree_nesting_and_flags():
    doc = document.parse(build.to_bytes(kitchen_sink()))
    top, inactive = doc.layers
    assert top.tag == "LAYR" and top.params["invertBoundaries"] == 1 and top.active
    assert not inactive.active
    middle = top.children[-1]
    assert middle.version == "0004" and middle.params["notes"] == "odd notes"
    inner = middle.children[0]
    assert inner.version == "0002" and inner.params["invertFilters"] == 1
    assert middle.children[1].version == "0001"
    assert doc.baked["width"] == 3 and doc.baked["height"] == 5


def test_unknown_blocks_are_kept_and_reported():
    data = build.to_bytes(kitchen_sink())
    doc = document.parse(data)
    reasons = {(u.tag, u.version): u.reason for u in doc.unsupported}
    assert ("XQZW", "0000") in reasons
    assert "version 0009" in reasons[("BCIR", "0009")]
    assert ("ARIB", "0001") in reasons
    assert ("ZZZZ", None) in reasons
    assert doc.to_bytes() == data


@pytest.mark.parametrize("edit", ["name", "active", "number", "points", "header", "family"])
def test_edit_writes_a_valid_file_with_the_change(edit):
    doc = document.parse(build.to_bytes(kitchen_sink()))
    circle = next(it for it in doc.items() if it.tag == "BCIR")
    poly = next(it for it in doc.items() if it.tag == "BPOL")
    if edit == "name":
        circle.name = "renamed to something longer"
    elif edit == "active":
        circle.active = not circle.active
    elif edit == "number":
        circle.params["radius"] = 123.5
    elif edit == "points":
        poly.params["points"] = poly.params["points"] + [(1.5, 2.5)]
    elif edit == "header":
        doc.header["name"] = "renamed.trn"
    else:
        doc.families["shader"][0].record["name"] = "mud"
    again = document.parse(doc.to_bytes())
    c2 = next(it for it in again.items() if it.tag == "BCIR")
    p2 = next(it for it in again.items() if it.tag == "BPOL")
    assert c2.name == circle.name and c2.active == circle.active
    assert c2.params.values == circle.params.values
    assert p2.params.values == poly.params.values
    assert again.header.values == doc.header.values
    assert again.families["shader"][0].name == doc.families["shader"][0].name
    assert again.to_bytes() == doc.to_bytes()


def test_save_is_atomic_and_exact(tmp_path):
    data = build.to_bytes(kitchen_sink("0013"))
    src = tmp_path / "a.trn"
    src.write_bytes(data)
    doc = document.read(src)
    doc.save(tmp_path / "b.trn")
    assert (tmp_path / "b.trn").read_bytes() == data


def test_nan_fields_survive_unchanged():
    node = build.document(layers=[build.layer("l", [build.item("AHCN", "0000", operation=0, height=0.0)])])
    data = bytearray(build.to_bytes(node))
    at = data.rfind(struct.pack("<if", 0, 0.0)) + 4
    data[at:at + 4] = b"\x01\x00\xa0\x7f"  # a signalling NaN payload
    doc = document.parse(bytes(data))
    assert doc.to_bytes() == bytes(data)


# ---- bad files ---------------------------------------------------------------------------
def _good() -> bytes:
    return build.to_bytes(kitchen_sink())


def test_truncated_file_names_offset():
    data = _good()
    with pytest.raises(FormatError) as e:
        document.parse(data[:-10], "t.trn")
    assert e.value.place == 4 and "t.trn" in str(e.value)


def test_child_size_past_parent():
    root = build.document(layers=[build.layer("l", [build.item("AHCN", "0000", operation=0, height=1.0)])])
    data = bytearray(build.to_bytes(root))
    at = data.find(b"AHCN") - 8  # the FORM that holds AHCN
    size = struct.unpack_from(">I", data, at + 4)[0]
    struct.pack_into(">I", data, at + 4, size + 100)
    with pytest.raises(FormatError) as e:
        document.parse(bytes(data), "p.trn")
    assert e.value.place == at + 4
    assert "claims" in e.value.reason


def test_wrong_version():
    data = build.to_bytes(build.document()).replace(b"FORM\x00", b"FORM\x00", 1)
    bad = data.replace(b"0014", b"0011", 1)
    with pytest.raises(FormatError) as e:
        document.parse(bad, "v.trn")
    assert e.value.place == 20 and "0011" in e.value.reason


def test_not_a_terrain_generator():
    stat = iff.serialize(iff.Form("STAT", [iff.Form("0000", [iff.Chunk("DATA", b"\0" * 9)])]))
    with pytest.raises(FormatError) as e:
        document.parse(stat, "space.trn")
    assert "FORM STAT" in e.value.reason and e.value.place == 8


def test_not_iff_at_all():
    with pytest.raises(FormatError) as e:
        document.parse(b"hello world, not a trn", "x.trn")
    assert e.value.place == 0


def test_payload_with_trailing_bytes_names_offset():
    node = build.document(layers=[build.layer("l", [build.item("AHCN", "0000", operation=0, height=1.0)])])
    tree = node
    ahcn = next(n for _, n in iff.walk(tree) if isinstance(n, iff.Form) and n.name == "AHCN")
    payload = ahcn.children[0].children[1]
    payload.data += b"\x07"
    data = iff.serialize(tree)
    # a payload that does not fit its layout keeps the item raw (reported with the offset of the
    # first byte that did not fit) so the rest of a real file still opens, and writes back exactly
    doc = document.parse(data, "b.trn")
    item = next(it for it in doc.items() if it.tag == "AHCN")
    assert item.unsupported and item.params is None
    (u,) = [u for u in doc.unsupported if u.tag == "AHCN"]
    assert u.offset == data.find(b"FORM", data.find(b"AHCN") - 8) and "1 bytes left" in u.reason
    assert f"offset {data.find(payload.data) + 8}" in u.reason
    assert doc.to_bytes() == data


def test_absurd_count_is_refused_before_allocation():
    node = build.document(layers=[build.layer("l", [build.item("BPLN", "0003", points=[(0, 0)], featherFn=0,
                                                                 feather=0.5, width=2.0)])])
    data = bytearray(build.to_bytes(node))
    at = data.find(struct.pack("<iff", 1, 0.0, 0.0))
    struct.pack_into("<i", data, at, 2_000_000_000)
    doc = document.parse(bytes(data), "c.trn")  # refused by the size check, so nothing was allocated
    (u,) = [u for u in doc.unsupported if u.tag == "BPLN"]
    assert f"offset {at}" in u.reason and "points" in u.reason
    assert doc.to_bytes() == bytes(data)


def test_trailing_bytes_after_top_form():
    data = _good() + b"xyz"
    with pytest.raises(FormatError) as e:
        document.parse(data)
    assert e.value.place == len(data) - 3


def test_families_and_items_that_do_not_fit_are_kept_raw_and_the_rest_reads():
    groups = build.family_groups(shaders=[sample_values(layouts.SFAM, 1), sample_values(layouts.SFAM, 2)])
    node = build.document(groups=groups, layers=[build.layer("l", [
        build.item("AHCN", "0000", operation=0, height=1.0),
        Form("FHGT", [Form("0002", [build.ihdr("odd header", version="0001"), Chunk("DATA", b"\x00" * 5)])]),
        Form("AHCN", [Form("0000", [Form("IHDR", [Form("0007", [Chunk("DATA", b"x")])]),
                                    Chunk("DATA", b"\x00" * 8)])])])])
    sgrp = next(n for _, n in iff.walk(node) if isinstance(n, iff.Form) and n.name == "SGRP")
    sgrp.children[0].children[1].data += b"\x01\x02"  # the second SFAM grows two stray bytes
    data = build.to_bytes(node)
    doc = document.parse(data, "d.trn")
    assert [f.id for f in doc.families["shader"]] == [sample_values(layouts.SFAM, 1)["id"]]
    tags = [(u.tag, u.reason.split(":")[0]) for u in doc.unsupported]
    assert ("SFAM", "kept raw") in tags and ("FHGT", "kept raw") in tags
    assert sum(t == "AHCN" for t, _ in tags) == 1  # the one with an unknown IHDR version
    kept = [it for it in doc.items() if it.tag == "AHCN" and not it.unsupported]
    assert len(kept) == 1 and kept[0].params["height"] == 1.0
    assert doc.to_bytes() == data


@pytest.mark.parametrize("body", ["none", "empty"])
def test_exclude_affector_reads_with_or_without_its_empty_data(body):
    payload = [] if body == "none" else [Chunk("DATA", b"")]
    aexc = Form("AEXC", [Form("0000", [build.ihdr("x"), *payload])])
    node = build.document(layers=[build.layer("l", [aexc])])
    data = build.to_bytes(node)
    doc = document.parse(data)
    (it,) = [it for it in doc.items() if it.tag == "AEXC"]
    assert it.unsupported is None and it.name == "x"
    assert doc.to_bytes() == data


def test_bytes_too_short_for_a_block_at_the_end_of_a_form_are_kept_and_reported():
    # an exclude affector whose empty DATA header was cut to 6 bytes, as real files have them
    aexc = Form("AEXC", [Form("0000", [build.ihdr("cut")], tail=b"DATA\x00\x00")])
    ahcn = build.item("AHCN", "0000", operation=0, height=2.0)
    node = build.document(layers=[build.layer("l", [aexc, ahcn])])
    data = build.to_bytes(node)
    doc = document.parse(data, "t.trn")
    assert [it.tag for it in doc.items() if it.unsupported is None] == ["LAYR", "AEXC", "AHCN"]
    (u,) = doc.unsupported
    assert u.offset == data.find(b"DATA\x00\x00FORM") and "6 bytes" in u.reason
    assert doc.to_bytes() == data


def test_short_remains_outside_a_form_are_still_refused():
    data = build.to_bytes(build.document())
    with pytest.raises(FormatError) as e:
        iff.parse(data + b"FORM", "u.trn")
    assert e.value.place == len(data)


@pytest.mark.parametrize("field,value", [("name", "bad\0name"), ("name", "山"), ("active", 2**31),
                                         ("active", 1.5)])
def test_edits_a_field_cannot_store_are_refused(field, value):
    doc = document.parse(build.to_bytes(kitchen_sink()))
    circle = next(it for it in doc.items() if it.tag == "BCIR")
    before = doc.to_bytes()
    with pytest.raises(ValueError):
        if field == "name":
            circle.name = value
        else:
            circle.ihdr[field] = value
    assert doc.to_bytes() == before
    circle.name = "Hügel"  # Latin-1 is fine
    assert any(it.name == "Hügel" for it in document.parse(doc.to_bytes()).items())


def test_baked_terrain_that_does_not_fit_is_reported_not_fatal():
    baked = build.baked(3, 5)
    baked.children[1].data = baked.children[1].data[:-1]  # WMAP one byte short of 3 x 5
    data = build.to_bytes(build.document(baked_form=baked))
    doc = document.parse(data)
    assert doc.baked["width"] == 3
    assert any(u.tag == "WMAP" and "14 bytes" in u.reason for u in doc.unsupported)
    bad = build.baked(3, 5)
    bad.children[0].data += b"\x00"
    data = build.to_bytes(build.document(baked_form=bad))
    doc = document.parse(data)
    assert doc.baked is None and any(u.reason.startswith("kept raw") for u in doc.unsupported)
    assert doc.to_bytes() == data


def test_road_0005_without_heights_as_the_original_engine_writes_it():
    from model.trn.fields import encode
    engine = layouts.ALT_ITEMS[("AROA", "0005")][0]
    values = {"points": [(0.0, 0.0), (50.0, 0.0)], "width": 6.0, "shaderFamily": 2, "featherFn": 1,
              "feather": 0.25, "featherFnShader": 0, "featherShader": 0.5}
    hdta = Form("HDTA", [Form("0001", [Chunk("DATA", b"")])])
    aroa = Form("AROA", [Form("0005", [build.ihdr("old road"),
                                       Form("DATA", [hdta, Chunk("DATA", encode(engine, values))])])])
    data = build.to_bytes(build.document(layers=[build.layer("l", [aroa])]))
    doc = document.parse(data)
    (road,) = [it for it in doc.items() if it.tag == "AROA"]
    assert road.unsupported is None and road.params["width"] == 6.0 and road.params.get("heights") is None
    road.params["width"] = 7.0
    again = document.parse(doc.to_bytes())
    assert [it.params["width"] for it in again.items() if it.tag == "AROA"] == [7.0]
