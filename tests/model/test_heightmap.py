"""Heightmap import/export: PNG codec, 16-bit round trips, RAW sizes, .npy safety, scenes."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.errors import FormatError
from model.formats import png
from model.formats.heightmap import (
    HeightMapping,
    check_shape,
    export_heights,
    mapping_for,
    quantise,
    read_heightmap,
    read_layer_png,
    scene_from_heightmap,
    write_heightmap,
    write_layer_png,
)
from model.formats.png import SIGNATURE, decode_png, encode_png, read_png, unfilter
from model.terrain import Terrain


def hills(rows: int = 65, cols: int = 81) -> np.ndarray:
    z, x = np.mgrid[0:rows, 0:cols].astype(np.float64)
    return (40 * np.sin(x / 9) * np.cos(z / 7) + 0.3 * x - 12.5).astype(np.float32)


# ---- PNG codec --------------------------------------------------------------------------------
def ref_unfilter(rows: np.ndarray, kinds, bpp: int) -> np.ndarray:
    """The PNG specification's reconstruction, one byte at a time."""
    h, stride = rows.shape
    out = [[0] * stride for _ in range(h)]
    for r in range(h):
        for i in range(stride):
            x = int(rows[r, i])
            a = out[r][i - bpp] if i >= bpp else 0
            b = out[r - 1][i] if r > 0 else 0
            c = out[r - 1][i - bpp] if r > 0 and i >= bpp else 0
            k = int(kinds[r])
            if k == 0:
                pred = 0
            elif k == 1:
                pred = a
            elif k == 2:
                pred = b
            elif k == 3:
                pred = (a + b) // 2
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[r][i] = (x + pred) & 0xFF
    return np.array(out, np.uint8)


@pytest.mark.parametrize("bpp", [1, 2, 3, 4])
@pytest.mark.parametrize("only_simple", [True, False])
def test_unfilter_matches_the_byte_loop_reference(bpp: int, only_simple: bool) -> None:
    rng = np.random.default_rng(bpp)
    rows = rng.integers(0, 256, (13, 7 * bpp)).astype(np.uint8)
    kinds = rng.integers(0, 3 if only_simple else 5, 13).astype(np.uint8)
    np.testing.assert_array_equal(unfilter(rows, kinds, bpp), ref_unfilter(rows, kinds, bpp))


@pytest.mark.parametrize("band", [1, 4, 5, 100])
def test_unfilter_in_bands_matches_the_reference(monkeypatch, band: int) -> None:
    monkeypatch.setattr(png, "WAVEFRONT_BAND", band)
    rng = np.random.default_rng(band)
    rows = rng.integers(0, 256, (13, 9 * 2)).astype(np.uint8)
    kinds = rng.integers(0, 5, 13).astype(np.uint8)
    kinds[0] = 4
    np.testing.assert_array_equal(unfilter(rows, kinds, 2), ref_unfilter(rows, kinds, 2))


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 12), w=st.integers(1, 12), sixteen=st.booleans(), seed=st.integers(0, 999),
       filters=st.one_of(st.integers(0, 4), st.just("adaptive"), st.just("mixed")))
def test_encode_decode_round_trip(h, w, sixteen, seed, filters) -> None:
    rng = np.random.default_rng(seed)
    dtype = np.uint16 if sixteen else np.uint8
    img = rng.integers(0, np.iinfo(dtype).max + 1, (h, w)).astype(dtype)
    if filters == "mixed":
        filters = rng.integers(0, 5, h)
    out = decode_png(encode_png(img, filters, text={"k": "v"}))
    assert out.pixels.dtype == dtype
    np.testing.assert_array_equal(out.pixels, img)
    assert out.text == {"k": "v"}


def handmade_png(width: int, height: int, colour: int, depth: int, rows: list[bytes],
                 interlace: int = 0) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload))
        return struct.pack(">I", len(payload)) + kind + payload + crc
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    return (SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"".join(rows)))
            + chunk(b"IEND", b""))


def test_rgb_and_alpha_images_read_their_first_channel() -> None:
    # 2 x 2 RGBA 8-bit, filter 0: the red channel is the value.
    rows = [b"\0" + bytes([10, 1, 2, 255, 20, 3, 4, 255]), b"\0" + bytes([30, 5, 6, 255, 40, 7, 8, 255])]
    img = decode_png(handmade_png(2, 2, 6, 8, rows))
    np.testing.assert_array_equal(img.pixels, [[10, 20], [30, 40]])
    # 2 x 1 RGB 16-bit with a Sub filter.
    raw = bytes([1, 0, 9, 9, 9, 9, 0, 5, 0, 0, 0, 0])  # red 256, then red 256 + 5 via Sub
    img = decode_png(handmade_png(2, 1, 2, 16, [b"\1" + raw]))
    np.testing.assert_array_equal(img.pixels, [[256, 261]])


