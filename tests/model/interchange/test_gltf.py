"""glTF export read back by independent readers (pygltflib, trimesh) and by our importer.

Every .glb/.gltf a test here leaves in tmp_path is also run through the Khronos glTF Validator
(see conftest.py) and must report no error and no warning.
"""

from __future__ import annotations

import json
import struct

import numpy as np
import pygltflib
import pytest
import trimesh
from trimesh import transformations as tf

from model.errors import FormatError
from model.foliage import FoliageType, foliage_of
from model.interchange import Cancelled, ExportOptions, export_scene, read_foliage
from model.interchange.conventions import ENGINE_PRESETS, Conventions
from model.interchange.gltf import EXT, TILE_CELLS, YPR

from .conftest import small_scene


def expected_rotations(records: np.ndarray) -> np.ndarray:
    """R = Ry(yaw) · Rx(pitch) · Rz(roll), built with trimesh's transformations (not ours)."""
    out = []
    for yaw, pitch, roll in records[:, 3:6].astype(np.float64):
        m = (tf.rotation_matrix(yaw, [0, 1, 0]) @ tf.rotation_matrix(pitch, [1, 0, 0])
             @ tf.rotation_matrix(roll, [0, 0, 1]))
        out.append(m[:3, :3])
    return np.array(out)


def quat_xyzw_matrix(q: np.ndarray) -> np.ndarray:
    return np.array([tf.quaternion_matrix([w, x, y, z])[:3, :3] for x, y, z, w in q])


def accessor_data(gltf: pygltflib.GLTF2, blob: bytes, index: int) -> np.ndarray:
    a = gltf.accessors[index]
    v = gltf.bufferViews[a.bufferView]
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[a.type]
    dtype = {5126: np.float32, 5123: np.uint16, 5125: np.uint32, 5121: np.uint8}[a.componentType]
    start = (v.byteOffset or 0) + (a.byteOffset or 0)
    size = np.dtype(dtype).itemsize
    stride = v.byteStride or size * width  # an interleaved vertex view has a stride
    return np.ndarray((a.count, width), dtype, blob, start, (stride, size)).copy()


def volume_records(scene, name: str) -> np.ndarray:
    return scene.sections["foliage"].volume.all_records(name)


