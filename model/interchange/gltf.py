"""glTF 2.0 out: `.glb`, or `.gltf` + `.bin` (read back by `model.interchange.gltf_reader`).

Written by hand rather than through pygltflib: its dataclass JSON took 0.8 s to write and 15 s to
parse the 30,000 accessors of a million-instance export, and its GLB writer wants the whole binary
chunk in memory. The container is a 12-byte header and two chunks, so the document is laid out
first (every size is known from the chunk counts) and the binary chunk is then streamed batch by
batch; pygltflib and trimesh read our files back in the tests, as independent readers.

Layout: `Terrain` (one node per tile) and `Foliage` → one node per type (name and palette keys in
`extras`) → one node per 256 m tile (TILE_CELLS² cells; a tile over GROUP instances gets several)
and variant, carrying the variant's mesh with `EXT_mesh_gpu_instancing` (TRANSLATION, ROTATION,
SCALE, `_BOSCAGE_YPR`: the record's exact yaw/pitch/roll, so our reader restores records bit for
bit, and `_BOSCAGE_HUE_VALUE` for a type with colour variation). Each accessor has a tight view of
its own (no byteStride); the views of consecutive nodes, about GROUP instances in all, lie back to
back in one block per attribute, computed batch by batch in memory and written in file order.
Materials (`gltf_materials`): each type mesh has one primitive per material, sharing its vertex
accessors, with TEXCOORD_0 where it is textured; images are PNG, in the binary chunk of a `.glb` (after
the terrain tiles' data, before the instances') and as files in `<stem>_textures/` beside a `.gltf`
(written before the document that names them). The terrain's look is baked into a base-colour image
per tile (`terrain_bake`, which says why).
With `gpu_instancing=False`: one node per chunk with a plain
child node per instance. A type with variants has one mesh per variant (`NAME`, `NAME.v1`, …); an
instance's variant and colour shift come from its position hash (`model.foliage.variants`), as in
the viewport.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote

import numpy as np

from model.atomic import atomic_write
from model.foliage.foliage_type import foliage_type_to_dict
from model.interchange.conventions import Conventions, angle_quaternions, target_positions
from model.interchange.geometry import (
    IndexedMesh,
    terrain_samples,
    terrain_tile_count,
    terrain_tiles,
    terrain_vertex_count,
    variant_mesh,
)
from model.interchange.gltf_materials import TERRAIN, GltfMaterials
from model.interchange.instances import (
    TypeLook,
    instance_chunks,
    selected_types,
    tiled_chunks,
    type_look,
    volume_of,
)
from model.interchange.options import (
    DEFAULT_OPTIONS,
    ExportOptions,
    ExportReport,
    Progress,
    check_progress,
)
from model.interchange.terrain_bake import bake_tile, terrain_looks, texels_per_quad
from model.interchange.textures import texture_folder_name
from model.scene import Scene

EXT = "EXT_mesh_gpu_instancing"
YPR = "_BOSCAGE_YPR"
HUE_VALUE = "_BOSCAGE_HUE_VALUE"  # per-instance colour shift: hue degrees, value change
KEY = "boscage"  # our key inside `extras`
FORMAT_VERSION = 1
FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
GLB_MAGIC, JSON_CHUNK, BIN_CHUNK = 0x46546C67, 0x4E4F534A, 0x004E4942
INSTANCE_BYTES = 4 * (3 + 4 + 3 + 3)  # translation, rotation, scale, yaw/pitch/roll
BATCH = 16384  # instances converted at once: bounded memory, and temporaries small enough to be reused
GROUP = 1 << 16  # instances per EXT_mesh_gpu_instancing node, and per block written, about at most
TILE_CELLS = 8   # a node's tile: 8 × 8 cells (256 m), colocated instances an engine culls together


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
        return self.length("bufferViews") - 1

    def reserve(self, nbytes: int) -> int:
        """`nbytes` of the binary chunk, 4-byte aligned, for views laid out later (`view_at`)."""
        self.size = (self.size + 3) & ~3
        start = self.size
        self.size += int(nbytes)
        return start

    def view_at(self, offset: int, nbytes: int) -> int:
        """A view of reserved bytes."""
        self.doc["bufferViews"].append({"buffer": 0, "byteOffset": int(offset), "byteLength": int(nbytes)})
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
        return len(self.doc[key])

    def attribute(self, array: np.ndarray, kind: str, component: int = FLOAT, normalized: bool = False,
                  bounds: bool = False, target: int | None = ARRAY_BUFFER) -> int:
        view = self.view(array.nbytes, target)
        return self.accessor(view, component, len(array), kind, normalized=normalized,
                             bounds=array if bounds else None)


def _mesh_arrays(mesh: IndexedMesh) -> tuple[list[tuple[str, np.ndarray, str, int, bool]], np.ndarray]:
    """(attribute, array, type, component, normalized) of each vertex attribute, and the indices."""
    attrs = [("POSITION", np.ascontiguousarray(mesh.positions, np.float32), "VEC3", FLOAT, False),
             ("NORMAL", np.ascontiguousarray(mesh.normals, np.float32), "VEC3", FLOAT, False)]
    if mesh.uvs is not None:
        attrs.append(("TEXCOORD_0", np.ascontiguousarray(mesh.uvs, np.float32), "VEC2", FLOAT, False))
    if mesh.colours is not None:
        attrs.append(("COLOR_0", np.ascontiguousarray(mesh.colours, np.float32), "VEC3", FLOAT, False))
    elif mesh.weights is not None and mesh.weights.shape[1]:
        # a baked tile: its texture is the colour, but the weights' COLOR_1… need a COLOR_0 (sets
        # are numbered from 0), and COLOR_0 multiplies the texture: white
        attrs.append(("COLOR_0", np.full((mesh.vertex_count, 4), 255, np.uint8), "VEC4", UBYTE, True))
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


def _lay_out_mesh(d: _Document, mesh: IndexedMesh, name: str, materials: list[int], extras: dict) -> int:
    """The mesh's views and accessors, one primitive per material part (`materials`: the glTF
    material of each of `mesh.material_parts()`), the parts sharing the vertex accessors."""
    attrs, indices = _mesh_arrays(mesh)
    attributes = {}
    for key, array, kind, component, normalized in attrs:
        attributes[key] = d.attribute(array, kind, component, normalized, bounds=key == "POSITION")
    component = USHORT if indices.dtype == np.uint16 else UINT
    view = d.view(indices.nbytes, ELEMENT_ARRAY_BUFFER)
    primitives = []
    for material, (_, first, count) in zip(materials, mesh.material_parts(), strict=True):
        idx = d.accessor(view, component, count, "SCALAR", offset=first * indices.itemsize)
        primitives.append({"attributes": attributes, "indices": idx, "material": material, "mode": 4})
    d.doc["meshes"].append({"name": name, "primitives": primitives, "extras": extras})
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
    """The document as compact JSON."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def _type_extras(scene: Scene, name: str) -> dict:
    volume = volume_of(scene)
    ftype = volume.palette.get(name) if volume is not None else None
    extras: dict = {"type": name}
    if ftype is not None:
        extras["palette"] = json_safe(foliage_type_to_dict(ftype))
    return {KEY: extras}


