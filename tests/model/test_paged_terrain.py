"""A version 2 scene opens paged: tiles are mapped when touched, edits copy only the tiles they
write, undo keeps only touched tiles, and a save reads and writes only what changed."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from model.brush import Brush
from model.formats import scene_file, tiles
from model.formats.scene_file import load_scene, save_scene
from model.sculpt import TerrainStroke, paint_layer, raise_lower, smooth
from tests.model.test_scene_file import files_of, make_scene

ROWS, COLS, TILE = 70, 90, 32  # 3 x 3 tiles, the last row and column smaller


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", TILE)


def opened(tmp_path: Path):
    original = make_scene(seed=7, rows=ROWS, cols=COLS)
    original.terrain.spacing = 1.0
    original.terrain.origin = (0.0, 0.0)
    path = tmp_path / "p.boscage"
    save_scene(original, path)
    return path, original.terrain, load_scene(path)


def test_opening_keeps_no_tile_in_memory_and_reads_by_tile(tmp_path: Path) -> None:
    _, original, scene = opened(tmp_path)
    t = scene.terrain
    grid = t.paged_heights.grid
    assert (t.rows, t.columns) == (ROWS, COLS) and not grid.is_full
    assert grid._maps == {} and grid.written_tiles == 0  # opening verified the tiles and kept none
    window = t.read_heights(slice(30, 40), slice(60, 70))  # meets 4 tiles
    assert window.tobytes() == original.heights[30:40, 60:70].tobytes()
    assert sorted(grid._maps) == [(0, 1), (0, 2), (1, 1), (1, 2)]
    assert all(isinstance(m, np.memmap) and not m.flags.writeable for m in grid._maps.values())
    assert t.layers[1].read(slice(0, 5), slice(85, 90)).tobytes() == \
        original.layers[1].weights[0:5, 85:90].tobytes()


def test_sampling_a_paged_terrain_matches_the_array_and_assembles_nothing(tmp_path: Path) -> None:
    _, original, scene = opened(tmp_path)
    t = scene.terrain
    rng = np.random.default_rng(3)
    x, z = rng.uniform(-2, COLS + 1, 500), rng.uniform(-2, ROWS + 1, 500)
    np.testing.assert_array_equal(t.height_at(x, z), original.height_at(x, z))
    np.testing.assert_array_equal(t.normal_at(x, z), original.normal_at(x, z))
    np.testing.assert_array_equal(t.layer_weight_at("rock", x, z), original.layer_weight_at("rock", x, z))
    assert t.height_range() == original.height_range()
    assert t.paged_heights is not None and all(la.paged is not None for la in t.layers)


def test_a_stroke_copies_only_the_tiles_it_writes_and_undoes_exactly(tmp_path: Path) -> None:
    _, original, scene = opened(tmp_path)
    t = scene.terrain
    grid = t.paged_heights.grid
    stroke = TerrainStroke(t)
    brush = Brush(radius=4.0)
    for x in (10.0, 12.0, 14.0):
        stroke.apply(raise_lower(t, brush, x, 10.0, 2.0))
    stroke.apply(smooth(t, brush, 16.0, 10.0))
    stroke.finish()
    assert grid.written_tiles == 1 and t.paged_heights is not None  # tile (0, 0) only, nothing assembled
    assert stroke.tiles.tile_count <= 4  # undo keeps its own 64-sample tiles, not the terrain
    edited = t.read_heights(slice(0, ROWS), slice(0, COLS))
    assert not np.array_equal(edited, original.heights)
    assert np.array_equal(edited[32:], original.heights[32:])
    assert np.array_equal(edited[:, 32:], original.heights[:, 32:])
    stroke.undo()
    assert t.read_heights(slice(0, ROWS), slice(0, COLS)).tobytes() == original.heights.tobytes()
    stroke.redo()
    assert t.read_heights(slice(0, ROWS), slice(0, COLS)).tobytes() == edited.tobytes()
    assert t.height_range() == (float(edited.min()), float(edited.max()))
    # the whole array, when a caller asks for it, holds the edit
    assert t.heights.tobytes() == edited.tobytes() and t.paged_heights is None


def test_saving_after_a_stroke_reads_and_writes_only_the_touched_tiles(tmp_path: Path, monkeypatch) -> None:
    path, original, scene = opened(tmp_path)
    t = scene.terrain
    before = tomllib.loads(path.read_text())["terrain"]
    stroke = TerrainStroke(t, "grass")
    stroke.apply(paint_layer(t, "grass", Brush(radius=3.0), 80.0, 67.0))
    stroke.finish()
    written: list[str] = []
    real = scene_file.atomic_write
    monkeypatch.setattr(scene_file, "atomic_write", lambda f, d: (written.append(Path(f).name), real(f, d)))
    save_scene(scene, path)
    after = tomllib.loads(path.read_text())["terrain"]
    assert written == [after["layers"][2][2]] and after["heights"] == before["heights"]
    assert t.paged_heights.grid._maps == {}  # no heights tile was read to save
    assert set(t.layers[0].paged.grid._maps) <= {(2, 2)}
    back = load_scene(path).terrain
    assert np.array_equal(back.layers[0].weights, t.layers[0].weights)
    assert back.heights.tobytes() == original.heights.tobytes()
    # undone, the tile holds its old bytes again: saved under its old name (that file went as stale)
    stroke.undo()
    written.clear()
    save_scene(scene, path)
    assert written == [before["layers"][2][2]] and tomllib.loads(path.read_text())["terrain"] == before
    written.clear()
    save_scene(scene, path)
    assert written == []


def test_save_as_elsewhere_copies_the_untouched_tiles(tmp_path: Path) -> None:
    _, original, scene = opened(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    scene.terrain.paged_heights[5:7, 5:7] = 1.5
    save_scene(scene, other / "copy.boscage")
    assert len(files_of(other)) == 1 + 9 + 9
    back = load_scene(other / "copy.boscage").terrain
    expected = original.heights.copy()
    expected[5:7, 5:7] = 1.5
    assert back.heights.tobytes() == expected.tobytes()
    for a, b in zip(back.layers, original.layers, strict=True):
        assert np.array_equal(a.weights, b.weights)


def test_assembling_one_layer_keeps_the_others_consistent(tmp_path: Path) -> None:
    _, original, scene = opened(tmp_path)
    t = scene.terrain
    t.layers[1].grid()[0:3, 0:3] = 9  # a paged write
    w0 = t.layers[0].weights  # assembles the layers' tiles once
    assert np.array_equal(w0, original.layers[0].weights)
    t.layers[1].grid()[3:4, 3:4] = 7  # after assembly, writes reach the assembled array
    expected = original.layers[1].weights.copy()
    expected[0:3, 0:3] = 9
    expected[3, 3] = 7
    assert np.array_equal(t.layers[1].weights, expected)
    assert t.layers[1].weights.base is w0.base


def test_at_most_max_maps_tiles_stay_mapped(tmp_path: Path, monkeypatch) -> None:
    from model import paged

    monkeypatch.setattr(paged, "MAX_MAPS", 2)
    _, original, scene = opened(tmp_path)
    t = scene.terrain
    assert t.read_heights(slice(0, ROWS), slice(0, COLS)).tobytes() == original.heights.tobytes()
    assert len(t.paged_heights.grid._maps) == 2  # the last two of nine, re-mapped when needed
    assert t.read_heights(slice(0, 2), slice(0, 2)).tobytes() == original.heights[0:2, 0:2].tobytes()
    assert list(t.paged_heights.grid._maps)[-1] == (0, 0)


def test_a_tile_deleted_after_opening_is_one_format_error_naming_it(tmp_path: Path) -> None:
    from model.errors import FormatError

    path, _, scene = opened(tmp_path)
    gone = path.with_name(tomllib.loads(path.read_text())["terrain"]["heights"][1][1])
    gone.unlink()
    with pytest.raises(FormatError) as info:
        scene.terrain.read_heights(slice(40, 41), slice(40, 41))
    assert info.value.path == str(gone) and "since the scene was opened" in info.value.reason


def test_a_tile_replaced_after_opening_is_refused_when_first_touched(tmp_path: Path) -> None:
    from model.errors import FormatError

    path, _, scene = opened(tmp_path)
    f = path.with_name(tomllib.loads(path.read_text())["terrain"]["layers"][0][2])
    data = bytearray(f.read_bytes())
    data[0] ^= 1
    f.unlink()
    f.write_bytes(bytes(data))  # same name and size, other bytes: not what the opening checked
    with pytest.raises(FormatError, match="since the scene was opened") as info:
        scene.terrain.layers[0].read(slice(0, 1), slice(70, 71))
    assert info.value.path == str(f)
    assert scene.terrain.layers[0].read(slice(0, 1), slice(0, 1)).shape == (1, 1)  # the others read on


def test_random_window_writes_and_reads_match_a_plain_array(tmp_path: Path) -> None:
    from model import paged

    _, original, scene = opened(tmp_path)
    grid = scene.terrain.layers[0].paged.grid
    reference = np.stack([la.weights for la in original.layers])
    rng = np.random.default_rng(11)
    for step in range(200):
        r0, c0 = int(rng.integers(0, ROWS)), int(rng.integers(0, COLS))
        rows = slice(r0, int(rng.integers(r0 + 1, ROWS + 1)))
        cols = slice(c0, int(rng.integers(c0 + 1, COLS + 1)))
        plane = int(rng.integers(0, 2))
        if step % 3:
            values = rng.integers(0, 256, (rows.stop - rows.start, cols.stop - cols.start), dtype=np.uint8)
            paged.PagedPlane(grid, plane)[rows, cols] = values
            reference[plane, rows, cols] = values
        assert np.array_equal(grid.read(rows, cols), reference[:, rows, cols])
        r, c = rng.integers(0, ROWS, 50), rng.integers(0, COLS, 50)
        assert np.array_equal(grid.gather(plane, r, c), reference[plane, r, c])
    assert np.array_equal(grid.full(), reference)


def test_edit_save_reopen_edit_save_round_trips(tmp_path: Path) -> None:
    path, original, scene = opened(tmp_path)
    expected = original.heights.copy()
    for value, (r, c) in ((3.25, (1, 1)), (-7.5, (40, 80)), (0.5, (69, 0))):
        scene.terrain.heights_grid()[r:r + 1, c:c + 1] = value
        expected[r, c] = value
        save_scene(scene, path)
        scene = load_scene(path)
        assert scene.terrain.read_heights(slice(0, ROWS), slice(0, COLS)).tobytes() == expected.tobytes()
    assert len(files_of(tmp_path)) == 1 + 9 + 9


def test_take_reads_index_grids_like_np_ix_and_assembles_nothing(tmp_path: Path) -> None:
    """Strided reads of coarse levels, clamped last samples, repeats and single indices."""
    from model import paged

    _, original, scene = opened(tmp_path)
    t = scene.terrain
    before = paged.assemblies
    rng = np.random.default_rng(11)
    cases = [(np.arange(0, ROWS, 4), np.minimum(np.arange(0, COLS + 8, 8), COLS - 1)),  # strided
             (np.arange(30, 40), np.arange(60, 70)),  # a window over four tiles
             (np.array([5]), np.array([89])),
             (np.array([0, 0, 31, 32, 32, 69]), np.array([1, 33, 33, 64, 65, 89])),  # repeats
             (np.sort(rng.integers(0, ROWS, 40)), np.sort(rng.integers(0, COLS, 50)))]
    for rows, cols in cases:
        assert t.take_heights(rows, cols).tobytes() == original.heights[np.ix_(rows, cols)].tobytes()
        for la, lb in zip(t.layers, original.layers, strict=True):
            assert la.take(rows, cols).tobytes() == lb.weights[np.ix_(rows, cols)].tobytes()
        # the same from an array (what a terrain held in memory answers)
        assert original.take_heights(rows, cols).tobytes() == original.heights[np.ix_(rows, cols)].tobytes()
    both = t.layers[0].paged.grid.take(np.arange(3, 9), np.arange(60, 70))
    assert both.shape == (2, 6, 10) and both[1].tobytes() == original.layers[1].weights[3:9, 60:70].tobytes()
    assert t.take_heights(np.arange(0), np.arange(5)).shape == (0, 5)
    with pytest.raises(ValueError):
        t.take_heights(np.array([3, 2]), np.array([0]))
    with pytest.raises(IndexError):
        t.take_heights(np.array([ROWS]), np.array([0]))
    assert paged.assemblies == before and t.paged_heights is not None
    assert all(la.paged is not None for la in t.layers)


def test_height_corners_and_weight_sums_come_from_the_tiles(tmp_path: Path) -> None:
    from model import paged

    _, original, scene = opened(tmp_path)
    t = scene.terrain
    before = paged.assemblies
    i0, j0 = np.array([0, 31, 63, 88]), np.array([0, 31, 40, 68])
    for a, b in zip(t.height_corners(i0, j0), original.height_corners(i0, j0), strict=True):
        assert a.dtype == np.float64 and a.tobytes() == b.tobytes()
    for la, lb in zip(t.layers, original.layers, strict=True):
        assert la.weight_sum() == int(lb.weights.sum(dtype=np.uint64)) == lb.weight_sum()
        assert la.shape == (ROWS, COLS)
    grid = t.layers[0].paged.grid
    assert len(grid.sums) == 9  # every one of the 3 x 3 tiles summed once, then kept
    # a paint stroke drops the sums of the tiles it writes only; the total follows the stroke
    rock = t.layer("rock")
    painted_before = rock.weight_sum()
    stroke = TerrainStroke(t, "rock")
    stroke.apply(paint_layer(t, "rock", Brush(radius=3.0), 50.0, 40.0))
    stroke.finish()
    assert len(grid.sums) == 8  # the brush at (50, 40) lies inside tile (1, 1)
    whole = rock.read(slice(0, ROWS), slice(0, COLS))
    assert rock.weight_sum() == int(whole.sum(dtype=np.uint64)) > painted_before
    assert paged.assemblies == before and rock.paged is not None


def test_assembling_is_counted(tmp_path: Path) -> None:
    from model import paged

    _, _, scene = opened(tmp_path)
    before = paged.assemblies
    whole = scene.terrain.heights  # a caller that wants the whole array (an export) still gets it
    assert whole.shape == (ROWS, COLS)
    assert paged.assemblies == before + 1 and scene.terrain.paged_heights is None


def test_blended_paint_on_a_paged_terrain_writes_tiles_and_undoes_exactly(tmp_path: Path) -> None:
    from model import paged
    from model.layer_ops import LayerPaintStroke, paint_layer_stamp

    _, original, scene = opened(tmp_path)
    t = scene.terrain
    before = paged.assemblies
    stroke = LayerPaintStroke(t, "rock")
    for x in (20.0, 24.0, 28.0):
        assert stroke.apply(paint_layer_stamp(t, "rock", Brush(radius=5.0, strength=1.0), x, 20.0))
    stroke.finish()
    now = [la.read(slice(0, ROWS), slice(0, COLS)) for la in t.layers]
    was = [la.weights for la in original.layers]
    assert not np.array_equal(now[1], was[1]) and len(stroke.layers()) == 2  # it took from the other
    raised = now[1] > was[1]
    assert raised.any() and (now[0][raised].astype(int) + now[1][raised] <= 255).all()
    stroke.undo()
    assert all(la.read(slice(0, ROWS), slice(0, COLS)).tobytes() == w.tobytes()
               for la, w in zip(t.layers, was, strict=True))
    stroke.redo()
    assert all(la.read(slice(0, ROWS), slice(0, COLS)).tobytes() == n.tobytes()
               for la, n in zip(t.layers, now, strict=True))
    assert paged.assemblies == before and all(la.paged is not None for la in t.layers)


def test_int_sum_is_exact_either_side_of_32_bits() -> None:
    from model.paged import int_sum

    assert int_sum(np.full(16_843_009, 255, np.uint8)) == 16_843_009 * 255  # just under 2**32: 32 bits
    big = np.full(70_000, 65_535, np.uint16)  # 4.6e9: past 32 bits, summed in 64
    assert int_sum(big) == 70_000 * 65_535 and int_sum(np.ones(5, bool)) == 5