def export_order(scene, name: str, tiled: bool = True) -> np.ndarray:
    """A type's records in the order our glTF holds them: instancing nodes take the chunks tile by
    tile (TILE_CELLS² cells), then cell by cell; plain nodes cell by cell. Within a chunk the order
    is kept, so an import fills every chunk exactly as it was."""
    volume = scene.sections["foliage"].volume
    cells = sorted(cell for cell, t in volume.keys() if t == name)
    if tiled:
        cells.sort(key=lambda c: (c[0] // TILE_CELLS, c[1] // TILE_CELLS, c))
    return np.concatenate([volume.records(cell, name) for cell in cells])


def test_pygltflib_reads_every_instance_with_its_transform(tmp_path) -> None:
    scene = small_scene()
    out = tmp_path / "forest.glb"
    report = export_scene(scene, out)
    assert report.instances == 65 and report.types == {"conifer": 40, "rock": 25}
    assert report.bytes == out.stat().st_size and report.terrain_vertices == 41 * 41
    gltf = pygltflib.GLTF2.load(str(out))
    blob = gltf.binary_blob()
    assert gltf.extensionsUsed == [EXT] and not gltf.extensionsRequired
    by_type: dict[str, list] = {}
    names = {n.name for n in gltf.nodes}
    assert {"Terrain", "Foliage", "conifer", "rock"} <= names
    for node in gltf.nodes:
        if node.extensions and EXT in node.extensions:
            mesh = gltf.meshes[node.mesh]
            attrs = node.extensions[EXT]["attributes"]
            by_type.setdefault(mesh.name, []).append(
                [accessor_data(gltf, blob, attrs[k]) for k in ("TRANSLATION", "ROTATION", "SCALE", YPR)])
            assert mesh.extras["boscage"]["type"] == mesh.name
    for name in ("conifer", "rock"):
        t, q, s, ypr = (np.concatenate(p) for p in zip(*by_type[name], strict=True))
        rec = export_order(scene, name)
        assert np.abs(t - rec[:, :3]).max() <= 1e-5
        assert np.abs(quat_xyzw_matrix(q) - expected_rotations(rec)).max() <= 1e-5
        assert np.array_equal(s, np.repeat(rec[:, 6:7], 3, axis=1))
        assert np.array_equal(ypr, rec[:, 3:6])
    # type names and palette keys travel in extras
    conifer_node = next(n for n in gltf.nodes if n.name == "conifer")
    palette = conifer_node.extras["boscage"]["palette"]
    assert palette["name"] == "conifer" and palette["spacing"] == 1.5
    asset = gltf.asset.extras["boscage"]
    assert asset["conventions"] == {"up": "y", "handedness": "right", "units": "m"}
    assert asset["types"] == {"conifer": 40, "rock": 25}


def test_plain_nodes_are_read_by_trimesh_with_the_same_transforms(tmp_path) -> None:
    scene = small_scene()
    out = tmp_path / "plain.glb"
    export_scene(scene, out, ExportOptions(gpu_instancing=False, terrain=False))
    doc = pygltflib.GLTF2.load(str(out))
    assert not doc.extensionsUsed
    loaded = trimesh.load(str(out), force="scene", process=False)
    placed: dict[str, list[np.ndarray]] = {}
    for node in loaded.graph.nodes_geometry:
        matrix, geometry = loaded.graph[node]
        placed.setdefault(geometry.split(".")[0].split("_")[0], []).append(matrix)
    for name in ("conifer", "rock"):
        rec = volume_records(scene, name)
        # trimesh makes a geometry of each primitive: the conifer's bark, crown and branches
        got = np.unique(np.array(placed[name]), axis=0)
        assert len(got) == len(rec)
        order = np.lexsort(got[:, :3, 3].T)
        want = np.lexsort(rec[:, :3].T.astype(np.float64))
        got = got[order]
        rec = rec[want]
        assert np.abs(got[:, :3, 3] - rec[:, :3]).max() <= 1e-5
        r = expected_rotations(rec) * rec[:, 6, None, None]
        assert np.abs(got[:, :3, :3] - r).max() <= 1e-5


def test_trimesh_sees_the_terrain_heights_normals_and_layers(tmp_path) -> None:
    scene = small_scene()
    out = tmp_path / "terrain.gltf"
    export_scene(scene, out, ExportOptions(types=("rock",), terrain_step=2))
    assert (tmp_path / "terrain.bin").is_file()
    loaded = trimesh.load(str(out), force="scene", process=False)
    tiles = [g for name, g in loaded.geometry.items() if name.startswith("terrain")]
    assert tiles
    v = np.concatenate([t.vertices for t in tiles])
    t = scene.terrain
    assert np.allclose(v[:, 1], t.height_at(v[:, 0], v[:, 2]), atol=1e-4)
    xs = np.unique(v[:, 0])
    assert len(xs) == 21 and xs[1] - xs[0] == pytest.approx(2 * t.spacing)
    # layer weights: COLOR_1 holds grass (R) and rock (G), named in the mesh's extras
    gltf = pygltflib.GLTF2.load(str(out))
    blob = gltf.get_data_from_buffer_uri(gltf.buffers[0].uri)
    mesh = next(m for m in gltf.meshes if m.name.startswith("terrain"))
    assert mesh.extras["boscage"]["layers"] == {"COLOR_1": ["grass", "rock"]}
    prim = mesh.primitives[0]
    pos = accessor_data(gltf, blob, prim.attributes.POSITION)
    w = accessor_data(gltf, blob, prim.attributes.COLOR_1)
    col = np.round((pos[:, 0] - t.origin[0]) / t.spacing).astype(int)
    row = np.round((pos[:, 2] - t.origin[1]) / t.spacing).astype(int)
    assert np.array_equal(w[:, 0], t.layers[0].weights[row, col])
    assert np.array_equal(w[:, 1], t.layers[1].weights[row, col])
    n = accessor_data(gltf, blob, prim.attributes.NORMAL)
    assert np.allclose(np.linalg.norm(n, axis=1), 1, atol=1e-6) and (n[:, 1] > 0.5).all()
    assert [n.name for n in gltf.nodes if n.extensions and EXT in n.extensions][0].startswith("rock")


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
@pytest.mark.parametrize("instancing", [True, False])
def test_round_trip_is_bit_exact_in_the_glTF_frame(tmp_path, suffix, instancing) -> None:
    scene = small_scene()
    out = tmp_path / f"rt{suffix}"
    export_scene(scene, out, ExportOptions(gpu_instancing=instancing))
    imported = read_foliage(out)
    assert sorted(imported.records) == ["conifer", "rock"]
    for name, rec in imported.records.items():
        assert rec.dtype == np.float32
        assert np.array_equal(rec, export_order(scene, name, tiled=instancing))
        assert imported.meshes[name] == f"builtin:{name}"
        assert imported.extras[name]["name"] == name
    assert imported.warnings == []


@pytest.mark.parametrize("engine", ["Unreal", "Unity", "Blender"])
def test_round_trip_through_an_engine_frame(tmp_path, engine) -> None:
    scene = small_scene()
    conv = ENGINE_PRESETS[engine]
    out = tmp_path / f"{engine}.glb"
    export_scene(scene, out, ExportOptions(conventions=conv))
    imported = read_foliage(out)
    for name, rec in imported.records.items():
        want = export_order(scene, name)
        assert np.abs(rec[:, :3] - want[:, :3]).max() <= 1e-4 * max(1.0, np.abs(want[:, :3]).max())
        assert np.array_equal(rec[:, 3:], want[:, 3:])  # angles from _BOSCAGE_YPR, scale as is


def test_asymmetric_instance_lands_where_unreal_expects(tmp_path) -> None:
    scene = small_scene({"conifer": 0})
    foliage_of(scene).volume.add("conifer", np.array([[1, 2, 3, np.pi / 2, np.radians(10), 0, 1]],
                                                     np.float32))
    out = tmp_path / "unreal.glb"
    export_scene(scene, out, ExportOptions(conventions=ENGINE_PRESETS["Unreal"], terrain=False))
    gltf = pygltflib.GLTF2.load(str(out))
    node = next(n for n in gltf.nodes if n.extensions and EXT in n.extensions)
    t = accessor_data(gltf, gltf.binary_blob(), node.extensions[EXT]["attributes"]["TRANSLATION"])
    assert np.allclose(t, [[100, 300, 200]], atol=1e-4)  # Z-up (height 2 m → Z 200 cm), Y ↔ Z
    q = accessor_data(gltf, gltf.binary_blob(), node.extensions[EXT]["attributes"]["ROTATION"])
    m = quat_xyzw_matrix(q)[0]
    # the tree's up (+Y in the scene) tilts by the pitch; in Unreal's frame up is +Z
    up = m @ [0, 0, 1]
    assert up[2] == pytest.approx(np.cos(np.radians(10)), abs=1e-6)


def test_region_and_types_limit_what_is_written(tmp_path) -> None:
    scene = small_scene({"conifer": 60, "rock": 30, "bush": 20})
    out = tmp_path / "part.glb"
    region = (-30.0, -30.0, 30.0, 30.0)
    report = export_scene(scene, out, ExportOptions(types=("rock", "bush"), region=region, terrain=False))
    imported = read_foliage(out)
    assert sorted(imported.records) == ["bush", "rock"] and report.terrain_vertices == 0
    for name, rec in imported.records.items():
        full = volume_records(scene, name)
        inside = ((full[:, 0] >= -30) & (full[:, 0] < 30) & (full[:, 2] >= -30) & (full[:, 2] < 30))
        assert 0 < len(rec) == inside.sum() == report.types[name]
        assert np.array_equal(np.sort(rec, axis=0), np.sort(full[inside], axis=0))
    assert not any(n.name == "Terrain" for n in pygltflib.GLTF2.load(str(out)).nodes)


def test_a_mesh_file_type_is_embedded_as_its_geometry(tmp_path) -> None:
    scene = small_scene({"stump": 5})
    (tmp_path / "stump.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 2 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n")
    foliage = foliage_of(scene)
    foliage.palette.replace(FoliageType("stump", "stump.obj"))
    foliage.volume.mesh_folder = tmp_path
    out = tmp_path / "stump.glb"
    export_scene(scene, out, ExportOptions(terrain=False))
    loaded = trimesh.load(str(out), force="scene", process=False)
    geom = loaded.geometry["stump"]
    assert len(geom.faces) == 2 and np.isclose(geom.vertices[:, 1].max(), 2.0)
    imported = read_foliage(out)
    mesh = imported.meshes["stump"]
    assert mesh.triangle_count == 2 and np.isclose(mesh.positions[:, 1].max(), 2.0)


def test_cancel_leaves_the_previous_file_untouched(tmp_path) -> None:
    scene = small_scene()
    out = tmp_path / "keep.glb"
    export_scene(scene, out)
    before = out.read_bytes()
    calls = []

    def stop(done, total):
        calls.append((done, total))
        return len(calls) < 3

    with pytest.raises(Cancelled):
        export_scene(small_scene({"conifer": 5}), out, ExportOptions(), stop)
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.glb"]


def test_progress_reaches_the_total(tmp_path) -> None:
    seen = []
    export_scene(small_scene(), tmp_path / "p.glb", progress=lambda d, t: seen.append((d, t)) or True)
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] > 0
    assert all(b[0] >= a[0] for a, b in zip(seen, seen[1:], strict=False))


def test_an_empty_scene_exports_a_valid_file(tmp_path) -> None:
    scene = small_scene({})
    export_scene(scene, tmp_path / "empty.glb", ExportOptions(terrain=False))
    assert read_foliage(tmp_path / "empty.glb").records == {}


# ---- foreign files: written with pygltflib, not by us --------------------------------------------
def _foreign(tmp_path, name: str = "foreign.glb"):
    """A parent node (translated, rotated 90° about Y, scaled 2) holding an EXT-instanced mesh
    'pine' (2 instances) and two plain nodes of mesh 'fern'; a mesh 'house' placed once."""
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    tri = np.array([0, 1, 2], np.uint16)
    inst_t = np.array([[1, 0, 0], [0, 0, 5]], np.float32)
    inst_r = np.array([[0, 0, 0, 1], [0, np.sin(np.pi / 8), 0, np.cos(np.pi / 8)]], np.float32)
    inst_s = np.array([[1, 1, 1], [3, 3, 3]], np.float32)
    blob = pos.tobytes() + tri.tobytes() + b"\0\0" + inst_t.tobytes() + inst_r.tobytes() + inst_s.tobytes()
    views = [pygltflib.BufferView(buffer=0, byteOffset=0, byteLength=36, target=34962),
             pygltflib.BufferView(buffer=0, byteOffset=36, byteLength=6, target=34963),
             pygltflib.BufferView(buffer=0, byteOffset=44, byteLength=24),
             pygltflib.BufferView(buffer=0, byteOffset=68, byteLength=32),
             pygltflib.BufferView(buffer=0, byteOffset=100, byteLength=24)]
    acc = [pygltflib.Accessor(bufferView=0, componentType=5126, count=3, type="VEC3", min=[0, 0, 0],
                              max=[1, 1, 0]),
           pygltflib.Accessor(bufferView=1, componentType=5123, count=3, type="SCALAR"),
           pygltflib.Accessor(bufferView=2, componentType=5126, count=2, type="VEC3"),
           pygltflib.Accessor(bufferView=3, componentType=5126, count=2, type="VEC4"),
           pygltflib.Accessor(bufferView=4, componentType=5126, count=2, type="VEC3")]
    prim = lambda: pygltflib.Primitive(attributes=pygltflib.Attributes(POSITION=0), indices=1)  # noqa: E731
    meshes = [pygltflib.Mesh(name=n, primitives=[prim()]) for n in ("pine", "fern", "house")]
    q = [0, np.sin(np.pi / 4), 0, np.cos(np.pi / 4)]
    instancing = {EXT: {"attributes": {"TRANSLATION": 2, "ROTATION": 3, "SCALE": 4}}}
    nodes = [pygltflib.Node(name="root", translation=[10, 0, 20], rotation=q, scale=[2, 2, 2],
                            children=[1, 2, 3]),
             pygltflib.Node(mesh=0, extensions=instancing),
             pygltflib.Node(mesh=1, translation=[0, 1, 0]),
             pygltflib.Node(mesh=1, translation=[4, 0, 0], scale=[0.5, 0.5, 0.5]),
             pygltflib.Node(mesh=2, translation=[7, 7, 7])]
    g = pygltflib.GLTF2(asset=pygltflib.Asset(version="2.0"), scene=0,
                        scenes=[pygltflib.Scene(nodes=[0, 4])], nodes=nodes, meshes=meshes,
                        accessors=acc, bufferViews=views, buffers=[pygltflib.Buffer(byteLength=len(blob))],
                        extensionsUsed=[EXT])
    g.set_binary_blob(blob)
    path = tmp_path / name
    g.save_binary(str(path))
    return path


def test_a_foreign_file_composes_node_transforms(tmp_path) -> None:
    imported = read_foliage(_foreign(tmp_path))
    assert sorted(imported.records) == ["fern", "pine"]
    assert any("house" in w for w in imported.warnings)
    root = tf.compose_matrix(scale=[2, 2, 2], angles=[0, np.pi / 2, 0], translate=[10, 0, 20])

    def world(local_t, yaw=0.0, s=1.0):
        return root @ tf.compose_matrix(scale=[s] * 3, angles=[0, yaw, 0], translate=local_t)

    pine = imported.records["pine"]
    for rec, m in zip(pine, [world([1, 0, 0]), world([0, 0, 5], np.pi / 4, 3)], strict=True):
        assert np.allclose(rec[:3], m[:3, 3], atol=1e-5)
        assert np.isclose(rec[6], np.linalg.norm(m[:3, 0]), atol=1e-5)
        r = m[:3, :3] / rec[6]
        assert np.allclose(expected_rotations(rec[None])[0], r, atol=1e-5)
    fern = imported.records["fern"]
    assert np.allclose(fern[:, :3], [world([0, 1, 0])[:3, 3], world([4, 0, 0], s=0.5)[:3, 3]], atol=1e-5)
    assert np.allclose(fern[:, 6], [2, 1], atol=1e-6)
    assert np.allclose(fern[:, 3], np.pi / 2, atol=1e-6)
    assert imported.meshes["pine"].triangle_count == 1


# ---- bad input ---------------------------------------------------------------------------------
def test_bad_files_give_one_clear_error(tmp_path) -> None:
    good = _foreign(tmp_path, "bad_source.glb").read_bytes()
    cases = {
        "bad_truncated.glb": good[:30],
        "bad_version.glb": good[:4] + struct.pack("<I", 1) + good[8:],
        "bad_json.gltf": b"{not json",
        "bad_asset.gltf": json.dumps({"nodes": []}).encode(),
    }
    doc = json.loads(good[20:20 + struct.unpack_from("<I", good, 12)[0]])
    doc["accessors"][2]["count"] = 10_000_000  # claims far more than its view holds
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    rest = good[20 + struct.unpack_from("<I", good, 12)[0]:]
    cases["bad_count.glb"] = (b"glTF" + struct.pack("<II", 2, 12 + 8 + len(text) + len(rest))
                              + struct.pack("<II", len(text), 0x4E4F534A) + text + rest)
    doc2 = dict(doc, nodes=doc["nodes"] + [{"children": [5]}], scenes=[{"nodes": [5]}])
    doc2["accessors"][2]["count"] = 2
    cases["bad_cycle.gltf"] = json.dumps(doc2).encode()
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(FormatError) as e:
            read_foliage(tmp_path / name)
        assert name in str(e.value), str(e.value)
    with pytest.raises(FormatError, match="file not found"):
        read_foliage(tmp_path / "missing.glb")


def test_conventions_in_the_file_are_applied_on_import(tmp_path) -> None:
    scene = small_scene({"rock": 10})
    conv = Conventions("z", "right", "cm")
    out = tmp_path / "zup.glb"
    export_scene(scene, out, ExportOptions(conventions=conv))
    rec = read_foliage(out).records["rock"]
    assert np.allclose(rec[:, :3], export_order(scene, "rock")[:, :3], atol=1e-4)


def test_export_memory_does_not_grow_with_the_instances(tmp_path) -> None:
    import tracemalloc

    peaks, sizes = [], []
    for n in (50_000, 250_000):  # the same cells, five times the instances
        scene = small_scene({"conifer": n, "rock": n}, size=201, spacing=5.0)
        tracemalloc.start()
        try:
            report = export_scene(scene, tmp_path / f"big{n}.glb", ExportOptions(terrain=False))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert report.instances == 2 * n
        peaks.append(peak)
        sizes.append(report.bytes)
    # instances stream out in batches: 20 MB more instance data, well under 2 MB more memory
    assert sizes[1] - sizes[0] > 20_000_000
    assert peaks[1] - peaks[0] < 0.1 * (sizes[1] - sizes[0]), (peaks, sizes)
    assert read_foliage(tmp_path / "big250000.glb").count == 500_000


def test_a_million_instances_export_in_bounded_memory_with_a_small_document(tmp_path) -> None:
    import tracemalloc

    scene = small_scene({"conifer": 500_000, "rock": 500_000}, size=201, spacing=10.0)
    out = tmp_path / "million.glb"
    tracemalloc.start()  # numpy reports its buffers to tracemalloc
    try:
        report = export_scene(scene, out, ExportOptions(terrain=False))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.instances == 1_000_000 and report.bytes > 52_000_000
    # a few batches in memory, not the 52 MB of instance data (nor the 28 MB of records again)
    assert peak < 12_000_000, peak
    doc_length = struct.unpack_from("<I", out.read_bytes()[:20], 12)[0]
    doc = json.loads(out.read_bytes()[20:20 + doc_length])
    instanced = [n for n in doc["nodes"] if EXT in n.get("extensions", {})]
    # one node per type and 256 m tile (8 x 8 cells of 32 m), not one per chunk (3,900 of each type)
    volume = scene.sections["foliage"].volume
    tiles = {(t, cx // TILE_CELLS, cz // TILE_CELLS) for (cx, cz), t in volume.keys()}
    assert len(volume.keys()) > 7_000 and len(instanced) == len(tiles) <= 2 * 8 * 8
    assert doc_length < 150_000  # some 700 bytes a node; a node per chunk made megabytes
    assert sum(doc["accessors"][n["extensions"][EXT]["attributes"]["TRANSLATION"]]["count"]
               for n in instanced) == 1_000_000


def test_instancing_nodes_hold_colocated_instances_one_tile_each(tmp_path) -> None:
    scene = small_scene({"conifer": 20_000, "rock": 5_000}, size=201, spacing=5.0)  # 1 km square
    out = tmp_path / "tiles.glb"
    export_scene(scene, out, ExportOptions(terrain=False))
    gltf = pygltflib.GLTF2.load(str(out))
    blob = gltf.binary_blob()
    tile_metres = TILE_CELLS * scene.sections["foliage"].volume.cell_size
    seen: dict[str, set] = {}
    for node in gltf.nodes:
        if not (node.extensions and EXT in node.extensions):
            continue
        t = accessor_data(gltf, blob, node.extensions[EXT]["attributes"]["TRANSLATION"])
        tiles = {tuple(v) for v in np.floor(t[:, [0, 2]].astype(np.float64) / tile_metres).astype(int)}
        assert tiles == {tuple(node.extras["boscage"]["tile"])}, node.name  # culled as one by an engine
        name = gltf.meshes[node.mesh].name
        assert node.name == f"{name} {node.extras['boscage']['tile'][0]},{node.extras['boscage']['tile'][1]}"
        assert tuple(node.extras["boscage"]["tile"]) not in seen.setdefault(name, set())
        seen[name].add(tuple(node.extras["boscage"]["tile"]))
    assert {k: len(v) for k, v in seen.items()} == {"conifer": 16, "rock": 16}  # 4 x 4 tiles of 256 m


@pytest.mark.parametrize("variants", [False, True])
def test_big_chunks_and_full_tiles_are_cut_into_batches_and_nodes(tmp_path, monkeypatch, variants) -> None:
    from model.foliage.foliage_type import Variant
    from model.interchange import gltf as writer

    monkeypatch.setattr(writer, "BATCH", 50)   # chunks of ~190 instances: cut into pieces
    monkeypatch.setattr(writer, "GROUP", 200)  # tiles of ~750: several nodes each
    scene = small_scene({"conifer": 3000})
    if variants:
        foliage_of(scene).palette.replace(FoliageType("conifer", variants=(
            Variant("builtin:conifer", 1.0), Variant("builtin:bush", 1.0)), hue=(-5.0, 5.0)))
    out = tmp_path / "cut.glb"
    export_scene(scene, out, ExportOptions(terrain=False))
    gltf = pygltflib.GLTF2.load(str(out))
    nodes = [n for n in gltf.nodes if n.extensions and EXT in n.extensions]
    counts = [gltf.accessors[n.extensions[EXT]["attributes"]["TRANSLATION"]].count for n in nodes]
    assert sum(counts) == 3000 and max(counts) <= 200 + 50
    assert any(n.name.endswith("#2") for n in nodes)
    imported = read_foliage(out).records["conifer"]
    if variants:  # each node holds one variant's instances: compare as sets
        want = volume_records(scene, "conifer")
        assert np.array_equal(imported[np.lexsort(imported.T)], want[np.lexsort(want.T)])
    else:
        assert np.array_equal(imported, export_order(scene, "conifer"))


def test_instance_attributes_are_tight_views_of_their_own(tmp_path) -> None:
    """What every reader of the extension takes: each instance accessor has a view of its own,
    tightly packed, with no byteStride (glTF allows a stride on vertex data only)."""
    scene = small_scene({"conifer": 3000, "rock": 500})
    out = tmp_path / "tight.glb"
    export_scene(scene, out, ExportOptions(terrain=False))
    gltf = pygltflib.GLTF2.load(str(out))
    used: list[int] = []
    for node in gltf.nodes:
        if node.extensions and EXT in node.extensions:
            counts = set()
            for index in node.extensions[EXT]["attributes"].values():
                a = gltf.accessors[index]
                v = gltf.bufferViews[a.bufferView]
                width = {"VEC2": 2, "VEC3": 3, "VEC4": 4}[a.type]
                assert v.byteStride is None and v.target is None and not a.byteOffset
                assert v.byteLength == 4 * width * a.count and a.componentType == 5126
                used.append(a.bufferView)
                counts.add(a.count)
            assert len(counts) == 1  # the extension: all of a node's attributes have one count
    assert len(used) == len(set(used))
