"""glTF 2.0 out: `.glb`, or `.gltf` + `.bin` (read back by `model.interchange.gltf_reader`).

Written by hand rather than through pygltflib: its dataclass JSON took 0.8 s to write and 15 s to
parse the 30,000 accessors of a million-instance export, and its GLB writer wants the whole binary
chunk in memory. The container is a 12-byte header and two chunks, so the document is laid out
first (every size is known from the chunk counts) and the binary chunk is then streamed chunk by
chunk; pygltflib and trimesh read our files back in the tests, as independent readers.

Layout: `Terrain` (one node per tile) and `Foliage` → one node per type (name and palette keys in
`extras`) → one node per chunk (one 32 m cell × one type) carrying the type's mesh with
`EXT_mesh_gpu_instancing` (TRANSLATION, ROTATION, SCALE, and `_BOSCAGE_YPR`: the record's exact
yaw/pitch/roll, so our reader restores records bit for bit), or, with `gpu_instancing=False`, a
plain child node per instance.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model.atomic import atomic_write
from model.foliage.foliage_type import foliage_type_to_dict
from model.interchange.conventions import Conventions, to_target
from model.interchange.geometry import (
    IndexedMesh,
    terrain_tile_count,
    terrain_tiles,
    terrain_vertex_count,
    type_mesh,
)
from model.interchange.instances import instance_chunks, instance_counts, selected_types, volume_of
from model.interchange.options import (
    DEFAULT_OPTIONS,
    ExportOptions,
    ExportReport,
    Progress,
    check_progress,
)
from model.scene import Scene

EXT = "EXT_mesh_gpu_instancing"
YPR = "_BOSCAGE_YPR"
KEY = "boscage"  # our key inside `extras`
FORMAT_VERSION = 1
FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
GLB_MAGIC, JSON_CHUNK, BIN_CHUNK = 0x46546C67, 0x4E4F534A, 0x004E4942
INSTANCE_BYTES = 4 * (3 + 4 + 3 + 3)  # translation, rotation, scale, yaw/pitch/roll
BATCH = 65536  # instances converted at once (bounded memory, few numpy calls)


def json_safe(value):
    """Palette values for JSON: ±inf (an open altitude range) as the strings "inf" / "-inf"."""
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


# ---- writing ----------------------------------------------------------------------------------
@dataclass
class _Document:
    """The JSON document being laid out, and the binary chunk's views in file order."""

    doc: dict = field(default_factory=lambda: {
        "asset": {"version": "2.0", "generator": "Boscage"}, "scene": 0, "scenes": [], "nodes": [],
        "meshes": [], "materials": [], "accessors": [], "bufferViews": [], "buffers": []})
    size: int = 0

    def view(self, nbytes: int, target: int | None = None) -> int:
        self.size = (self.size + 3) & ~3  # every view starts 4-byte aligned
        v = {"buffer": 0, "byteOffset": self.size, "byteLength": int(nbytes)}
        if target is not None:
            v["target"] = target
        self.doc["bufferViews"].append(v)
        self.size += int(nbytes)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, view: int, component: int, count: int, kind: str, offset: int = 0,
                 normalized: bool = False, bounds: np.ndarray | None = None) -> int:
        a = {"bufferView": view, "componentType": component, "count": int(count), "type": kind}
        if offset:
            a["byteOffset"] = int(offset)
        if normalized:
            a["normalized"] = True
        if bounds is not None:
            a["min"] = [float(v) for v in bounds.min(axis=0)]
            a["max"] = [float(v) for v in bounds.max(axis=0)]
        self.doc["accessors"].append(a)
        return len(self.doc["accessors"]) - 1

    def node(self, **fields) -> int:
        self.doc["nodes"].append({k: v for k, v in fields.items() if v is not None and v != []})
        return len(self.doc["nodes"]) - 1

    def attribute(self, array: np.ndarray, kind: str, component: int = FLOAT, normalized: bool = False,
                  bounds: bool = False, target: int | None = ARRAY_BUFFER) -> int:
        view = self.view(array.nbytes, target)
        return self.accessor(view, component, len(array), kind, normalized=normalized,
                             bounds=array if bounds else None)


