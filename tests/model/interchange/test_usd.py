"""USD export read back by pxr on its own terms (not our reader), and export → import round trips."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, Vt

from model.errors import FormatError
from model.foliage import FoliageType
from model.foliage.foliage_type import foliage_type_to_dict
from model.interchange import (
    ENGINE_PRESETS,
    Cancelled,
    Conventions,
    ExportOptions,
    export_scene,
    read_foliage,
)
from model.interchange.conventions import rotation_matrices, to_target
from model.interchange.instances import instance_chunks
from model.interchange.usd import read_usd_foliage, write_usd

from .conftest import small_scene

FRAMES = {"glTF": ENGINE_PRESETS["glTF"], "Blender": ENGINE_PRESETS["Blender"],
          "Unreal": ENGINE_PRESETS["Unreal"], "Unity": ENGINE_PRESETS["Unity"]}


def volume_records(scene, options: ExportOptions | None = None) -> dict[str, np.ndarray]:
    options = options or ExportOptions()
    out: dict[str, list] = {}
    for chunk in instance_chunks(scene, options):
        out.setdefault(chunk.type_name, []).append(chunk.records)
    return {k: np.concatenate(v) for k, v in out.items()}


def same_rotation(q1: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """Largest component difference between two quaternion arrays, q and −q being the same rotation."""
    sign = np.where(np.sum(q1 * q2, axis=1, keepdims=True) < 0, -1.0, 1.0)
    return np.abs(q1 - sign * q2).max()


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usdz"])
@pytest.mark.parametrize("preset", list(FRAMES))
def test_pxr_reads_every_instance_where_the_volume_has_it(tmp_path, suffix: str, preset: str) -> None:
    scene = small_scene({"conifer": 70, "rock": 33, "pine tree": 12})
    conv = FRAMES[preset]
    report = export_scene(scene, tmp_path / f"out{suffix}", ExportOptions(conventions=conv))
    assert report.instances == 115 and report.types == {"conifer": 70, "pine tree": 12, "rock": 33}
    stage = Usd.Stage.Open(str(tmp_path / f"out{suffix}"))
    assert UsdGeom.GetStageUpAxis(stage) == conv.up.upper()
    assert UsdGeom.GetStageMetersPerUnit(stage) == pytest.approx(1.0 / conv.unit_scale)
    assert stage.GetDefaultPrim().GetPath() == Sdf.Path("/World")
    # USD is right-handed: a left-handed target gets the right-handed frame of the same up and unit.
    frame = Conventions(conv.up, "right", conv.units)
    for name, records in volume_records(scene).items():
        prim = stage.GetPrimAtPath(f"/World/Foliage/{name.replace(' ', '_')}")
        assert prim.IsA(UsdGeom.PointInstancer), name
        inst = UsdGeom.PointInstancer(prim)
        assert prim.GetAttribute("boscage:typeName").Get() == name
        expected = to_target(records, frame)
        positions = np.array(inst.GetPositionsAttr().Get(), np.float64)
        assert len(positions) == len(records)
        assert np.abs(positions / frame.unit_scale - expected.positions / frame.unit_scale).max() <= 1e-5
        # orientationsf (quatf) as Gf sees it: real part and imaginary vector, not our memory layout
        gf = [(q.GetImaginary()[0], q.GetImaginary()[1], q.GetImaginary()[2], q.GetReal())
              for q in inst.GetOrientationsfAttr().Get()]
        assert same_rotation(np.array(gf), expected.rotations) <= 1e-5
        half = np.array(inst.GetOrientationsAttr().Get(), np.float64)  # quath: 11-bit significand
        assert inst.GetOrientationsAttr().GetTypeName() == Sdf.ValueTypeNames.QuathArray
        assert 1e-5 < same_rotation(half, expected.rotations) <= 1e-3
        scales = np.array(inst.GetScalesAttr().Get(), np.float64)
        assert np.abs(scales - expected.scales[:, None]).max() == 0.0
        assert list(inst.GetProtoIndicesAttr().Get()) == [0] * len(records)
        assert list(inst.GetIdsAttr().Get()) == list(range(len(records)))
        (proto,) = inst.GetPrototypesRel().GetTargets()
        assert stage.GetPrimAtPath(proto).IsA(UsdGeom.Mesh)
        # pxr's own instance transforms (row vectors) against the conventions' matrices
        xforms = inst.ComputeInstanceTransformsAtTime(Usd.TimeCode.Default(), Usd.TimeCode.Default())
        mats = np.transpose(np.array(xforms, np.float64), (0, 2, 1))
        ref = expected.matrices()
        ref[:, :3, 3] /= frame.unit_scale
        mats[:, :3, 3] /= frame.unit_scale
        assert np.abs(mats - ref).max() <= 1e-5
    assert UsdGeom.Mesh(stage.GetPrimAtPath("/World/Terrain"))


def test_the_asymmetric_instance_lands_where_each_convention_says(tmp_path) -> None:
    scene = small_scene({"conifer": 0})
    scene.sections["foliage"].volume.add("conifer", np.array(
        [[1, 2, 3, math.radians(90), math.radians(10), 0, 1]], np.float32))
    landing = {"glTF": (1, 2, 3), "Blender": (1, -3, 2), "Unreal": (100, -300, 200), "Unity": (1, 2, 3)}
    for preset, where in landing.items():
        path = tmp_path / f"{preset}.usda"
        write_usd(scene, path, ExportOptions(conventions=FRAMES[preset]))
        stage = Usd.Stage.Open(str(path))
        inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Foliage/conifer"))
        np.testing.assert_allclose(np.array(inst.GetPositionsAttr().Get()[0]), where, atol=1e-4)
        # the instance's +Z (forward) axis: yaw 90° turns it to +X; pitch 10° tips it down
        m = np.array(inst.ComputeInstanceTransformsAtTime(Usd.TimeCode.Default(), Usd.TimeCode.Default()))[0]
        basis = Conventions(FRAMES[preset].up, "right", "m").basis
        forward = (basis @ [0.0, 0.0, 1.0]) @ m[:3, :3]  # the prototype's forward axis (row vectors)
        scene_forward = np.array([math.cos(math.radians(10)), -math.sin(math.radians(10)), 0.0])
        expected = basis @ scene_forward
        np.testing.assert_allclose(forward, expected, atol=1e-6)


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usdz"])
@pytest.mark.parametrize("preset", ["glTF", "Blender", "Unreal"])
def test_round_trip_restores_the_records(tmp_path, suffix: str, preset: str) -> None:
    scene = small_scene({"conifer": 50, "bush": 20})
    path = tmp_path / f"r{suffix}"
    export_scene(scene, path, ExportOptions(conventions=FRAMES[preset]))
    imported = read_foliage(path)
    assert imported.warnings == []
    original = volume_records(scene)
    assert imported.counts() == {k: len(v) for k, v in original.items()}
    for name, records in original.items():
        got = imported.records[name]
        assert got.dtype == np.float32
        if preset == "Unreal":  # centimetres: positions through one float32 rounding each way
            assert np.abs(got[:, :3] - records[:, :3]).max() <= 1e-5 * 60
            np.testing.assert_array_equal(got[:, 3:], records[:, 3:])
        else:  # no conversion that rounds: bit for bit
            np.testing.assert_array_equal(got.view(np.uint32), records.view(np.uint32))
        assert imported.meshes[name] == f"builtin:{name}"
        palette = scene.sections["foliage"].volume.palette
        keys = foliage_type_to_dict(palette[name])
        assert imported.extras[name] == {k: v for k, v in keys.items() if k != "name"}


def test_terrain_mesh_normals_and_layer_weights(tmp_path) -> None:
    scene = small_scene({"conifer": 5})
    report = write_usd(scene, tmp_path / "t.usdc", ExportOptions(terrain_step=2))
    stage = Usd.Stage.Open(str(tmp_path / "t.usdc"))
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/World/Terrain"))
    points = np.array(mesh.GetPointsAttr().Get())
    assert len(points) == report.terrain_vertices == 21 * 21
    normals = np.array(mesh.GetNormalsAttr().Get())
    assert len(normals) == len(points) and mesh.GetNormalsInterpolation() == UsdGeom.Tokens.vertex
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-6)
    assert (normals[:, 1] > 0.5).all()  # a gentle terrain faces up
    counts = np.array(mesh.GetFaceVertexCountsAttr().Get())
    assert (counts == 3).all() and len(counts) == 2 * 20 * 20
    api = UsdGeom.PrimvarsAPI(mesh)
    assert mesh.GetPrim().GetAttribute("boscage:layerNames").Get() == ["grass", "rock"]
    t = scene.terrain
    for k, name in enumerate(["grass", "rock"]):
        pv = api.GetPrimvar(f"weight_{name}")
        assert pv and pv.GetInterpolation() == UsdGeom.Tokens.vertex
        values = np.array(pv.Get())
        # the vertex at the sample (row 2, column 4) of the step-2 grid
        at = np.flatnonzero((np.abs(points[:, 0] - (t.origin[0] + 8 * t.spacing)) < 1e-4)
                            & (np.abs(points[:, 2] - (t.origin[1] + 4 * t.spacing)) < 1e-4))[0]
        assert values[at] == pytest.approx(t.layers[k].weights[4, 8] / 255.0)
    assert len(api.GetPrimvar("displayColor").Get()) == len(points)
    np.testing.assert_allclose(points[:, 1].max(), t.heights[::2, ::2].max(), atol=1e-5)
    # no terrain: no mesh, and only the types asked for
    write_usd(scene, tmp_path / "n.usda", ExportOptions(terrain=False, types=("conifer",)))
    stage = Usd.Stage.Open(str(tmp_path / "n.usda"))
    assert not stage.GetPrimAtPath("/World/Terrain")
    assert [p.GetName() for p in stage.GetPrimAtPath("/World/Foliage").GetChildren()] == ["conifer"]


def test_region_and_palette_keys(tmp_path) -> None:
    scene = small_scene({"conifer": 200})
    volume = scene.sections["foliage"].volume
    volume.palette.replace(FoliageType("conifer", "builtin:conifer", density=0.25, scale=(0.8, 1.6),
                                       cull=(80.0, 120.0)))
    options = ExportOptions(region=(-20.0, -10.0, 30.0, 25.0), terrain=False)
    report = write_usd(scene, tmp_path / "r.usda", options)
    inside = volume_records(scene, options)["conifer"]
    assert 0 < report.instances == len(inside) < 200
    stage = Usd.Stage.Open(str(tmp_path / "r.usda"))
    prim = stage.GetPrimAtPath("/World/Foliage/conifer")
    assert prim.GetAttribute("boscage:palette:density").Get() == 0.25
    assert list(prim.GetAttribute("boscage:palette:scale").Get()) == [0.8, 1.6]
    assert list(prim.GetAttribute("boscage:palette:cull").Get()) == [80.0, 120.0]
    imported = read_usd_foliage(tmp_path / "r.usda")
    assert imported.extras["conifer"]["density"] == 0.25 and imported.extras["conifer"]["scale"] == [0.8, 1.6]
    x, z = imported.records["conifer"][:, 0], imported.records["conifer"][:, 2]
    assert ((x >= -20) & (x < 30) & (z >= -10) & (z < 25)).all()


def test_cancel_leaves_the_previous_file(tmp_path) -> None:
    scene = small_scene({"conifer": 300})
    path = tmp_path / "c.usdc"
    path.write_bytes(b"previous")
    calls = []

    def progress(done, total):
        calls.append((done, total))
        return len(calls) < 3

    with pytest.raises(Cancelled):
        write_usd(scene, path, ExportOptions(), progress)
    assert path.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.usdc"]
    seen = []
    write_usd(scene, path, ExportOptions(), lambda d, t: seen.append((d, t)) or True)
    assert seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)


# ---- files other tools write ---------------------------------------------------------------------
def foreign_stage(path, up="Z", meters=0.01):
    """Houdini/Omniverse-like: Z-up centimetres, an instancer under a moved and scaled Xform,
    two prototypes (one a quad mesh), quath orientations only, no Boscage attributes."""
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, up)
    UsdGeom.SetStageMetersPerUnit(stage, meters)
    root = UsdGeom.Xform.Define(stage, "/Env")
    root.AddTranslateOp().Set(Gf.Vec3d(1000, 0, 0))
    root.AddScaleOp().Set(Gf.Vec3f(2, 2, 2))
    inst = UsdGeom.PointInstancer.Define(stage, "/Env/Trees")
    for name in ("Oak", "Birch"):
        m = UsdGeom.Mesh.Define(stage, f"/Env/Trees/Protos/{name}")
        m.CreatePointsAttr([(0, 0, 0), (100, 0, 0), (100, 0, 100), (0, 0, 100)])
        m.CreateFaceVertexCountsAttr([4])
        m.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
    inst.CreatePrototypesRel().SetTargets([Sdf.Path(f"/Env/Trees/Protos/{n}") for n in ("Oak", "Birch")])
    inst.CreatePositionsAttr(Vt.Vec3fArray([(100, 200, 300), (-50, 0, 10), (0, 0, 0)]))
    half = math.sqrt(0.5)
    inst.CreateOrientationsAttr(Vt.QuathArray([Gf.Quath(1, 0, 0, 0), Gf.Quath(half, 0, 0, half),
                                               Gf.Quath(1, 0, 0, 0)]))
    inst.CreateScalesAttr(Vt.Vec3fArray([(1, 1, 1), (3, 3, 3), (0.5, 0.5, 0.5)]))
    inst.CreateProtoIndicesAttr(Vt.IntArray([0, 1, 0]))
    stage.GetRootLayer().Save()
    return stage


def test_a_foreign_stage_is_read_in_its_units_up_axis_and_transform(tmp_path) -> None:
    foreign_stage(tmp_path / "f.usda")
    imported = read_usd_foliage(tmp_path / "f.usda")
    assert imported.counts() == {"Trees_Oak": 2, "Trees_Birch": 1}
    oak, birch = imported.records["Trees_Oak"], imported.records["Trees_Birch"]
    # world (stage units) = 2 * p + (1000, 0, 0); metres = × 0.01; Z-up (x, y, z) → scene (x, z, −y)
    np.testing.assert_allclose(oak[0, :3], [(2 * 100 + 1000) * 0.01, 2 * 300 * 0.01, -2 * 200 * 0.01],
                               atol=1e-5)
    np.testing.assert_allclose(oak[:, 6], [2.0, 1.0], atol=1e-6)
    np.testing.assert_allclose(birch[0, :3], [(2 * -50 + 1000) * 0.01, 2 * 10 * 0.01, 0.0], atol=1e-5)
    assert birch[0, 6] == pytest.approx(6.0)
    # 90° about the stage's Z (up) is a yaw of 90° in the scene
    np.testing.assert_allclose(rotation_matrices(birch)[0], rotation_matrices(
        np.array([[0, 0, 0, math.pi / 2, 0, 0, 1]]))[0], atol=2e-3)
    mesh = imported.meshes["Trees_Oak"]
    assert mesh.triangle_count == 2 and np.abs(mesh.positions).max() == pytest.approx(1.0)  # 100 cm
    np.testing.assert_allclose(mesh.normals, np.tile([0.0, 0.0, 1.0], (4, 1)), atol=1e-6)  # stage −Y: +Z
    corners = sorted(map(tuple, mesh.positions.round(6).tolist()))
    assert corners == [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 1, 0)]
    assert imported.warnings == []


def test_edited_orientations_win_over_the_kept_angles(tmp_path) -> None:
    scene = small_scene({"conifer": 10})
    path = tmp_path / "e.usda"
    write_usd(scene, path)
    stage = Usd.Stage.Open(str(path))
    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Foliage/conifer"))
    q = list(inst.GetOrientationsfAttr().Get())
    q[3] = Gf.Quatf(1, 0, 0, 0)  # a tool reset instance 3's rotation and kept our primvar
    inst.GetOrientationsfAttr().Set(q)
    stage.GetRootLayer().Save()
    imported = read_usd_foliage(path)
    assert "1 orientations were changed after export" in imported.warnings[0]
    got = imported.records["conifer"]
    np.testing.assert_allclose(rotation_matrices(got[3:4])[0], np.eye(3), atol=1e-6)
    np.testing.assert_array_equal(got[4:], volume_records(scene)["conifer"][4:])


@pytest.mark.parametrize(("name", "text", "words"), [
    ("junk.usda", "#usda 1.0\ndef Xform \"A\" {{{ nonsense", "not a readable USD file"),
    ("empty.usdc", "", "not a readable USD file"),
    ("lengths.usda", '#usda 1.0\ndef PointInstancer "P" {\n point3f[] positions = [(0,0,0)]\n'
     ' int[] protoIndices = [0, 0]\n rel prototypes = </P/M>\n def Mesh "M" {}\n}\n',
     "holds 1 values, expected 2"),
    ("index.usda", '#usda 1.0\ndef PointInstancer "P" {\n point3f[] positions = [(0,0,0), (1,1,1)]\n'
     ' int[] protoIndices = [0, 3]\n rel prototypes = </P/M>\n def Mesh "M" {}\n}\n',
     "index 3, but 1 prototypes"),
    ("nan.usda", '#usda 1.0\ndef PointInstancer "P" {\n point3f[] positions = [(0,nan,0)]\n'
     ' int[] protoIndices = [0]\n rel prototypes = </P/M>\n def Mesh "M" {}\n}\n', "not a finite value"),
])
def test_bad_files_give_one_format_error(tmp_path, name: str, text: str, words: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(FormatError) as e:
        read_foliage(path)
    assert e.value.path == str(path) and words in str(e.value)


def test_a_truncated_crate_file_is_a_format_error(tmp_path) -> None:
    write_usd(small_scene({"conifer": 30}), tmp_path / "t.usdc")
    data = (tmp_path / "t.usdc").read_bytes()
    (tmp_path / "cut.usdc").write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match="cut.usdc"):
        read_foliage(tmp_path / "cut.usdc")
    with pytest.raises(FormatError, match="file not found"):
        read_foliage(tmp_path / "none.usdc")


def test_quath_precision_is_what_the_docstring_says() -> None:
    """Why orientationsf is written too: a half quaternion is good to ~5e-4, far from 1e-5."""
    rng = np.random.default_rng(3)
    q = rng.normal(size=(20000, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    err = np.abs(q.astype(np.float16).astype(np.float64) - q).max()
    assert 1e-4 < err <= 2.5e-4 * 2
    h = q.astype(np.float16).astype(np.float64)
    h /= np.linalg.norm(h, axis=1, keepdims=True)
    angle = 2 * np.arccos(np.clip(np.abs(np.sum(h * q, axis=1)), 0, 1))
    assert 1e-4 < angle.max() < 2e-3  # radians: up to ~0.1°


@pytest.mark.parametrize("preset", ["glTF", "Blender", "Unreal"])
def test_plain_prims_carry_full_precision_transforms(tmp_path, preset: str) -> None:
    scene = small_scene({"conifer": 25, "rock": 10})
    conv = FRAMES[preset]
    frame = Conventions(conv.up, "right", conv.units)
    path = tmp_path / "p.usdc"
    report = write_usd(scene, path, ExportOptions(conventions=conv, gpu_instancing=False))
    assert report.instances == 35
    stage = Usd.Stage.Open(str(path))
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    assert not [p for p in stage.Traverse() if p.IsA(UsdGeom.PointInstancer)]
    class_prim = stage.GetPrimAtPath("/Prototypes/conifer")
    assert class_prim.IsAbstract() and class_prim not in list(stage.Traverse())
    for name, records in volume_records(scene).items():
        group = stage.GetPrimAtPath(f"/World/Foliage/{name}")
        children = group.GetChildren()
        assert len(children) == len(records) and all(c.IsInstanceable() for c in children)
        assert children[0].GetPrototype().GetChildren()[0].IsA(UsdGeom.Mesh)  # the type's mesh, shared
        m = np.array([np.array(cache.GetLocalToWorldTransform(c)) for c in children]).transpose(0, 2, 1)
        want = to_target(records, frame).matrices()
        m[:, :3, 3] /= frame.unit_scale
        want[:, :3, 3] /= frame.unit_scale
        assert np.abs(m - want).max() <= 1e-5
    back = read_usd_foliage(path)
    assert back.counts() == {"conifer": 25, "rock": 10} and back.meshes["rock"] == "builtin:rock"
    for name, records in volume_records(scene).items():
        if preset == "Unreal":
            assert np.abs(back.records[name] - records).max() <= 1e-5 * 60
        else:
            np.testing.assert_array_equal(back.records[name].view(np.uint32), records.view(np.uint32))


def test_pxr_validators_find_nothing_wrong_with_our_files(tmp_path) -> None:
    """Every validator usd-core registers (stage metadata, composition, attribute types, USDZ
    packaging…); a stage without metersPerUnit shows they do speak up."""
    from pxr import UsdValidation

    validators = UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
    assert len(validators) >= 20
    context = UsdValidation.ValidationContext(validators)
    scene = small_scene({"conifer": 20, "rock": 5})
    for name, options in (("a.usdz", ExportOptions()),
                          ("b.usdc", ExportOptions(conventions=FRAMES["Unreal"])),
                          ("c.usda", ExportOptions(gpu_instancing=False))):
        write_usd(scene, tmp_path / name, options)
        errors = context.Validate(Usd.Stage.Open(str(tmp_path / name)))
        assert [(e.GetName(), e.GetMessage()) for e in errors] == [], name
    bare = Usd.Stage.CreateNew(str(tmp_path / "bare.usda"))
    UsdGeom.Xform.Define(bare, "/World")
    assert context.Validate(bare)


MILLION = """
import json, resource, sys
from app.bench.interchange_usd import _scene
from model.interchange.options import ExportOptions
from model.interchange.usd import write_usd
scene = _scene(1_000_000)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
calls = []
def progress(done, total):
    calls.append((done, total))
    return True
