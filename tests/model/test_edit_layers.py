"""Edit layers: the heights are the composite of a base and layers of deltas; a layer switched off
gives back exactly the heights without it; changes touch only their area; scenes keep them."""

from __future__ import annotations

import tomllib
import zlib
from pathlib import Path

import numpy as np
import pytest
import tomli_w

from model import paged
from model.brush import Brush
from model.edit_layers import EditLayerError, EditStack, grid_from, stack_of
from model.errors import FormatError
from model.formats import tiles
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.sculpt import TerrainStroke, raise_lower
from model.terrain import Terrain

ROWS, COLS, TILE = 70, 90, 32  # 3 x 3 tiles


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", TILE)


def terrain(seed: int = 3) -> Terrain:
    rng = np.random.default_rng(seed)
    h = rng.uniform(-20.0, 40.0, (ROWS, COLS)).astype(np.float32)
    h[5, 5] = np.float32(-0.0)  # a negative zero stays one where no layer paints
    return Terrain(h, spacing=1.0)


def deltas(seed: int, rows: slice, cols: slice) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(-3.0, 3.0, (rows.stop - rows.start, cols.stop - cols.start)).astype(np.float32)


WINDOWS = [(slice(10, 40), slice(20, 70)), (slice(0, 20), slice(0, 30)), (slice(30, 70), slice(50, 90))]


def stacked(t: Terrain, which=(0, 1, 2), opacity=(1.0, 0.37, 1.0)) -> EditStack:
    stack = stack_of(t, create=True)
    for k in which:
        layer = stack.add_layer(f"L{k}", ("sculpt", "erosion", "stamp")[k])
        rows, cols = WINDOWS[k]
        stack.replace_deltas(layer.name, grid_from(deltas(k, rows, cols), rows, cols, t.heights.shape))
        stack.set_opacity(layer.name, opacity[k])
    return stack


def test_a_layer_switched_off_gives_exactly_the_heights_without_it() -> None:
    base = terrain().heights.copy()
    full = terrain()
    stack = stacked(full)
    with_all = full.heights.copy()
    assert not np.array_equal(with_all, base)
    without = terrain()
    stacked(without, which=(0, 2))
    stack.set_visible("L1", False)
    assert full.heights.tobytes() == without.heights.tobytes()
    stack.set_visible("L1", True)
    assert full.heights.tobytes() == with_all.tobytes()
    for name in stack.names():
        stack.set_visible(name, False)
    assert full.heights.tobytes() == base.tobytes()  # -0.0 included


def test_the_composite_is_base_plus_opacity_times_deltas_rounded_once() -> None:
    t = terrain()
    base = t.heights.astype(np.float64)
    stacked(t)
    acc = base.copy()
    for k, opacity in enumerate((1.0, 0.37, 1.0)):
        d = np.zeros_like(acc)
        rows, cols = WINDOWS[k]
        d[rows, cols] = deltas(k, rows, cols).astype(np.float64) * opacity
        acc = np.where(d != 0, acc + d, acc)
    assert t.heights.tobytes() == acc.astype(np.float32).tobytes()


def test_a_change_recomposites_only_the_tiles_it_touches() -> None:
    t = terrain()
    stack = stacked(t)
    seen = []
    t.heights_changed.connect(lambda r, c: seen.append((r, c)))
    before = t.heights.copy()
    stack.set_visible("L1", False)  # L1 holds deltas in tile row 0, columns 0
    assert seen == [(slice(0, 32), slice(0, 32))]
    changed = np.argwhere(before != t.heights)
    assert changed[:, 0].max() < 20 and changed[:, 1].max() < 30


def test_removing_the_last_layer_gives_the_base_back_and_undo_restores_it() -> None:
    t = terrain()
    base = t.heights.copy()
    stack = stacked(t, which=(0,))
    painted = t.heights.copy()
    index, layer = stack.remove("L0")
    assert t.heights.tobytes() == base.tobytes() and stack.base is None
    stack.insert(layer, index)
    assert t.heights.tobytes() == painted.tobytes()


def test_reorder_rename_and_collapse() -> None:
    t = terrain()
    stack = stacked(t)
    top = t.heights.copy()
    assert stack.move("L2", 0) == 2 and stack.names() == ["L2", "L0", "L1"]
    assert np.allclose(t.heights, top, atol=1e-4)  # order changes the rounding only
    stack.rename("L2", "cliffs")
    with pytest.raises(EditLayerError, match="already exists"):
        stack.rename("L0", "cliffs")
    k, layer, before = stack.collapse("cliffs")
    assert stack.names() == ["L0", "L1"] and np.allclose(t.heights, top, atol=1e-4)
    stack.uncollapse(k, layer, before)
    assert stack.names() == ["cliffs", "L0", "L1"]


