"""Variant meshes and colour variation in every export, read back by independent readers (pygltflib,
trimesh, pxr, the csv module), and imported back as the same types (a variant is never a type).

The variant and colour shift of an instance come from its position hash: the expectations here are
computed with `model.foliage.variants`, the CPU twin of the viewport's shader.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pygltflib
import pytest
import trimesh

from model.foliage import foliage_of
from model.foliage.foliage_type import FoliageType, Variant
from model.foliage.variants import colour_shifts, variant_indices
from model.interchange import ExportOptions, export_scene, read_foliage
from model.interchange.gltf import EXT, HUE_VALUE

from .conftest import small_scene
from .test_gltf import accessor_data

MESHES = ("builtin:conifer", "builtin:broadleaf", "builtin:bush")
WEIGHTS = (1.0, 2.0, 1.0)
HUE, VALUE = (-20.0, 20.0), (-0.1, 0.1)


def variant_scene():
    scene = small_scene({"tree": 300, "rock": 20})
    foliage_of(scene).palette.replace(FoliageType(
        "tree", MESHES[0], variants=tuple(Variant(m, w) for m, w in zip(MESHES, WEIGHTS, strict=True)),
        hue=HUE, value=VALUE))
    return scene


def records_of(scene, name: str) -> np.ndarray:
    return scene.sections["foliage"].volume.all_records(name)


def by_position(rec: np.ndarray) -> dict[bytes, int]:
    return {r[:3].tobytes(): i for i, r in enumerate(rec)}


def sort_rows(rec: np.ndarray) -> np.ndarray:
    return rec[np.lexsort(rec.T[::-1])]


@pytest.fixture
def scene():
    return variant_scene()


def test_the_scene_uses_every_variant(scene) -> None:
    counts = np.bincount(variant_indices(records_of(scene, "tree"), "tree", WEIGHTS), minlength=3)
    assert len(counts) == 3 and counts.min() > 30  # each variant well represented in every test


def test_gltf_has_a_mesh_per_variant_and_each_instance_under_its_own(tmp_path, scene) -> None:
    out = tmp_path / "variants.glb"
    export_scene(scene, out, ExportOptions(terrain=False))
    gltf = pygltflib.GLTF2.load(str(out))
    blob = gltf.binary_blob()
    names = [m.name for m in gltf.meshes]
    assert names == ["rock", "tree", "tree.v1", "tree.v2"]
    assert all(m.extras["boscage"]["type"] == m.name.split(".")[0] for m in gltf.meshes)
    rec = records_of(scene, "tree")
    want_variant = variant_indices(rec, "tree", WEIGHTS)
    want_shift = colour_shifts(rec, "tree", HUE, VALUE)
    index = by_position(rec)
    seen = np.full(len(rec), -1)
    for node in gltf.nodes:
        if not (node.extensions and EXT in node.extensions):
            continue
        mesh = gltf.meshes[node.mesh].name
        attrs = node.extensions[EXT]["attributes"]
        t = accessor_data(gltf, blob, attrs["TRANSLATION"])
        if mesh == "rock":
            assert HUE_VALUE not in attrs  # no colour variation: no attribute
            continue
        variant = 0 if mesh == "tree" else int(mesh.rsplit("v", 1)[1])
        rows = [index[p.tobytes()] for p in t]
        assert (want_variant[rows] == variant).all(), mesh
        seen[rows] = variant
        assert np.array_equal(accessor_data(gltf, blob, attrs[HUE_VALUE]), want_shift[rows])
    assert np.array_equal(seen, want_variant)  # every instance once, under its variant's mesh


def test_gltf_plain_nodes_place_each_variant_mesh(tmp_path, scene) -> None:
    out = tmp_path / "plain_variants.glb"
    export_scene(scene, out, ExportOptions(terrain=False, gpu_instancing=False))
    loaded = trimesh.load(str(out), force="scene", process=False)
    rec = records_of(scene, "tree")
    want = variant_indices(rec, "tree", WEIGHTS)
    index = by_position(rec)
    got = np.full(len(rec), -1)
    for node in loaded.graph.nodes_geometry:
        matrix, geometry = loaded.graph[node]
        name = geometry.split("_")[0]
        if name.startswith("tree"):
            row = index[matrix[:3, 3].astype(np.float32).tobytes()]
            got[row] = 0 if name == "tree" else int(name.rsplit("v", 1)[1])
    assert np.array_equal(got, want)


@pytest.mark.parametrize("instancing", [True, False])
def test_gltf_import_maps_variants_back_to_their_type(tmp_path, scene, instancing) -> None:
    out = tmp_path / "back.glb"
    export_scene(scene, out, ExportOptions(terrain=False, gpu_instancing=instancing))
    imported = read_foliage(out)
    assert imported.counts() == {"rock": 20, "tree": 300}
    for name in ("rock", "tree"):  # variants are written mesh by mesh: the same records, reordered
        assert np.array_equal(sort_rows(imported.records[name]), sort_rows(records_of(scene, name)))
    assert imported.extras["tree"]["variants"][1] == {"mesh": "builtin:broadleaf", "weight": 2.0}


def test_gltf_without_our_extras_still_maps_variant_meshes_to_the_type(tmp_path, scene) -> None:
    out = tmp_path / "ours.gltf"
    export_scene(scene, out, ExportOptions(terrain=False))
    doc = json.loads(out.read_text())

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "extras"}
        return [strip(v) for v in value] if isinstance(value, list) else value

    for node in doc["nodes"]:  # as another tool writes it back: mesh names only, nodes unnamed
        node.pop("name", None)
    bare = tmp_path / "bare.gltf"
    bare.write_text(json.dumps(strip(doc)))
    (tmp_path / "bare.bin").write_bytes((tmp_path / "ours.bin").read_bytes())
    doc = json.loads(bare.read_text())
    doc["buffers"][0]["uri"] = "bare.bin"
    bare.write_text(json.dumps(doc))
    imported = read_foliage(bare)
    assert imported.counts() == {"rock": 20, "tree": 300}


def test_usd_has_a_prototype_per_variant_and_protoindices_are_the_variants(tmp_path, scene) -> None:
    from pxr import Usd, UsdGeom

    out = tmp_path / "variants.usdc"
    export_scene(scene, out, ExportOptions(terrain=False))
    stage = Usd.Stage.Open(str(out))
    inst = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Foliage/tree"))
    protos = inst.GetPrototypesRel().GetTargets()
    assert len(protos) == 3
    for k, p in enumerate(protos):
        prim = stage.GetPrimAtPath(p)
        assert prim.GetAttribute("boscage:typeName").Get() == "tree"
        assert prim.GetAttribute("boscage:mesh").Get() == MESHES[k]
    rec = records_of(scene, "tree")  # instancers keep the volume's order
    assert np.array_equal(np.asarray(inst.GetProtoIndicesAttr().Get()), variant_indices(rec, "tree", WEIGHTS))
    shifts = colour_shifts(rec, "tree", HUE, VALUE)
    api = UsdGeom.PrimvarsAPI(inst)
    for column, name in enumerate(("boscage:hueShift", "boscage:valueShift")):
        primvar = api.GetPrimvar(name)
        assert primvar.GetInterpolation() == UsdGeom.Tokens.vertex  # one value per instance
        assert np.array_equal(np.asarray(primvar.Get(), np.float32), shifts[:, column])
    rock = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Foliage/rock"))
    assert len(rock.GetPrototypesRel().GetTargets()) == 1
    assert not UsdGeom.PrimvarsAPI(rock).HasPrimvar("boscage:hueShift")
    imported = read_foliage(out)  # bit for bit and in order, variants folded back into the type
    assert imported.counts() == {"rock": 20, "tree": 300}
    assert np.array_equal(imported.records["tree"], rec)
    assert imported.extras["tree"]["variants"][2] == {"mesh": "builtin:bush", "weight": 1.0}


def test_usd_plain_prims_reference_their_variant(tmp_path, scene) -> None:
    from pxr import Usd

    out = tmp_path / "prims.usda"
    export_scene(scene, out, ExportOptions(terrain=False, gpu_instancing=False))
    stage = Usd.Stage.Open(str(out))
    group = stage.GetPrimAtPath("/World/Foliage/tree")
    rec = records_of(scene, "tree")
    want = variant_indices(rec, "tree", WEIGHTS)
    shifts = colour_shifts(rec, "tree", HUE, VALUE)
    children = sorted(group.GetChildren(), key=lambda c: int(c.GetName()[1:]))
    assert len(children) == 300
    for i, child in enumerate(children):
        refs = child.GetPrimStack()[0].referenceList.prependedItems
        target = str(refs[0].primPath)
        assert target == "/Prototypes/tree" + (f"_v{want[i]}" if want[i] else "")
        assert child.GetAttribute("primvars:boscage:hueShift").Get() == pytest.approx(shifts[i, 0], abs=0)
    assert read_foliage(out).counts() == {"rock": 20, "tree": 300}


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_csv_and_json_carry_the_variant_its_mesh_and_the_colour_shift(tmp_path, scene, suffix) -> None:
    out = tmp_path / f"variants{suffix}"
    export_scene(scene, out, ExportOptions(terrain=False, matrix=suffix == ".csv"))
    if suffix == ".csv":
        lines = [line for line in out.read_text().splitlines() if not line.startswith("#")]
        rows = list(csv.DictReader(lines))
    else:
        rows = json.loads(out.read_text())["instances"]
    for name in ("tree", "rock"):
        mine = [r for r in rows if r["type"] == name]
        rec = records_of(scene, name)
        if name == "tree":
            want = variant_indices(rec, name, WEIGHTS)
            shifts = colour_shifts(rec, name, HUE, VALUE)
        else:
            want, shifts = np.zeros(len(rec), int), np.zeros((len(rec), 2), np.float32)
        assert [int(r["variant"]) for r in mine] == want.tolist()
        mesh_of = MESHES if name == "tree" else ("builtin:rock",)
        assert [r["mesh"] for r in mine] == [mesh_of[v] for v in want]
        got = np.array([[float(r["hue_shift"]), float(r["value_shift"])] for r in mine], np.float32)
        assert np.array_equal(got, shifts)  # printed with 9 digits: float32 exactly
    imported = read_foliage(out)
    assert imported.counts() == {"rock": 20, "tree": 300}
    assert np.array_equal(imported.records["tree"], records_of(scene, "tree"))


@pytest.mark.parametrize("suffix", [".glb", ".usdc", ".json"])
def test_importing_into_an_empty_scene_makes_one_type_with_its_variants(tmp_path, scene, suffix) -> None:
    from model.interchange.merge import add_to_scene
    from model.scene import Scene
    from model.terrain import Terrain

    out = tmp_path / f"source{suffix}"
    export_scene(scene, out, ExportOptions(terrain=False))
    target = Scene(Terrain(np.zeros((8, 8), np.float32)))
    target.path = tmp_path / "target.boscage"
    result = add_to_scene(target, read_foliage(out))
    assert [t.name for t in result.new_types] == ["rock", "tree"]  # no type per variant mesh
    assert foliage_of(target).palette["tree"] == foliage_of(scene).palette["tree"]  # variants, hue, value
    for name in ("rock", "tree"):  # the same records: the same variants and colours again
        got, want = records_of(target, name), records_of(scene, name)
        if suffix == ".glb" and name == "tree":  # written variant by variant: a chunk's order changes
            got, want = sort_rows(got), sort_rows(want)
        assert np.array_equal(got, want)


@pytest.mark.parametrize("suffix", [".glb", ".usdc"])
def test_variant_mesh_files_travel_into_a_new_scene(tmp_path, suffix) -> None:
    from model.foliage.meshes import mesh_for
    from model.interchange.merge import add_to_scene
    from model.scene import Scene
    from model.terrain import Terrain

    source = small_scene({"stump": 60})
    (tmp_path / "stump.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 2 0\nf 1 2 3\n")
    (tmp_path / "log.obj").write_text("v 0 0 0\nv 3 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n")
    variants = (Variant("stump.obj", 1.0), Variant("builtin:rock", 1.0), Variant("log.obj", 1.0))
    foliage_of(source).palette.replace(FoliageType("stump", "stump.obj", variants=variants))
    foliage_of(source).volume.mesh_folder = tmp_path
    out = tmp_path / f"stumps{suffix}"
    export_scene(source, out, ExportOptions(terrain=False))
    dest = tmp_path / "dest"
    dest.mkdir()
    target = Scene(Terrain(np.zeros((8, 8), np.float32)))
    target.path = dest / "t.boscage"
    result = add_to_scene(target, read_foliage(out))
    ftype = foliage_of(target).palette["stump"]
    assert [t.name for t in result.new_types] == ["stump"] and not result.warnings
    assert [v.weight for v in ftype.variants] == [1.0, 1.0, 1.0]
    assert ftype.variants[0].mesh == ftype.mesh == "stump.glb" and ftype.variants[1].mesh == "builtin:rock"
    assert ftype.variants[2].mesh == "stump_v2.glb"
    assert sorted(p.name for p in result.mesh_files) == ["stump.glb", "stump_v2.glb"]
    assert mesh_for(ftype.variants[0].mesh, dest).triangles == 1
    log = mesh_for(ftype.variants[2].mesh, dest)
    assert log.triangles == 2 and np.isclose(log.bounds()[1][0], 3.0)
