"""glTF 2.0 foliage in: instances of `EXT_mesh_gpu_instancing` nodes, or meshes placed by two or
more plain nodes, with node transforms composed through the hierarchy, back in the scene frame.

Read with json and numpy rather than pygltflib, whose dataclass JSON took 15 s to parse the
30,000 accessors of a million-instance file; every index, count and offset is checked against what
the file holds before anything is allocated.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np

from model import portable_math as pmath
from model.errors import FormatError, refuse_link_outside
from model.formats.scene_file import side_file_size
from model.interchange.conventions import (
    Conventions,
    Transforms,
    from_target,
    quaternion_matrices,
    quaternions,
)
from model.interchange.geometry import IndexedMesh
from model.interchange.gltf import BIN_CHUNK, EXT, FLOAT, JSON_CHUNK, KEY, UBYTE, UINT, USHORT, YPR
from model.interchange.options import ImportedFoliage, Progress, check_instances, check_progress
from model.json_doc import REQUIRED, expect, field, numbers, parse_json

MAX_JSON_BYTES = 256 << 20
MAX_ZERO_COUNT = 1 << 16  # elements of an accessor without data (all zeros): more is a size lie
VARIANT_NAME = re.compile(r"(.+)\.v[1-9][0-9]*")  # see gltf.variant_mesh_name
COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
DTYPES = {FLOAT: np.float32, UBYTE: np.uint8, USHORT: np.uint16, UINT: np.uint32,
          5120: np.int8, 5122: np.int16}


def _load(path: Path) -> tuple[dict, bytes | None]:
    """The JSON document and the GLB binary chunk (None for .gltf)."""
    try:
        size = path.stat().st_size
        if path.suffix.lower() == ".gltf" and size > MAX_JSON_BYTES:
            raise FormatError(path, None, f"glTF JSON of {size:,} bytes is over the "
                              f"{MAX_JSON_BYTES:,}-byte limit")
        data = path.read_bytes()
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    if data[:4] == b"glTF":
        doc_bytes, blob = _glb_chunks(path, data)
    elif path.suffix.lower() == ".glb":
        raise FormatError(path, 0, "not a glTF file: a binary glTF (.glb) starts with 'glTF'")
    else:
        doc_bytes, blob = data, None
    if len(doc_bytes) > MAX_JSON_BYTES:
        raise FormatError(path, None, f"glTF JSON of {len(doc_bytes):,} bytes is over the limit")
    doc = parse_json(doc_bytes, path, what="glTF JSON (not a glTF file)")
    if not isinstance(doc, dict) or not isinstance(doc.get("asset"), dict):
        raise FormatError(path, "asset", "missing: not a glTF file")
    version = doc["asset"].get("version", "")
    if not isinstance(version, str) or not version.startswith("2."):
        raise FormatError(path, "asset.version", f"{version!r}; only glTF 2.0 is read")
    return doc, blob


def _glb_chunks(path: Path, data: bytes) -> tuple[bytes, bytes | None]:
    """The JSON and BIN chunks of a GLB, every length checked against the file."""
    if len(data) < 20:
        raise FormatError(path, 0, "not a glTF file: truncated GLB header")
    magic, version, length = struct.unpack_from("<III", data, 0)
    if version != 2:
        raise FormatError(path, 4, f"GLB version {version}; only glTF 2.0 is read")
    if length > len(data):
        raise FormatError(path, 8, f"GLB claims {length} bytes but the file has {len(data)}")
    pos, doc_bytes, blob = 12, None, None
    while pos + 8 <= length:
        n, kind = struct.unpack_from("<II", data, pos)
        if pos + 8 + n > length:
            raise FormatError(path, pos, f"chunk claims {n} bytes but only {length - pos - 8} remain")
        if kind == JSON_CHUNK and doc_bytes is None:
            doc_bytes = data[pos + 8:pos + 8 + n]
        elif kind == BIN_CHUNK and blob is None:
            blob = data[pos + 8:pos + 8 + n]
        pos += 8 + ((n + 3) & ~3)
    if doc_bytes is None:
        raise FormatError(path, 12, "GLB has no JSON chunk")
    return doc_bytes, blob


class _Reader:
    def __init__(self, path: Path, doc: dict, blob: bytes | None) -> None:
        self.path, self.doc, self.blob = path, doc, blob
        self.buffers: dict[int, memoryview] = {}

    def field(self, obj: dict, key: str, kind: str, where: str, default=None):
        return field(self.path, obj, key, kind, where, default)

    def _list(self, key: str) -> list:
        return self.field(self.doc, key, "array", "", [])

    def item(self, key: str, index, where: str) -> dict:
        items = self._list(key)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(items):
            raise FormatError(self.path, where, f"refers to {key}[{index!r}], which does not exist")
        return expect(self.path, items[index], "object", f"{key}[{index}]")

    def indices(self, obj: dict, key: str, where: str) -> list[int]:
        """An array of indices (`children`, a scene's `nodes`), each checked to be a whole number."""
        values = self.field(obj, key, "array", where, [])
        for k, v in enumerate(values):
            expect(self.path, v, "index", f"{where}.{key}[{k}]")
        return values

    def buffer(self, index: int, where: str) -> memoryview:
        if index in self.buffers:
            return self.buffers[index]
        place = f"buffers[{index}]"
        b = self.item("buffers", index, where)
        length = self.field(b, "byteLength", "index", place, REQUIRED)
        uri = self.field(b, "uri", "string", place)
        if uri is None:
            if index != 0 or self.blob is None:
                raise FormatError(self.path, place, "has no uri and the file no binary chunk")
            data = self.blob
        elif uri.startswith("data:"):
            data = _data_uri(self.path, uri, length, f"{place}.uri")
        else:
            data = _buffer_file(self.path, uri, length, f"{place}.uri")
        if length > len(data):
            raise FormatError(self.path, f"{place}.byteLength",
                              f"{length} but the data holds {len(data)} bytes")
        self.buffers[index] = memoryview(data)[:length]  # a view: no copy of the binary chunk
        return self.buffers[index]

    def accessor(self, index, where: str, kinds: tuple[str, ...], raw: bool = False) -> np.ndarray:
        """Accessor data as float64 (n, components), normalized integers scaled to 0..1; with
        `raw`, a copy in the stored type. Every size is checked against its view, the view against
        its buffer and the buffer against the file before anything is allocated."""
        place = f"accessors[{index}]"
        a = self.item("accessors", index, where)
        kind = self.field(a, "type", "string", place, REQUIRED)
        component = self.field(a, "componentType", "integer", place, REQUIRED)
        count = self.field(a, "count", "index", place, REQUIRED)
        normalized = self.field(a, "normalized", "boolean", place, False)
        if kind not in kinds:
            raise FormatError(self.path, f"{place}.type", f"{kind!r}; expected {' or '.join(kinds)}")
        if component not in DTYPES:
            raise FormatError(self.path, f"{place}.componentType", f"{component} is not supported")
        dtype = np.dtype(DTYPES[component]).newbyteorder("<")
        width = COMPONENTS[kind]
        if "bufferView" not in a:  # all zeros by definition (sparse accessors are not used for foliage)
            if count > MAX_ZERO_COUNT:
                raise FormatError(self.path, place, f"has no bufferView and claims {count:,} elements; "
                                  f"an accessor without data may hold at most {MAX_ZERO_COUNT:,}")
            return np.zeros((count, width), dtype if raw else np.float64)
        view_index = self.field(a, "bufferView", "index", place)
        view_place = f"bufferViews[{view_index}]"
        view = self.item("bufferViews", view_index, f"{place}.bufferView")
        v_off = self.field(view, "byteOffset", "index", view_place, 0)
        v_len = self.field(view, "byteLength", "index", view_place, REQUIRED)
        stride = self.field(view, "byteStride", "index", view_place, 0)
        a_off = self.field(a, "byteOffset", "index", place, 0)
        buffer_index = self.field(view, "buffer", "index", view_place, REQUIRED)
        declared = self.field(self.item("buffers", buffer_index, f"{view_place}.buffer"), "byteLength",
                              "index", f"buffers[{buffer_index}]", REQUIRED)
        if v_off + v_len > declared:
            raise FormatError(self.path, view_place, f"bytes {v_off}..{v_off + v_len} lie outside its "
                              f"buffer of {declared} bytes")
        elem = dtype.itemsize * width
        stride = stride or elem
        if stride < elem or stride > 252:
            raise FormatError(self.path, f"{view_place}.byteStride", f"{stride} must be {elem} to 252")
        needed = a_off + (stride * (count - 1) + elem if count else 0)
        if needed > v_len:
            raise FormatError(self.path, place, f"{count:,} elements need {needed:,} bytes but its view "
                              f"holds {v_len:,}")
        data = self.buffer(buffer_index, f"{view_place}.buffer")  # its size checked against the file
        data_raw = np.ndarray((count, width), dtype, buffer=data, offset=v_off + a_off,
                              strides=(stride, dtype.itemsize))
        if raw:
            return data_raw.astype(dtype.newbyteorder("="))
        out = data_raw.astype(np.float64)
        if normalized and component != FLOAT:
            out /= float(np.iinfo(dtype).max)
        if component == FLOAT and not np.isfinite(out).all():
            raise FormatError(self.path, place, "holds NaN or infinity")
        return out

    def raw_float32(self, index, width: int) -> np.ndarray | None:
        """Float32 accessor data exactly as stored, or None when it is not tight float32."""
        a = self.item("accessors", index, "accessors")
        kind = a.get("type")
        if (a.get("componentType") != FLOAT or not isinstance(kind, str) or COMPONENTS.get(kind) != width
                or "bufferView" not in a):
            return None
        return self.accessor(index, "accessors", (a["type"],), raw=True)


def _data_uri(path: Path, uri: str, length: int, where: str) -> bytes:
    """A base64 `data:` URI's bytes; its decoded size (3/4 of its text) is bounded by the file's."""
    import base64
    import binascii

    head, comma, payload = uri.partition(",")
    if not comma or not head.endswith(";base64"):
        raise FormatError(path, where, "a data URI must be base64 (data:…;base64,…)")
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise FormatError(path, where, "bad base64 in the data URI") from None


def _buffer_file(path: Path, uri: str, length: int, where: str) -> bytes:
    """A buffer file the document names: a relative path inside the file's folder (no NUL, no
    `%00`, no way out), a regular file (a FIFO is refused before it is opened) of known size."""
    from urllib.parse import unquote

    name = unquote(uri)
    parts = name.replace("\\", "/").split("/")
    if ("\0" in name or name.startswith("/") or re.match(r"[A-Za-z]:", name) or "://" in uri
            or any(p == ".." for p in parts) or not name.strip() or name.endswith("/")):
        raise FormatError(path, where, f"buffer {uri[:80]!r} must be a relative file path inside "
                          "the file's folder")
    side = path.parent.joinpath(*[p for p in parts if p not in ("", ".")])
    refuse_link_outside(path.parent, side, "glTF buffer", "glTF file")  # a linked folder on the way too
    size = side_file_size(path, side, "glTF buffer")
    if size < length:
        raise FormatError(side, None, f"glTF buffer file holds {size} bytes; {path.name} says {length}")
    try:
        with open(side, "rb") as f:
            return f.read(length)
    except OSError as e:
        raise FormatError(side, None, f"cannot read the glTF buffer: {e.strerror or e}") from None


def _local_matrix(node: dict, path: Path, where: str) -> np.ndarray:
    if "matrix" in node:
        m = np.asarray(numbers(path, node["matrix"], 16, f"{where}.matrix"), np.float64)
        return m.reshape(4, 4).T  # column-major
    out = np.eye(4)
    if "translation" not in node and "rotation" not in node and "scale" not in node:
        return out  # most nodes: no transform of their own
    t = np.asarray(numbers(path, node.get("translation", [0, 0, 0]), 3, f"{where}.translation"))
    q = np.asarray(numbers(path, node.get("rotation", [0, 0, 0, 1]), 4, f"{where}.rotation"))
    s = np.asarray(numbers(path, node.get("scale", [1, 1, 1]), 3, f"{where}.scale"))
    if not q.any():
        raise FormatError(path, f"{where}.rotation", "a zero quaternion is no rotation")
    out[:3, :3] = quaternion_matrices(q)[0] * s
    out[:3, 3] = t
    if not np.isfinite(out).all():
        raise FormatError(path, where, "its transform overflows")
    return out


def _decompose(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(n, 4, 4) → translations (n, 3), quaternions (n, 4), uniform scales (n,), any non-uniform."""
    lin = m[:, :3, :3]
    s3 = np.linalg.norm(lin, axis=1)  # column norms
    scale = s3.mean(axis=1)
    uneven = bool(np.any(np.abs(s3 - scale[:, None]) > 1e-4 * np.maximum(scale[:, None], 1e-12)))
    rot = lin / np.where(s3 > 0, s3, 1.0)[:, None, :]
    det = pmath.det3(rot)
    mirrored = det < 0
    rot[mirrored] *= -1.0  # a mirrored instance: flip it back, scale turns negative
    scale = np.where(mirrored, -scale, scale)
    return m[:, :3, 3].copy(), quaternions(rot), scale, uneven


def _conventions_of(doc: dict) -> Conventions:
    extras = doc["asset"].get("extras")
    conv = extras.get(KEY, {}).get("conventions") if isinstance(extras, dict) else None
    if isinstance(conv, dict):
        try:
            return Conventions(conv.get("up", "y"), conv.get("handedness", "right"), conv.get("units", "m"))
        except (ValueError, TypeError):  # not ours, or edited beyond use: glTF's own frame
            pass
    return Conventions()  # glTF's own frame: +Y up, right-handed, metres


def _ours(obj: dict) -> dict:
    extras = obj.get("extras")
    value = extras.get(KEY) if isinstance(extras, dict) else None
    return value if isinstance(value, dict) else {}


def read_gltf_foliage(path: str | Path, progress: Progress | None = None) -> ImportedFoliage:
    """Foliage instances of a glTF file: nodes with EXT_mesh_gpu_instancing, or meshes placed by two
    or more plain nodes; transforms composed through the node hierarchy, in the scene frame. Types
    are named by our extras, else the mesh's name. Meshes placed once (a terrain, a building) and
    the terrain we write are not foliage."""
    path = Path(path)
    doc, blob = _load(path)
    r = _Reader(path, doc, blob)
    conv = _conventions_of(doc)
    nodes = r._list("nodes")
    meshes = r._list("meshes")
    scenes = r._list("scenes")
    if scenes:
        si = r.field(doc, "scene", "index", "", 0)
        roots = r.indices(r.item("scenes", si, "scene"), "nodes", f"scenes[{si}]")
    else:
        children = {c for i in range(len(nodes))
                    for c in r.indices(r.item("nodes", i, "nodes"), "children", f"nodes[{i}]")}
        roots = [i for i in range(len(nodes)) if i not in children]
    result = ImportedFoliage()

    # walk the hierarchy once: world matrix, and the nearest type name from our extras
    instanced: list[tuple[int, np.ndarray, str | None, dict]] = []  # node, world, type, extras
    plain: dict[int, list[tuple]] = {}
    type_extras: dict[str, dict] = {}
    terrain_meshes: set[int] = set()
    stack = [(i, np.eye(4), None, False, 0) for i in reversed(roots)]
    seen = 0
    while stack:
        index, parent, type_name, terrain, depth = stack.pop()
        where = f"nodes[{index}]"
        node = r.item("nodes", index, "scene")
        seen += 1
        if depth > 64 or seen > 10 * len(nodes) + 1:
            raise FormatError(path, where, "node hierarchy is cyclic or too deep")
        world = pmath.matmul(parent, _local_matrix(node, path, where))
        ours = _ours(node)
        if ours.get("terrain"):
            terrain = True
        if isinstance(ours.get("type"), str):
            type_name = ours["type"]
            if isinstance(ours.get("palette"), dict):
                type_extras[type_name] = ours["palette"]
        mesh = r.field(node, "mesh", "index", where)
        if mesh is not None:
            m = r.item("meshes", mesh, f"{where}.mesh")
            if terrain or _ours(m).get("terrain"):
                terrain_meshes.add(mesh)
            else:
                extensions = r.field(node, "extensions", "object", where, {})
                ext = r.field(extensions, EXT, "object", f"{where}.extensions")
                if ext is not None:
                    instanced.append((index, world, type_name, ext))
                else:
                    ypr = ours.get("ypr")
                    if ypr is not None:
                        ypr = numbers(path, ypr, 3, f"{where}.extras.{KEY}.ypr")
                    if np.array_equal(parent, np.eye(4)) and "matrix" not in node:
                        trs = (node.get("translation", [0.0, 0.0, 0.0]),
                               node.get("rotation", [0.0, 0.0, 0.0, 1.0]), node.get("scale", [1.0, 1.0, 1.0]))
                    else:
                        trs = None
                    plain.setdefault(mesh, []).append((world, type_name, ypr, trs, index))
        for c in reversed(r.indices(node, "children", where)):
            stack.append((c, world, type_name, terrain, depth + 1))

    def name_of(mesh_index: int, type_name: str | None) -> str:
        m = meshes[mesh_index]
        mo = _ours(m)
        if isinstance(mo.get("type"), str):
            if isinstance(mo.get("palette"), dict):
                type_extras.setdefault(mo["type"], mo["palette"])
            return type_name or mo["type"]
        if type_name:
            return type_name
        name = m.get("name") if isinstance(m.get("name"), str) and m.get("name") else f"mesh_{mesh_index}"
        variant = VARIANT_NAME.fullmatch(name)  # `NAME.vK`, our variant mesh, with its extras lost
        return variant.group(1) if variant else name

    parts: dict[str, list[np.ndarray]] = {}
    origins: dict[str, list[tuple[int, str | list[str]]]] = {}  # type -> (first row, node or nodes)

    def add_part(name: str, records: np.ndarray, where: str | list[str]) -> None:
        origins.setdefault(name, []).append((sum(len(p) for p in parts.get(name, [])), where))
        parts.setdefault(name, []).append(records)

    def place_of(name: str, row: int) -> str:
        first, where = next((f, w) for f, w in reversed(origins[name]) if f <= row)
        return where[row - first] if isinstance(where, list) else f"{where} instance {row - first}"
    mesh_of_type: dict[str, int] = {}
    total = sum(1 for _ in instanced) + sum(len(v) for v in plain.values())
    done = 0
    uneven = False
    for index, world, type_name, ext in instanced:
        node = nodes[index]
        name = name_of(node["mesh"], type_name)
        mesh_of_type.setdefault(name, node["mesh"])
        attrs = ext.get("attributes")
        where = f"nodes[{index}].extensions.{EXT}.attributes"
        if not isinstance(attrs, dict) or not attrs:
            raise FormatError(path, where, "missing")
        if conv.is_identity and {"TRANSLATION", "SCALE", YPR} <= set(attrs) and \
                np.array_equal(world, np.eye(4)):
            raw = [r.raw_float32(attrs[k], 3) for k in ("TRANSLATION", YPR, "SCALE")]
            counts = {len(x) for x in raw if x is not None}
            if "ROTATION" in attrs:
                rotation = r.item("accessors", attrs["ROTATION"], f"{where}.ROTATION")
                counts.add(r.field(rotation, "count", "index", f"accessors[{attrs['ROTATION']}]"))
            if all(x is not None for x in raw) and len(counts) == 1:  # ours: the records as written
                s3 = raw[2]
                uneven |= bool(np.any(np.abs(s3 - s3[:, :1]) > 1e-6 * np.abs(s3[:, :1])))
                add_part(name, np.concatenate([raw[0], raw[1], s3[:, :1]], axis=1),
                         f"nodes[{index}].extensions.{EXT}")
                done += 1
                check_progress(progress, done, total)
                continue
        count = None
        data = {}
        for key, kinds in (("TRANSLATION", ("VEC3",)), ("ROTATION", ("VEC4",)), ("SCALE", ("VEC3",)),
                           (YPR, ("VEC3",))):
            if key in attrs:
                data[key] = r.accessor(attrs[key], f"{where}.{key}", kinds)
                if count is not None and len(data[key]) != count:
                    raise FormatError(path, f"{where}.{key}", "count differs from the other attributes")
                count = len(data[key])
        if count is None:
            raise FormatError(path, where, "no TRANSLATION, ROTATION or SCALE")
        t = data.get("TRANSLATION", np.zeros((count, 3)))
        q = data.get("ROTATION", np.tile([0.0, 0.0, 0.0, 1.0], (count, 1)))
        s = data.get("SCALE", np.ones((count, 3)))
        exact = bool(np.array_equal(world, np.eye(4)))
        if exact:
            pos, rot, scl = t, q, s
            uneven |= bool(np.any(np.abs(s - s[:, :1]) > 1e-6 * np.abs(s[:, :1])))
            scl = s[:, 0]
        else:
            local = Transforms(t, q, np.ones(count)).matrices()
            local[:, :3, :3] *= s[:, None, :]
            pos, rot, scl, u = _decompose(pmath.matmul(world[None], local))
            uneven |= u
        records = from_target(pos, rot, scl, conv)
        if exact:
            raw_t = r.raw_float32(attrs["TRANSLATION"], 3) if "TRANSLATION" in attrs else None
            raw_s = r.raw_float32(attrs["SCALE"], 3) if "SCALE" in attrs else None
            if conv.is_identity and raw_t is not None:
                records[:, :3] = raw_t
            if raw_s is not None:
                records[:, 6] = raw_s[:, 0]
        if YPR in data and exact:
            raw = r.raw_float32(attrs[YPR], 3)
            if raw is not None:
                records[:, 3:6] = raw
        add_part(name, records, f"nodes[{index}].extensions.{EXT}")
        done += 1
        check_progress(progress, done, total)
    for mesh_index, placed in plain.items():
        by_name: dict[str, list] = {}
        for world, type_name, ypr, trs, node_index in placed:
            by_name.setdefault(name_of(mesh_index, type_name), []).append((world, ypr, trs, node_index))
        for name, items in by_name.items():
            if len(items) < 2 and not _ours(meshes[mesh_index]).get("type"):
                result.warnings.append(f"mesh {name!r} is placed once: not taken as foliage")
                continue
            mesh_of_type.setdefault(name, mesh_index)
            if all(trs is not None for _, _, trs, _ in items):  # as written: no composition needed
                pos = np.asarray([trs[0] for _, _, trs, _ in items], np.float64)
                rot = np.asarray([trs[1] for _, _, trs, _ in items], np.float64)
                s3 = np.asarray([trs[2] for _, _, trs, _ in items], np.float64)
                uneven |= bool(np.any(np.abs(s3 - s3[:, :1]) > 1e-6 * np.abs(s3[:, :1])))
                scl = s3[:, 0]
            else:
                pos, rot, scl, u = _decompose(np.stack([w for w, *_ in items]))
                uneven |= u
            records = from_target(pos, rot, scl, conv)
            ypr = [y for _, y, _, _ in items]
            if all(isinstance(y, list) and len(y) == 3 for y in ypr):
                records[:, 3:6] = np.asarray(ypr, np.float64).astype(np.float32)
            add_part(name, records, [f"nodes[{n}]" for *_, n in items])
            done += len(items)
            check_progress(progress, done, total)
    if uneven:
        result.warnings.append("some instances are scaled unevenly: their mean scale is used")
    # our own meshes name their type and variant: the type's mesh is its first variant's
    variant_of: dict[str, dict[int, int]] = {}
    for index, m in enumerate(meshes):
        mo = _ours(m) if isinstance(m, dict) else {}
        variant = mo.get("variant", 0)
        if isinstance(mo.get("type"), str) and isinstance(variant, int) and not isinstance(variant, bool):
            variant_of.setdefault(mo["type"], {}).setdefault(variant, index)
    for name in sorted(parts):
        result.records[name] = np.concatenate(parts[name]).astype(np.float32)
        check_instances(path, name, result.records[name], lambda row, n=name: place_of(n, row))
        palette = type_extras.get(name)
        if palette is not None:
            result.extras[name] = palette
        mesh = palette.get("mesh", "builtin:conifer") if palette is not None else None
        mine = variant_of.get(name, {})
        if isinstance(mesh, str) and mesh.startswith("builtin:"):
            result.meshes[name] = mesh
        else:
            result.meshes[name] = mesh_geometry(r, mine.get(0, mesh_of_type[name]), result.warnings)
        listed = palette.get("variants") if palette is not None else None
        for k, v in enumerate(listed if isinstance(listed, list) else []):
            file_mesh = isinstance(v, dict) and isinstance(v.get("mesh"), str) and \
                not v["mesh"].startswith("builtin:")
            if file_mesh and k in mine:  # a file mesh of the exporting scene: its geometry travels
                result.variant_meshes.setdefault(name, {})[k] = mesh_geometry(r, mine[k], result.warnings)
    return result


def mesh_geometry(r: _Reader, mesh_index: int, warnings: list[str] | None = None) -> IndexedMesh | None:
    """Every triangle primitive of a mesh as one IndexedMesh, with texture coordinates and each
    primitive's material (`model.foliage.gltf_mesh`: images that cannot be used are warnings);
    None when it has no triangles."""
    from model.foliage.gltf_mesh import _Materials
    from model.foliage.materials import Material

    m = r.item("meshes", mesh_index, "meshes")
    where = f"meshes[{mesh_index}]"
    looks = _Materials(r)
    pieces: list[tuple] = []
    materials: list[Material] = []
    material_of: dict[int | None, int] = {}
    has_colours = has_uvs = False
    for k, prim in enumerate(r.field(m, "primitives", "array", where, [])):
        place = f"{where}.primitives[{k}]"
        expect(r.path, prim, "object", place)
        if r.field(prim, "mode", "integer", place, 4) != 4:
            continue
        attrs = r.field(prim, "attributes", "object", place, {})
        if "POSITION" not in attrs:
            continue
        pos = r.accessor(attrs["POSITION"], place, ("VEC3",)).astype(np.float32)
        normals = (r.accessor(attrs["NORMAL"], place, ("VEC3",)).astype(np.float32)
                   if "NORMAL" in attrs else np.zeros_like(pos))
        colours = (r.accessor(attrs["COLOR_0"], place, ("VEC3", "VEC4"))[:, :3].astype(np.float32)
                   if "COLOR_0" in attrs else None)
        uvs = r.accessor(attrs["TEXCOORD_0"], place, ("VEC2",)).astype(np.float32) \
            if "TEXCOORD_0" in attrs else None
        if "indices" in prim:
            idx = r.accessor(prim["indices"], f"{place}.indices", ("SCALAR",))[:, 0]
            indices = idx.astype(np.uint32)
        else:
            indices = np.arange(len(pos), dtype=np.uint32)
        for name, values in (("NORMAL", normals), ("COLOR_0", colours), ("TEXCOORD_0", uvs)):
            if values is not None and len(values) != len(pos):
                raise FormatError(r.path, f"{place}.attributes.{name}", f"{len(values)} values for "
                                  f"{len(pos)} vertices")
        if len(indices) % 3 or (len(indices) and indices.max() >= len(pos)):
            raise FormatError(r.path, f"{place}.indices", "refer to missing vertices")
        material = r.field(prim, "material", "index", place)
        if material not in material_of:
            material_of[material] = len(materials)
            materials.append(looks.material(material) if material is not None
                             else Material(double_sided=False))
        has_colours |= colours is not None
        has_uvs |= uvs is not None
        pieces.append((pos, normals, colours, uvs, indices, material_of[material]))
    if warnings is not None:
        warnings.extend(looks.warnings)
    if not pieces:
        return None
    base, first, parts, idx = 0, 0, [], []
    for pos, _, _, _, indices, material in pieces:
        idx.append(indices + np.uint32(base))
        parts.append((material, first, len(indices)))
        base += len(pos)
        first += len(indices)
    ones = [np.ones((len(p[0]), 3), np.float32) for p in pieces]
    zeros = [np.zeros((len(p[0]), 2), np.float32) for p in pieces]
    return IndexedMesh(
        str(m.get("name", f"mesh_{mesh_index}")), np.concatenate([p[0] for p in pieces]),
        np.concatenate([p[1] for p in pieces]), np.concatenate(idx),
        np.concatenate([p[2] if p[2] is not None else o for p, o in zip(pieces, ones, strict=True)])
        if has_colours else None,
        uvs=np.concatenate([p[3] if p[3] is not None else z for p, z in zip(pieces, zeros, strict=True)])
        if has_uvs else None,
        materials=tuple(materials), parts=tuple(parts))
