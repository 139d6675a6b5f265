"""Heightmaps imported band by band into a scene's tiles: the same bytes as the whole-array path,
the same refusals, nothing left behind on a cancel, and memory that does not grow with the grid."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import OpenEXR
import pytest
import tifffile

from model.errors import FormatError
from model.extent import MAX_EXTENT
from model.formats import float_heightmap, heightmap, png, tiles
from model.formats.heightmap import (
    ImportCancelled,
    open_heightmap,
    read_heightmap,
    scene_from_heightmap,
    write_heightmap,
    write_scene_from_heightmap,
)
from model.formats.scene_file import load_scene, save_scene
from tests.model.test_scene_file import files_of

ROWS, COLS = 45, 38
GRID = np.add.outer(np.linspace(-20, 35, ROWS), 7 * np.sin(np.arange(COLS) / 3)).astype(np.float32)


@pytest.fixture(autouse=True)
def small_bands(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiles of 16 and bands of 7 rows: every path crosses band and tile edges on small files."""
    monkeypatch.setattr(tiles, "TILE", 16)
    monkeypatch.setattr(heightmap, "BAND_ROWS", 7)
    monkeypatch.setattr(heightmap, "PNG_BAND_ROWS", 5)
    monkeypatch.setattr(float_heightmap, "BAND_ROWS", 7)
    monkeypatch.setattr(png, "WAVEFRONT_BAND", 3)
    monkeypatch.setattr(png, "_READ_PIECE", 50)


def _exr(path: Path, data: np.ndarray, tiled: bool = False) -> None:
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    if tiled:  # 16² tiles: read by scanline ranges all the same
        tiles_of = OpenEXR.TileDescription()
        tiles_of.xSize = tiles_of.ySize = 16
        tiles_of.mode = OpenEXR.ONE_LEVEL
        header |= {"type": OpenEXR.tiledimage, "tiles": tiles_of}
    with OpenEXR.File(header, {"Y": data}) as f:
        f.write(str(path))


def _inputs(folder: Path) -> dict[str, dict]:
    """Each format and layout a heightmap comes in: file → read options."""
    out: dict[str, dict] = {}
    write_heightmap(folder / "h.png", GRID, spacing=2.5)
    out["h.png"] = {}
    png.write_png(folder / "h8.png", np.arange(ROWS * COLS, dtype=np.uint8).reshape(ROWS, COLS))
    out["h8.png"] = {"offset": -3.0, "scale": 40.0}
    rgb = np.stack([np.arange(ROWS * COLS).reshape(ROWS, COLS) % 256] * 3, axis=-1).astype(np.uint8)
    png.write_png(folder / "rgb.png", rgb)
    out["rgb.png"] = {}
    write_heightmap(folder / "h.r16", GRID)
    out["h.r16"] = {"size": (COLS, ROWS), "offset": -20.0, "scale": 70.0}
    write_heightmap(folder / "h.r32", GRID)
    out["h.r32"] = {"size": (COLS, ROWS)}
    np.save(folder / "c.npy", GRID)
    np.save(folder / "f.npy", np.asfortranarray(GRID.astype(np.float64) / 3))
    np.save(folder / "i.npy", (GRID * 100).astype(">i4"))
    out |= {"c.npy": {}, "f.npy": {}, "i.npy": {}}
    write_heightmap(folder / "h.tif", GRID, spacing=0.5)
    tifffile.imwrite(folder / "tiled.tif", GRID.astype(np.float64), tile=(16, 16), compression="zlib",
                     predictor=True)
    tifffile.imwrite(folder / "one_strip.tif", GRID, rowsperstrip=ROWS)
    tifffile.imwrite(folder / "two.tif", np.stack([GRID, -GRID], axis=-1), photometric="minisblack",
                     planarconfig="contig", extrasamples=[0], rowsperstrip=5)
    out |= {"h.tif": {}, "tiled.tif": {}, "one_strip.tif": {}, "two.tif": {}}
    write_heightmap(folder / "h.exr", GRID, spacing=4.0)
    _exr(folder / "half.exr", GRID.astype(np.float16))
    _exr(folder / "tiled.exr", GRID, tiled=True)
    out |= {"h.exr": {}, "half.exr": {}, "tiled.exr": {}}
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    folder = tmp_path_factory.mktemp("heightmaps")
    return folder, _inputs(folder)


def write_grid(path, grid: np.ndarray) -> None:
    """`grid` as a float heightmap file of the format its name says (NumPy's own for .npy)."""
    if path.suffix == ".npy":
        np.save(path, grid)
    else:
        float_heightmap.write_float_heightmap(path, grid, path.suffix[1:])


