"""A type's extent "from the mesh" for mesh files: OBJ vertices, glTF POSITION bounds."""

from __future__ import annotations

import json
import struct

import numpy as np

from model.foliage import FoliageType, Palette
from model.foliage.foliage_type import Extent
from model.foliage.mesh_extent import mesh_extent
from model.foliage.volume import FoliageVolume

OBJ = """# a 6 m tree: trunk at the origin, crown 2.5 m out
v 0 0 0
v 0.3 0 0.4
v -2.5 4 0
v 0 6 1.5
v 1.2 3 -1.6
f 1 2 3
f 3 4 5
"""


def gltf_doc(lo, hi) -> dict:
    return {"asset": {"version": "2.0"}, "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3", "min": lo, "max": hi}]}


def glb(doc: dict) -> bytes:
    body = json.dumps(doc).encode()
    body += b" " * (-len(body) % 4)
    return struct.pack("<4sII", b"glTF", 2, 20 + len(body)) + struct.pack("<II", len(body), 0x4E4F534A) + body


def test_obj_gltf_and_glb_extents(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "tree.obj").write_text(OBJ)
    radius, height = mesh_extent("meshes/tree.obj", tmp_path)
    assert radius == 2.5 and height == 6.0  # the farthest vertex sideways, the highest upward
    (tmp_path / "bush.gltf").write_text(json.dumps(gltf_doc([-1.0, 0.0, -0.5], [0.5, 1.4, 0.5])))
    r, h = mesh_extent("bush.gltf", tmp_path)
    assert np.isclose(r, np.hypot(1.0, 0.5)) and h == 1.4
    (tmp_path / "bush.glb").write_bytes(glb(gltf_doc([-1.0, 0.0, -0.5], [0.5, 1.4, 0.5])))
    assert mesh_extent("bush.glb", tmp_path) == (r, h)


def test_unreadable_or_outside_meshes_fall_back_to_a_metre(tmp_path):
    (tmp_path / "level").mkdir()
    (tmp_path / "tree.obj").write_text(OBJ)  # beside, not inside, the level's folder
    assert mesh_extent("../tree.obj", tmp_path / "level") is None
    assert mesh_extent("missing.obj", tmp_path) is None
    assert mesh_extent("tree.obj", None) is None
    (tmp_path / "broken.gltf").write_text("{not json")
    assert mesh_extent("broken.gltf", tmp_path) is None
    t = FoliageType("t", mesh="missing.obj")
    assert t.resolved_extent(tmp_path) == Extent(1.0, 1.0)
    assert FoliageType("t", mesh="tree.obj").resolved_extent(tmp_path) == Extent(2.5, 6.0)
    assert FoliageType("t", mesh="tree.obj", extent=Extent(3, 9)).resolved_extent(tmp_path) == Extent(3, 9)


def test_chunk_bounds_grow_by_the_mesh_files_extent(tmp_path):
    (tmp_path / "tree.obj").write_text(OBJ)
    volume = FoliageVolume(Palette([FoliageType("oak", mesh="tree.obj")]))
    volume.mesh_folder = tmp_path
    volume.add("oak", [[10.0, 5.0, 10.0, 0, 0, 0, 2.0]])
    lo, hi = volume.bounds((0, 0), "oak")
    np.testing.assert_allclose(lo, [10 - 5.0, 5.0, 10 - 5.0])
    np.testing.assert_allclose(hi, [10 + 5.0, 5.0 + 12.0, 10 + 5.0])


def test_an_opened_scene_resolves_mesh_files_beside_it(tmp_path):
    from model.foliage import foliage_of
    from model.formats.scene_file import load_scene, save_scene
    from model.scene import Scene
    from tests.model.foliage.conftest import plane

    scene = Scene(plane(33), "Grove")
    foliage_of(scene).palette.add(FoliageType("oak", mesh="tree.obj"))
    foliage_of(scene).volume.add("oak", [[10.0, 0.0, 10.0, 0, 0, 0, 1.0]])
    (tmp_path / "tree.obj").write_text(OBJ)
    save_scene(scene, tmp_path / "grove.boscage")
    volume = foliage_of(load_scene(tmp_path / "grove.boscage")).volume
    assert volume.mesh_folder == tmp_path
    assert volume.extent_of("oak") == (2.5, 6.0)
