"""A real client: Blender 4.5 (as a Python module, in .venv-blender) imports our USD with its own
importer and sees every instance with its transform, and the terrain mesh.

Blender 4.5 turns a PointInstancer into a point cloud instancing the prototype, and reads only
the half-precision `orientations` (quath), not `orientationsf`: its instance rotations are good to
about 1e-3, which the instancer test measures. With plain prims (one instanceable Xform per
instance, `gpu_instancing=False`; Blender makes each a collection instance) every transform is
full precision: within 1e-4. A Y-up stage is
turned Z-up on import (+90° about X at the root); a Z-up stage comes in as it is.
"""

from __future__ import annotations

import numpy as np

from model.interchange import ExportOptions, export_scene
from model.interchange.conventions import ENGINE_PRESETS, Conventions, to_target
from tests.blender import run_in_blender

from .conftest import small_scene

SCRIPT = """
import sys
import bpy

out = {}
for path in sys.argv[1:]:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.wm.usd_import(filepath=path)
    instances = {}
    for inst in bpy.context.evaluated_depsgraph_get().object_instances:
        # a PointInstancer's point-cloud instances; instanceable prims' collection instances
        if inst.is_instance:
            instances.setdefault(inst.object.name, []).append([list(row) for row in inst.matrix_world])
    terrain = [len(o.data.vertices) for o in bpy.data.objects if o.type == "MESH" and o.name == "Terrain"]
    out[path] = {"instances": instances, "terrain": terrain, "version": bpy.app.version_string}
emit(out)
"""

Z_UP = ENGINE_PRESETS["Blender"]
TURN = np.eye(4)
TURN[:3, :3] = Z_UP.basis  # what Blender applies to a Y-up stage


def _largest_error(got: list, records: np.ndarray, conv: Conventions) -> float:
    m = np.array(got)
    want = to_target(records, conv).matrices()
    if conv.up == "y":
        want = TURN @ want
    assert m.shape == want.shape
    order = np.lexsort(np.round(m[:, :3, 3], 3).T)  # match instances by position
    expect = np.lexsort(np.round(want[:, :3, 3], 3).T)
    return float(np.abs(m[order] - want[expect]).max())


def test_blender_imports_every_usd_instance_with_its_transform(tmp_path) -> None:
    scene = small_scene({"conifer": 30, "rock": 20, "bush": 15})
    volume = scene.sections["foliage"].volume
    files = {"z.usdc": (Z_UP, True), "y.usda": (Conventions(), True), "z.usdz": (Z_UP, True),
             "prims_z.usdc": (Z_UP, False), "prims_y.usda": (Conventions(), False)}
    reports = {name: export_scene(scene, tmp_path / name, ExportOptions(conventions=conv, gpu_instancing=pi))
               for name, (conv, pi) in files.items()}
    seen = run_in_blender(SCRIPT, *(str(tmp_path / name) for name in files))
    for name, (conv, instancer) in files.items():
        got = seen[str(tmp_path / name)]
        assert got["version"].startswith("4.5")
        assert got["terrain"] == [reports[name].terrain_vertices] == [41 * 41]
        for type_name in ("conifer", "rock", "bush"):
            key = f"builtin_{type_name}"
            assert len(got["instances"].get(key, [])) == volume.count(type_name), (name, type_name)
            error = _largest_error(got["instances"][key], volume.all_records(type_name), conv)
            # quath orientations: ~1e-3 (Blender ignores orientationsf); plain prims: full precision
            assert error <= (3e-3 if instancer else 1e-4), (name, type_name, error)


def test_blender_instances_each_usd_variant_prototype(tmp_path) -> None:
    from model.foliage.variants import variant_indices

    from .test_variants import WEIGHTS, variant_scene

    scene = variant_scene()
    files = {"variants.usdc": True, "variant_prims.usdc": False}
    for name, instancer in files.items():
        export_scene(scene, tmp_path / name, ExportOptions(conventions=Z_UP, terrain=False,
                                                           gpu_instancing=instancer))
    seen = run_in_blender(SCRIPT, *(str(tmp_path / name) for name in files))
    rec = scene.sections["foliage"].volume.all_records("tree")
    variant = variant_indices(rec, "tree", WEIGHTS)
    for name, instancer in files.items():
        got = seen[str(tmp_path / name)]["instances"]
        for k, mesh in enumerate(("conifer", "broadleaf", "bush")):
            key = [key for key in got if mesh in key]
            assert len(key) == 1, (name, mesh, sorted(got))  # one prototype object per variant
            error = _largest_error(got[key[0]], rec[variant == k], Z_UP)
            assert error <= (3e-3 if instancer else 1e-4), (name, mesh, error)
