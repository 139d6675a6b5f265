"""Levels of detail: generated built-in levels and the distance plan of a type."""

import math

import numpy as np

from model.foliage.foliage_type import FoliageType, Lod, Variant
from model.foliage.lods import far_end, impostor_level, mesh_levels
from model.foliage.meshes import BUILTIN, builtin_mesh, generate_builtin_meshes, simplified, triangles


def test_generated_levels_have_fewer_triangles_and_keep_the_size():
    for name in ("conifer", "broadleaf", "bush", "rock"):
        full, l1, l2 = (builtin_mesh(name + s) for s in ("", "#lod1", "#lod2"))
        assert full.triangles >= l1.triangles >= l2.triangles and l2.triangles < 0.85 * full.triangles
        (a0, a1), (_, b1) = full.bounds(), l2.bounds()
        assert np.all(np.abs(b1 - a1) < 0.12 * (a1 - a0).max() + 1e-6)  # the outline keeps its size
        n = l2.vertices[:, 3:6]
        assert np.allclose(np.linalg.norm(n, axis=1), 1.0, atol=1e-4)
    assert builtin_mesh("grass#lod1").triangles == builtin_mesh("grass").triangles  # too small to thin
    assert len(BUILTIN) == 5


def test_clustering_drops_collapsed_and_repeated_triangles():
    tri = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 0], [0.01, 0, 0], [0, 1, 0]]], float)
    out = simplified(triangles(tri, (0.5, 0.5, 0.5)), 0.1)
    assert len(out) == 3  # the sliver collapsed


def test_built_in_types_get_two_generated_levels_before_the_cull_distance():
    t = FoliageType("fir", cull=(200.0, 260.0))
    levels = mesh_levels(t)
    assert [lv.meshes for lv in levels] == [("builtin:conifer",), ("builtin:conifer#lod1",),
                                            ("builtin:conifer#lod2",)]
    for a, b in zip(levels, levels[1:], strict=False):
        assert a.fade_out == b.fade_in  # the same band: one level dissolves out as the next comes in
    assert levels[1].fade_in[0] < 60.0 < levels[1].fade_in[1]
    assert levels[-1].fade_out == (200.0, 260.0)
    imp = impostor_level(t)
    assert imp.fade_in == (200.0, 260.0) and far_end(t) == math.inf


def test_named_levels_variants_and_no_impostor():
    t = FoliageType("oak", mesh="oak.obj", lods=(Lod(30.0, "oak_lod1.obj"), Lod(400.0)), cull=(150, 180),
                    impostor=False)
    levels = mesh_levels(t)
    assert [lv.meshes for lv in levels] == [("oak.obj",), ("oak_lod1.obj",)]  # 400 m is past the meshes' end
    assert impostor_level(t) is None and far_end(t) == 180.0
    mixed = FoliageType("mix", variants=(Variant("builtin:rock"), Variant("trunk.obj")), lods=(Lod(20.0),),
                        impostor_cull=900.0)
    assert mesh_levels(mixed)[1].meshes == ("builtin:rock#lod1", "trunk.obj")
    assert far_end(mixed) == 900.0
    assert mesh_levels(FoliageType("plain", lods=()))[0].fade_out == (150.0, 200.0)


def test_the_palettes_built_in_meshes_are_generated_ahead_with_their_levels_stored_types_only() -> None:
    types = [FoliageType("spruce", mesh="builtin:conifer"), FoliageType("boulder", mesh="builtin:rock"),
             FoliageType("lawn", mesh="builtin:grass", storage="derived"),
             FoliageType("statue", mesh="meshes/statue.obj"), FoliageType("odd", mesh="builtin:nothing")]
    builtin_mesh.cache_clear()
    generate_builtin_meshes(types)  # a file mesh and an unknown name are left to the renderer
    wanted = {m.removeprefix("builtin:") for t in types[:2] for level in mesh_levels(t) for m in level.meshes}
    assert {"conifer", "rock", "conifer#lod1", "rock#lod1"} <= wanted
    made = builtin_mesh.cache_info().currsize
    for name in wanted:  # each already made: no new entry
        builtin_mesh(name)
    assert builtin_mesh.cache_info().currsize == made
    builtin_mesh("grass")
    assert builtin_mesh.cache_info().currsize == made + 1  # the derived type's was not made
