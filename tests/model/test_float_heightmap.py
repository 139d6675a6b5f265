"""Float heightmaps (EXR, TIFF, RAW R32): bit-exact round trips, spacing, and one FormatError per bad file."""

from __future__ import annotations

import io
import json

import numpy as np
import OpenEXR
import pytest
import tifffile
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from model.errors import FormatError
from model.extent import MAX_EXTENT
from model.formats.heightmap import export_heights, read_heightmap, scene_from_heightmap, write_heightmap
from model.terrain import Terrain

FLOAT_SUFFIXES = [".exr", ".tif", ".r32"]


def awkward(rows: int = 37, cols: int = 53) -> np.ndarray:
    """Heights no 16-bit format keeps: random bits, signed zero, subnormals, the terrain range's
    edges (random bits past ±10,000 km keep their significand, exponent brought into range)."""
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, (rows, cols), dtype=np.uint64).astype(np.uint32)
    h = bits.view(np.float32).copy()
    big = ~(np.abs(h) <= MAX_EXTENT)
    h[big] = ((bits[big] & 0x807FFFFF) | 0x4A800000).view(np.float32)  # 2^22 to 2^23 m, either sign
    flat = h.reshape(-1)
    flat[:6] = [-0.0, np.float32(1e-45), -MAX_EXTENT, MAX_EXTENT, np.finfo(np.float32).tiny, 8848.8604]
    return h


def same_bits(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype == np.float32 and a.shape == b.shape
    np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("suffix", FLOAT_SUFFIXES)
def test_round_trip_is_bit_for_bit(tmp_path, suffix: str) -> None:
    heights = awkward()
    path = tmp_path / f"h{suffix}"
    assert write_heightmap(path, heights) is None  # no 16-bit mapping
    hm = read_heightmap(path, size=(53, 37) if suffix == ".r32" else None)
    same_bits(hm.heights, heights)
    assert hm.mapping is None


@settings(max_examples=25, deadline=None)
@given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=24),
                  elements=st.floats(-MAX_EXTENT, MAX_EXTENT, width=32)),
       st.sampled_from(FLOAT_SUFFIXES))
def test_any_terrain_grid_round_trips_exactly(tmp_path_factory, heights: np.ndarray, suffix: str) -> None:
    path = tmp_path_factory.mktemp("h") / f"h{suffix}"
    write_heightmap(path, heights)
    rows, cols = heights.shape
    same_bits(read_heightmap(path, size=(cols, rows)).heights, heights)


@pytest.mark.parametrize("suffix", [".exr", ".tif", ".tiff"])
def test_exr_and_tiff_carry_the_spacing(tmp_path, suffix: str) -> None:
    terrain = Terrain(awkward(9, 11) * 0 + np.arange(11, dtype=np.float32), spacing=2.5)
    path = tmp_path / f"h{suffix}"
    export_heights(terrain, path)
    scene = scene_from_heightmap(path)
    assert scene.terrain.spacing == 2.5
    same_bits(scene.terrain.heights, terrain.heights)
    assert scene_from_heightmap(path, spacing=4.0).terrain.spacing == 4.0


def test_files_other_tools_write_are_read(tmp_path) -> None:
    """An RGB float EXR without our attributes (the height in R), a HALF EXR, a float64 TIFF."""
    h = np.linspace(-5, 300, 12 * 9, dtype=np.float32).reshape(9, 12)
    with OpenEXR.File({"compression": OpenEXR.PIZ_COMPRESSION}, {"R": h, "G": h * 0, "B": h * 0}) as f:
        f.write(str(tmp_path / "rgb.exr"))
    same_bits(read_heightmap(tmp_path / "rgb.exr").heights, h)
    half = h.astype(np.float16)
    with OpenEXR.File({}, {"Y": half}) as f:
        f.write(str(tmp_path / "half.exr"))
    same_bits(read_heightmap(tmp_path / "half.exr").heights, half.astype(np.float32))  # widening is exact
    tifffile.imwrite(tmp_path / "d.tif", h.astype(np.float64))
    hm = read_heightmap(tmp_path / "d.tif")
    same_bits(hm.heights, h)
    assert hm.spacing is None


@pytest.mark.parametrize(("compression", "predictor"), [("lzw", None), ("lzw", "floatingpoint"),
                                                      ("zlib", "floatingpoint"), ("zstd", None)])
def test_compressed_tiffs_from_other_tools_are_read_exactly(tmp_path, compression, predictor) -> None:
    h = awkward(40, 56)
    tifffile.imwrite(tmp_path / "gdal.tif", h, compression=compression, predictor=predictor, tile=(16, 16))
    same_bits(read_heightmap(tmp_path / "gdal.tif").heights, h)


