"""A real client: Blender 4.5 (as a Python module, in .venv-blender) imports our .glb with its own
glTF importer and sees every instance with its transform, in Blender's Z-up frame.

Blender 4.5's importer (io_scene_gltf2 4.5) reads EXT_mesh_gpu_instancing: each instance becomes
a mesh object sharing the type's mesh data under the instancing node's empty, as plain nodes do.
"""

from __future__ import annotations

import numpy as np
import pytest

from model.interchange import ExportOptions, export_scene
from model.interchange.conventions import ENGINE_PRESETS, to_target
from tests.blender import run_in_blender

from .conftest import small_scene

SCRIPT = """
import sys
import bpy

out = {}
for path in sys.argv[1:]:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    objects = {}
    terrain = 0
    for o in bpy.data.objects:
        if o.type != "MESH":
            continue
        if o.data.name.startswith("terrain"):
            terrain += len(o.data.vertices)
            continue
        objects.setdefault(o.data.name, []).append([list(row) for row in o.matrix_world])
    out[path] = {"objects": objects, "terrain_vertices": terrain, "version": bpy.app.version_string}
emit(out)
"""


def test_blender_imports_every_instance_with_its_transform(tmp_path) -> None:
    scene = small_scene({"conifer": 30, "rock": 20, "bush": 15})
    files, reports = {}, {}
    for label, opts in {"instanced": ExportOptions(), "plain": ExportOptions(gpu_instancing=False),
                        "bare": ExportOptions(terrain=False)}.items():
        files[label] = tmp_path / f"{label}.glb"
        reports[label] = export_scene(scene, files[label], opts)
    seen = run_in_blender(SCRIPT, *(str(p) for p in files.values()))
    volume = scene.sections["foliage"].volume
    blender = ENGINE_PRESETS["Blender"]
    for label, path in files.items():
        got = seen[str(path)]
        assert got["version"].startswith("4.5")
        assert sorted(got["objects"]) == ["bush", "conifer", "rock"], label
        for name, matrices in got["objects"].items():
            want = to_target(volume.all_records(name), blender).matrices()
            m = np.array(matrices)
            assert m.shape == want.shape, (label, name)
            # match each Blender object to its record by position, then compare whole transforms
            order = np.lexsort(np.round(m[:, :3, 3], 3).T)
            expect = np.lexsort(np.round(want[:, :3, 3], 3).T)
            assert np.abs(m[order] - want[expect]).max() <= 1e-4, (label, name)
        terrain = reports[label].terrain_vertices
        assert got["terrain_vertices"] == terrain == (0 if label == "bare" else 41 * 41)



ROUND_TRIP = """
import sys
import bpy

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=sys.argv[1])
bpy.ops.export_scene.gltf(filepath=sys.argv[2], export_format="GLB", export_gpu_instances=True,
                          export_extras=sys.argv[3] == "extras")
emit({"exported": sys.argv[2]})
"""


@pytest.mark.parametrize("extras", ["extras", "bare"])
def test_what_blender_writes_back_imports_as_the_same_foliage(tmp_path, extras) -> None:
    from model.interchange import read_foliage
    from model.interchange.conventions import rotation_matrices

    scene = small_scene({"conifer": 30, "rock": 20})
    ours, theirs = tmp_path / "ours.glb", tmp_path / "blender.glb"
    export_scene(scene, ours)
    run_in_blender(ROUND_TRIP, str(ours), str(theirs), extras)
    imported = read_foliage(theirs)  # Blender's own EXT_mesh_gpu_instancing, types by mesh name
    assert imported.counts() == {"conifer": 30, "rock": 20}
    volume = scene.sections["foliage"].volume
    for name, rec in imported.records.items():
        want = volume.all_records(name)
        got = rec[np.lexsort(np.round(rec[:, :3], 3).T)]
        want = want[np.lexsort(np.round(want[:, :3], 3).T)]
        assert np.abs(got[:, :3] - want[:, :3]).max() <= 1e-4
        assert np.abs(got[:, 6] - want[:, 6]).max() <= 1e-5
        assert np.abs(rotation_matrices(got) - rotation_matrices(want)).max() <= 1e-5
    if extras == "extras":
        assert imported.extras["rock"]["name"] == "rock"  # palette keys survive Blender


