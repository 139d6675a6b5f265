"""`scene info` of a paged scene: coverage and painted share from per-tile sums and counts (kept
by the opening's CRC pass), the height range from per-tile ranges; no grid assembled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.cli.scene import scene_summary
from model import paged
from model.formats import tiles
from model.scene import Scene
from tests.model.test_paged_whole_layer_paths import COLS, ROWS, TILE, opened


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", TILE)


def test_the_scene_summary_of_a_paged_scene_assembles_nothing(tmp_path: Path) -> None:
    original, scene = opened(tmp_path)
    before = paged.assemblies
    doc = scene_summary(scene)
    assert paged.assemblies == before
    assert doc == scene_summary(Scene(terrain=original, name=scene.name, path=scene.path)) | {
        "file_version": 2}
    cells = ROWS * COLS
    grass = original.layers[0].weights
    assert doc["layers"][0]["painted"] == round(np.count_nonzero(grass) / cells, 6)
    assert doc["layers"][0]["coverage"] == round(float(grass.mean(dtype=np.float64)) / 255.0, 6)
    assert doc["height_range"] == list(original.height_range())