@pytest.mark.parametrize("mutate, message", [
    (lambda d: b"GIF89a" + d[6:], "bad signature"),
    (lambda d: d[:40], "truncated"),
    (lambda d: d[:20] + b"\xff" + d[21:], "checksum"),
    (lambda d: d[:8] + struct.pack(">I", 0x7FFFFFF0) + d[12:], "claims"),
])
def test_damaged_png_is_one_clear_error(tmp_path, mutate, message) -> None:
    data = encode_png(np.arange(64, dtype=np.uint16).reshape(8, 8))
    path = tmp_path / "bad.png"
    path.write_bytes(mutate(data))
    with pytest.raises(FormatError, match=message) as info:
        read_png(path)
    assert "bad.png" in str(info.value)


@pytest.mark.parametrize("kwargs, message", [
    (dict(colour=3, depth=8), "palette"),
    (dict(colour=0, depth=4), "unsupported"),
    (dict(colour=0, depth=8, interlace=1), "interlaced"),
])
def test_unsupported_png_kinds_are_refused(kwargs, message) -> None:
    data = handmade_png(2, 2, kwargs["colour"], kwargs["depth"], [b"\0\0\0"] * 2, kwargs.get("interlace", 0))
    with pytest.raises(FormatError, match=message):
        decode_png(data, "x.png")


def test_pixel_data_size_must_match_the_header() -> None:
    too_little = handmade_png(4, 4, 0, 8, [b"\0" + b"\1" * 4] * 3)
    with pytest.raises(FormatError, match="expected 20 bytes"):
        decode_png(too_little, "x.png")
    too_much = handmade_png(4, 4, 0, 8, [b"\0" + b"\1" * 4] * 5)
    with pytest.raises(FormatError, match="more"):
        decode_png(too_much, "x.png")
    bad_filter = handmade_png(2, 2, 0, 8, [b"\0\1\1", b"\7\1\1"])
    with pytest.raises(FormatError, match="row 1 has unknown filter type 7"):
        decode_png(bad_filter, "x.png")


def test_huge_claimed_size_is_refused_before_inflating() -> None:
    with pytest.raises(FormatError, match="impossible image size"):
        decode_png(handmade_png(100000, 100000, 0, 8, [b"\0"]), "x.png")


# ---- 16-bit round trips -----------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".png", ".r16"])
def test_export_import_round_trips_within_one_16_bit_step(tmp_path, suffix) -> None:
    heights = hills()
    path = tmp_path / f"h{suffix}"
    mapping = write_heightmap(path, heights)
    assert mapping.offset == float(heights.min())
    size = (heights.shape[1], heights.shape[0]) if suffix == ".r16" else None
    back = read_heightmap(path, size=size, offset=mapping.offset, scale=mapping.scale)
    step = mapping.scale / 65535
    assert back.heights.shape == heights.shape and back.heights.dtype == np.float32
    assert np.abs(back.heights.astype(np.float64) - heights).max() <= step / 2 + 1e-5
    # Exporting what was imported gives the very same bytes: nothing drifts.
    again = tmp_path / f"again{suffix}"
    write_heightmap(again, back.heights, offset=mapping.offset, scale=mapping.scale)
    assert again.read_bytes() == path.read_bytes()
    # And quantised heights come back bit for bit.
    assert read_heightmap(again, size=size, offset=mapping.offset,
                          scale=mapping.scale).heights.tobytes() == back.heights.tobytes()


def test_png_carries_its_mapping_and_spacing(tmp_path) -> None:
    t = Terrain(hills(), spacing=2.5)
    mapping = export_heights(t, tmp_path / "t.png", offset=-100.0, scale=400.0)
    assert mapping == HeightMapping(-100.0, 400.0)
    back = read_heightmap(tmp_path / "t.png")
    assert back.mapping == mapping and back.spacing == 2.5
    assert np.abs(back.heights - t.heights).max() <= 400.0 / 65535


def test_r16_is_little_endian(tmp_path) -> None:
    heights = np.array([[0.0, 1.0], [0.5, 0.25]], np.float32)
    write_heightmap(tmp_path / "h.r16", heights, offset=0.0, scale=1.0)
    raw = (tmp_path / "h.r16").read_bytes()
    assert struct.unpack("<4H", raw) == (0, 65535, 32768, 16384)


def test_npy_round_trips_exactly_and_is_float32(tmp_path) -> None:
    heights = hills() * np.float32(1.37)
    assert write_heightmap(tmp_path / "h.npy", heights) is None
    back = read_heightmap(tmp_path / "h.npy")
    assert back.heights.dtype == np.float32 and back.heights.tobytes() == heights.tobytes()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), scale=st.floats(1.0, 5000.0), offset=st.floats(-16, 16))