def test_blender_places_each_instance_with_its_variant_mesh(tmp_path) -> None:
    from model.foliage.variants import variant_indices

    from .test_variants import WEIGHTS, variant_scene

    scene = variant_scene()
    files = {label: tmp_path / f"{label}.glb" for label in ("instanced", "plain")}
    for label, path in files.items():
        export_scene(scene, path, ExportOptions(terrain=False, gpu_instancing=label == "instanced"))
    seen = run_in_blender(SCRIPT, *(str(p) for p in files.values()))
    rec = scene.sections["foliage"].volume.all_records("tree")
    variant = variant_indices(rec, "tree", WEIGHTS)
    blender = ENGINE_PRESETS["Blender"]
    for label, path in files.items():
        got = seen[str(path)]["objects"]
        assert sorted(got) == ["rock", "tree", "tree.v1", "tree.v2"], label  # one mesh per variant
        for k, mesh in enumerate(("tree", "tree.v1", "tree.v2")):
            want = to_target(rec[variant == k], blender).matrices()
            m = np.array(got[mesh])
            assert m.shape == want.shape, (label, mesh)
            order = np.lexsort(np.round(m[:, :3, 3], 3).T)
            expect = np.lexsort(np.round(want[:, :3, 3], 3).T)
            assert np.abs(m[order] - want[expect]).max() <= 1e-4, (label, mesh)


MATERIALS = """
import sys
import bpy

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=sys.argv[1])


def upstream(socket, seen=None):
    '''Every node feeding `socket`, through any chain of nodes.'''
    found = []
    for link in socket.links:
        node = link.from_node
        found.append(node)
        for s in node.inputs:
            found += upstream(s)
    return found


out = {}
for m in bpy.data.materials:
    if not m.use_nodes:
        continue
    bsdf = next((n for n in m.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None:
        continue
    images = [list(n.image.size) for n in upstream(bsdf.inputs["Base Color"]) if n.type == "TEX_IMAGE"]
    alpha = upstream(bsdf.inputs["Alpha"])
    clip = [n.inputs[1].default_value for n in alpha if n.type == "MATH" and n.operation == "LESS_THAN"]
    alpha_images = [n.name for n in alpha if n.type == "TEX_IMAGE"]
    out[m.name] = {"images": images, "clip": clip, "alpha_from_image": bool(alpha_images),
                   "blend_method": m.blend_method,
                   "backface_culling": m.use_backface_culling}
emit(out)
"""


def test_blender_shows_the_textures_and_clips_the_leaves(tmp_path) -> None:
    from .test_materials_export import textured_scene

    scene = textured_scene(tmp_path)
    out = tmp_path / "forest.glb"
    export_scene(scene, out)
    seen = run_in_blender(MATERIALS, str(out))
    card = seen["card/material 0"]
    assert card["images"] == [[8, 8]]  # the card's texture on the Base Color
    # the cut-out: Blender 4.2+ clips with 1 - (alpha < cutoff) from the texture's alpha (the
    # blend method CLIP of earlier versions)
    assert card["clip"] == [pytest.approx(0.5)] and card["alpha_from_image"] or card["blend_method"] == "CLIP"
    branches = seen["conifer/branches"]
    assert branches["images"] == [[128, 128]] and branches["clip"] == [pytest.approx(0.5)]
    assert seen["conifer/bark"]["images"] == [[64, 128]] and seen["conifer/bark"]["clip"] == []
    assert seen["conifer/bark"]["backface_culling"] and not branches["backface_culling"]
    tiles = [v for k, v in seen.items() if k.startswith("terrain_")]
    assert tiles and all(t["images"] == [[160, 160]] for t in tiles)  # the baked base colour
