"""Seeds for the float heightmaps (TIFF strips and tiles, EXR, RAW R32) and for TRN command-line
options, made by the project's writers and parser (see `corpora` for the other formats)."""

from __future__ import annotations

import functools
import json
import random
import struct
import tempfile
from pathlib import Path

import numpy as np

from tests.model.fuzz.engine import Entry, Seed, SizeField


def _heights(rows: int = 70, columns: int = 17) -> np.ndarray:
    j, i = np.mgrid[0:rows, 0:columns].astype(np.float32)
    return (20 + 5 * np.sin(i / 3.0) * np.cos(j / 5.0) + 0.1 * j).astype(np.float32)


# ---- TIFF ---------------------------------------------------------------------------------------
_TIFF_COUNTED = ("StripOffsets", "StripByteCounts", "TileOffsets", "TileByteCounts")
_TIFF_SIZES = ("ImageWidth", "ImageLength", "RowsPerStrip", "TileWidth", "TileLength", "SamplesPerPixel",
               "BitsPerSample", "PlanarConfiguration", "Compression", "Predictor", "SampleFormat")


def tif_layout(data: bytes, name: str) -> tuple[list[SizeField], list[int]]:
    """Size fields of a classic little-endian TIFF's first page: each counted tag's count and each
    size tag's value (and every segment's offset and byte count); the IFD's edges."""
    import io

    import tifffile

    fields: list[SizeField] = []
    edges = [0, 8, len(data)]
    with tifffile.TiffFile(io.BytesIO(data)) as tif:
        page = tif.pages.first
        edges.append(page.offset)
        for tag in page.tags.values():
            entry = tag.offset  # code u16, type u16, count u32, value/offset u32
            edges.append(entry)
            width = {3: 2, 4: 4, 16: 8}.get(tag.dtype, 4)
            if tag.name in _TIFF_COUNTED:
                fields.append(SizeField(name, entry + 4, 4))  # the count
                for k in range(min(tag.count, 64)):
                    fields.append(SizeField(name, tag.valueoffset + k * width, width))
            elif tag.name in _TIFF_SIZES and tag.count == 1:
                fields.append(SizeField(name, tag.valueoffset, width))
        for offset in page.dataoffsets:
            edges.append(int(offset))
    return fields, sorted(set(edges))


