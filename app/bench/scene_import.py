"""Importing a heightmap into a scene tile by tile, versus writing the same bytes as one raw file."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from app.bench import BenchCase
from model.atomic import atomic_write
from model.formats import tiles
from model.formats.heightmap import write_heightmap, write_scene_from_heightmap

QUICK_SIZE, FULL_SIZE = 2049, 8193  # samples a side: 4 km and 16 km at 2 m (16 and 268 MB of heights)
_BAND = 512


def _hills(size: int, r0: int) -> np.ndarray:
    x = np.arange(size, dtype=np.float32)
    z = np.arange(r0, min(size, r0 + _BAND), dtype=np.float32)[:, None]
    return (30 * np.sin(x[None, :] / 400) * np.cos(z / 300) + 0.001 * z).astype(np.float32)


def import_figures(size: int, suffix: str = ".npy", rounds: int = 3) -> dict:
    """Best-of-`rounds` seconds of importing a `size`² heightmap (`suffix`) as a scene and of
    writing the same heights' bytes once as one file (from memory, with the same fsync), in one
    folder; and their ratio."""
    heights = np.concatenate([_hills(size, r0) for r0 in range(0, size, _BAND)])
    with tempfile.TemporaryDirectory(prefix="boscage-bench-") as folder:
        source = Path(folder) / f"hills{suffix}"
        write_heightmap(source, heights, spacing=2.0)
        out = Path(folder) / "scene" / "hills.boscage"
        raw_path = Path(folder) / "raw.bin"
        ours = theirs = per_tile = float("inf")
        for _ in range(rounds):
            for p in (out.parent.glob("*") if out.parent.is_dir() else []):
                p.unlink()
            t0 = time.perf_counter()
            write_scene_from_heightmap(source, out)
            ours = min(ours, time.perf_counter() - t0)
            t0 = time.perf_counter()
            atomic_write(raw_path, lambda f: f.write(memoryview(heights)))
            theirs = min(theirs, time.perf_counter() - t0)
            raw_path.unlink()
            t0 = time.perf_counter()
            for i, j, rs, cs in tiles.tiles_of(size, size, tiles.TILE):  # the same files, plainly
                block = np.ascontiguousarray(heights[rs, cs]).tobytes()
                atomic_write(Path(folder) / f"raw_{i}_{j}.bin", block)
            per_tile = min(per_tile, time.perf_counter() - t0)
            for p in Path(folder).glob("raw_*.bin"):
                p.unlink()
        return {"samples": size, "import_s": ours, "raw_write_s": theirs, "ratio": ours / theirs,
                "raw_tile_writes_s": per_tile, "tile_ratio": ours / per_tile}


def import_ratio(quick: bool, suffix: str = ".npy", key: str = "ratio") -> float:
    return import_figures(QUICK_SIZE if quick else FULL_SIZE, suffix, rounds=3 if quick else 2)[key]


CASES = [
    # Each 512² tile is its own file written atomically (temp file, fsync, rename, fsync of the
    # folder) as a save writes it, so the import pays two fsyncs per tile (~1,089 tiles at 8193²)
    # where one raw file pays one: on this shared machine's disk those fsyncs are ~90 % of the
    # import, and their cost swings with the other work on the disk (3x to 12x measured at 8193²).
    BenchCase("scene_import.npy_vs_raw_write", budget=20.0, quick_budget=20.0,
              run=lambda quick: import_ratio(quick, ".npy"),
              description="importing a .npy heightmap (8193², 2049² quick) as a tiled scene costs at most "
                          "20x writing its heights' bytes as one raw file (an fsync per tile)"),
    # The same tile files written plainly from memory (atomic_write each): what the import adds
    # to them, reading the .npy by bands, CRC-32s (ISA-L) and naming, stays small.
    BenchCase("scene_import.npy_vs_raw_tile_writes", budget=1.5, quick_budget=2.0,
              run=lambda quick: import_ratio(quick, ".npy", "tile_ratio"),
              description="importing a .npy heightmap costs at most 1.5x writing the same tiles' bytes "
                          "into the same number of files (2x quick)"),
    # A 16-bit PNG is inflated and unfiltered (Average/Paeth rows sweep anti-diagonals in numpy,
    # 256 rows at a time): decoding, not writing, is most of this one.
    BenchCase("scene_import.png16_vs_raw_write", budget=150.0,
              run=lambda quick: import_figures(QUICK_SIZE if quick else 4097, ".png", 1)["ratio"],
              description="importing a 16-bit PNG heightmap (4097², 2049² quick) as a tiled scene costs at "
                          "most 150x writing its heights' bytes as one raw file (the PNG decode is most)"),
]