def test_writes_are_atomic_and_leave_no_temp_file(tmp_path) -> None:
    path = tmp_path / "h.exr"
    path.write_bytes(b"old")
    with pytest.raises(ValueError):
        write_heightmap(path, np.zeros(5, np.float32))
    assert path.read_bytes() == b"old"
    write_heightmap(path, awkward(4, 4))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.exr"]


# ---- bad files: one FormatError each ----------------------------------------------------------------
def _exr_bytes(channels: dict) -> bytes:
    buf = io.BytesIO()
    with OpenEXR.File({"compression": OpenEXR.ZIP_COMPRESSION}, channels) as f:
        f.write(buf)
    return buf.getvalue()


def _tif_bytes(data: np.ndarray) -> bytes:
    buf = io.BytesIO()
    tifffile.imwrite(buf, data)
    return buf.getvalue()


GOOD = np.arange(64 * 48, dtype=np.float32).reshape(48, 64) / 7


@pytest.mark.parametrize(("name", "data", "words"), [
    ("cut.exr", _exr_bytes({"Y": GOOD})[:-40], "truncated"),
    ("head.exr", _exr_bytes({"Y": GOOD})[:30], "header"),
    ("text.exr", b"this is not an image at all", "not an OpenEXR file"),
    ("uint.exr", _exr_bytes({"Y": GOOD.astype(np.uint32)}), "uint32"),
    ("xyz.exr", _exr_bytes({"A": GOOD, "B": GOOD}), "no height channel"),
    ("nan.exr", _exr_bytes({"Y": np.where(GOOD > 100, np.nan, GOOD).astype(np.float32)}), "NaN"),
    ("cut.tif", _tif_bytes(GOOD)[:-100], "truncated"),
    ("int.tif", _tif_bytes(GOOD.astype(np.uint16)), "must be float"),
    ("text.tif", b"II*\x00garbage", "TIFF"),
    ("inf.tif", _tif_bytes(np.where(GOOD > 100, np.inf, GOOD).astype(np.float32)), "infinite"),
    ("odd.r32", GOOD.tobytes()[:-4], "not a square grid"),
    ("nan.r32", np.full((4, 4), np.nan, np.float32).tobytes(), "16 NaN or infinite samples"),
    ("empty.r32", b"", "not a square grid"),
])
def test_bad_files_give_one_format_error(tmp_path, name: str, data: bytes, words: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(FormatError) as e:
        read_heightmap(path)
    assert e.value.path == str(path) and words in str(e.value)


def test_nan_names_its_first_sample(tmp_path) -> None:
    h = GOOD.copy()
    h[5, 7] = np.nan
    h[9, 1] = -np.inf
    write_heightmap(tmp_path / "h.r32", h)
    with pytest.raises(FormatError) as e:
        read_heightmap(tmp_path / "h.r32", size=(64, 48))
    assert e.value.place == "row 5, column 7" and "2 NaN or infinite samples" in e.value.reason


def test_raw_r32_of_the_wrong_size_names_both_counts(tmp_path) -> None:
    write_heightmap(tmp_path / "h.r32", GOOD)
    with pytest.raises(FormatError, match=r"expected 63 x 48 x 4 = 12096 bytes, file holds 12288"):
        read_heightmap(tmp_path / "h.r32", size=(63, 48))
    with pytest.raises(FormatError, match="expected 48 x 64"):  # into a terrain of another size
        read_heightmap(tmp_path / "h.r32", size=(64, 48), expected_shape=(64, 48))


def test_missing_file_and_huge_claims(tmp_path) -> None:
    with pytest.raises(FormatError, match="file not found"):
        read_heightmap(tmp_path / "none.exr")
    (tmp_path / "h.r32").write_bytes(bytes(20))
    with pytest.raises(FormatError, match="impossible grid size 1 x 5"):
        read_heightmap(tmp_path / "h.r32", size=(1, 5))
    # A TIFF whose tags claim a 100000 x 100000 image is refused before anything is allocated.
    big = tmp_path / "big.tif"
    tifffile.imwrite(big, GOOD)
    with tifffile.TiffFile(big, mode="r+b") as tif:
        tif.pages.first.tags["ImageWidth"].overwrite(100000)
        tif.pages.first.tags["ImageLength"].overwrite(100000)
    with pytest.raises(FormatError, match="impossible grid size"):
        read_heightmap(big)


def test_tiff_description_of_other_tools_is_ignored(tmp_path) -> None:
    tifffile.imwrite(tmp_path / "h.tif", GOOD, description=json.dumps({"note": "from Gaea"}), metadata=None)
    assert read_heightmap(tmp_path / "h.tif").spacing is None
    tifffile.imwrite(tmp_path / "b.tif", GOOD, description=json.dumps({"boscage.spacing": -1}), metadata=None)
    with pytest.raises(FormatError, match="spacing must be positive"):
        read_heightmap(tmp_path / "b.tif")