def test_sculpting_paints_into_the_selected_layer_and_undoes_exactly() -> None:
    t = terrain()
    base = t.heights.copy()
    stack = stacked(t, which=(0,))
    stack.add_layer("paint", "sculpt")
    stack.selected = "paint"
    start = t.heights.copy()
    stroke = TerrainStroke(t)
    for x in range(20, 60, 4):
        stroke.apply(raise_lower(t, Brush(radius=6.0, strength=1.0), float(x), 35.0, amount=2.0))
    stroke.finish()
    assert t.heights[35, 40] > start[35, 40] + 1.0
    assert stack.layer("paint").held_tiles()  # the deltas went into the layer, not the base
    assert np.array_equal(np.asarray(stack.base), base)
    stack.set_visible("paint", False)
    assert t.heights.tobytes() == start.tobytes()
    stack.set_visible("paint", True)
    stroke.undo()
    assert t.heights.tobytes() == start.tobytes()
    stroke.redo()
    assert t.heights[35, 40] > start[35, 40] + 1.0


def test_a_strokes_undo_and_redo_write_into_the_layer_it_painted_whatever_is_selected_since() -> None:
    t = terrain()
    stack = stacked(t, which=(0, 1))
    stack.selected = "L0"
    l0 = np.asarray(stack.layer("L0").read(slice(0, ROWS), slice(0, COLS))).copy()
    l1 = np.asarray(stack.layer("L1").read(slice(0, ROWS), slice(0, COLS))).copy()
    base = np.array(stack.base)
    start = t.heights.copy()
    stroke = TerrainStroke(t)
    stroke.apply(raise_lower(t, Brush(radius=6.0, strength=1.0), 40.0, 30.0, amount=2.0))
    stroke.finish()
    after = t.heights.copy()
    painted = np.asarray(stack.layer("L0").read(slice(0, ROWS), slice(0, COLS))).copy()
    stack.rename("L0", "renamed")
    for selected in ("L1", None):
        stack.selected = selected
        stroke.undo()
        assert t.heights.tobytes() == start.tobytes()
        assert np.array_equal(stack.layer("renamed").read(slice(0, ROWS), slice(0, COLS)), l0)
        assert np.array_equal(stack.layer("L1").read(slice(0, ROWS), slice(0, COLS)), l1)
        assert np.array_equal(np.asarray(stack.base), base)
        stroke.redo()
        assert t.heights.tobytes() == after.tobytes()
        assert np.array_equal(stack.layer("renamed").read(slice(0, ROWS), slice(0, COLS)), painted)
        assert stack.selected == selected  # the selection is left as it was


def scene_of(t: Terrain) -> Scene:
    return Scene(terrain=t, name="edit layers")


