"""Scene open versus raw numpy reads of the same side files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from app.bench import BenchCase, best_time
from model.demo import build_demo_scene
from model.formats.scene_file import load_scene, save_scene


def scene_open_ratio(quick: bool) -> float:
    """load_scene time / (np.fromfile of heights + layers) time, on a demo scene saved to disk."""
    size = 257 if quick else 1025
    scene = build_demo_scene(size=size, spacing=1024.0 / (size - 1))
    with tempfile.TemporaryDirectory(prefix="boscage-bench-") as folder:
        path = Path(folder) / "bench.boscage"
        save_scene(scene, path)
        sides = sorted(Path(folder).glob("bench.*.bin"))
        heights = next(p for p in sides if ".heights." in p.name)
        layers = next(p for p in sides if ".layers." in p.name)
        n_layers = len(scene.terrain.layers)

        def raw() -> None:
            np.fromfile(heights, "<f4").reshape(size, size)
            np.fromfile(layers, np.uint8).reshape(n_layers, size, size)

        repeat = 5 if quick else 7
        raw()  # warm the page cache for both
        load_scene(path)
        return best_time(lambda: load_scene(path), repeat) / best_time(raw, repeat)


CASES = [
    # Opening checks a CRC-32 of every byte, which alone costs several raw reads; a per-sample
    # Python loop anywhere in the reader would cost hundreds.
    BenchCase("scene.open_vs_raw_reads", budget=12.0, run=scene_open_ratio,
              description="validation and checksums cost at most 12x reading the same bytes"),
]
