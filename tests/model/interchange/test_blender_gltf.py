"""A real client: Blender 4.5 (as a Python module, in .venv-blender) imports our .glb with its own
glTF importer and sees every instance with its transform, in Blender's Z-up frame.

Blender 4.5's importer (io_scene_gltf2 4.5) reads EXT_mesh_gpu_instancing: each instance becomes
a mesh object sharing the type's mesh data under the chunk's empty, as plain nodes do.
"""

from __future__ import annotations

import numpy as np

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

