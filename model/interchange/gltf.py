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
from model.interchange.conventions import Conventions, angle_quaternions, target_positions
from model.interchange.geometry import (
    IndexedMesh,
    terrain_tile_count,
    terrain_tiles,
    terrain_vertex_count,
    type_mesh,
)
from model.interchange.instances import instance_chunks, selected_types, volume_of
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
BATCH = 16384  # instances converted at once: bounded memory, and temporaries small enough to be reused


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
@dataclass(frozen=True)
class _Fragment:
    """`count` list items already rendered as JSON text (comma-separated)."""

    text: str
    count: int


@dataclass
class _Document:
    """The JSON document being laid out, and the binary chunk's views in file order."""

    doc: dict = field(default_factory=lambda: {
        "asset": {"version": "2.0", "generator": "Boscage"}, "scene": 0, "scenes": [], "nodes": [],
        "meshes": [], "materials": [], "accessors": [], "bufferViews": [], "buffers": []})
    size: int = 0
    _counted: dict = field(default_factory=dict)  # list -> (items looked at, their count)

    def view(self, nbytes: int, target: int | None = None) -> int:
        self.size = (self.size + 3) & ~3  # every view starts 4-byte aligned
        v = {"buffer": 0, "byteOffset": self.size, "byteLength": int(nbytes)}
        if target is not None:
            v["target"] = target
        self.doc["bufferViews"].append(v)
        self.size += int(nbytes)
        return self.length("bufferViews") - 1

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
        return self.length("accessors") - 1

    def node(self, **fields) -> int:
        self.doc["nodes"].append({k: v for k, v in fields.items() if v is not None and v != []})
        return self.length("nodes") - 1

    def length(self, key: str) -> int:
        """Items in the list `key`, fragments counted by what they hold (kept, not recounted:
        plain-node exports append one node per instance)."""
        items = self.doc[key]
        seen, total = self._counted.get(key, (0, 0))
        for x in items[seen:]:
            total += x.count if isinstance(x, _Fragment) else 1
        self._counted[key] = (len(items), total)
        return total

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


def _instance_arrays(records: np.ndarray | list[np.ndarray],
                     conventions: Conventions) -> tuple[np.ndarray, ...]:
    """float32 translation (n, 3), rotation (n, 4), scale (n, 3), yaw/pitch/roll (n, 3) of one
    array of records or of several (concatenated first: one C loop, not one slice per chunk)."""
    if isinstance(records, list):
        records = np.concatenate(records) if len(records) > 1 else records[0]

    def column(sl: slice) -> np.ndarray:
        return np.ascontiguousarray(records[:, sl])

    positions = column(slice(0, 3))  # as stored: bit for bit
    if not conventions.is_identity:
        positions = target_positions(positions, conventions).astype(np.float32)
    ypr = column(slice(3, 6))
    rotations = angle_quaternions(ypr, conventions, single=True)
    scale = np.empty((len(ypr), 3), np.float32)
    scale[:] = column(slice(6, 7))
    return positions, rotations, scale, ypr