report = write_usd(scene, sys.argv[1], ExportOptions(terrain=False), progress)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grew_kb": after - before, "bytes": report.bytes, "calls": len(calls),
                  "monotonic": calls == sorted(calls), "last": calls[-1]}))
"""


def test_a_million_instances_export_in_bounded_memory_with_progress(tmp_path) -> None:
    import json
    import os
    import subprocess
    import sys

    out = tmp_path / "m.usdc"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3]), "BOSCAGE_BLOCK_GUI": "1"}
    proc = subprocess.run([sys.executable, "-c", MILLION, str(out)], capture_output=True, text=True, env=env,
                          timeout=600, check=True)
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    # the records are 28 MB; the arrays written 72 MB: the export holds them about twice, no more
    assert doc["grew_kb"] < 200 * 1024, doc
    assert doc["calls"] > 100 and doc["monotonic"] and doc["last"][0] == doc["last"][1]
    stage = Usd.Stage.Open(str(out))
    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Foliage/tree"))
    assert len(inst.GetPositionsAttr().Get()) == 1_000_000 == len(inst.GetIdsAttr().Get())


def test_animated_and_deactivated_instances(tmp_path) -> None:
    """Positions only as time samples are read at the first sample; inactive ids are left out."""
    stage = Usd.Stage.CreateNew(str(tmp_path / "anim.usda"))
    inst = UsdGeom.PointInstancer.Define(stage, "/Trees")
    UsdGeom.Mesh.Define(stage, "/Trees/Protos/Pine")
    inst.CreatePrototypesRel().SetTargets([Sdf.Path("/Trees/Protos/Pine")])
    attr = inst.CreatePositionsAttr()
    attr.Set(Vt.Vec3fArray([(1, 0, 0), (2, 0, 0), (3, 0, 0)]), 10.0)
    attr.Set(Vt.Vec3fArray([(9, 0, 0), (9, 0, 0), (9, 0, 0)]), 20.0)
    inst.CreateProtoIndicesAttr(Vt.IntArray([0, 0, 0]))
    inst.CreateIdsAttr(Vt.Int64Array([10, 11, 12]))
    inst.DeactivateId(11)
    stage.GetRootLayer().Save()
    imported = read_usd_foliage(tmp_path / "anim.usda")
    # no metersPerUnit authored: USD's fallback is centimetres
    np.testing.assert_allclose(imported.records["Trees"][:, 0], [0.01, 0.03], rtol=1e-6)
    assert imported.warnings == ["/Trees: 1 inactive instances left out"]


def test_reading_again_after_an_overwrite_sees_the_new_file(tmp_path) -> None:
    """pxr keeps open layers in a registry: a stage still alive must not hide the file's new content."""
    path = tmp_path / "again.usdc"
    write_usd(small_scene({"conifer": 5}), path)
    held = Usd.Stage.Open(str(path))  # e.g. a viewer in the same process
    write_usd(small_scene({"conifer": 9, "rock": 2}), path, ExportOptions(conventions=FRAMES["Blender"]))
    assert read_usd_foliage(path).counts() == {"conifer": 9, "rock": 2}
    assert held.GetPrimAtPath("/World")