def test_quantise_round_trip_property(seed, scale, offset) -> None:
    # float32 holds every 16-bit step while |height| stays within ~64 × scale; keep well inside.
    offset *= scale
    rng = np.random.default_rng(seed)
    mapping = HeightMapping(offset, scale)
    values = rng.integers(0, 65536, (5, 7)).astype(np.uint16)
    heights = (offset + scale * values / 65535.0).astype(np.float32)
    np.testing.assert_array_equal(quantise(heights, mapping), values)


def test_flat_terrain_exports_without_dividing_by_zero(tmp_path) -> None:
    flat = np.full((4, 4), 7.0, np.float32)
    mapping = write_heightmap(tmp_path / "f.png", flat)
    assert mapping.scale > 0
    assert np.array_equal(read_heightmap(tmp_path / "f.png").heights, flat)
    with pytest.raises(ValueError, match="positive"):
        mapping_for(flat, scale=0.0)


# ---- sizes and bad input ----------------------------------------------------------------------
def test_r16_size_errors_name_expected_and_actual(tmp_path) -> None:
    path = tmp_path / "h.r16"
    write_heightmap(path, hills(10, 12))  # 12 x 10
    with pytest.raises(FormatError, match=r"expected 12 x 12 x 2 = 288 bytes, file holds 240"):
        read_heightmap(path, size=(12, 12))
    with pytest.raises(FormatError, match="not a square grid"):
        read_heightmap(path)
    assert read_heightmap(path, size=(12, 10)).heights.shape == (10, 12)
    write_heightmap(path, hills(9, 9))
    assert read_heightmap(path).heights.shape == (9, 9)  # a square size is inferred


def test_expected_shape_mismatch_names_both(tmp_path) -> None:
    write_heightmap(tmp_path / "h.png", hills(10, 12))
    with pytest.raises(FormatError, match=r"12 x 10 \(columns x rows\), expected 64 x 32"):
        read_heightmap(tmp_path / "h.png", expected_shape=(32, 64))
    with pytest.raises(FormatError, match="h.png"):
        check_shape(tmp_path / "h.png", "heightmap", (3, 3), (10, 12))


def test_npy_with_a_lying_header_is_refused_before_loading(tmp_path) -> None:
    path = tmp_path / "h.npy"
    np.save(path, np.zeros((4, 4), np.float32))
    data = path.read_bytes()
    # A valid header that claims far more data than the file holds.
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (9000, 9000), }"
    header = header + " " * (118 - len(header) - 1) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data[128:])
    with pytest.raises(FormatError, match=r"claims 9000 x 9000 float32 \(324000000 bytes\) but only 64"):
        read_heightmap(path)


@pytest.mark.parametrize("version, length, message", [
    (b"\x02\x00", struct.pack("<I", 0xFFFFFFFF), "header claims 4294967295 bytes"),  # numpy would read 4 GiB
    (b"\x01\x00", struct.pack("<H", 60000), "header claims 60000 bytes"),
    (b"\xef\xbb", b"\x01\x00\x89\xff", "unsupported .npy format version 239.187"),
])
def test_npy_header_length_is_checked_before_numpy_reads_it(tmp_path, version, length, message) -> None:
    np.save(tmp_path / "h.npy", np.zeros((4, 4), np.float32))
    data = (tmp_path / "h.npy").read_bytes()
    (tmp_path / "h.npy").write_bytes(data[:6] + version + length + data[12:])
    with pytest.raises(FormatError, match=message):
        read_heightmap(tmp_path / "h.npy")


def test_npy_header_that_does_not_tokenize_is_one_error(tmp_path) -> None:
    np.save(tmp_path / "h.npy", np.zeros((4, 4), np.float32))
    data = bytearray((tmp_path / "h.npy").read_bytes())
    data[10:12] = b"{("  # an unclosed bracket: numpy's tokenize raises TokenError
    (tmp_path / "h.npy").write_bytes(bytes(data))
    with pytest.raises(FormatError, match="not a NumPy .npy file"):
        read_heightmap(tmp_path / "h.npy")


def test_an_unparsable_npy_header_is_named_without_quoting_all_of_it(tmp_path) -> None:
    header = b"{'descr': '<U4', 'fortran_order': True, 'shape': None, }" + b" " * 3000 + b"\n"
    (tmp_path / "h.npy").write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header
                                     + bytes(64))
    with pytest.raises(FormatError, match="not a NumPy .npy file") as caught:
        read_heightmap(tmp_path / "h.npy")
    assert len(str(caught.value)) < len(str(tmp_path)) + 250


