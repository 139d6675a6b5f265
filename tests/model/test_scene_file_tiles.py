"""Scene format version 2: heights and layer weights in tiles, each a file named by its CRC-32."""

from __future__ import annotations

import os
import tomllib
import zlib
from pathlib import Path

import numpy as np
import pytest
import tomli_w

from model import atomic
from model.errors import FormatError
from model.formats import scene_file, tiles
from model.formats.scene_file import load_scene, save_scene
from tests.model.test_scene_file import files_of, make_scene, save_v1

ROWS, COLS, TILE = 37, 50, 16  # 3 x 4 tiles; the last row and column of tiles are smaller


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", TILE)


def scene():
    return make_scene(seed=4, rows=ROWS, cols=COLS)


def saved(tmp_path: Path) -> tuple[Path, dict]:
    path = tmp_path / "t.boscage"
    save_scene(scene(), path)
    return path, tomllib.loads(path.read_text())


def test_tiles_round_trip_bit_for_bit_and_cover_the_grid(tmp_path: Path) -> None:
    path, doc = saved(tmp_path)
    heights, layers = doc["terrain"]["heights"], doc["terrain"]["layers"]
    assert doc["version"] == 2 and doc["terrain"]["tile"] == TILE
    assert [len(row) for row in heights] == [4, 4, 4] and [len(row) for row in layers] == [4, 4, 4]
    original = scene().terrain
    # each tile holds its block of the grid, row-major, and is named by position and CRC-32
    corner = original.heights[32:37, 48:50]
    assert heights[2][3] == f"t.heights_2_3.{zlib.crc32(corner.tobytes()):08x}.bin"
    assert (tmp_path / heights[2][3]).read_bytes() == corner.astype("<f4").tobytes()
    stacked = b"".join(la.weights[16:32, 0:16].tobytes() for la in original.layers)
    assert (tmp_path / layers[1][0]).read_bytes() == stacked
    assert len(files_of(tmp_path)) == 1 + 12 + 12
    back = load_scene(path).terrain
    assert back.heights.dtype == np.float32 and back.heights.tobytes() == original.heights.tobytes()
    for a, b in zip(back.layers, original.layers, strict=True):
        assert a.weights.dtype == np.uint8 and np.array_equal(a.weights, b.weights)
        assert (a.name, a.color) == (b.name, b.color)
    back.heights[0, 0] = 1.0  # writable, not a view of a file
    back.layers[1].weights[0, 0] = 1


def test_a_save_after_an_edit_writes_only_the_tiles_it_touched(tmp_path: Path, monkeypatch) -> None:
    path, doc = saved(tmp_path)
    before = files_of(tmp_path)
    edited = load_scene(path)
    edited.terrain.heights[20, 40] += 1.0  # tile (1, 2) only
    edited.terrain.layers[0].weights[3, 3] ^= 0xFF  # tile (0, 0) only
    written: list[str] = []
    real = atomic.atomic_write

    def spy(file, data):
        written.append(Path(file).name)
        return real(file, data)

    monkeypatch.setattr(scene_file, "atomic_write", spy)
    save_scene(edited, path)
    new = tomllib.loads(path.read_text())["terrain"]
    assert sorted(written) == sorted([new["heights"][1][2], new["layers"][0][0]])
    after = files_of(tmp_path)
    # the two stale tiles went once the manifest was in place; every other file is as it was
    gone = {doc["terrain"]["heights"][1][2], doc["terrain"]["layers"][0][0]}
    assert set(before) - set(after) == gone
    assert all(after[n] == data for n, data in before.items() if n not in gone and n != path.name)
    back = load_scene(path).terrain
    assert back.heights.tobytes() == edited.terrain.heights.tobytes()
    assert np.array_equal(back.layers[0].weights, edited.terrain.layers[0].weights)


def test_saving_an_unchanged_scene_writes_nothing_but_the_manifest(tmp_path: Path, monkeypatch) -> None:
    path, _ = saved(tmp_path)
    before = files_of(tmp_path)
    written: list[str] = []
    monkeypatch.setattr(scene_file, "atomic_write", lambda f, d: written.append(Path(f).name))
    save_scene(load_scene(path), path)
    assert written == [] and files_of(tmp_path) == before