NAMES = ["h.png", "h8.png", "rgb.png", "h.r16", "h.r32", "c.npy", "f.npy", "i.npy", "h.tif", "tiled.tif",
         "one_strip.tif", "two.tif", "h.exr", "half.exr", "tiled.exr"]


@pytest.mark.parametrize("name", NAMES)
def test_bands_are_the_heights_read_whole(inputs, name: str) -> None:
    folder, options = inputs
    whole = read_heightmap(folder / name, **options[name])
    opened = open_heightmap(folder / name, **options[name])
    assert (opened.rows, opened.columns) == whole.heights.shape and opened.spacing == whole.spacing
    assert opened.mapping == whole.mapping
    rows = [band for _, band in opened.bands()]
    assert all(b.dtype == np.float32 for b in rows)
    assert np.concatenate(rows).tobytes() == whole.heights.tobytes()


@pytest.mark.parametrize("name", NAMES)
def test_streamed_import_writes_the_bytes_the_whole_array_path_writes(inputs, tmp_path, name) -> None:
    folder, options = inputs
    save_scene(scene_from_heightmap(folder / name, **options[name]), tmp_path / "a" / "s.boscage")
    heard: list[tuple[int, int]] = []
    scene = write_scene_from_heightmap(folder / name, tmp_path / "b" / "s.boscage",
                                       progress=lambda d, t, w: heard.append((d, t)), **options[name])
    assert files_of(tmp_path / "b") == files_of(tmp_path / "a")
    assert scene.terrain.paged_heights is not None  # the result is the written scene, paged
    assert heard[-1] == (9, 9) and [d for d, _ in heard] == list(range(10))  # 3 x 3 tiles, each heard
    back = load_scene(tmp_path / "b" / "s.boscage").terrain
    assert back.read_heights(slice(0, 45), slice(0, 38)).tobytes() == scene.terrain.heights.tobytes()


def test_cancel_leaves_nothing_and_an_existing_scene_whole(inputs, tmp_path) -> None:
    folder, _ = inputs
    out = tmp_path / "s.boscage"
    save_scene(scene_from_heightmap(folder / "h.png"), out)
    before = files_of(tmp_path)
    with pytest.raises(ImportCancelled):
        write_scene_from_heightmap(folder / "c.npy", out, progress=lambda d, t, w: d < 4)
    assert files_of(tmp_path) == before
    with pytest.raises(ImportCancelled):
        write_scene_from_heightmap(folder / "c.npy", tmp_path / "new" / "n.boscage",
                                   progress=lambda d, t, w: d < 4)
    assert list((tmp_path / "new").iterdir()) == []


def test_a_bad_sample_late_in_the_file_is_the_same_refusal_and_leaves_nothing(tmp_path) -> None:
    grid = GRID.copy()
    grid[40, 3] = np.nan
    grid[44, 0] = np.inf
    for name in ("h.r32", "h.tif", "h.exr", "h.npy"):
        write_grid(tmp_path / name, grid)
        with pytest.raises(FormatError) as whole:
            read_heightmap(tmp_path / name, size=(COLS, ROWS))
        with pytest.raises(FormatError) as streamed:
            write_scene_from_heightmap(tmp_path / name, tmp_path / "out" / "s.boscage", size=(COLS, ROWS))
        assert (streamed.value.place, streamed.value.reason) == (whole.value.place, whole.value.reason)
        assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("name", ["h.r32", "h.tif", "h.exr", "h.npy"])
def test_heights_beyond_the_terrain_range_are_refused_like_holes(tmp_path, name: str) -> None:
    grid = GRID.copy()
    grid[0, :] = MAX_EXTENT  # the edge of the range is a height
    grid[1, :] = -MAX_EXTENT
    grid[41, 6] = np.float32(2.5e7)  # 25,000 km: past what float32 positions resolve
    grid[44, 2] = -np.finfo(np.float32).max
    grid[43, 1] = np.nan
    write_grid(tmp_path / name, grid)
    with pytest.raises(FormatError) as whole:
        read_heightmap(tmp_path / name, size=(COLS, ROWS))
    assert whole.value.path == str(tmp_path / name)
    assert whole.value.place == "row 41, column 6"
    assert whole.value.reason == ("height is 25000000 (1 NaN or infinite samples, 2 beyond ±10,000 km); "
                                  "fill the holes and rescale it in the tool that wrote the file")
    with pytest.raises(FormatError) as streamed:
        write_scene_from_heightmap(tmp_path / name, tmp_path / "out" / "s.boscage", size=(COLS, ROWS))
    assert (streamed.value.place, streamed.value.reason) == (whole.value.place, whole.value.reason)
    assert list((tmp_path / "out").iterdir()) == []
    grid[40:, :] = 7.0  # the same file within range reads, edges included
    write_grid(tmp_path / name, grid)
    heights = read_heightmap(tmp_path / name, size=(COLS, ROWS)).heights
    assert heights[0].max() == MAX_EXTENT and heights[1].min() == -MAX_EXTENT