@pytest.mark.parametrize("text, message", [
    ({"boscage.height_scale": "1e308"}, "height scale must be a positive number of metres up to 2e"),
    ({"boscage.height_offset": "-3.5e38"}, "height offset must be a finite number of metres within 1e"),
    ({"boscage.height_offset": "1e38"}, "height offset must be a finite number of metres within 1e"),
    ({"boscage.height_offset": "9e6", "boscage.height_scale": "2e6"}, "gives heights up to 1.1e"),
])
def test_a_mapping_beyond_the_terrain_range_is_refused(tmp_path, text, message) -> None:
    png.write_png(tmp_path / "h.png", np.zeros((4, 4), np.uint16), text=text)
    with pytest.raises(FormatError, match=message):
        read_heightmap(tmp_path / "h.png")


@pytest.mark.parametrize("array, message", [
    (np.zeros(5, np.float32), "2-D grid"),
    (np.array([["a", "b"], ["c", "d"]]), "dtype"),
    (np.array([[1.0, np.nan], [0.0, 0.0]], np.float32), "row 0, column 1"),
])
def test_npy_content_is_checked(tmp_path, array, message) -> None:
    np.save(tmp_path / "h.npy", array)
    with pytest.raises(FormatError, match=message):
        read_heightmap(tmp_path / "h.npy")


def test_pickled_npy_is_never_unpickled(tmp_path) -> None:
    np.save(tmp_path / "o.npy", np.array([[{}, {}], [{}, {}]], dtype=object), allow_pickle=True)
    with pytest.raises(FormatError, match="dtype"):
        read_heightmap(tmp_path / "o.npy")


def test_not_a_heightmap(tmp_path) -> None:
    (tmp_path / "x.png").write_bytes(b"hello")
    with pytest.raises(FormatError, match="signature"):
        read_heightmap(tmp_path / "x.png")
    with pytest.raises(FormatError, match="file not found"):
        read_heightmap(tmp_path / "missing.r16")
    with pytest.raises(FormatError, match="cannot tell"):
        read_heightmap(tmp_path / "x.bmp")  # .tif is float TIFF now
    (tmp_path / "x.npy").write_bytes(b"junk junk junk")
    with pytest.raises(FormatError, match="not a NumPy"):
        read_heightmap(tmp_path / "x.npy")


# ---- layers and scenes ------------------------------------------------------------------------
def test_layer_weights_round_trip_as_8_bit_png(tmp_path) -> None:
    weights = np.random.default_rng(5).integers(0, 256, (33, 17)).astype(np.uint8)
    write_layer_png(tmp_path / "w.png", weights)
    img = read_png(tmp_path / "w.png")
    assert img.pixels.dtype == np.uint8
    np.testing.assert_array_equal(read_layer_png(tmp_path / "w.png", expected_shape=(33, 17)), weights)
    with pytest.raises(FormatError, match=r"17 x 33 \(columns x rows\), expected 20 x 20"):
        read_layer_png(tmp_path / "w.png", expected_shape=(20, 20))


def test_a_16_bit_png_as_layer_weights_is_scaled_to_bytes(tmp_path) -> None:
    write_heightmap(tmp_path / "h.png", np.array([[0.0, 1.0], [0.5, 0.0]], np.float32), offset=0, scale=1)
    np.testing.assert_array_equal(read_layer_png(tmp_path / "h.png"), [[0, 255], [128, 0]])


def test_an_8_bit_heightmap_spans_the_same_range(tmp_path) -> None:
    write_layer_png(tmp_path / "h8.png", np.array([[0, 255], [51, 0]], np.uint8))
    back = read_heightmap(tmp_path / "h8.png", offset=0.0, scale=100.0)
    np.testing.assert_allclose(back.heights, [[0, 100], [20, 0]], atol=1e-4)


def test_new_scene_from_a_heightmap(tmp_path) -> None:
    t = Terrain(hills(), spacing=3.0)
    export_heights(t, tmp_path / "valley.png")
    scene = scene_from_heightmap(tmp_path / "valley.png")
    assert scene.name == "valley" and scene.terrain.spacing == 3.0
    assert scene.terrain.heights.shape == t.heights.shape and scene.terrain.layers == []
    assert scene_from_heightmap(tmp_path / "valley.png", spacing=0.5).terrain.spacing == 0.5
    write_heightmap(tmp_path / "v.r16", t.heights)
    scene = scene_from_heightmap(tmp_path / "v.r16", size=(81, 65), scale=10.0)
    assert scene.terrain.spacing == 1.0 and float(scene.terrain.heights.max()) == pytest.approx(10.0)
    with pytest.raises(FormatError, match="spacing"):
        scene_from_heightmap(tmp_path / "valley.png", spacing=-1.0)