def _tif_strip_table(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """The strip (or tile) table made to disagree with the image: too few or too many entries,
    rows per strip that do not divide, segments that overlap or point past the end."""
    import io

    import tifffile

    data = files[seed.main]
    if not isinstance(data, bytes):
        return ""
    try:
        with tifffile.TiffFile(io.BytesIO(data)) as tif:
            tags = {t.name: (t.offset, t.valueoffset, t.count, t.dtype)
                    for t in tif.pages.first.tags.values()}
    except Exception:  # noqa: BLE001 - an earlier mutation broke it: nothing to aim at
        return ""
    out = bytearray(data)
    choice = rng.randrange(4)
    if choice == 0 and "RowsPerStrip" in tags:
        value = rng.choice((1, 3, 16, 63, 65, 10_000, 0xFFFF, 0, 0xFFFFFFFF))
        _, at, _, dtype = tags["RowsPerStrip"]
        mask = 0xFFFF if dtype == 3 else 0xFFFFFFFF
        struct.pack_into("<H" if dtype == 3 else "<I", out, at, value & mask)
        files[seed.main] = bytes(out)
        return f"RowsPerStrip -> {value}"
    counted = [n for n in _TIFF_COUNTED if n in tags]
    if not counted:
        return ""
    name = rng.choice(counted)
    entry, at, count, dtype = tags[name]
    if choice == 1:
        value = rng.choice((0, 1, max(0, count - 1), count + 1, 1 << 20, 0xFFFFFFFF))
        struct.pack_into("<I", out, entry + 4, value)
        files[seed.main] = bytes(out)
        return f"{name} count {count} -> {value}"
    width = 2 if dtype == 3 else 4
    k = rng.randrange(max(1, min(count, 64)))
    value = rng.choice((0, 8, len(data) - 1, len(data), len(data) + 1, 0xFFFF, 1 << 30))
    if count <= (4 // width):  # held in the entry itself
        at = entry + 8
    struct.pack_into("<H" if width == 2 else "<I", out, at + k * width, value & ((1 << (8 * width)) - 1))
    files[seed.main] = bytes(out)
    return f"{name}[{k}] -> {value}"


@functools.lru_cache(maxsize=1)
def tif_seeds() -> list[Seed]:
    import tifffile

    from model.formats.heightmap import write_heightmap

    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_heightmap(folder / "strips.tif", _heights(), spacing=2.0)  # the product's: 64 rows a strip
        heights = _heights(40, 40)
        tifffile.imwrite(folder / "tiles.tif", heights, tile=(16, 16), photometric="minisblack")
        tifffile.imwrite(folder / "deflate.tif", heights, rowsperstrip=7, compression="zlib",
                         predictor=3, photometric="minisblack")
        tifffile.imwrite(folder / "planar.tif", np.stack([heights, heights + 1]), planarconfig="separate",
                         photometric="minisblack", rowsperstrip=9)
        for name in ("strips.tif", "tiles.tif", "deflate.tif", "planar.tif"):
            data = (folder / name).read_bytes()
            fields, edges = tif_layout(data, "h.tif")
            seeds.append(Seed(name.split(".")[0], {"h.tif": data}, "h.tif", size_fields=fields,
                              boundaries={"h.tif": edges}, special=[_tif_strip_table, _tif_strip_table]))
    return seeds


# ---- EXR and RAW R32 ----------------------------------------------------------------------------
# samples at and past the edges of the terrain's height range (±1e7 m), and no heights at all
EDGE_HEIGHTS = (1.0e7, -1.0e7, 10000001.0, -10000001.0, 2.5e7, 1e20, 3.4028234663852886e38, -1e30,
                float("nan"), float("inf"), float("-inf"), 1e-45, -0.0)


def heights_edge(name: str, dtype: str, start: int):
    """A special writing edge heights over samples of `name` (raw samples of `dtype` from `start`)."""
    def mutate(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
        data = bytearray(files[name]) if isinstance(files.get(name), bytes) else None
        width = np.dtype(dtype).itemsize
        if data is None or len(data) < start + width:
            return ""
        placed = []
        for _ in range(rng.choice((1, 1, 3, 20))):
            at = start + width * rng.randrange((len(data) - start) // width)
            value = rng.choice(EDGE_HEIGHTS)
            with np.errstate(all="ignore"):  # 1e20 as float32 is inf, on purpose
                data[at:at + width] = np.array([value], dtype).tobytes()
            placed.append(f"{value:g}@{at}")
        files[name] = bytes(data)
        return f"heights {', '.join(placed[:4])}"
    return mutate


@functools.lru_cache(maxsize=1)
def exr_seeds() -> list[Seed]:
    from model.formats.heightmap import write_heightmap

    with tempfile.TemporaryDirectory() as tmp:
        write_heightmap(Path(tmp) / "h.exr", _heights(), spacing=2.0)
        data = (Path(tmp) / "h.exr").read_bytes()
    end = data.find(b"\x00\x00", 8)
    return [Seed("scanlines", {"h.exr": data}, "h.exr",
                 boundaries={"h.exr": [0, 4, 8, max(8, end), len(data) - 8, len(data)]})]


@functools.lru_cache(maxsize=1)
def r32_seeds() -> list[Seed]:
    from model.formats.heightmap import write_heightmap

    with tempfile.TemporaryDirectory() as tmp:
        write_heightmap(Path(tmp) / "h.r32", _heights(16, 16))
        data = (Path(tmp) / "h.r32").read_bytes()
    return [Seed("square", {"h.r32": data}, "h.r32", boundaries={"h.r32": [0, 4, len(data) - 4, len(data)]},
                 special=[heights_edge("h.r32", "<f4", 0)])]


# ---- TRN command-line options -----------------------------------------------------------------
# Values an option may be given: the edges of every range the model keeps, and past them.
HOSTILE_NUMBERS = ("5e-324", "1e-300", "1e-9", "0.001", "0.000999", "0", "-0", "-1", "0.5", "1", "2", "3.7",
                   "511", "512", "8192", "1e6", "1e7", "1.0000001e7", "1e9", "1e10", "1e300", "1e308",
                   "1.8e308", "inf", "-inf", "nan", "NaN", "1_000", "0x10", "", " 4", "4 ", "2e")
HOSTILE_REGIONS = ("0,0,64,64", "-8,-8,8,8", "0,0,0,0", "0,0,1e9,1e9", "-1e9,-1e9,1e9,1e9", "0,0,1e10,1",
                   "64,64,0,0", "0,0,64", "0,0,64,64,64", "nan,0,1,1", "0,0,inf,1", "1e308,0,1.8e308,1",
                   "-5e6,-5e6,5e6,5e6", "0,0,0.0001,0.0001", ",,,", "0,0,64,64\x00", "0,0,1e-300,1e-300")
OPTION_VALUES = {"--spacing": HOSTILE_NUMBERS, "--tile": HOSTILE_NUMBERS, "--workers": HOSTILE_NUMBERS,
                 "--region": HOSTILE_REGIONS}


def _trn_option(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """One option set to a value at or past an edge of what the model accepts (or added, or dropped)."""
    data = files[seed.main]
    try:
        argv = json.loads(data)
    except (TypeError, ValueError):
        return ""
    if not isinstance(argv, list):
        return ""
    option = rng.choice(sorted(OPTION_VALUES))
    value = rng.choice(OPTION_VALUES[option])
    if option in argv and rng.random() < 0.1:
        k = argv.index(option)
        del argv[k:k + 2]
        change = f"{option} dropped"
    elif option in argv and argv.index(option) + 1 < len(argv):
        argv[argv.index(option) + 1] = value
        change = f"{option} {value!r}"
    else:
        argv += [option, value]
        change = f"{option} {value!r} added"
    files[seed.main] = json.dumps(argv).encode()
    return change


@functools.lru_cache(maxsize=1)
def trn_options_seeds() -> list[Seed]:
    seeds = []
    for label, argv in (
        ("bake", ["trn", "bake", "hill.trn", "--region", "-64,-64,64,64", "--spacing", "4", "--out", "bake"]),
        ("bake-tiles", ["trn", "bake", "hill.trn", "--region", "0,0,1024,1024", "--spacing", "2", "--out",
                        "bake", "--tile", "128", "--workers", "1"]),
        ("to-scene", ["trn", "to-scene", "hill.trn", "--region", "-64,-64,64,64", "--spacing", "2", "--out",
                      "hill.boscage"]),
        ("to-scene-far", ["trn", "to-scene", "hill.trn", "--region", "1000000,1000000,1002048,1002048",
                          "--spacing", "8", "--out", "hill.boscage", "--workers", "1"]),
    ):
        main = "argv.json"
        seeds.append(Seed(label, {main: json.dumps(argv).encode()}, main, kind={main: "json"},
                          special=[_trn_option, _trn_option, _trn_option]))
    return seeds


FLOAT_SEEDS = {"tif": tif_seeds, "exr": exr_seeds, "r32": r32_seeds}  # the options: tests/app