def test_a_version_1_scene_opens_and_is_written_as_version_2_when_saved(tmp_path: Path) -> None:
    path = tmp_path / "old.boscage"
    save_v1(scene(), path)
    v1_files = set(files_of(tmp_path)) - {path.name}
    assert tomllib.loads(path.read_text())["version"] == 1 and len(v1_files) == 2
    opened = load_scene(path)
    assert opened.file_version == 1
    assert opened.terrain.heights.tobytes() == scene().terrain.heights.tobytes()
    assert tomllib.loads(path.read_text())["version"] == 1  # opening changes nothing
    save_scene(opened, path)
    assert tomllib.loads(path.read_text())["version"] == 2
    assert not v1_files & set(files_of(tmp_path))  # the version 1 side files went after the manifest
    again = load_scene(path)
    assert again.file_version == 2 and again.terrain.heights.tobytes() == scene().terrain.heights.tobytes()


def test_a_tile_kept_as_a_link_inside_the_folder_opens_and_one_outside_is_refused(tmp_path: Path) -> None:
    path, doc = saved(tmp_path)
    f = tmp_path / doc["terrain"]["heights"][1][1]
    store = tmp_path / ".annex"
    store.mkdir()
    (store / "h").write_bytes(f.read_bytes())
    f.unlink()
    f.symlink_to(store / "h")
    assert load_scene(path).terrain.heights.tobytes() == scene().terrain.heights.tobytes()
    outside = tmp_path.parent / f"{tmp_path.name}-out"
    outside.mkdir()
    (outside / "h").write_bytes(f.read_bytes())
    f.unlink()
    f.symlink_to(outside / "h")
    with pytest.raises(FormatError, match="links outside the scene's folder") as info:
        load_scene(path)
    assert info.value.path == str(f)


def test_progress_hears_every_tile_and_can_cancel(tmp_path: Path) -> None:
    path, _ = saved(tmp_path)
    heard: list[tuple[int, int]] = []
    load_scene(path, progress=lambda done, total: heard.append((done, total)) or True)
    total = ROWS * COLS * (4 + 2)
    assert len(heard) == 24 and heard[-1] == (total, total)
    with pytest.raises(scene_file.LoadCancelled):
        load_scene(path, progress=lambda done, total: done < 3000)


# ---- bad tiles: one FormatError naming the file ---------------------------------------------

def rewrite(path: Path, doc: dict) -> None:
    path.write_text(tomli_w.dumps(doc))


def tile(path: Path, doc: dict, key: str, i: int, j: int) -> Path:
    return path.with_name(doc["terrain"][key][i][j])


def corrupt_missing_tile(path, doc):
    f = tile(path, doc, "heights", 2, 1)
    f.unlink()
    return f, "missing heights tile side file"


def corrupt_wrong_crc(path, doc):
    f = tile(path, doc, "layers", 1, 3)
    data = bytearray(f.read_bytes())
    data[7] ^= 0x01
    f.write_bytes(bytes(data))
    return f, "checksum mismatch"


def corrupt_wrong_size(path, doc):
    f = tile(path, doc, "heights", 0, 3)
    f.write_bytes(f.read_bytes() + b"\0\0\0\0")
    return f, "expected"


def corrupt_edge_tile_at_full_size(path, doc):
    # a full-size tile's file named where a smaller edge tile belongs
    doc["terrain"]["heights"][2][3] = doc["terrain"]["heights"][0][0]
    rewrite(path, doc)
    return tile(path, doc, "heights", 0, 0), "tile 2, 3"


def corrupt_too_few_tile_rows(path, doc):
    doc["terrain"]["heights"].pop()
    rewrite(path, doc)
    return path, "lists 2 rows of tiles"


def corrupt_a_short_tile_row(path, doc):
    doc["terrain"]["layers"][1].pop()
    rewrite(path, doc)
    return path, "lists 3 tiles"


def corrupt_grid_grown_past_its_tiles(path, doc):
    doc["terrain"]["columns"] += TILE
    rewrite(path, doc)
    return path, "has 3 rows of 5"