def test_save_and_reopen_keep_the_layers_and_store_the_base_only_under_them(tmp_path: Path) -> None:
    t = terrain()
    stack = stacked(t, which=(1,))  # one layer in tile 0, 0
    stack.add_layer("hidden", "terrace", {"step": 2.5, "sharpness": 0.5})
    stack.replace_deltas("hidden", grid_from(deltas(9, *WINDOWS[2]), *WINDOWS[2], t.heights.shape))
    stack.set_visible("hidden", False)
    path = tmp_path / "e.boscage"
    save_scene(scene_of(t), path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert [n for n in names if ".base_" in n] == [n for n in names if n.startswith("e.base_")]
    base_tiles = {tuple(map(int, n.split(".")[1].split("_")[1:])) for n in names if ".base_" in n}
    assert base_tiles == {(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 1), (2, 2)}
    doc = tomllib.loads(path.read_text())
    assert [la["name"] for la in doc["edit_layers"]["layers"]] == ["L1", "hidden"]
    back = load_scene(path)
    assert back.terrain.heights.tobytes() == t.heights.tobytes()
    bs = back.terrain.edits
    assert bs.names() == ["L1", "hidden"] and bs.layer("hidden").params == {"step": 2.5, "sharpness": 0.5}
    assert bs.layer("L1").opacity == pytest.approx(0.37) and not bs.layer("hidden").visible
    bs.set_visible("hidden", True)
    stack.set_visible("hidden", True)
    assert back.terrain.heights.tobytes() == t.heights.tobytes()
    for name in bs.names():
        bs.set_visible(name, False)
    assert back.terrain.heights.tobytes() == terrain().heights.tobytes()


def test_a_save_after_a_small_change_writes_only_the_touched_tiles(tmp_path: Path) -> None:
    path = tmp_path / "s.boscage"
    t = terrain()
    stacked(t)
    save_scene(scene_of(t), path)
    scene = load_scene(path)
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    stack = scene.terrain.edits
    stack.selected = "L2"
    stroke = TerrainStroke(scene.terrain)
    stroke.apply(raise_lower(scene.terrain, Brush(radius=3.0, strength=1.0), 80.0, 60.0))
    stroke.finish()
    save_scene(scene, path)
    after = {p.name for p in tmp_path.iterdir()}
    new = sorted(after - set(before))
    # the layer's tile, the composite's tile, the manifest; the base is untouched
    assert len(new) == 2 and any(".edit2_1_2." in n for n in new) and any(".heights_1_2." in n for n in new)
    assert load_scene(path).terrain.heights.tobytes() == scene.terrain.heights.tobytes()


def test_older_scenes_open_as_a_base_with_no_edit_layers(tmp_path: Path) -> None:
    path = tmp_path / "old.boscage"
    save_scene(scene_of(terrain()), path)
    assert "edit_layers" not in tomllib.loads(path.read_text())
    assert load_scene(path).terrain.edits is None


def test_a_paged_scene_takes_edit_layers_without_assembling_its_grid(tmp_path: Path) -> None:
    path = tmp_path / "p.boscage"
    save_scene(scene_of(terrain()), path)
    scene = load_scene(path)
    t = scene.terrain
    count = paged.assemblies
    stack = stack_of(t, create=True)
    stack.add_layer("lift", "sculpt")
    rows, cols = slice(40, 60), slice(60, 80)
    stack.replace_deltas("lift", grid_from(np.full((20, 20), 5.0, np.float32), rows, cols, (ROWS, COLS)))
    assert t.read_heights(rows, cols).tobytes() == (terrain().heights[rows, cols] + np.float32(5)).tobytes()
    save_scene(scene, path)
    again = load_scene(path)
    again.terrain.edits.set_visible("lift", False)
    assert again.terrain.read_heights(rows, cols).tobytes() == terrain().heights[rows, cols].tobytes()
    assert paged.assemblies == count
    assert t.paged_heights is not None and t.paged_heights.grid.written_tiles == 2


def test_a_bad_edit_layer_table_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "b.boscage"
    t = terrain()
    stacked(t, which=(0,))
    save_scene(scene_of(t), path)
    doc = tomllib.loads(path.read_text())
    doc["edit_layers"]["layers"][0]["kind"] = "lava"
    path.write_text(tomli_w.dumps(doc))
    with pytest.raises(FormatError, match=r"edit_layers.layers\[0\].kind.*lava"):
        load_scene(path)
    doc["edit_layers"]["layers"][0]["kind"] = "sculpt"
    doc["edit_layers"]["base"] = []
    path.write_text(tomli_w.dumps(doc))
    with pytest.raises(FormatError, match="no base tile"):
        load_scene(path)
    tile = next(p for p in tmp_path.iterdir() if ".edit0_" in p.name)
    doc = tomllib.loads(path.read_text())
    tile.write_bytes(tile.read_bytes()[:-4] + b"\0\0\0\0")
    with pytest.raises(FormatError, match="checksum"):
        load_scene(path)
    values = np.frombuffer(tile.read_bytes(), "<f4").copy()
    values[0] = np.float32(1.5e7)  # a delta no tool makes: 15,000 km
    data = values.tobytes()
    renamed = tile.with_name(tile.name.rsplit(".", 2)[0] + f".{zlib.crc32(data):08x}.bin")
    renamed.write_bytes(data)
    text = path.read_text().replace(tile.name, renamed.name)
    path.write_text(text)
    with pytest.raises(FormatError, match="beyond ±10,000 km") as info:
        load_scene(path)
    assert info.value.path == str(renamed) and info.value.place.startswith("row ")


def test_brushes_over_many_layers_keep_the_composite_exact() -> None:
    """The sums beneath the selected layer are kept between stamps; they must give the same bits
    as summing every layer again, and follow changes beneath."""
    t = terrain()
    stack = stacked(t)
    stack.add_layer("top", "sculpt")
    stack.selected = "top"
    brush = Brush(radius=5.0, strength=1.0)
    stroke = TerrainStroke(t)
    for x in range(10, 80, 5):
        stroke.apply(raise_lower(t, brush, float(x), 31.0, amount=1.5))
    stroke.finish()
    everything = (slice(0, ROWS), slice(0, COLS))
    assert t.heights.tobytes() == stack.composite(*everything, upto=len(stack.layers)).tobytes()
    stack.set_opacity("L1", 0.8)  # beneath the selected layer: the kept sums are dropped
    stroke = TerrainStroke(t)
    stroke.apply(raise_lower(t, brush, 40.0, 20.0, amount=-1.0))
    stroke.finish()
    assert t.heights.tobytes() == stack.composite(*everything, upto=len(stack.layers)).tobytes()
    stack.selected = "L0"  # paint beneath, then the top again
    stroke = TerrainStroke(t)
    stroke.apply(raise_lower(t, brush, 40.0, 20.0, amount=2.0))
    stroke.finish()
    stack.selected = "top"
    stroke = TerrainStroke(t)
    stroke.apply(raise_lower(t, brush, 42.0, 22.0, amount=1.0))
    stroke.finish()
    assert t.heights.tobytes() == stack.composite(*everything, upto=len(stack.layers)).tobytes()