def test_a_float64_npy_past_the_range_is_refused(tmp_path) -> None:
    grid = GRID.astype(np.float64)
    grid[3, 4] = 1e20
    np.save(tmp_path / "h.npy", grid)
    with pytest.raises(FormatError, match=r"row 3, column 4: height is 1.00000002e\+20 \(1 beyond"):
        read_heightmap(tmp_path / "h.npy")


def _png_bytes(folder: Path) -> bytes:
    write_heightmap(folder / "good.png", GRID)
    return (folder / "good.png").read_bytes()


def test_damaged_pngs_are_refused_as_the_whole_file_reader_refuses_them(tmp_path) -> None:
    good = _png_bytes(tmp_path)
    idat = good.index(b"IDAT") - 4
    flipped = bytearray(good)
    flipped[idat + 20] ^= 0xFF
    for n, data in enumerate([good[:-20], bytes(flipped), good[:40], b"not a png"]):
        path = tmp_path / f"bad{n}.png"
        path.write_bytes(data)
        with pytest.raises(FormatError) as whole:
            read_heightmap(path)
        with pytest.raises(FormatError) as streamed:
            write_scene_from_heightmap(path, tmp_path / "out" / "s.boscage")
        assert (streamed.value.place, streamed.value.reason) == (whole.value.place, whole.value.reason)


CHILD = """
import resource, sys, time
from pathlib import Path
from model.formats.heightmap import write_scene_from_heightmap

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
base, base_ru = hwm(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
write_scene_from_heightmap(sys.argv[1], sys.argv[2], size=None)
print(json.dumps({"growth_mb": hwm() - base, "hwm_mb": hwm(), "base_mb": base,
                  "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "ru_base_mb": base_ru, "seconds": time.perf_counter() - t0}))
"""


def import_peak(source: Path, out: Path) -> dict:
    """Import `source` in a fresh process; its memory high-water mark over its own after imports."""
    code = "import json\n" + CHILD
    done = subprocess.run([sys.executable, "-c", code, str(source), str(out)], capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parents[2])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _big_grid_file(path: Path, size: int) -> None:
    """A `size`² heightmap written in row blocks (this process never holds the grid either)."""
    x = np.arange(size, dtype=np.float32)
    with open(path, "wb") as f:
        if path.suffix == ".npy":
            f.write(_npy_header(size))
        for r0 in range(0, size, 512):
            z = np.arange(r0, min(size, r0 + 512), dtype=np.float32)[:, None]
            block = 30 * np.sin(x[None, :] / 400) * np.cos(z / 300) + 0.001 * z
            if path.suffix == ".r16":
                f.write(np.clip((block + 40) * 800, 0, 65535).astype("<u2").tobytes())
            else:
                f.write(block.astype("<f4").tobytes())


def _npy_header(size: int) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False,
                                               "shape": (size, size)})
    return buf.getvalue()


@pytest.mark.parametrize("suffix", [".npy", ".r16"])
def test_importing_a_big_heightmap_holds_a_band_not_the_grid(tmp_path, suffix: str) -> None:
    size = 4097  # 64 MiB of heights: the whole grid would be several times the allowed growth
    source = tmp_path / f"big{suffix}"
    _big_grid_file(source, size)
    figures = import_peak(source, tmp_path / "out" / "big.boscage")
    print(suffix, figures)
    assert figures["growth_mb"] < 48, figures  # the grid alone would be 64 MiB more
    scene = load_scene(tmp_path / "out" / "big.boscage")
    assert (scene.terrain.rows, scene.terrain.columns) == (size, size)


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".npy", ".r16", ".r32", ".png", ".tif", ".exr"])
def test_importing_16_km_at_2_m_stays_bounded(tmp_path, suffix: str) -> None:
    size = 8193  # 268 MB of heights
    if suffix in (".npy", ".r16"):
        source = tmp_path / f"big{suffix}"
        _big_grid_file(source, size)
    else:  # written from the .npy through a map: the test process holds no grid either
        _big_grid_file(tmp_path / "big.npy", size)
        grid = np.load(tmp_path / "big.npy", mmap_mode="r")
        source = tmp_path / f"big{suffix}"
        if suffix == ".r32":
            source.write_bytes(grid.tobytes())
        else:
            write_heightmap(source, np.asarray(grid), spacing=2.0)
        del grid
        (tmp_path / "big.npy").unlink()
    figures = import_peak(source, tmp_path / "out" / "big.boscage")
    print(suffix, figures)
    assert figures["growth_mb"] < 100, figures  # 268 MB of heights; ~40 MB at 4097²
