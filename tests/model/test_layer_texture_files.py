"""Save As into another folder brings the layers' texture files along (same relative paths, each
written atomically, taken back if the save fails); paged and tiled paths keep every layer's material."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import model.formats.scene_file as scene_file
from model.errors import WriteError
from model.formats.scene_file import load_scene, save_scene
from model.layer_material import LayerMaterial
from model.scene import Scene
from model.terrain import Terrain

ROCK = LayerMaterial(albedo="textures/rock_albedo.png", normal="textures/rock_normal.png", tiling=9.0,
                     triplanar=True)
GRASS = LayerMaterial(albedo="textures/grass.png", height="maps/deep/grass_height.png")


def write_textures(folder: Path) -> dict[str, bytes]:
    files = {}
    for k, rel in enumerate(["textures/rock_albedo.png", "textures/rock_normal.png", "textures/grass.png",
                             "maps/deep/grass_height.png"]):
        data = bytes([k]) * (100 + k) + rel.encode()  # the copy moves bytes; their content is not read
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
        files[rel] = data
    return files


def textured_scene(folder: Path) -> Scene:
    t = Terrain(np.arange(600, dtype=np.float32).reshape(20, 30) * 0.1, 2.0)
    t.add_layer("rock", (120, 120, 120), np.full((20, 30), 100, np.uint8))
    t.add_layer("grass", (60, 150, 50))
    t.add_layer("plain", (200, 180, 120))
    t.layers[0].material, t.layers[1].material = ROCK, GRASS
    scene = Scene(terrain=t, name="textured")
    save_scene(scene, folder / "scene.boscage")
    return load_scene(folder / "scene.boscage")


def test_save_as_into_another_folder_copies_every_layer_texture_under_its_relative_path(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "elsewhere" / "b"
    a.mkdir()
    files = write_textures(a)
    scene = textured_scene(a)
    save_scene(scene, b / "copy.boscage")
    for rel, data in files.items():
        assert (b / rel).read_bytes() == data
    assert scene.path == b / "copy.boscage" and scene.textures_folder() == b  # it reads them there now
    back = load_scene(b / "copy.boscage")
    assert [la.material for la in back.terrain.layers] == [ROCK, GRASS, LayerMaterial()]
    assert not list(b.rglob(".*.tmp"))
    # the source folder is untouched, and saving again where it now is copies nothing
    (b / "textures" / "grass.png").unlink()
    save_scene(scene, b / "copy.boscage")
    assert not (b / "textures" / "grass.png").exists()
    assert {p.relative_to(a).as_posix(): p.read_bytes() for p in a.rglob("*.png")} == files


def test_saving_in_its_own_folder_copies_nothing(tmp_path) -> None:
    files = write_textures(tmp_path)
    scene = textured_scene(tmp_path)
    (tmp_path / "textures" / "grass.png").unlink()  # missing where it is: still named, not made up
    save_scene(scene, tmp_path / "scene.boscage")
    assert not (tmp_path / "textures" / "grass.png").exists()
    assert load_scene(tmp_path / "scene.boscage").terrain.layer("grass").material == GRASS
    assert len(files) == 4


def test_a_texture_missing_at_the_source_is_skipped_and_still_named(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    write_textures(a)
    scene = textured_scene(a)
    (a / "maps" / "deep" / "grass_height.png").unlink()
    save_scene(scene, b / "s.boscage")
    assert (b / "textures" / "grass.png").is_file() and not (b / "maps").exists()
    assert load_scene(b / "s.boscage").terrain.layer("grass").material.height == "maps/deep/grass_height.png"


def test_a_different_file_in_the_way_is_refused_before_anything_is_written(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    files = write_textures(a)
    scene = textured_scene(a)
    (b / "textures").mkdir(parents=True)
    (b / "textures" / "grass.png").write_bytes(b"another scene's grass")
    (b / "textures" / "rock_albedo.png").write_bytes(files["textures/rock_albedo.png"])  # the same: fine
    with pytest.raises(WriteError) as caught:
        save_scene(scene, b / "s.boscage")
    message = str(caught.value)
    assert "textures/grass.png" in message and str(b / "textures" / "grass.png") in message
    assert sorted(p.name for p in b.rglob("*") if p.is_file()) == ["grass.png", "rock_albedo.png"]
    assert (b / "textures" / "grass.png").read_bytes() == b"another scene's grass"
    assert scene.path == a / "scene.boscage" and scene.textures_folder() == a
    save_scene(scene, b / "s.boscage", replace_textures=True)  # the user agreed to replace it
    assert (b / "textures" / "grass.png").read_bytes() == files["textures/grass.png"]


def test_a_save_that_fails_after_the_copies_takes_them_back(tmp_path, monkeypatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    write_textures(a)
    scene = textured_scene(a)
    (b / "textures").mkdir(parents=True)
    (b / "textures" / "rock_normal.png").write_bytes((a / "textures" / "rock_normal.png").read_bytes())

    def full_disk(path, text):
        raise WriteError(path, "no space left on device")

    monkeypatch.setattr(scene_file, "atomic_write_text", full_disk)
    with pytest.raises(WriteError):
        save_scene(scene, b / "s.boscage")
    left = sorted(p.relative_to(b).as_posix() for p in b.rglob("*.png"))
    assert left == ["textures/rock_normal.png"]  # what was there before stays; our copies went
    assert not (b / "s.boscage").exists()
    assert scene.textures_folder() == a


def test_a_texture_linked_from_outside_its_folder_is_not_copied(tmp_path) -> None:
    a, b, outside = tmp_path / "a", tmp_path / "b", tmp_path / "secret.png"
    a.mkdir()
    write_textures(a)
    scene = textured_scene(a)
    outside.write_bytes(b"not the scene's")
    (a / "textures" / "grass.png").unlink()
    (a / "textures" / "grass.png").symlink_to(outside)
    save_scene(scene, b / "s.boscage")
    assert not (b / "textures" / "grass.png").exists() and (b / "textures" / "rock_albedo.png").is_file()


def test_the_streaming_writer_keeps_each_layers_material(tmp_path) -> None:
    from model.formats.scene_writer import SceneWriter

    heights = np.linspace(0, 5, 24 * 40, dtype=np.float32).reshape(24, 40)
    weights = np.zeros((2, 24, 40), np.uint8)
    weights[0, :, :20] = 255
    with SceneWriter(tmp_path / "w.boscage", 24, 40, 2.0) as w:
        w.set_layers([("rock", (120, 120, 120), True, ROCK), ("grass", (60, 150, 50), False)])
        for i, j, rs, cs in w.tiles():
            w.put_heights(i, j, heights[rs, cs])
            w.put_layers(i, j, weights[:, rs, cs])
        scene = w.finish("streamed")
    assert [la.material for la in scene.terrain.layers] == [ROCK, LayerMaterial()]
    back = load_scene(tmp_path / "w.boscage")
    assert [la.material for la in back.terrain.layers] == [ROCK, LayerMaterial()]
    assert [la.weight_blend for la in back.terrain.layers] == [True, False]


def test_a_grown_forest_keeps_the_materials_and_their_folder(tmp_path) -> None:
    from model.plants.forest import grow_forest
    from model.plants.loader import load_rules

    rules = load_rules(Path(__file__).resolve().parents[2] / "resources" / "plants")
    a = tmp_path / "a"
    a.mkdir()
    files = write_textures(a)
    scene = textured_scene(a)
    out = grow_forest(scene, rules, passes=2, seed=1)
    materials = [out.terrain.layer(n).material for n in ("rock", "grass", "plain")]
    assert materials == [ROCK, GRASS, LayerMaterial()]
    save_scene(out, tmp_path / "forest" / "forest.boscage")
    back = load_scene(tmp_path / "forest" / "forest.boscage")
    assert back.terrain.layer("rock").material == ROCK
    copied = tmp_path / "forest" / "textures" / "rock_albedo.png"
    assert copied.read_bytes() == files["textures/rock_albedo.png"]


def test_a_tiled_spawn_run_carries_the_materials_and_the_saved_scene_keeps_them(tmp_path) -> None:
    from model.foliage.spawn_batch import _world, spawn_in_tiles
    from model.foliage.spawner_section import spawners_of
    from tests.model.foliage.test_spawner import hilly_scene, volume_bytes

    reference = hilly_scene()
    spawn_in_tiles(reference, spawners_of(reference).spawners[0], tile=60.0, workers=1)
    scene = hilly_scene()
    scene.terrain.layer("rock").material = ROCK
    spawner = spawners_of(scene).spawners[0]
    world = _world(scene, spawner)
    assert world["layers"][1][3] == {"albedo": ROCK.albedo, "normal": ROCK.normal, "tiling": 9.0,
                                     "triplanar": True}
    save_scene(scene, tmp_path / "hills.boscage")
    paged = load_scene(tmp_path / "hills.boscage")  # tiles read as the run needs them
    spawn_in_tiles(paged, spawners_of(paged).spawners[0], tile=60.0, workers=1)
    assert volume_bytes(paged) == volume_bytes(reference)  # a material changes no placement
    save_scene(paged, tmp_path / "hills.boscage")
    back = load_scene(tmp_path / "hills.boscage")
    assert back.terrain.layer("rock").material == ROCK and back.terrain.layer("forest_floor").material \
        == LayerMaterial()