def _mesh_arrays(mesh: IndexedMesh) -> tuple[list[tuple[str, np.ndarray, str, int, bool]], np.ndarray]:
    """(attribute, array, type, component, normalized) of each vertex attribute, and the indices."""
    attrs = [("POSITION", np.ascontiguousarray(mesh.positions, np.float32), "VEC3", FLOAT, False),
             ("NORMAL", np.ascontiguousarray(mesh.normals, np.float32), "VEC3", FLOAT, False)]
    if mesh.colours is not None:
        attrs.append(("COLOR_0", np.ascontiguousarray(mesh.colours, np.float32), "VEC3", FLOAT, False))
    if mesh.weights is not None and mesh.weights.shape[1]:
        n, layers = mesh.weights.shape
        groups = -(-layers // 4)
        packed = np.zeros((n, groups * 4), np.uint8)
        packed[:, :layers] = mesh.weights
        for g in range(groups):
            attrs.append((f"COLOR_{g + 1}", np.ascontiguousarray(packed[:, 4 * g:4 * g + 4]), "VEC4",
                          UBYTE, True))
    index_type = np.uint16 if mesh.vertex_count <= 65535 else np.uint32
    return attrs, np.ascontiguousarray(mesh.indices, index_type)


def _lay_out_mesh(d: _Document, mesh: IndexedMesh, name: str, material: int, extras: dict) -> int:
    attrs, indices = _mesh_arrays(mesh)
    attributes = {}
    for key, array, kind, component, normalized in attrs:
        attributes[key] = d.attribute(array, kind, component, normalized, bounds=key == "POSITION")
    idx = d.attribute(indices, "SCALAR", USHORT if indices.dtype == np.uint16 else UINT,
                      target=ELEMENT_ARRAY_BUFFER)
    d.doc["meshes"].append({"name": name, "primitives": [
        {"attributes": attributes, "indices": idx, "material": material, "mode": 4}], "extras": extras})
    return len(d.doc["meshes"]) - 1


def _mesh_blocks(mesh: IndexedMesh) -> list[np.ndarray]:
    attrs, indices = _mesh_arrays(mesh)
    return [a[1] for a in attrs] + [indices]


def _instance_arrays(records: np.ndarray, conventions: Conventions) -> tuple[np.ndarray, ...]:
    """float32 translation (n, 3), rotation (n, 4), scale (n, 3), yaw/pitch/roll (n, 3)."""
    t = to_target(records, conventions)
    scale = np.repeat(records[:, 6:7], 3, axis=1)
    return (t.positions.astype(np.float32), t.rotations.astype(np.float32),
            np.ascontiguousarray(scale, np.float32), np.ascontiguousarray(records[:, 3:6], np.float32))


def _type_extras(scene: Scene, name: str) -> dict:
    volume = volume_of(scene)
    ftype = volume.palette.get(name) if volume is not None else None
    extras: dict = {"type": name}
    if ftype is not None:
        extras["palette"] = json_safe(foliage_type_to_dict(ftype))
    return {KEY: extras}


def _mesh_folder(scene: Scene) -> Path | None:
    volume = volume_of(scene)
    if volume is not None and volume.mesh_folder is not None:
        return Path(volume.mesh_folder)
    return scene.path.parent if scene.path is not None else None


def write_gltf(scene: Scene, path: str | Path, options: ExportOptions = DEFAULT_OPTIONS,
               progress: Progress | None = None) -> ExportReport:
    """Write `.glb` (one file) or `.gltf` + `<stem>.bin` beside it; atomic, cancellable."""
    path = Path(path)
    binary = path.suffix.lower() == ".glb"
    conv = options.conventions
    d = _Document()
    counts = instance_counts(scene, options)
    total_instances = sum(n for *_, n in counts)
    step = options.terrain_step
    tiles = terrain_tile_count(scene.terrain, step, options.region) if options.terrain else 0
    t_vertices = terrain_vertex_count(scene.terrain, step, options.region) if options.terrain else 0
    work = total_instances + t_vertices
    done = 0
    check_progress(progress, 0, work)

    d.doc["materials"] = [
        {"name": "foliage", "doubleSided": True,
         "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0.0,
                                  "roughnessFactor": 0.9}},
        {"name": "terrain", "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1],
                                                     "metallicFactor": 0.0, "roughnessFactor": 1.0}}]
    roots = []
    # foliage type meshes first: small, kept in memory until written
    folder = _mesh_folder(scene)
    names = selected_types(scene, options)
    type_meshes: dict[str, IndexedMesh] = {}
    mesh_index: dict[str, int] = {}
    for name in names:
        volume = volume_of(scene)
        ftype = volume.palette.get(name) if volume is not None else None
        mesh = type_mesh(ftype, folder, conv) if ftype is not None else None
        if mesh is None:  # stored records of a type the palette lost: a stand-in bush
            from model.foliage.foliage_type import FoliageType
            mesh = type_mesh(FoliageType(name, "builtin:bush"), folder, conv)
        type_meshes[name] = mesh
        mesh_index[name] = _lay_out_mesh(d, mesh, name, 0, _type_extras(scene, name))

    # terrain: laid out from a first pass over the tiles (POSITION needs its exact bounds)
    if tiles:
        tile_nodes = []
        for k, tile in enumerate(terrain_tiles(scene.terrain, step, options.region, conv)):
            layers = {f"COLOR_{g + 1}": list(tile.weight_names[4 * g:4 * g + 4])
                      for g in range(-(-len(tile.weight_names) // 4))}
            extras = {KEY: {"terrain": True, "layers": layers, **tile.extras}}
            m = _lay_out_mesh(d, tile, f"terrain_{k}", 1, extras)
            tile_nodes.append(d.node(name=tile.name, mesh=m))
        roots.append(d.node(name="Terrain", children=tile_nodes, extras={KEY: {"terrain": True}}))

    # foliage nodes
    type_nodes: dict[str, list[int]] = {name: [] for name in names}
    if options.gpu_instancing:
        for type_name, cell, n in counts:
            view = d.view(n * INSTANCE_BYTES)
            attrs = {}
            offset = 0
            for key, kind, width in (("TRANSLATION", "VEC3", 3), ("ROTATION", "VEC4", 4),
                                     ("SCALE", "VEC3", 3), (YPR, "VEC3", 3)):
                attrs[key] = d.accessor(view, FLOAT, n, kind, offset)
                offset += 4 * width * n
            type_nodes[type_name].append(d.node(
                name=f"{type_name} {cell[0]},{cell[1]}", mesh=mesh_index[type_name],
                extensions={EXT: {"attributes": attrs}}, extras={KEY: {"cell": list(cell)}}))
        if counts:
            d.doc["extensionsUsed"] = [EXT]
    else:
        for chunk in instance_chunks(scene, options):
            t, r, s, ypr = _instance_arrays(chunk.records, conv)
            mesh = mesh_index[chunk.type_name]
            children = [d.node(mesh=mesh, translation=t[i].tolist(), rotation=r[i].tolist(),
                               scale=s[i].tolist(), extras={KEY: {"ypr": ypr[i].tolist()}})
                        for i in range(len(t))]
            type_nodes[chunk.type_name].append(d.node(
                name=f"{chunk.type_name} {chunk.cell[0]},{chunk.cell[1]}", children=children,
                extras={KEY: {"cell": list(chunk.cell)}}))
            done += len(t)
            check_progress(progress, done, work)
    foliage_children = [d.node(name=name, children=type_nodes[name], extras=_type_extras(scene, name))
                        for name in names]
    roots.append(d.node(name="Foliage", children=foliage_children, extras={KEY: {"foliage": True}}))
    d.doc["scenes"] = [{"name": scene.name, "nodes": roots}]
    type_counts: dict[str, int] = {}
    for type_name, _, n in counts:
        type_counts[type_name] = type_counts.get(type_name, 0) + n
    d.doc["asset"]["extras"] = {KEY: {
        "version": FORMAT_VERSION, "scene": scene.name,
        "conventions": {"up": conv.up, "handedness": conv.handedness, "units": conv.units},
        "instances": total_instances, "types": type_counts}}
    bin_size = (d.size + 3) & ~3
    buffer = {"byteLength": bin_size}
    bin_path = path.with_suffix(".bin")
    if not binary:
        buffer["uri"] = bin_path.name
    d.doc["buffers"] = [buffer] if bin_size else []
    if not bin_size:
        del d.doc["buffers"], d.doc["bufferViews"], d.doc["accessors"]
    for key in ("meshes", "materials", "nodes"):
        if not d.doc[key]:
            del d.doc[key]
    text = json.dumps(d.doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    text += b" " * (-len(text) % 4)
    views = d.doc.get("bufferViews", [])

    def stream(f) -> None:
        nonlocal done
        written = 0
        v = 0

        def emit(*arrays: np.ndarray) -> None:
            nonlocal written, v
            start = views[v]["byteOffset"]
            f.write(b"\0" * (start - written))
            n = 0
            for a in arrays:
                f.write(memoryview(np.ascontiguousarray(a)).cast("B"))
                n += a.nbytes
            if n != views[v]["byteLength"]:  # the layout and the data disagree: a bug, never a file
                raise RuntimeError(f"bufferView {v}: {n} bytes written, {views[v]['byteLength']} laid out")
            written = start + n
            v += 1

        for name in names:
            for block in _mesh_blocks(type_meshes[name]):
                emit(block)
        for tile in terrain_tiles(scene.terrain, step, options.region, conv) if tiles else ():
            for block in _mesh_blocks(tile):
                emit(block)
            done += tile.vertex_count
            check_progress(progress, done, work)
        if options.gpu_instancing:
            batch: list[np.ndarray] = []
            pending = 0

            def flush() -> None:
                nonlocal done, pending
                if not batch:
                    return
                records = np.concatenate(batch) if len(batch) > 1 else batch[0]
                t, r, s, ypr = _instance_arrays(records, conv)
                a = 0
                for part in batch:
                    b = a + len(part)
                    emit(t[a:b], r[a:b], s[a:b], ypr[a:b])
                    a = b
                done += len(records)
                batch.clear()
                pending = 0
                check_progress(progress, done, work)

            for chunk in instance_chunks(scene, options):
                batch.append(chunk.records)
                pending += len(chunk.records)
                if pending >= BATCH:
                    flush()
            flush()
        if v != len(views):
            raise RuntimeError(f"{v} of {len(views)} bufferViews written")
        f.write(b"\0" * (bin_size - written))

    if binary:
        def write_glb(f) -> None:
            total = 12 + 8 + len(text) + (8 + bin_size if bin_size else 0)
            f.write(struct.pack("<III", GLB_MAGIC, 2, total))
            f.write(struct.pack("<II", len(text), JSON_CHUNK))
            f.write(text)
            if bin_size:
                f.write(struct.pack("<II", bin_size, BIN_CHUNK))
                stream(f)
        atomic_write(path, write_glb)
        size = path.stat().st_size
    else:
        if bin_size:
            atomic_write(bin_path, stream)
        atomic_write(path, text)
        size = path.stat().st_size + (bin_path.stat().st_size if bin_size else 0)
    check_progress(progress, work, work)
    return ExportReport(path, total_instances, type_counts, t_vertices, size)
