"""Scene open versus raw numpy reads of the same side files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from app.bench import BenchCase, best_time
from model.demo import build_demo_scene
from model.formats.scene_file import load_scene, save_scene

QUICK_SIZE, FULL_SIZE = 257, 1025  # samples a side


def scene_open_ratio(quick: bool) -> float:
    """load_scene time / (np.fromfile of every tile file) time, on a demo scene saved to disk."""
    return open_ratio(QUICK_SIZE if quick else FULL_SIZE)


def open_ratio(size: int, rounds: int = 15) -> float:
    """The ratio for a `size` x `size` demo scene: best of each side over `rounds` alternating
    rounds (a millisecond a side: a burst of other work on the machine hits both alike)."""
    scene = build_demo_scene(size=size, spacing=1024.0 / (size - 1))
    with tempfile.TemporaryDirectory(prefix="boscage-bench-") as folder:
        path = Path(folder) / "bench.boscage"
        save_scene(scene, path)
        sides = sorted(Path(folder).glob("bench.*.bin"))
        heights = [p for p in sides if p.name.startswith("bench.heights")]
        layers = [p for p in sides if p.name.startswith("bench.layers")]

        def raw() -> None:  # every tile file read whole
            for p in heights:
                np.fromfile(p, "<f4")
            for p in layers:
                np.fromfile(p, np.uint8)

        raw()  # warm the page cache for both
        load_scene(path)
        ours = theirs = float("inf")
        for _ in range(rounds):
            ours = min(ours, best_time(lambda: load_scene(path), 3))
            theirs = min(theirs, best_time(raw, 3))
        return ours / theirs


CASES = [
    # Opening (scene format version 2) reads each tile file once, into one reused buffer, to check
    # the CRC-32 of every byte (ISA-L's, at about memory speed) and keeps none of it: the terrain
    # maps tiles when touched. What is left is the manifest's TOML and a few system calls per file.
    # Those fixed costs are most of the quick (257 x 257) case, where the raw reads take a few
    # tens of microseconds; a per-sample Python loop would cost hundreds.
    BenchCase("scene.open_vs_raw_reads", budget=5.0, quick_budget=12.0, run=scene_open_ratio,
              description="validation and checksums cost at most 5x reading the same bytes "
                          "(12x in the quick case, mostly fixed costs)"),
]