def mesh_folder(scene: Scene) -> Path | None:
    """Where the palette's mesh files resolve: the volume's mesh folder, else the scene's."""
    volume = volume_of(scene)
    if volume is not None and volume.mesh_folder is not None:
        return Path(volume.mesh_folder)
    return scene.path.parent if scene.path is not None else None


@dataclass
class _Node:
    """One EXT_mesh_gpu_instancing node per variant: the chunks `start:end` of its type's list,
    all in one tile, up to about GROUP instances."""

    tile: tuple[int, int]
    start: int
    end: int
    count: int
    variant_counts: np.ndarray  # instances of each variant (one entry: no variants)
    part: int = 0               # which node of its tile (a tile over GROUP instances has several)


@dataclass
class _Window:
    """Whole consecutive nodes of a type, about GROUP instances in all, written as one tight block
    per attribute (their accessors' views back to back in it): computed in memory batch by
    batch, then written in order, so the file is written front to back."""

    first: int                  # nodes[first:end] of the type
    end: int
    count: int
    regions: list[int] = field(default_factory=list)  # byte offset of each attribute's block


@dataclass
class _TypePlan:
    """A type's chunks in tile order (pieces of at most BATCH instances) and its nodes."""

    name: str
    look: TypeLook
    parts: list[np.ndarray]
    counts: np.ndarray
    nodes: list[_Node]
    windows: list[_Window] = field(default_factory=list)

    def batches(self, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
        """Ranges of parts in `start:end` holding about BATCH instances each, cut where a part's
        first instance starts a new BATCH (vectorised: a million instances are 16,000 chunks)."""
        end = len(self.parts) if end is None else end
        n = self.counts[start:end]
        cuts = (np.flatnonzero(np.diff((np.cumsum(n) - n) // BATCH)) + 1 + start).tolist()
        return list(zip([start, *cuts], [*cuts, end], strict=True))


def _plan(name: str, cells: np.ndarray, parts: list[np.ndarray], look: TypeLook) -> _TypePlan:
    n = np.fromiter(map(len, parts), np.int64, len(parts))
    if n.max() > BATCH:  # a chunk over BATCH: cut into pieces, each keeping its cell
        pieces = [(c, p[i:i + BATCH]) for c, p in zip(cells.tolist(), parts, strict=True)
                  for i in range(0, len(p), BATCH)]
        cells = np.array([c for c, _ in pieces], np.int64).reshape(-1, 2)
        parts = [p for _, p in pieces]
        n = np.fromiter(map(len, parts), np.int64, len(parts))
    plan = _TypePlan(name, look, parts, n, [])
    # a node starts where the tile changes, or where its tile's instances pass another GROUP
    tiles = cells // TILE_CELLS
    new_tile = np.ones(len(parts), bool)
    new_tile[1:] = np.any(tiles[1:] != tiles[:-1], axis=1)
    first = np.cumsum(n) - n
    tile_first = first[np.flatnonzero(new_tile)][np.cumsum(new_tile) - 1]  # first instance of the tile
    block = (first - tile_first) // GROUP
    new_node = new_tile.copy()
    new_node[1:] |= block[1:] != block[:-1]
    starts = np.flatnonzero(new_node)
    ends = [*starts[1:].tolist(), len(parts)]
    counts = np.add.reduceat(n, starts).tolist()
    for x, y, count, tile, j in zip(starts.tolist(), ends, counts, tiles[starts].tolist(),
                                    block[starts].tolist(), strict=True):
        variants = np.zeros(look.variants, np.int64)
        if look.variants == 1:
            variants[0] = count
        else:
            for u, v in plan.batches(x, y):
                variants += np.bincount(look.variant_of(_concat(parts[u:v]), name), minlength=look.variants)
        plan.nodes.append(_Node((tile[0], tile[1]), x, y, count, variants, j))
    first = total = 0
    for i, node in enumerate(plan.nodes):  # windows of whole nodes, each about GROUP instances
        if total and total + node.count > GROUP:
            plan.windows.append(_Window(first, i, total))
            first, total = i, 0
        total += node.count
    plan.windows.append(_Window(first, len(plan.nodes), total))
    return plan


def _concat(parts: list[np.ndarray], into: np.ndarray | None = None) -> np.ndarray:
    """The parts' records as one array: into the start of `into` (a reused buffer big enough)
    when given."""
    if len(parts) == 1:
        return parts[0]
    if into is None:
        return np.concatenate(parts)
    return np.concatenate(parts, out=into[:sum(map(len, parts))])


def _instance_attributes(look: TypeLook) -> list[tuple[str, str, int]]:
    """(attribute, accessor type, float32 values) of each instance attribute, in file order."""
    attrs = [("TRANSLATION", "VEC3", 3), ("ROTATION", "VEC4", 4), ("SCALE", "VEC3", 3), (YPR, "VEC3", 3)]
    if look.shifted:
        attrs.append((HUE_VALUE, "VEC2", 2))
    return attrs


def _fill_instances(records: np.ndarray, type_name: str, look: TypeLook, conventions: Conventions,
                    out: list[np.ndarray]) -> list[np.ndarray]:
    """Each instance attribute of `records` into its (n, width) float32 array of `out` (one tight
    block per attribute: the layout of the accessors' views)."""
    t, r, s, ypr = out[:4]
    # column by column: numpy copies a strided column faster than a block three values wide
    if conventions.is_identity:
        for i in range(3):
            t[:, i] = records[:, i]  # as stored: bit for bit
    else:
        t[:] = target_positions(records[:, 0:3], conventions)
    angle_quaternions(records[:, 3:6], conventions, single=True, out=r)
    for i in range(3):
        s[:, i] = records[:, 6]
        ypr[:, i] = records[:, 3 + i]
    if look.shifted:
        out[4][:] = look.shifts_of(records, type_name)
    return out


def variant_mesh_name(type_name: str, variant: int) -> str:
    """glTF mesh name of a type's variant: the type's name for the first, `NAME.vK` for the others
    (what a reader without our extras maps back to the type)."""
    return type_name if variant == 0 else f"{type_name}.v{variant}"


def write_gltf(scene: Scene, path: str | Path, options: ExportOptions = DEFAULT_OPTIONS,
               progress: Progress | None = None) -> ExportReport:
    """Write `.glb` (one file) or `.gltf` + `<stem>.bin` beside it; atomic, cancellable."""
    path = Path(path)
    binary = path.suffix.lower() == ".glb"
    conv = options.conventions
    d = _Document()
    names = selected_types(scene, options)
    # every type's chunks, once, in tile order: views of the volume's arrays (copies only of cells
    # the region cuts)
    tiled = tiled_chunks(scene, options, TILE_CELLS)
    looks = {name: type_look(scene, name) for name in names}
    type_counts = {name: sum(map(len, parts)) for name, (_, parts) in tiled.items()}
    total_instances = sum(type_counts.values())
    step = options.terrain_step
    tiles = terrain_tile_count(scene.terrain, step, options.region) if options.terrain else 0
    t_vertices = terrain_vertex_count(scene.terrain, step, options.region) if options.terrain else 0
    work = total_instances + t_vertices
    done = 0
    check_progress(progress, 0, work)

    mats = GltfMaterials()
    warnings: list[str] = []
    roots = []
    # foliage meshes first (one per variant): small, kept in memory until written
    folder = mesh_folder(scene)
    type_meshes: list[IndexedMesh] = []
    mesh_index: dict[tuple[str, int], int] = {}
    volume = volume_of(scene)
    for name in names:
        ftype = volume.palette.get(name) if volume is not None else None
        if ftype is None:  # stored records of a type the palette lost: a stand-in bush
            from model.foliage.foliage_type import FoliageType
            ftype = FoliageType(name, "builtin:bush")
        laid: dict[str, int] = {}  # a mesh two variants name is written once
        for k, mesh in enumerate(ftype.meshes):
            if mesh not in laid:
                geometry = variant_mesh(ftype, k, folder, conv)
                extras = _type_extras(scene, name) if k == 0 else {KEY: {"type": name, "variant": k}}
                owner = variant_mesh_name(name, k)
                materials = [mats.material(m, owner) for m, _, _ in geometry.material_parts()]
                laid[mesh] = _lay_out_mesh(d, geometry, owner, materials, extras)
                type_meshes.append(geometry)
            mesh_index[(name, k)] = laid[mesh]

    # terrain: laid out from a first pass over the tiles (POSITION needs its exact bounds), each
    # tile's look baked on the way where a layer has an albedo texture
    layer_looks = None
    if tiles:
        layer_looks = terrain_looks_of(scene, warnings)
        if layer_looks is not None:
            work += t_vertices  # the bake: about as long as the tiles themselves
        rows, cols = terrain_samples(scene.terrain, step, options.region)
        texels = texels_per_quad(len(rows), len(cols))
        tile_nodes = []
        for k, tile in enumerate(terrain_tiles(scene.terrain, step, options.region, conv,
                                               uvs=layer_looks is not None)):
            layers = {f"COLOR_{g + 1}": list(tile.weight_names[4 * g:4 * g + 4])
                      for g in range(-(-len(tile.weight_names) // 4))}
            extras = {KEY: {"terrain": True, "layers": layers, **tile.extras}}
            material = TERRAIN
            if layer_looks is not None:
                material = mats.terrain_tile(baked_tile(scene, layer_looks, tile, step, texels), tile.name)
                tile = replace(tile, colours=None)
                done += tile.vertex_count
                check_progress(progress, done, work)
            m = _lay_out_mesh(d, tile, f"terrain_{k}", [material], extras)
            tile_nodes.append(d.node(name=tile.name, mesh=m))
        roots.append(d.node(name="Terrain", children=tile_nodes, extras={KEY: {"terrain": True}}))

    # images: in the binary chunk of a .glb; files in `<stem>_textures/` beside a .gltf
    texture_folder = path.parent / texture_folder_name(path.stem)
    if binary:
        image_refs = [{"bufferView": d.view(len(image.data)), "mimeType": "image/png"}
                      for image in mats.images.images]
    else:
        image_refs = [{"uri": quote(f"{texture_folder.name}/{image.name}")} for image in mats.images.images]
    mats.to_document(d.doc, image_refs)

    # foliage nodes
    type_nodes: dict[str, list[int]] = {name: [] for name in names}
    plans: list[_TypePlan] = []
    if options.gpu_instancing:
        # One node per tile of 8 × 8 cells (more where a tile holds over GROUP instances) and
        # variant: the JSON stays small for millions of instances and an engine culls colocated
        # instances together. Each accessor has a tight view of its own (no byteStride: what every
        # reader of the extension takes); a window of consecutive nodes has one block per
        # attribute holding their views back to back, filled batch by batch across node
        # boundaries, then written: the file is written front to back, in bounded memory.
        for name, (cells, parts) in tiled.items():
            look = looks[name]
            plan = _plan(name, cells, parts, look)
            plans.append(plan)
            attrs = _instance_attributes(look)
            for window in plan.windows:
                window.regions = [d.reserve(4 * width * window.count) for *_, width in attrs]
                row = 0
                for node in plan.nodes[window.first:window.end]:
                    for k in range(look.variants):
                        count = int(node.variant_counts[k])
                        if not count:
                            continue
                        attributes = {}
                        for (key, kind, width), region in zip(attrs, window.regions, strict=True):
                            view = d.view_at(region + 4 * width * row, 4 * width * count)
                            attributes[key] = d.accessor(view, FLOAT, count, kind)
                        row += count
                        label = f"{variant_mesh_name(name, k)} {node.tile[0]},{node.tile[1]}"
                        ours = {"tile": list(node.tile)} | ({"variant": k} if look.variants > 1 else {})
                        type_nodes[name].append(d.node(
                            name=label + (f" #{node.part + 1}" if node.part else ""),
                            mesh=mesh_index[(name, k)], extensions={EXT: {"attributes": attributes}},
                            extras={KEY: ours}))
        if plans:
            d.doc["extensionsUsed"] = [EXT]
    else:
        for chunk in instance_chunks(scene, options):
            look = looks[chunk.type_name]
            t, r, s, ypr = _instance_arrays(chunk.records, conv)
            variant = look.variant_of(chunk.records, chunk.type_name).tolist()
            children = [d.node(mesh=mesh_index[(chunk.type_name, variant[i])], translation=t[i].tolist(),
                               rotation=r[i].tolist(), scale=s[i].tolist(),
                               extras={KEY: {"ypr": ypr[i].tolist()}})
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
    views = d.doc.get("bufferViews", [])

    def stream(f) -> None:
        nonlocal done
        written = 0
        v = 0

        def pad_to(start: int) -> None:
            nonlocal written
            f.write(b"\0" * (start - written))
            written = start

        def emit(array: np.ndarray) -> None:
            nonlocal written
            f.write(memoryview(np.ascontiguousarray(array)).cast("B"))
            written += array.nbytes

        def check_view(index: int) -> None:  # the layout and the data disagree: a bug, never a file
            end = views[index]["byteOffset"] + views[index]["byteLength"]
            if written != end:
                raise RuntimeError(f"bufferView {index}: data ends at {written}, laid out to end at {end}")

        for mesh in type_meshes:
            for block in _mesh_blocks(mesh):
                pad_to(views[v]["byteOffset"])
                emit(block)
                check_view(v)
                v += 1
        for tile in terrain_tiles(scene.terrain, step, options.region, conv,
                                  uvs=layer_looks is not None) if tiles else ():
            if layer_looks is not None:
                tile = replace(tile, colours=None)
            for block in _mesh_blocks(tile):
                pad_to(views[v]["byteOffset"])
                emit(block)
                check_view(v)
                v += 1
            done += tile.vertex_count
            check_progress(progress, done, work)
        for image in mats.images.images if binary else ():
            pad_to(views[v]["byteOffset"])
            emit(np.frombuffer(image.data, np.uint8))
            check_view(v)
            v += 1
        blocks: dict[tuple[int, int], np.ndarray] = {}  # a window's rows of each attribute
        gathered = np.empty((2 * BATCH, 7), np.float32)  # a batch's records (parts are ≤ BATCH)

        def put(plan: _TypePlan, out: list[np.ndarray], rec: np.ndarray, row: int) -> int:
            """The records' attributes into the window's rows from `row`; the next row."""
            nonlocal done
            _fill_instances(rec, plan.name, plan.look, conv, [block[row:row + len(rec)] for block in out])
            done += len(rec)
            check_progress(progress, done, work)
            return row + len(rec)

        for plan in plans:
            attrs = _instance_attributes(plan.look)
            for window in plan.windows:
                out = []
                for k, (_, _, width) in enumerate(attrs):
                    if len(blocks.get((k, width), ())) < window.count:  # a window: at most a node past GROUP
                        blocks[(k, width)] = np.empty((max(window.count, GROUP + BATCH), width), np.float32)
                    out.append(blocks[(k, width)][:window.count])
                row = 0
                nodes = plan.nodes[window.first:window.end]
                if plan.look.variants == 1:  # batches running across node boundaries
                    for a, b in plan.batches(nodes[0].start, nodes[-1].end):
                        row = put(plan, out, _concat(plan.parts[a:b], gathered), row)
                else:
                    for node in nodes:  # each variant's node holds its instances: a pass per variant
                        ranges = plan.batches(node.start, node.end)
                        chosen = [plan.look.variant_of(_concat(plan.parts[a:b]), plan.name)
                                  for a, b in ranges]
                        for k in range(plan.look.variants):
                            for (a, b), variant in zip(ranges, chosen, strict=True):
                                rec = _concat(plan.parts[a:b])[variant == k]
                                if len(rec):
                                    row = put(plan, out, rec, row)
                if row != window.count:  # the layout and the data disagree: a bug, never a file
                    raise RuntimeError(f"{plan.name}: {row} instances computed, {window.count} laid out")
                for region, block in zip(window.regions, out, strict=True):
                    pad_to(region)
                    emit(block)
        pad_to(bin_size)

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
        for image in mats.images.images:  # before the document that names them
            atomic_write(texture_folder / image.name, image.data)
        if bin_size:
            atomic_write(bin_path, stream)
        atomic_write(path, text)
        size = path.stat().st_size + (bin_path.stat().st_size if bin_size else 0) + \
            sum(len(image.data) for image in mats.images.images)
    if progress is not None:
        progress(work, work)  # done: the files are in place, so this report cannot cancel
    return ExportReport(path, total_instances, type_counts, t_vertices, size, warnings)


def terrain_looks_of(scene: Scene, warnings: list[str]):
    """The layers' looks for the bake, or None when no layer has a readable albedo map."""
    return terrain_looks(scene.terrain, scene.textures_folder(), warnings)


def baked_tile(scene: Scene, looks, tile: IndexedMesh, step: int, texels: int) -> np.ndarray:
    """A tile's base colour image: `texels` texels along each exported quad."""
    rows, cols = tile.extras["rows"], tile.extras["columns"]
    size = (-(-(rows[1] - rows[0]) * texels // step), -(-(cols[1] - cols[0]) * texels // step))
    return bake_tile(scene.terrain, looks, tuple(rows), tuple(cols), size)



def mesh_glb(mesh: IndexedMesh) -> bytes:
    """One mesh as a `.glb` with its materials and images (a foliage mesh an import writes beside
    the scene; `model.foliage.gltf_mesh` reads it back with its look)."""
    d = _Document()
    mats = GltfMaterials()
    owner = mesh.name or "mesh"
    materials = [mats.material(m, owner) for m, _, _ in mesh.material_parts()]
    m = _lay_out_mesh(d, mesh, owner, materials, {})
    del d.doc["meshes"][m]["extras"]
    image_refs = [{"bufferView": d.view(len(image.data)), "mimeType": "image/png"}
                  for image in mats.images.images]
    mats.to_document(d.doc, image_refs)
    d.doc["scenes"] = [{"nodes": [d.node(name=owner, mesh=m)]}]
    size = (d.size + 3) & ~3
    d.doc["buffers"] = [{"byteLength": size}]
    text = _dumps(d.doc)
    text += b" " * (-len(text) % 4)
    blocks = _mesh_blocks(mesh) + [np.frombuffer(image.data, np.uint8) for image in mats.images.images]
    binary = bytearray(size)
    for view, block in zip(d.doc["bufferViews"], blocks, strict=True):
        data = memoryview(np.ascontiguousarray(block)).cast("B")
        binary[view["byteOffset"]:view["byteOffset"] + len(data)] = data
    return b"".join([struct.pack("<III", GLB_MAGIC, 2, 12 + 8 + len(text) + 8 + size),
                     struct.pack("<II", len(text), JSON_CHUNK), text,
                     struct.pack("<II", size, BIN_CHUNK), bytes(binary)])