def corrupt_tile_list_not_a_list(path, doc):
    doc["terrain"]["heights"] = "t.heights.01234567.bin"
    rewrite(path, doc)
    return path, "expected an array"


def corrupt_tile_name_without_crc(path, doc):
    f = tile(path, doc, "heights", 1, 1)
    plain = f.with_name("t.heights.bin")
    f.rename(plain)
    doc["terrain"]["heights"][1][1] = plain.name
    rewrite(path, doc)
    return path, "must end in .<crc32>.bin"


def corrupt_tile_name_escaping(path, doc):
    doc["terrain"]["heights"][0][2] = "../x.heights_0_2.00000000.bin"
    rewrite(path, doc)
    return path, "plain file name"


def corrupt_tile_size_absurd(path, doc):
    doc["terrain"]["tile"] = 3
    rewrite(path, doc)
    return path, "tiles must be"


def _set_height_in_tile_1_2(path, doc, index: int, value: float) -> Path:
    """Write one height of tile (1, 2) (flat `index` into it) under a name with its new CRC."""
    f = tile(path, doc, "heights", 1, 2)
    h = np.frombuffer(f.read_bytes(), "<f4").copy()
    h[index] = value
    data = h.tobytes()
    named = f.with_name(f"t.heights_1_2.{zlib.crc32(data):08x}.bin")
    named.write_bytes(data)
    doc["terrain"]["heights"][1][2] = named.name
    rewrite(path, doc)
    return named


def corrupt_nan_in_a_tile(path, doc):
    return _set_height_in_tile_1_2(path, doc, 9, np.inf), "1 NaN or infinite samples"


def corrupt_height_past_the_range_in_a_tile(path, doc):
    # row 1, column 3 of tile (1, 2): 30,000 km down
    return _set_height_in_tile_1_2(path, doc, TILE + 3, -3.0e7), "1 beyond ±10,000 km"


BAD_TILES = [corrupt_missing_tile, corrupt_wrong_crc, corrupt_wrong_size, corrupt_edge_tile_at_full_size,
             corrupt_too_few_tile_rows, corrupt_a_short_tile_row, corrupt_grid_grown_past_its_tiles,
             corrupt_tile_list_not_a_list, corrupt_tile_name_without_crc, corrupt_tile_name_escaping,
             corrupt_tile_size_absurd, corrupt_nan_in_a_tile,
             corrupt_height_past_the_range_in_a_tile]


@pytest.mark.parametrize("corrupt", BAD_TILES, ids=lambda f: f.__name__.removeprefix("corrupt_"))
def test_each_kind_of_bad_tile_is_one_format_error_naming_the_file(tmp_path: Path, corrupt) -> None:
    path, doc = saved(tmp_path)
    named, words = corrupt(path, doc)
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.path == str(named)
    assert words.lower() in info.value.reason.lower()


def test_a_save_interrupted_between_tiles_leaves_the_previous_scene_loadable(tmp_path: Path) -> None:
    path, _ = saved(tmp_path)
    new = make_scene(seed=9, rows=ROWS, cols=COLS)
    real_replace, calls = os.replace, {"n": 0}

    def failing(src, dst):
        calls["n"] += 1
        if calls["n"] == 7:
            raise OSError("power cut")
        return real_replace(src, dst)

    with pytest.MonkeyPatch.context() as m, pytest.raises(OSError, match="power cut"):
        m.setattr(atomic.os, "replace", failing)
        save_scene(new, path)
    assert load_scene(path).terrain.heights.tobytes() == scene().terrain.heights.tobytes()
    save_scene(new, path)
    assert load_scene(path).terrain.heights.tobytes() == new.terrain.heights.tobytes()
    assert len(files_of(tmp_path)) == 25  # the orphans of the failed save went with this one


def test_a_refused_tile_height_names_its_row_and_column_in_the_whole_grid(tmp_path: Path) -> None:
    path, doc = saved(tmp_path)
    corrupt_height_past_the_range_in_a_tile(path, doc)
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.place == f"row {TILE + 1}, column {2 * TILE + 3}"
    assert "-30000000" in info.value.reason and "rescale it" in info.value.reason
