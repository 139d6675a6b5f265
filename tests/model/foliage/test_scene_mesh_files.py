"""The mesh files a scene's palette names travel with it: a copy of the scene (a recovery copy)
carries them and leaves the open scene as it was; a save into another folder carries them too."""

from __future__ import annotations

import json

from model.foliage import FoliageType, foliage_of
from model.foliage.foliage_type import Lod, Variant
from model.foliage.mesh_files import referenced_files
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from tests.model.foliage.conftest import plane
from tests.model.foliage.test_mesh_extent import OBJ


def grove(folder) -> Scene:
    """A saved scene in `folder` whose palette names an OBJ, a glTF with its buffer, and a level mesh."""
    (folder / "meshes").mkdir(parents=True)
    (folder / "meshes" / "tree.obj").write_text("mtllib tree.mtl\n" + OBJ)
    (folder / "meshes" / "tree.mtl").write_text("newmtl bark\nKd 0.4 0.3 0.2\n")
    (folder / "meshes" / "bush.gltf").write_text(json.dumps(
        {"asset": {"version": "2.0"}, "buffers": [{"uri": "bush.bin", "byteLength": 4}]}))
    (folder / "meshes" / "bush.bin").write_bytes(b"\x00\x01\x02\x03")
    (folder / "far.obj").write_text(OBJ)
    scene = Scene(plane(17), "Grove")
    palette = foliage_of(scene).palette
    palette.add(FoliageType("oak", mesh="meshes/tree.obj", lods=(Lod(60.0, "far.obj"),)))
    palette.add(FoliageType("mix", variants=(Variant("meshes/bush.gltf", 1.0), Variant("builtin:rock", 1.0))))
    save_scene(scene, folder / "grove.boscage")
    return scene


def test_referenced_files_include_what_gltf_and_obj_files_name(tmp_path):
    scene = grove(tmp_path)
    assert referenced_files(foliage_of(scene).palette, tmp_path) == [
        "far.obj", "meshes/bush.bin", "meshes/bush.gltf", "meshes/tree.mtl", "meshes/tree.obj"]


def test_a_copy_carries_the_mesh_files_and_changes_nothing_about_the_scene(tmp_path):
    scene = grove(tmp_path / "level")
    volume = foliage_of(scene).volume
    assert volume.mesh_folder == tmp_path / "level"
    save_scene(scene, tmp_path / "recovery" / "copy.boscage", copy=True)
    assert scene.path == tmp_path / "level" / "grove.boscage"
    assert volume.mesh_folder == tmp_path / "level"  # the open scene's files still resolve at home
    for name in ("meshes/tree.obj", "meshes/tree.mtl", "meshes/bush.gltf", "meshes/bush.bin", "far.obj"):
        assert (tmp_path / "recovery" / name).read_bytes() == (tmp_path / "level" / name).read_bytes()
    reopened = foliage_of(load_scene(tmp_path / "recovery" / "copy.boscage"))
    assert reopened.volume.extent_of("oak") == (2.5, 6.0)  # the copy opens with its meshes


def test_save_as_into_another_folder_carries_the_meshes_and_never_overwrites(tmp_path):
    scene = grove(tmp_path / "a")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "far.obj").write_text("# the user's own file of that name\n")
    save_scene(scene, tmp_path / "b" / "grove.boscage")
    assert foliage_of(scene).volume.mesh_folder == tmp_path / "b"
    assert (tmp_path / "b" / "meshes" / "bush.bin").read_bytes() == b"\x00\x01\x02\x03"
    assert (tmp_path / "b" / "far.obj").read_text() == "# the user's own file of that name\n"
