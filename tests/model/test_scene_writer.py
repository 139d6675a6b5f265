"""The streaming scene writer: tile by tile, the same bytes as `save_scene`, nothing left on a cancel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model.formats import tiles
from model.formats.scene_file import load_scene, save_scene
from model.formats.scene_writer import SceneWriter
from tests.model.test_scene_file import files_of, make_scene

ROWS, COLS, TILE = 37, 50, 16


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", TILE)


def layers_of(scene) -> list:
    return [(la.name, la.color, la.weight_blend) for la in scene.terrain.layers]


def stream(scene, path: Path, by_band: bool = False, stop_after: int | None = None) -> object:
    t = scene.terrain
    stack = np.stack([la.weights for la in t.layers])
    with SceneWriter(path, t.rows, t.columns, t.spacing, t.origin) as w:
        w.set_layers(layers_of(scene))
        done = 0
        if by_band:
            for i in range(w.tile_counts[0]):
                rs = w.band(i)
                w.put_band(i, t.heights[rs], stack[:, rs])
        else:
            for i, j, rs, cs in w.tiles():
                if stop_after is not None and done == stop_after:
                    raise KeyboardInterrupt
                w.put_heights(i, j, t.heights[rs, cs])
                w.put_layers(i, j, stack[:, rs, cs])
                done += 1
        return w.finish(scene.name, scene.sections)


@pytest.mark.parametrize("by_band", [False, True], ids=["tiles", "bands"])
def test_streamed_scene_is_byte_identical_to_save_scene_and_opens_paged(tmp_path: Path, by_band) -> None:
    scene = make_scene(seed=3, rows=ROWS, cols=COLS)
    scene.terrain.layers[1].weight_blend = False
    save_scene(scene, tmp_path / "a" / "s.boscage")
    out = stream(scene, tmp_path / "b" / "s.boscage", by_band)
    assert files_of(tmp_path / "b") == files_of(tmp_path / "a")
    assert out.path == tmp_path / "b" / "s.boscage" and out.terrain.paged_heights is not None
    back = load_scene(tmp_path / "b" / "s.boscage")
    assert back.terrain.paged_heights is not None
    assert back.terrain.heights.tobytes() == scene.terrain.heights.tobytes()
    assert out.terrain.height_range() == scene.terrain.height_range()


def test_a_cancelled_stream_leaves_the_folder_as_it_was(tmp_path: Path) -> None:
    old = make_scene(seed=1, rows=ROWS, cols=COLS)
    path = tmp_path / "s.boscage"
    save_scene(old, path)
    before = files_of(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        stream(make_scene(seed=2, rows=ROWS, cols=COLS), path, stop_after=5)
    assert files_of(tmp_path) == before  # the old scene whole, no tile, no temp file of the new one
    assert load_scene(path).terrain.heights.tobytes() == old.terrain.heights.tobytes()


def test_streaming_over_a_scene_replaces_it_and_keeps_tiles_it_shares(tmp_path: Path) -> None:
    old = make_scene(seed=1, rows=ROWS, cols=COLS)
    path = tmp_path / "s.boscage"
    save_scene(old, path)
    new = make_scene(seed=1, rows=ROWS, cols=COLS)
    new.terrain.heights[0, 0] += 1.0  # one heights tile differs
    save_scene(new, tmp_path / "ref" / "s.boscage")
    stream(new, path)
    assert files_of(tmp_path) == files_of(tmp_path / "ref")  # the old scene's stale tile is gone


def test_a_failed_manifest_write_removes_the_tiles(tmp_path: Path, monkeypatch) -> None:
    from model.formats import scene_file

    def refuse(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(scene_file, "atomic_write_text", refuse)
    with pytest.raises(OSError):
        stream(make_scene(seed=2, rows=ROWS, cols=COLS), tmp_path / "s.boscage")
    assert files_of(tmp_path) == {}


def test_tiles_of_the_wrong_shape_or_non_finite_are_refused(tmp_path: Path) -> None:
    w = SceneWriter(tmp_path / "s.boscage", ROWS, COLS)
    with pytest.raises(ValueError, match="must be"):
        w.put_heights(0, 0, np.zeros((3, 3), np.float32))
    bad = np.zeros((TILE, TILE), np.float32)
    bad[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        w.put_heights(0, 0, bad)
    with pytest.raises(ValueError, match="not written yet"):
        w.finish("x")
    assert files_of(tmp_path) == {}