def test_an_instancer_inside_a_prototype_is_not_foliage_of_its_own(tmp_path) -> None:
    stage = Usd.Stage.CreateNew(str(tmp_path / "nested.usda"))
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    outer = UsdGeom.PointInstancer.Define(stage, "/Forest")
    inner = UsdGeom.PointInstancer.Define(stage, "/Forest/Protos/Clump")  # a clump of three bushes
    UsdGeom.Mesh.Define(stage, "/Forest/Protos/Clump/Protos/Bush")
    inner.CreatePrototypesRel().SetTargets([Sdf.Path("/Forest/Protos/Clump/Protos/Bush")])
    inner.CreatePositionsAttr(Vt.Vec3fArray([(0, 0, 0), (1, 0, 0), (0, 0, 1)]))
    inner.CreateProtoIndicesAttr(Vt.IntArray([0, 0, 0]))
    outer.CreatePrototypesRel().SetTargets([Sdf.Path("/Forest/Protos/Clump")])
    outer.CreatePositionsAttr(Vt.Vec3fArray([(10, 0, 0), (20, 0, 0)]))
    outer.CreateProtoIndicesAttr(Vt.IntArray([0, 0]))
    stage.GetRootLayer().Save()
    assert read_usd_foliage(tmp_path / "nested.usda").counts() == {"Forest": 2}
