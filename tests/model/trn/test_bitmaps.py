"""Bitmap families load their image from beside the TRN file (PNG or TGA), never from elsewhere."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from model.errors import FormatError
from model.formats.png import write_png
from model.trn import build, document
from model.trn.bitmaps import decode_tga, load_bitmaps
from model.trn.evaluator import Region, evaluate


def _doc(tmp_path, bitmap_file: str, name="t.trn"):
    fbit = build.item("FBIT", "0001", bitmapFamily=2, featherFn=0, feather=0.0, low=0.5, high=2.0, gain=0.0)
    groups = build.family_groups(bitmaps=[{"id": 2, "name": "mask", "bitmapFile": bitmap_file}])
    layer = build.layer("b", [fbit, build.item("AHCN", "0000", operation=0, height=1.0)])
    node = build.document(header=build.header_values(mapWidth=100.0), groups=groups, layers=[layer])
    path = tmp_path / name
    path.write_bytes(build.to_bytes(node))
    return document.read(path)


def _tga(grey: np.ndarray, top_first: bool = False) -> bytes:
    h, w = grey.shape
    head = struct.pack("<BBBHHBHHHHBB", 0, 0, 3, 0, 0, 0, 0, 0, w, h, 8, 0x20 if top_first else 0)
    rows = grey[::-1] if top_first else grey
    return head + rows.astype(np.uint8).tobytes()


def test_png_beside_the_file_drives_the_filter(tmp_path):
    img = np.zeros((2, 2), np.uint8)
    img[0, :] = 255  # PNG row 0 is the north edge (z > 0)
    write_png(tmp_path / "mask.png", img)
    doc = _doc(tmp_path, "texture\\terrain\\mask.tga")
    bitmaps, missing = load_bitmaps(doc)
    assert not missing and bitmaps[2].shape == (2, 2)
    ev = evaluate(doc, Region.from_bounds(0, -40, 0, 40, 10.0), bitmaps=bitmaps)
    # the 2-pixel image spans the 100 m map, bilinear: z = −40 … 40 samples 0.2 … 1 (kept below 1)
    expect = [0, 0, 0.6, 0.8, 0.99999, 0.99999, 0.99999, 0.99999, 0.99999]
    assert list(ev.heights[:, 0]) == pytest.approx(expect, abs=1e-5)


def test_tga_grey_both_orientations(tmp_path):
    grey = np.array([[0, 255], [10, 20]], np.uint8)  # row 0 = south
    assert np.array_equal(decode_tga(_tga(grey)), grey / 255.0)
    assert np.array_equal(decode_tga(_tga(grey, top_first=True)), grey / 255.0)
    (tmp_path / "mask.tga").write_bytes(_tga(grey))
    bitmaps, missing = load_bitmaps(_doc(tmp_path, "a/b/mask.tga"))
    assert np.array_equal(bitmaps[2], grey / 255.0)


def test_truncated_tga_names_the_offset():
    data = _tga(np.zeros((4, 4), np.uint8))[:-3]
    with pytest.raises(FormatError) as e:
        decode_tga(data, "m.tga")
    assert e.value.place == 12


def test_references_never_escape_the_folder(tmp_path):
    inner = tmp_path / "maps"
    inner.mkdir()
    write_png(tmp_path / "secret.png", np.full((2, 2), 255, np.uint8))
    doc = _doc(inner, "../secret.png")
    bitmaps, missing = load_bitmaps(doc)
    assert bitmaps == {} and "not found" in missing[0]


def test_a_reference_too_long_for_the_file_system_is_not_found(tmp_path):
    doc = _doc(tmp_path, "maps\\" + "a" * 300 + ".png")
    bitmaps, missing = load_bitmaps(doc)
    assert bitmaps == {} and "not found" in missing[0]
