"""Built-in foliage meshes and mesh files through trimesh (no GL needed)."""

from __future__ import annotations

import numpy as np
import pytest

from model.errors import FormatError
from model.foliage.foliage_type import BUILTIN_EXTENTS, BUILTIN_MESHES
from rendering.meshes import VERTEX_FLOATS, builtin_mesh, load_mesh_file, mesh_for


@pytest.mark.parametrize("name", BUILTIN_MESHES)
def test_builtin_meshes_fit_their_declared_extent(name: str) -> None:
    mesh = builtin_mesh(name)
    lo, hi = mesh.bounds()
    radius, height = BUILTIN_EXTENTS[name]
    assert 0 < mesh.triangles < 400  # low-poly
    assert lo[1] >= -1e-6 and hi[1] == pytest.approx(height, rel=0.12)
    horizontal = np.hypot(mesh.vertices[:, 0], mesh.vertices[:, 2]).max()
    assert horizontal == pytest.approx(radius, rel=0.2)
    n = mesh.vertices[:, 3:6]
    assert np.allclose(np.linalg.norm(n, axis=1), 1.0, atol=1e-5)
    assert np.all((mesh.vertices[:, 6:9] >= 0) & (mesh.vertices[:, 6:9] <= 1))


def test_builtin_meshes_are_the_same_every_time() -> None:
    from rendering import meshes

    assert np.array_equal(meshes.conifer(), meshes.conifer())
    assert np.array_equal(meshes.rock(), builtin_mesh("rock").vertices)


def test_closed_meshes_face_outwards() -> None:
    # the normal of every crown/boulder face points away from the mesh's vertical axis, mostly
    for name in ("bush", "rock"):
        v = builtin_mesh(name).vertices.reshape(-1, 3, VERTEX_FLOATS)
        centre = v[:, :, :3].mean(axis=1)
        lo, hi = builtin_mesh(name).bounds()
        axis_point = np.array([0.0, (lo[1] + hi[1]) / 2, 0.0])
        outward = np.einsum("ij,ij->i", centre - axis_point, v[:, 0, 3:6])
        assert (outward > 0).mean() > 0.9


OBJ = """o tri
v 0 0 0
v 1 0 0
v 0 2 0
v 0 0 1
f 1 2 3
f 1 3 4
"""


def test_an_obj_file_loads_through_trimesh(tmp_path) -> None:
    path = tmp_path / "tri.obj"
    path.write_text(OBJ)
    mesh = load_mesh_file(path)
    assert mesh.triangles == 2
    lo, hi = mesh.bounds()
    assert hi[1] == pytest.approx(2.0)


def test_a_gltf_written_by_trimesh_loads(tmp_path) -> None:
    import trimesh

    box = trimesh.creation.box((1.0, 2.0, 1.0))
    path = tmp_path / "box.glb"
    box.export(path)
    mesh = load_mesh_file(path)
    assert mesh.triangles == 12


@pytest.mark.parametrize("content", [b"", b"\x00\x01garbage\xff" * 20, b"v 1 2\nf 1 2 9\n"])
def test_a_bad_mesh_file_is_one_format_error_naming_it(tmp_path, content) -> None:
    path = tmp_path / "bad.obj"
    path.write_bytes(content)
    with pytest.raises(FormatError) as e:
        load_mesh_file(path)
    assert "bad.obj" in str(e.value)


def test_missing_and_escaping_mesh_files(tmp_path) -> None:
    with pytest.raises(FormatError, match="not found"):
        mesh_for("nothing.obj", tmp_path)
    with pytest.raises(FormatError, match="leaves the folder"):
        mesh_for("../outside.obj", tmp_path)
    assert mesh_for("builtin:grass").triangles == 3