def _dumps(doc: dict) -> bytes:
    """The document as compact JSON, with the pre-rendered fragments spliced into their lists."""
    def dump(value) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

    parts = []
    for key, value in doc.items():
        if isinstance(value, list) and any(isinstance(v, _Fragment) for v in value):
            items = ",".join(v.text if isinstance(v, _Fragment) else dump(v) for v in value)
            parts.append(f"{dump(key)}:[{items}]")
        else:
            parts.append(f"{dump(key)}:{dump(value)}")
    return ("{" + ",".join(parts) + "}").encode("utf-8")


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
    # the chunks, once: views of the volume's arrays (copies only of cells the region cuts)
    chunks = list(instance_chunks(scene, options))
    counts = [(c.type_name, c.cell, len(c.records)) for c in chunks]
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
    instance_start = (d.size + 3) & ~3  # instance views follow, back to back (52 n bytes each)
    batches: list[tuple[int, int, int]] = []  # (first chunk, end chunk, instances)
    if options.gpu_instancing and counts:
        # Chunks are grouped in batches of about BATCH instances; a batch has four views (all its
        # translations, rotations, scales, angles) and each chunk's accessors point into them, so
        # the data streams out as four arrays per batch. The JSON of the ~16,000 chunks of a
        # million instances is rendered by one `%` per type: dicts through json.dumps cost more
        # than the binary chunk.
        n = np.array([c for *_, c in counts], np.int64)
        start = 0
        while start < len(counts):
            end, total = start, 0
            while end < len(counts) and (total < BATCH or end == start):
                total += int(n[end])
                end += 1
            batches.append((start, end, total))
            start = end
        view0, acc0, node0 = d.length("bufferViews"), d.length("accessors"), d.length("nodes")
        view_of = np.empty(len(counts), np.int64)   # first of the chunk's batch's four views
        local = np.empty(len(counts), np.int64)     # the chunk's first instance within its batch
        views_json = []
        offset = instance_start
        for b, (first, end, total) in enumerate(batches):
            view_of[first:end] = view0 + 4 * b
            local[first:end] = np.concatenate([[0], np.cumsum(n[first:end])[:-1]])
            for width in (12, 16, 12, 12):
                views_json.append(f'{{"buffer":0,"byteOffset":{offset},"byteLength":{width * total},'
                                  f'"byteStride":{width}}}')
                offset += width * total
        acc = ('{"bufferView":%d,"byteOffset":%d,"componentType":5126,"count":%d,"type":"VEC3"},'
               '{"bufferView":%d,"byteOffset":%d,"componentType":5126,"count":%d,"type":"VEC4"},'
               '{"bufferView":%d,"byteOffset":%d,"componentType":5126,"count":%d,"type":"VEC3"},'
               '{"bufferView":%d,"byteOffset":%d,"componentType":5126,"count":%d,"type":"VEC3"}')
        v = view_of
        acc_text = ",".join([acc] * len(counts)) % tuple(np.column_stack(
            [v, 12 * local, n, v + 1, 16 * local, n, v + 2, 12 * local, n, v + 3, 12 * local, n]
        ).ravel().tolist())
        node_parts = []
        first = 0
        groups: dict[str, list[int]] = {}
        for i, (t, _, _) in enumerate(counts):
            groups.setdefault(t, []).append(i)
        for type_name in names:
            mine = groups.get(type_name)
            if not mine:
                continue
            quoted = json.dumps(type_name, ensure_ascii=False)[:-1].replace("%", "%%")
            template = (f'{{"name":{quoted} %d,%d","mesh":{mesh_index[type_name]},"extensions":{{"{EXT}":'
                        f'{{"attributes":{{"TRANSLATION":%d,"ROTATION":%d,"SCALE":%d,"{YPR}":%d}}}}}},'
                        f'"extras":{{"{KEY}":{{"cell":[%d,%d]}}}}}}')
            cells = np.array([counts[i][1] for i in mine], np.int64).reshape(-1, 2)
            a = acc0 + 4 * np.asarray(mine, np.int64)
            values = np.column_stack([cells[:, 0], cells[:, 1], a, a + 1, a + 2, a + 3, cells[:, 0],
                                      cells[:, 1]])
            node_parts.append(",".join([template] * len(mine)) % tuple(values.ravel().tolist()))
            type_nodes[type_name] = list(range(node0 + first, node0 + first + len(mine)))
            first += len(mine)
        d.doc["bufferViews"].append(_Fragment(",".join(views_json), 4 * len(batches)))
        d.doc["accessors"].append(_Fragment(acc_text, 4 * len(counts)))
        d.doc["nodes"].append(_Fragment(",".join(node_parts), len(counts)))
        d.size = offset
        d.doc["extensionsUsed"] = [EXT]
    else:
        for chunk in chunks:
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
    text = _dumps(d.doc)
    text += b" " * (-len(text) % 4)
    views = [v for v in d.doc.get("bufferViews", []) if isinstance(v, dict)]

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
        if v != len(views):
            raise RuntimeError(f"{v} of {len(views)} bufferViews written")
        if batches:
            f.write(b"\0" * (instance_start - written))
            written = instance_start
            for first, end, total in batches:
                for array in _instance_arrays([c.records for c in chunks[first:end]], conv):
                    f.write(memoryview(array).cast("B"))
                    written += array.nbytes
                done += total
                check_progress(progress, done, work)
            if written != d.size:  # the layout and the data disagree: a bug, never a file
                raise RuntimeError(f"instance data ends at {written}, laid out to end at {d.size}")
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
    if progress is not None:
        progress(work, work)  # done: the files are in place, so this report cannot cancel
    return ExportReport(path, total_instances, type_counts, t_vertices, size)
