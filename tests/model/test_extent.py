"""One range for every terrain grid: what an import or a TRN region may write is what the scene reader
opens, checked from the products (spans, sample counts) before anything is written."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
import tifffile

from model.errors import FormatError
from model.extent import MAX_EXTENT, MIN_SPACING, grid_problem, samples_across, spacing_problem
from model.formats.heightmap import open_heightmap, read_heightmap, write_scene_from_heightmap
from model.formats.scene_file import load_scene
from model.formats.scene_writer import SceneWriter


@pytest.mark.parametrize("columns, rows, spacing, origin, what", [
    (33, 33, 1.0, (0.0, 0.0), None),
    (33, 33, 1e6, (0.0, 0.0), "spacing"),  # 3.2e7 m across
    (2, 2, 1e7, (0.0, 0.0), None),
    (2, 2, 1.0000001e7, (0.0, 0.0), "spacing"),
    (33, 33, 1e-4, (0.0, 0.0), "spacing"),
    (33, 33, 5e-324, (0.0, 0.0), "spacing"),
    (33, 33, math.inf, (0.0, 0.0), "spacing"),
    (33, 33, 1.0, (1e7 + 1, 0.0), "origin"),
    (33, 33, 1.0, (math.nan, 0.0), "origin"),
    (1, 33, 1.0, (0.0, 0.0), "size"),
    (16385, 16385, 1.0, (0.0, 0.0), "size"),
])
def test_grid_problems(columns, rows, spacing, origin, what):
    problem = grid_problem(columns, rows, spacing, origin)
    assert (problem[0] if problem else None) == what


def test_spacing_options_and_counts():
    assert spacing_problem(MIN_SPACING) is None and spacing_problem(MAX_EXTENT) is None
    for bad in (0.0, -1.0, 5e-324, 1e308, math.nan, math.inf, True):
        assert spacing_problem(bad) is not None
    assert samples_across(0.0, 64.0, 4.0) == 17.0
    assert samples_across(0.0, 1e9, 5e-324) == math.inf  # said, never an overflow
    assert samples_across(-1.8e308, 1.8e308, 1.0) == math.inf


def test_the_scene_reader_and_the_writers_agree(tmp_path):
    heights = tmp_path / "h.npy"
    np.save(heights, np.zeros((33, 33), np.float32))
    with pytest.raises(FormatError) as caught:
        write_scene_from_heightmap(heights, tmp_path / "far.boscage", spacing=1e6)
    assert "span more than" in str(caught.value) and str(heights) in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.npy"]  # refused before any tile
    with pytest.raises(ValueError, match="terrain spacing"):
        SceneWriter(tmp_path / "x.boscage", 33, 33, 1e-4)
    write_scene_from_heightmap(heights, tmp_path / "ok.boscage", spacing=MIN_SPACING)
    assert load_scene(tmp_path / "ok.boscage").terrain.spacing == MIN_SPACING
    text = (tmp_path / "ok.boscage").read_text().replace("spacing = 0.001", "spacing = 0.0001")
    (tmp_path / "ok.boscage").write_text(text)
    with pytest.raises(FormatError, match="terrain.spacing: must be at least 0.001 m"):
        load_scene(tmp_path / "ok.boscage")


def _tif_with_rows_per_strip(path, value: int) -> None:
    tifffile.imwrite(path, np.arange(200 * 100, dtype=np.float32).reshape(200, 100), rowsperstrip=64)
    data = bytearray(path.read_bytes())
    with tifffile.TiffFile(path) as tif:
        tag = tif.pages.first.tags["RowsPerStrip"]
        at, dtype = tag.valueoffset, tag.dtype
    struct.pack_into("<H" if dtype == 3 else "<I", data, at, value)
    path.write_bytes(bytes(data))


def test_a_strip_table_that_does_not_cover_the_image_is_one_refusal(tmp_path, capfd):
    path = tmp_path / "h.tif"
    _tif_with_rows_per_strip(path, 16)  # 13 strips needed, 4 listed
    for read in (read_heightmap, lambda p: list(open_heightmap(p).bands())):
        with pytest.raises(FormatError, match="the strip table lists 4 strips; .* needs 13"):
            read(path)
    with pytest.raises(FormatError):
        write_scene_from_heightmap(path, tmp_path / "h.boscage")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.tif"]
    assert "StripByteCounts" not in capfd.readouterr().err  # tifffile's own log stays quiet


def test_a_short_or_absent_strip_is_refused_not_read_as_garbage(tmp_path):
    path = tmp_path / "h.tif"
    tifffile.imwrite(path, np.ones((70, 17), np.float32), rowsperstrip=64)
    data = bytearray(path.read_bytes())
    with tifffile.TiffFile(path) as tif:
        counts = tif.pages.first.tags["StripByteCounts"]
        offsets = tif.pages.first.tags["StripOffsets"]
        count_at, offset_at = counts.valueoffset, offsets.valueoffset
    short = bytearray(data)
    struct.pack_into("<I", short, count_at, 100)  # strip 0 needs 64 x 17 x 4 bytes
    path.write_bytes(bytes(short))
    with pytest.raises(FormatError, match="strip 0 holds 100 bytes"):
        read_heightmap(path)
    absent = bytearray(data)
    struct.pack_into("<I", absent, offset_at, 0)
    path.write_bytes(bytes(absent))
    with pytest.raises(FormatError, match="strip 0 has no data"):
        read_heightmap(path)
