"""Tiled scenes: what a save writes after one brush stroke on a big terrain.

(Its own family, `scene_tiles`: `boscage bench scene` keeps meaning the open-versus-raw case.)
"""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

import numpy as np

from app.bench import BenchCase
from model.brush import Brush
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.sculpt import TerrainStroke, raise_lower
from model.terrain import Terrain

QUICK_SIZE, FULL_SIZE = 1025, 4097  # samples a side, 2 m apart (2 km and 8 km)
SPACING = 2.0


def big_scene(size: int) -> Scene:
    """Rolling hills with a full grass layer and an empty rock layer, built in float32 rows."""
    x = np.arange(size, dtype=np.float32) * np.float32(SPACING)
    heights = np.empty((size, size), np.float32)
    for r0 in range(0, size, 512):  # row blocks: no float64 grid of the whole terrain
        z = x[r0:r0 + 512, None]
        heights[r0:r0 + 512] = 40 * np.sin(x[None, :] / 700) * np.cos(z / 900) + 0.01 * z
    terrain = Terrain(heights, SPACING, (0.0, 0.0))
    terrain.add_layer("grass", (104, 146, 62), np.full((size, size), 255, np.uint8))
    terrain.add_layer("rock", (128, 128, 128))
    return Scene(terrain=terrain, name="big")


def scene_bytes(manifest: Path) -> int:
    """The manifest and every side file it names."""
    doc = tomllib.loads(manifest.read_text())
    names = [n for key in ("heights", "layers") for row in doc["terrain"].get(key, []) for n in row]
    return manifest.stat().st_size + sum(manifest.with_name(n).stat().st_size for n in names)


def stroke_save_share(size: int) -> float:
    """Bytes a save writes after one 10-stamp raise stroke (20 m brush, inside one tile) on a
    freshly opened `size`² scene, over the scene's bytes."""
    with tempfile.TemporaryDirectory(prefix="boscage-bench-") as folder:
        path = Path(folder) / "big.boscage"
        save_scene(big_scene(size), path)
        total = scene_bytes(path)
        before = {p.name for p in Path(folder).iterdir()}
        scene = load_scene(path)
        t = scene.terrain
        stroke = TerrainStroke(t)
        brush = Brush(radius=20.0, strength=1.0)
        centre = 256 * SPACING  # the middle of tile (0, 0)
        for k in range(10):
            stroke.apply(raise_lower(t, brush, centre + k * 4.0, centre, 0.5))
        stroke.finish()
        save_scene(scene, path)
        # tiles are named by their bytes: a written tile is a new name; the manifest is rewritten
        written = path.stat().st_size + sum(p.stat().st_size for p in Path(folder).iterdir()
                                            if p.name not in before)
        return written / total


CASES = [
    # Each 512 x 512 tile is its own file named by its CRC-32; a stroke inside one tile rewrites
    # that heights tile (1 MiB) and the manifest. At 8 km (4097², ~100 MB of side files) that is
    # about 1 %; at 2 km (the quick case, ~6 MB) one tile is a sixth of the scene.
    BenchCase("scene_tiles.stroke_save_bytes", budget=0.02, quick_budget=0.2,
              run=lambda quick: stroke_save_share(QUICK_SIZE if quick else FULL_SIZE),
              description="saving after one brush stroke on a 4097² terrain writes at most 2 % of "
                          "the scene's bytes (20 % at 1025², where one tile is a sixth of it)"),
]


def measure_paged_open(path: Path) -> dict:
    """Figures for a saved scene, in this (fresh) process: peak memory over the process's own
    after imports, and time, for opening, one stroke and its save, then assembling the heights."""
    import time

    def peak_mb() -> float:
        """The high-water mark of resident memory (Linux's VmHWM: unlike ru_maxrss, not carried
        over from the parent across exec)."""
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    side = scene_bytes(path)
    base = peak_mb()
    t0 = time.perf_counter()
    scene = load_scene(path)
    open_s = time.perf_counter() - t0
    open_mb = peak_mb() - base
    t = scene.terrain
    before = {p.name for p in path.parent.iterdir()}
    t0 = time.perf_counter()
    stroke = TerrainStroke(t)
    brush = Brush(radius=20.0, strength=1.0)
    for k in range(10):
        stroke.apply(raise_lower(t, brush, 512.0 + k * 4.0, 512.0, 0.5))
    stroke.finish()
    save_scene(scene, path)
    stroke_save_s = time.perf_counter() - t0
    written = path.stat().st_size + sum(p.stat().st_size for p in path.parent.iterdir()
                                        if p.name not in before)
    stroke_mb = peak_mb() - base
    t0 = time.perf_counter()
    float(t.heights[-1, -1])  # a caller that wants the whole array: assembled once
    assemble_s = time.perf_counter() - t0
    return {"samples": t.rows, "side_file_mb": side / 2 ** 20, "baseline_mb": base,
            "open_s": open_s, "open_peak_mb": open_mb,
            "stroke_and_save_s": stroke_save_s, "stroke_peak_mb": stroke_mb,
            "bytes_written": written, "written_share": written / side,
            "assemble_heights_s": assemble_s, "assembled_peak_mb": peak_mb() - base}
