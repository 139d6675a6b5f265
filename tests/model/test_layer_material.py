"""Layer materials in the scene manifest: texture paths inside the scene's folder, tiling, projection;
round trips, older scenes unchanged, one clear error per bad value."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import tomli_w

from model.errors import FormatError
from model.formats.scene_file import load_scene, save_scene
from model.layer_material import DEFAULT_TILING, LayerMaterial, material_entry, relative_to_folder
from model.layer_ops import set_material
from tests.model.test_scene_file import make_scene

ROCK = LayerMaterial(albedo="textures/rock_albedo.png", normal="textures/rock_n.png",
                     roughness="rock_r.jpg", height="textures/rock_h.exr", tiling=6.5, triplanar=True)


def test_a_material_round_trips_through_save(tmp_path: Path) -> None:
    scene = make_scene()
    set_material(scene.terrain, "rock", ROCK)
    save_scene(scene, tmp_path / "s.boscage")
    doc = tomllib.loads((tmp_path / "s.boscage").read_text())
    assert doc["layers"][1]["albedo"] == "textures/rock_albedo.png" and doc["layers"][1]["triplanar"] is True
    assert "albedo" not in doc["layers"][0]  # a layer without maps writes none of the keys
    again = load_scene(tmp_path / "s.boscage")
    assert again.terrain.layers[1].material == ROCK
    assert again.terrain.layers[0].material == LayerMaterial()
    assert again.terrain.layers[1].color == (128, 128, 128)  # the tint and fallback stay


def test_an_older_scene_opens_unchanged_and_saves_the_same_manifest(tmp_path: Path) -> None:
    save_scene(make_scene(), tmp_path / "old.boscage")
    before = (tmp_path / "old.boscage").read_bytes()
    scene = load_scene(tmp_path / "old.boscage")
    assert all(la.material == LayerMaterial() and not la.material.textured for la in scene.terrain.layers)
    save_scene(scene, tmp_path / "old.boscage")
    assert (tmp_path / "old.boscage").read_bytes() == before


def test_the_default_tiling_is_not_written() -> None:
    assert material_entry(LayerMaterial(albedo="a.png")) == {"albedo": "a.png"}
    assert LayerMaterial().tiling == DEFAULT_TILING


@pytest.mark.parametrize(("key", "value", "words"), [
    ("albedo", "../outside.png", "leaves the scene's folder"),
    ("albedo", "/etc/rock.png", "relative"),
    ("normal", "C:/rock.png", "relative"),
    ("height", "rock.tga", "not a PNG, JPEG or EXR"),
    ("roughness", 7, "file path"),
    ("albedo", "", "file path"),
    ("albedo", "tex\\rock.png", "'/'"),
    ("tiling", 0, "metres"),
    ("tiling", "4", "metres"),
    ("tiling", float("inf"), "metres"),
    ("triplanar", "yes", "true or false"),
])
def test_a_bad_material_value_is_one_error_naming_the_key(tmp_path: Path, key, value, words) -> None:
    save_scene(make_scene(), tmp_path / "s.boscage")
    doc = tomllib.loads((tmp_path / "s.boscage").read_text())
    doc["layers"][1][key] = value
    (tmp_path / "s.boscage").write_text(tomli_w.dumps(doc))
    with pytest.raises(FormatError) as e:
        load_scene(tmp_path / "s.boscage")
    assert f"layers[1].{key}" in str(e.value) and words in str(e.value)
    assert "s.boscage" in str(e.value)


def test_set_material_announces_the_change_and_returns_the_old_one() -> None:
    scene = make_scene()
    heard = []
    scene.terrain.layers_changed.connect(lambda: heard.append(1))
    assert set_material(scene.terrain, "grass", ROCK) == LayerMaterial()
    assert set_material(scene.terrain, "grass", ROCK) == ROCK
    assert len(heard) == 1  # the same material again changes nothing


def test_relative_paths_stay_inside_the_folder(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    assert relative_to_folder(tmp_path, tmp_path / "t" / "a.png") == "t/a.png"
    assert relative_to_folder(tmp_path / "t", tmp_path / "a.png") is None
