"""USD out and foliage back in, through Pixar's `usd-core` (`pxr`): `.usda`, `.usdc`, `.usdz`.

Layout of what we write (the stage's `defaultPrim` is `/World`):

- `/World/Terrain`: one UsdGeomMesh (the terrain tiles of `geometry.terrain_tiles` joined; tile
  edges repeat their vertices), vertex `normals`, `primvars:displayColor` (the viewport's blend)
  and one float primvar `primvars:weight_<layer>` (0..1) per paint layer; `boscage:layerNames`
  holds the layers' real names in primvar order.
- `/World/Foliage/<type>`: a UsdGeomPointInstancer with one prototype per variant mesh of the
  type (`Prototypes/<mesh>`, `Prototypes/<mesh>_v1`, …; each names its type in
  `boscage:typeName`, its index in `boscage:variant`), with `positions`, `orientations` (quath),
  `orientationsf` (quatf), `scales`, `protoIndices` (each instance's variant, from its position
  hash as the viewport picks it) and `ids` (0…n-1 in export order: the same scene exports the
  same ids). `boscage:typeName` holds the real name; every palette key of the type is a custom
  attribute `boscage:palette:<key>`; `primvars:boscage:yawPitchRoll` keeps the record's exact
  angles so our own importer restores records bit for bit; a type with colour variation has
  per-instance `primvars:boscage:hueShift` (degrees) and `primvars:boscage:valueShift`.

Materials (`usd_materials`): `UsdPreviewSurface` materials under `/World/Looks`, bound to the
prototype meshes (a GeomSubset per material) and to the terrain's tiles (a GeomSubset each, showing
its baked base colour); their PNG textures in `<stem>_textures/` beside a `.usda`/`.usdc`, inside a
`.usdz`.

Precision: quath has an 11-bit significand: components in [0.5, 1) step by 2^-11, so a
half-precision quaternion is off by up to 2.4e-4 per component (measured; about 5e-4 rad): 1e-5
cannot hold. The schema's `orientationsf` (quatf, which USD readers prefer when both are
authored) carries float precision (1.4e-7 measured); `orientations` stay for readers that know
only them (Blender 4.5 among them).

With `gpu_instancing=False` a type is plain prims instead: `/World/Foliage/<type>` is an Xform
(`boscage:layout = "prims"`) whose children are instanceable Xforms referencing their variant's
mesh under the abstract class prim `/Prototypes/<type>` (`/Prototypes/<type>_v1`, … for the other
variants), each with translate / orient (quatf) / scale (and the colour shift as constant primvars).

Conventions: USD space is right-handed by definition, so `upAxis` and `metersPerUnit` follow the
export's conventions and a left-handed target (Unity, Unreal) gets the right-handed frame with the
same up axis and unit: those engines' USD importers do the handedness change themselves.
Reading honours the stage's `upAxis` and `metersPerUnit` and each instancer's world transform.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from model import portable_math as pmath
from model.atomic import atomic_write, atomic_write_path, retarget, temp_folder
from model.errors import FormatError
from model.foliage.foliage_type import FoliageType, foliage_type_to_dict
from model.interchange.conventions import (
    Conventions,
    angle_quaternions,
    from_target,
    quaternion_matrices,
    quaternions,
    rotation_matrices,
)
from model.interchange.geometry import (
    IndexedMesh,
    terrain_samples,
    terrain_tiles,
    terrain_vertex_count,
    variant_mesh,
)
from model.interchange.gltf import baked_tile, json_safe, mesh_folder, terrain_looks_of
from model.interchange.instances import (
    TypeLook,
    selected_types,
    tiled_chunks,
    volume_of,
)
from model.interchange.options import (
    DEFAULT_OPTIONS,
    ExportOptions,
    ExportReport,
    ImportedFoliage,
    Progress,
    check_progress,
)
from model.interchange.terrain_bake import texels_per_quad
from model.interchange.textures import texture_folder_name
from model.interchange.usd_material_reader import MaterialReader, mesh_looks, read_st
from model.interchange.usd_materials import UsdLooks, write_st
from model.interchange.usd_preflight import check_crate, is_crate
from model.interchange.usdz_package import is_package, package_layers
from model.json_doc import parse_json
from model.scene import Scene

SUFFIXES = (".usda", ".usdc", ".usdz")
NS = "boscage:"
YPR_PRIMVAR = "boscage:yawPitchRoll"
YPR_ATTR = NS + "yawPitchRoll"  # on each prim of the plain-prims layout
HUE_PRIMVAR = "boscage:hueShift"      # per instance, degrees (types with colour variation)
VALUE_PRIMVAR = "boscage:valueShift"  # per instance, brightness change (-0.2: 20 % darker)
PALETTE_NS = NS + "palette:"
JSON_KEY = "boscageJson"  # custom data of a palette attribute holding a list of tables as JSON
BLOCK = 1 << 16  # instances converted at a time
_YPR_TOLERANCE = 1e-4  # |q·q'| ≥ 1 − this: the kept angles still describe the file's orientations


def _pxr():
    from pxr import Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt

    return Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt


def usd_frame(conventions: Conventions) -> Conventions:
    """The frame a USD file is written in: the conventions' up axis and unit, right-handed."""
    return Conventions(conventions.up, "right", conventions.units)


def ypr_quaternions(ypr: np.ndarray, frame: Conventions) -> np.ndarray:
    """(n, 4) float32 unit quaternions x y z w (w ≥ 0) of Ry·Rx·Rz (yaw, pitch, roll in radians)
    in a right-handed target frame: `conventions.angle_quaternions` in float32 (straight from the
    half angles; the basis change is a proper rotation, so it only turns the vector part)."""
    return angle_quaternions(ypr, frame, single=True)


def safe_name(name: str) -> str:
    """A valid USD prim name for any type or layer name (the real name travels in an attribute)."""
    from pxr import Tf

    return Tf.MakeValidIdentifier(name) or "_"


# ---- writing --------------------------------------------------------------------------------
def write_usd(scene: Scene, path: str | Path, options: ExportOptions = DEFAULT_OPTIONS,
              progress: Progress | None = None) -> ExportReport:
    """Write the scene's terrain and foliage as USD (format from the suffix), atomically; a
    cancelled export raises Cancelled and leaves any previous file untouched."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"{path.name}: not a USD file name (use {', '.join(SUFFIXES)})")
    frame = usd_frame(options.conventions)
    names = selected_types(scene, options)
    # every type's chunk records in cell order, in one pass (no Python object per chunk)
    tiled = tiled_chunks(scene, options, tile=1)
    per_type = {name: sum(map(len, tiled[name][1])) if name in tiled else 0 for name in names}
    instances = sum(per_type.values())
    t = scene.terrain
    terrain_vertices = terrain_vertex_count(t, options.terrain_step, options.region) if options.terrain else 0
    total = instances + terrain_vertices + 1
    done = 0
    check_progress(progress, done, total)
    warnings: list[str] = []
    with temp_folder(path) as tmp:  # beside the target, under the temp pattern: never left in /tmp
        layer = Sdf.Layer.CreateAnonymous("scene" + (".usda" if suffix == ".usda" else ".usdc"))
        stage = Usd.Stage.Open(layer)  # we hold the layer: it outlives the stage
        UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z if frame.up == "z" else UsdGeom.Tokens.y)
        UsdGeom.SetStageMetersPerUnit(stage, 1.0 / frame.unit_scale)
        world = UsdGeom.Xform.Define(stage, "/World")
        stage.SetDefaultPrim(world.GetPrim())
        stage.GetRootLayer().customLayerData = {
            "boscage": {"handedness": options.conventions.handedness, "units": frame.units,
                        "source": scene.name}}
        looks = UsdLooks(stage, texture_folder_name(path.stem))
        if options.terrain and terrain_vertices:
            _write_terrain(stage, scene, options, frame, looks, warnings)
            done += terrain_vertices
            check_progress(progress, done, total)
        if names:
            UsdGeom.Scope.Define(stage, "/World/Foliage")
        volume = volume_of(scene)
        folder = mesh_folder(scene)  # where the palette's mesh files resolve, as for glTF
        chunks = iter([records for name in names if name in tiled for records in tiled[name][1]])
        used: set[str] = set()
        plain: list[tuple] = []  # plain-prims types: path, type, class path per variant, count
        for type_name in names:
            ftype = volume.palette.get(type_name) if volume is not None else None
            ftype = ftype or FoliageType(type_name)
            prim_name = safe_name(type_name)
            while prim_name in used:
                prim_name += "_"
            used.add(prim_name)
            type_path = f"/World/Foliage/{prim_name}"
            if options.gpu_instancing:
                done = _write_instancer(stage, type_path, ftype, folder, frame, per_type[type_name], chunks,
                                        progress, done, total, looks)
            else:
                plain.append((type_path, ftype, _define_prims(stage, type_path, ftype, folder, frame, looks),
                              per_type[type_name]))
        del stage  # the layer lives on; plain prims are authored with no stage recomposing them
        for type_path, ftype, protos, count in plain:
            done = _write_prims(layer, type_path, ftype, protos, frame, count, chunks, progress, done, total)
        check_progress(progress, total - 1, total)

        images = looks.images.images
        if suffix != ".usdz":  # the textures beside the stage, each written atomically, before it
            try:
                for image in images:
                    atomic_write(path.parent / looks.folder / image.name, image.data)
            except OSError as e:  # said of the export the user named, not of a texture in its folder
                raise retarget(e, path) from None

        def export(target: Path) -> None:
            try:
                if suffix == ".usdz":  # a package of the crate layer and the textures it names
                    inner = Path(tmp) / "scene.usdc"
                    ok = layer.Export(str(inner))
                    # the package stamps each entry with its file's local time: a fixed one
                    stamp = time.mktime((1980, 1, 2, 0, 0, 0, 0, 0, -1))  # local midnight, any zone
                    for image in images:
                        file = Path(tmp) / looks.folder / image.name
                        atomic_write(file, image.data)
                        os.utime(file, (stamp, stamp))
                    if ok:
                        os.utime(inner, (stamp, stamp))
                        ok = UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(str(inner)), str(target))
                else:
                    ok = layer.Export(str(target))
            except Tf.ErrorException as e:
                raise OSError(f"could not write the USD file: {str(e).strip().splitlines()[-1]}") from None
            if not ok:
                raise OSError("could not write the USD file")

        atomic_write_path(path, export, suffix)  # the library writes by name: no copy through Python
    if progress is not None:
        progress(total, total)  # done: the file is written, so this can no longer cancel
    size = path.stat().st_size + (0 if suffix == ".usdz" else sum(len(i.data) for i in images))
    return ExportReport(path, instances, per_type, terrain_vertices if options.terrain else 0, size, warnings)


def _write_terrain(stage, scene: Scene, options: ExportOptions, frame: Conventions, looks: UsdLooks,
                   warnings: list[str]) -> None:
    """The terrain as one mesh; where a layer has an albedo map, one baked base-colour texture per
    tile (`terrain_bake`), each tile's faces a GeomSubset bound to its material."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    step = options.terrain_step
    layer_looks = terrain_looks_of(scene, warnings)
    tiles = list(terrain_tiles(scene.terrain, step, options.region, frame, uvs=layer_looks is not None))
    points, normals, colours, weights, indices = [], [], [], [], []
    base = 0
    for tile in tiles:
        points.append(tile.positions)
        normals.append(tile.normals)
        colours.append(tile.colours)
        weights.append(tile.weights)
        indices.append(tile.indices.astype(np.int32) + base)
        base += tile.vertex_count
    p = np.concatenate(points)
    mesh = UsdGeom.Mesh.Define(stage, "/World/Terrain")
    mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(p, np.float32)))
    idx = np.concatenate(indices)
    mesh.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(idx))
    mesh.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(idx) // 3, 3, np.int32)))
    mesh.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(np.concatenate(normals).astype(np.float32)))
    mesh.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
    mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    box = np.stack([p.min(axis=0), p.max(axis=0)]).astype(np.float32)
    mesh.CreateExtentAttr(Vt.Vec3fArray.FromNumpy(box))
    api = UsdGeom.PrimvarsAPI(mesh)
    api.CreatePrimvar("displayColor", Sdf.ValueTypeNames.Color3fArray, UsdGeom.Tokens.vertex).Set(
        Vt.Vec3fArray.FromNumpy(np.concatenate(colours).astype(np.float32)))
    layer_names = list(tiles[0].weight_names) if tiles else []
    w = np.concatenate(weights) if layer_names else None
    prim_names: list[str] = []
    for k, name in enumerate(layer_names):
        pv_name = "weight_" + safe_name(name)
        while pv_name in prim_names:
            pv_name += "_"
        prim_names.append(pv_name)
        api.CreatePrimvar(pv_name, Sdf.ValueTypeNames.FloatArray, UsdGeom.Tokens.vertex).Set(
            Vt.FloatArray.FromNumpy(w[:, k].astype(np.float32) / np.float32(255)))
    prim = mesh.GetPrim()
    prim.CreateAttribute(NS + "layerNames", Sdf.ValueTypeNames.StringArray, custom=True).Set(layer_names)
    prim.CreateAttribute(NS + "terrainStep", Sdf.ValueTypeNames.Int, custom=True).Set(int(step))
    if layer_looks is None:
        return
    write_st(prim, np.concatenate([tile.uvs for tile in tiles]))
    rows, cols = terrain_samples(scene.terrain, step, options.region)
    texels = texels_per_quad(len(rows), len(cols))
    parts, first = [], 0
    for tile in tiles:
        material = looks.terrain_tile(baked_tile(scene, layer_looks, tile, step, texels), tile.name)
        parts.append((material, first, tile.triangle_count, tile.name))
        first += tile.triangle_count
    looks.bind_parts(prim, parts)


def _write_mesh(stage, path: str, mesh: IndexedMesh, looks: UsdLooks, owner: str,
                scope: str = "/World/Looks") -> None:
    """A prototype's mesh with its materials (made under `scope`)."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    usd_mesh = UsdGeom.Mesh.Define(stage, path)
    p = np.ascontiguousarray(mesh.positions, np.float32)
    usd_mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(p))
    usd_mesh.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(mesh.indices.astype(np.int32)))
    usd_mesh.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(mesh.triangle_count, 3, np.int32)))
    usd_mesh.CreateNormalsAttr(Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(mesh.normals, np.float32)))
    usd_mesh.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
    usd_mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    usd_mesh.CreateExtentAttr(Vt.Vec3fArray.FromNumpy(np.stack([p.min(axis=0), p.max(axis=0)])))
    if mesh.colours is not None:
        UsdGeom.PrimvarsAPI(usd_mesh).CreatePrimvar(
            "displayColor", Sdf.ValueTypeNames.Color3fArray, UsdGeom.Tokens.vertex).Set(
            Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(mesh.colours, np.float32)))
    looks.bind(usd_mesh.GetPrim(), mesh, owner, scope)


def _write_palette_keys(prim, ftype: FoliageType) -> None:
    """Each palette key as a custom attribute: strings, numbers, ranges (double[]), tables nested."""
    from pxr import Sdf

    def put(name: str, value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                put(f"{name}:{k}", v)
        elif isinstance(value, str):
            prim.CreateAttribute(name, Sdf.ValueTypeNames.String, custom=True).Set(value)
        elif isinstance(value, bool):
            prim.CreateAttribute(name, Sdf.ValueTypeNames.Bool, custom=True).Set(value)
        elif isinstance(value, int | float):
            prim.CreateAttribute(name, Sdf.ValueTypeNames.Double, custom=True).Set(float(value))
        elif isinstance(value, list | tuple) and all(isinstance(v, int | float) and not isinstance(v, bool)
                                                     for v in value):
            prim.CreateAttribute(name, Sdf.ValueTypeNames.DoubleArray, custom=True).Set(
                [float(v) for v in value])
        elif isinstance(value, list | tuple):  # tables in a list (variants, lods): as JSON text
            attr = prim.CreateAttribute(name, Sdf.ValueTypeNames.String, custom=True)
            attr.Set(json.dumps(json_safe(value), ensure_ascii=False))
            attr.SetCustomDataByKey(JSON_KEY, True)

    for key, value in foliage_type_to_dict(ftype).items():
        if key != "name":
            put(PALETTE_NS + key, value)


def _type_attributes(prim, ftype: FoliageType) -> None:
    from pxr import Sdf

    prim.CreateAttribute(NS + "typeName", Sdf.ValueTypeNames.String, custom=True).Set(ftype.name)
    prim.CreateAttribute(NS + "mesh", Sdf.ValueTypeNames.String, custom=True).Set(ftype.mesh)
    _write_palette_keys(prim, ftype)


def _define_prims(stage, path: str, ftype: FoliageType, folder, frame: Conventions,
                  looks: UsdLooks) -> list[str]:
    """The group prim of a plain-prims type and its mesh as an abstract class prim (never drawn
    itself); returns the class's path, which each instance references."""
    from pxr import Sdf, UsdGeom

    group = UsdGeom.Xform.Define(stage, path)
    _type_attributes(group.GetPrim(), ftype)
    group.GetPrim().CreateAttribute(NS + "layout", Sdf.ValueTypeNames.Token, custom=True).Set("prims")
    stage.CreateClassPrim("/Prototypes")
    protos = []
    for k in range(len(ftype.meshes)):  # one class per variant: `<type>`, `<type>_v1`, …
        mesh = variant_mesh(ftype, k, folder, frame)
        proto = f"/Prototypes/{path.rsplit('/', 1)[1]}" + (f"_v{k}" if k else "")
        _variant_attributes(stage.CreateClassPrim(proto), ftype, k)
        # materials inside the class: a reference cannot reach prims outside what it references
        _write_mesh(stage, f"{proto}/{safe_name(mesh.name or 'mesh')}", mesh, looks,
                    f"{ftype.name}" + (f".v{k}" if k else ""), f"{proto}/Looks")
        protos.append(proto)
    return protos


def _variant_attributes(prim, ftype: FoliageType, variant: int) -> None:
    """On a variant's prototype: its type (so a reader maps it back to the type, not a new one),
    its index and its mesh."""
    from pxr import Sdf

    prim.CreateAttribute(NS + "typeName", Sdf.ValueTypeNames.String, custom=True).Set(ftype.name)
    prim.CreateAttribute(NS + "variant", Sdf.ValueTypeNames.Int, custom=True).Set(int(variant))
    prim.CreateAttribute(NS + "mesh", Sdf.ValueTypeNames.String, custom=True).Set(ftype.meshes[variant])


def _look(ftype: FoliageType) -> TypeLook:
    return TypeLook(tuple(ftype.weights), tuple(ftype.hue), tuple(ftype.value), tuple(ftype.meshes))


def _write_prims(layer, path: str, ftype: FoliageType, protos: list[str], frame: Conventions, n: int,
                 chunks, progress, done: int, total: int) -> int:
    """One type as plain prims: an Xform per instance, instanceable, referencing the type's mesh,
    with translate / orient (quatf) / scale ops.

    For importers that read PointInstancer orientations at half precision only (Blender 4.5):
    each transform here is full float precision. Slower and larger than an instancer: meant for
    thousands of instances, not millions. Authored on the layer with no stage open on it (a stage
    would recompose its instancing as the prims arrive)."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    # One instance's spec made once in a scratch layer, then copied per instance and filled in:
    # copying a spec costs about half of building it attribute by attribute from Python.
    scratch = Sdf.Layer.CreateAnonymous("instance.usdc")
    float3 = Sdf.ValueTypeNames.Float3
    names = ("xformOp:translate", "xformOp:orient", "xformOp:scale", YPR_ATTR)
    kinds = (float3, Sdf.ValueTypeNames.Quatf, float3, float3)
    look = _look(ftype)
    if look.shifted:  # colour variation as constant primvars of each instance
        names += ("primvars:" + HUE_PRIMVAR, "primvars:" + VALUE_PRIMVAR)
        kinds += (Sdf.ValueTypeNames.Float, Sdf.ValueTypeNames.Float)
    for k, proto in enumerate(protos):  # one template per variant: the reference differs
        template = Sdf.CreatePrimInLayer(scratch, f"/Instance{k}")
        template.specifier, template.typeName, template.instanceable = Sdf.SpecifierDef, "Xform", True
        template.referenceList.Prepend(Sdf.Reference(primPath=Sdf.Path(proto)))
        for name, kind in zip(names, kinds, strict=True):
            Sdf.AttributeSpec(template, name, kind)
        order = Sdf.AttributeSpec(template, "xformOpOrder", Sdf.ValueTypeNames.TokenArray,
                                  Sdf.VariabilityUniform)
        order.default = Vt.TokenArray(["xformOp:translate", "xformOp:orient", "xformOp:scale"])
    m, s = frame.basis.T, frame.unit_scale
    index = 0
    with Sdf.ChangeBlock():
        while index < n:
            rec = next(chunks)
            positions = rec[:, :3].astype(np.float64) @ m * s if not frame.is_identity else rec[:, :3]
            quats = ypr_quaternions(rec[:, 3:6], frame).tolist()
            scales = rec[:, 6].tolist()
            angles = rec[:, 3:6].tolist()
            variants = look.variant_of(rec, ftype.name).tolist()
            shifts = look.shifts_of(rec, ftype.name).tolist() if look.shifted else None
            for k, (x, y, z) in enumerate(positions.tolist()):
                prim = f"{path}/i{index}"
                Sdf.CopySpec(scratch, f"/Instance{variants[k]}", layer, prim)
                qx, qy, qz, qw = quats[k]
                scale = scales[k]
                values = (Gf.Vec3f(x, y, z), Gf.Quatf(qw, qx, qy, qz), Gf.Vec3f(scale, scale, scale),
                          Gf.Vec3f(*angles[k]), *(shifts[k] if shifts else ()))
                for name, value in zip(names, values, strict=True):
                    layer.GetAttributeAtPath(f"{prim}.{name}").default = value
                index += 1
            done += len(rec)
            check_progress(progress, done, total)
    return done


def _write_instancer(stage, path: str, ftype: FoliageType, folder, frame: Conventions, n: int,
                     chunks, progress, done: int, total: int, looks: UsdLooks) -> int:
    """One type's instancer, filled chunk by chunk from `chunks` (the shared, ordered iterator of
    every type's chunk records)."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    inst = UsdGeom.PointInstancer.Define(stage, path)
    _type_attributes(inst.GetPrim(), ftype)
    UsdGeom.Scope.Define(stage, f"{path}/Prototypes")
    look = _look(ftype)
    proto_paths, reach = [], 0.0
    for k in range(look.variants):  # one prototype per variant; protoIndices pick them
        mesh = variant_mesh(ftype, k, folder, frame)
        proto_path = f"{path}/Prototypes/{safe_name(mesh.name or 'mesh')}" + (f"_v{k}" if k else "")
        _write_mesh(stage, proto_path, mesh, looks, ftype.name + (f".v{k}" if k else ""))
        _variant_attributes(stage.GetPrimAtPath(proto_path), ftype, k)
        proto_paths.append(Sdf.Path(proto_path))
        reach = max(reach, float(np.abs(mesh.positions).max()) if mesh.vertex_count else 0.0)
    inst.CreatePrototypesRel().SetTargets(proto_paths)
    variants = np.zeros(n, np.int32)
    shifts = np.empty((n, 2), np.float32) if look.shifted else None
    positions = np.empty((n, 3), np.float32)
    quats = np.empty((n, 4), np.float32)
    scales = np.empty((n, 3), np.float32)
    ypr = np.empty((n, 3), np.float32)
    m, s, identity = frame.basis.T, frame.unit_scale, frame.is_identity
    offset = 0
    pending: list[np.ndarray] = []
    gathered = 0
    while offset < n:  # chunks gathered into blocks: one chunk is too small to vectorise well
        if offset + gathered < n:
            rec = next(chunks)
            pending.append(rec)
            gathered += len(rec)
            done += len(rec)
            check_progress(progress, done, total)
            if gathered < BLOCK and offset + gathered < n:
                continue
        block = np.concatenate(pending) if len(pending) > 1 else pending[0]
        pending, gathered = [], 0
        end = offset + len(block)
        if identity:
            positions[offset:end] = block[:, :3]
        else:  # a signed permutation (exact) times the unit, rounded once
            positions[offset:end] = block[:, :3].astype(np.float64) @ m * s
        scales[offset:end] = block[:, 6:7]
        ypr[offset:end] = block[:, 3:6]
        quats[offset:end] = ypr_quaternions(ypr[offset:end], frame)
        if look.variants > 1:
            variants[offset:end] = look.variant_of(block, ftype.name)
        if shifts is not None:
            shifts[offset:end] = look.shifts_of(block, ftype.name)
        offset = end
    if n:  # a conservative box: every instance's position ± its scale × the prototypes' reach
        reach *= float(np.abs(scales[:, 0]).max())
        # column by column: a reduction over axis 0 of an (n, 3) array is many times slower
        lo = np.array([positions[:, c].min() for c in range(3)]) - reach
        hi = np.array([positions[:, c].max() for c in range(3)]) + reach
        inst.CreateExtentAttr(Vt.Vec3fArray.FromNumpy(np.stack([lo, hi]).astype(np.float32)))
    # each array goes to USD and is dropped at once: the peak holds the arrays about once, not twice
    inst.CreatePositionsAttr(Vt.Vec3fArray.FromNumpy(positions))
    del positions
    inst.CreateOrientationsfAttr(Vt.QuatfArray.FromNumpy(quats))
    inst.CreateOrientationsAttr(Vt.QuathArray.FromNumpy(quats.astype(np.float16)))
    del quats
    inst.CreateScalesAttr(Vt.Vec3fArray.FromNumpy(scales))
    del scales
    UsdGeom.PrimvarsAPI(inst).CreatePrimvar(YPR_PRIMVAR, Sdf.ValueTypeNames.Float3Array,
                                             UsdGeom.Tokens.vertex).Set(Vt.Vec3fArray.FromNumpy(ypr))
    del ypr
    inst.CreateProtoIndicesAttr(Vt.IntArray.FromNumpy(variants))  # each instance's variant
    if shifts is not None:  # colour variation, per instance (the viewport's hue and value shift)
        api = UsdGeom.PrimvarsAPI(inst)
        for name, column in ((HUE_PRIMVAR, 0), (VALUE_PRIMVAR, 1)):
            api.CreatePrimvar(name, Sdf.ValueTypeNames.FloatArray, UsdGeom.Tokens.vertex).Set(
                Vt.FloatArray.FromNumpy(np.ascontiguousarray(shifts[:, column])))
    inst.CreateIdsAttr(Vt.Int64Array.FromNumpy(np.arange(n, dtype=np.int64)))
    return done


# ---- reading --------------------------------------------------------------------------------
LAYER_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")
MAX_LAYERS = 1024  # layers one import may pull in through sublayers, references, payloads, clips


MAX_DEPTH = 1000  # prims nested in prims (and variants): pxr walks them recursively, on the stack


def _asset_paths(layer, path: Path) -> list[tuple[str, str]]:
    """(asset path, where) of everything `layer` pulls in: sublayers, references, payloads (the
    composition dependencies) and value clips' asset paths, read from the layer alone. Prims nested
    deeper than MAX_DEPTH are refused first: pxr's own walks would overflow the stack."""
    found: list[tuple[str, str]] = []
    stack = [(spec, 1) for spec in layer.rootPrims]
    while stack:  # by hand, not `layer.Traverse`: no recursion at any depth
        spec, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise FormatError(path, f"{str(spec.path)[:60]}…", f"prims nested more than {MAX_DEPTH} deep")
        stack += [(child, depth + 1) for child in spec.nameChildren]
        for variant_set in spec.variantSets:
            stack += [(v.primSpec, depth + 1) for v in variant_set.variantList if v.primSpec]
        clips = spec.GetInfo("clips") if spec.HasInfo("clips") else None
        for name, clip_set in (dict(clips) if clips else {}).items():
            if not hasattr(clip_set, "get"):
                continue
            manifest = clip_set.get("manifestAssetPath")
            for v in [*(clip_set.get("assetPaths") or []), *([manifest] if manifest is not None else [])]:
                found.append((getattr(v, "path", str(v)), f"{spec.path} clips {name}"))
    deps = [(a, "sublayers/references/payloads") for a in layer.GetCompositionAssetDependencies()]
    return deps + found


def _reason(e: Exception) -> str:
    """The last line of pxr's error; its message quotes the file, which may not be UTF-8."""
    try:
        text = str(e).strip()
    except UnicodeDecodeError:  # raised while pxr's message is turned into a Python string
        return "it holds bytes that are not UTF-8 text"
    return text.splitlines()[-1].strip() if text else "unreadable"


def _confine_layers(path: Path) -> None:
    """Every layer the stage would compose, checked before composition: a file inside the input's
    folder (a link only inside it), a regular file (a FIFO is refused before it is opened);
    an asset path that leaves the folder is one FormatError naming it."""
    from pxr import Sdf, Tf

    from model.errors import refuse_link_outside
    from model.formats.scene_file import side_file_size

    folder = path.parent.resolve()
    queue, seen, inner = [path.resolve()], set(), set()
    while queue:
        layer_path = queue.pop()
        if layer_path in seen:
            continue
        seen.add(layer_path)
        if len(seen) > MAX_LAYERS:
            raise FormatError(path, None, f"pulls in more than {MAX_LAYERS} layers")
        if layer_path in inner:  # a layer inside a package: read with the whole package
            pass
        elif layer_path != path.resolve():  # the main file: `_open_stage`
            inner.update(more := _preflight(layer_path))
            queue += more
        elif is_package(layer_path):
            inner.update(more := _inner_layers(layer_path))
            queue += more
        try:
            layer = Sdf.Layer.FindOrOpen(str(layer_path))
        except Tf.ErrorException as e:
            raise FormatError(layer_path, None, f"not a readable USD file: {_reason(e)}") from None
        if layer is None:
            raise FormatError(layer_path, None, "not a readable USD file")
        for asset, where in _asset_paths(layer, layer_path):
            if not asset:
                continue
            if "\0" in asset or "%00" in asset.lower() or "://" in asset:
                raise FormatError(layer_path, where, f"asset path {asset[:80]!r} is not a file inside "
                                  "the input's folder; refused")
            resolved = layer.ComputeAbsolutePath(asset)
            outer = resolved.split("[", 1)[0]  # a file inside a .usdz package: its package
            target = Path(outer)
            if not (target.is_absolute() and target.resolve().is_relative_to(folder)
                    and Path(os.path.normpath(outer)).is_relative_to(folder)):
                raise FormatError(layer_path, where, f"asset path {asset[:80]!r} leaves the input's "
                                  f"folder ({folder}); refused")
            refuse_link_outside(folder, target, f"USD asset {asset[:80]!r}", "USD file")
            side_file_size(path, target, "USD layer")  # a regular file: a FIFO is never opened
            if (target.suffix.lower() in LAYER_SUFFIXES and "[" not in resolved) or is_package(target):
                queue.append(target.resolve())  # a package named with an entry: the whole package


def _preflight(path: Path) -> list[Path]:
    """A crate layer, or every layer of a package, read in a capped child first: a damaged count
    cannot exhaust memory here. The package's layers after its first (for `_confine_layers`)."""
    if is_package(path):
        layers = package_layers(path)  # the zip's structure first: sizes before bytes
        check_crate(path, layers)
        return [Path(f"{path}[{name}]") for name in layers[1:]]
    if is_crate(path):
        check_crate(path)
    return []


def _inner_layers(package: Path) -> list[Path]:
    """A checked package's layers after its first (the root layer, opened as the package)."""
    return [Path(f"{package}[{name}]") for name in package_layers(package)[1:]]


def _open_stage(path: Path):
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    if not path.is_file():
        raise FormatError(path, None, "file not found")
    _preflight(path)
    try:
        cached = Sdf.Layer.Find(str(path))
        if cached is not None:  # a layer still open in this process: read what is on disk now
            cached.Reload(True)
        _confine_layers(path)
        stage = Usd.Stage.Open(str(path), Usd.Stage.LoadAll)
    except Tf.ErrorException as e:
        raise FormatError(path, None, f"not a readable USD file: {_reason(e)}") from None
    if stage is None:
        raise FormatError(path, None, "not a readable USD file")
    return stage


def _when(attr):
    """The time to read an attribute at: its default, or its first sample when it is animated
    (as Blender's importer does); an export of a still forest has no samples at all."""
    from pxr import Usd

    return Usd.TimeCode.EarliestTime() if attr.GetNumTimeSamples() else Usd.TimeCode.Default()


def _array(attr, dtype, width: int | None, prim_path: str, path: Path, n: int | None = None):
    """An authored array attribute as numpy (None when not authored); a wrong length is a FormatError."""
    if not attr or not attr.HasAuthoredValue():
        return None
    value = attr.Get(_when(attr))
    if value is None:
        return None
    try:
        a = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError):  # a value type pxr does not know, text, …
        a = None
    shape_ok = a is not None and (a.size == 0 or (a.ndim == 1 if width is None else
                                                  (a.ndim == 2 and a.shape[1] == width)))
    if not shape_ok:
        raise FormatError(path, f"{prim_path}.{attr.GetName()}",
                          f"its value is not an array of "
                          f"{'numbers' if width is None else f'{width}-vectors'} "
                          "(a misspelt type, or a value of another kind)")
    if a.size == 0:
        a = np.empty((0,) if width is None else (0, width), dtype)
    if n is not None and len(a) != n:
        raise FormatError(path, f"{prim_path}.{attr.GetName()}",
                          f"holds {len(a)} values, expected {n} (one per instance)")
    return a


def _type_name(prim, fallback: str) -> str:
    if not prim:  # a prototype naming a prim that is not on the stage
        return fallback
    attr = prim.GetAttribute(NS + "typeName")
    value = attr.Get() if attr and attr.HasAuthoredValue() else None
    return str(value) if value else fallback


def _palette_value(attr):
    """A palette attribute's value as the exporter writes them (text, a flag, a number, numbers,
    tables as JSON text), else None: a key of another type is not one of ours."""
    value = attr.Get()
    if attr.GetCustomDataByKey(JSON_KEY) and isinstance(value, str):
        try:
            return parse_json(value, None)
        except FormatError:
            return None  # edited beyond recognition: the key is left out, as an unknown one
    if isinstance(value, str | bool | int | float):
        return value
    numbers = ("DoubleArray", "FloatArray", "IntArray", "Int64Array")
    if isinstance(value, list | tuple) or type(value).__name__ in numbers:
        items = list(value)
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in items):
            return [float(v) for v in items]
    return None


def _palette_keys(prim, warnings: list[str] | None = None) -> dict:
    """The palette keys the exporter wrote as `boscage:palette:` attributes, nested at each `:`;
    a key of a type it never writes, or both a value and a table (`a` and `a:b`), is left out."""
    out: dict = {}
    skipped = []
    for attr in prim.GetAttributes():
        name = attr.GetName()
        if not name.startswith(PALETTE_NS):
            continue
        value = _palette_value(attr)
        keys = name[len(PALETTE_NS):].split(":")
        if value is None or not all(keys):
            skipped.append(name)
            continue
        target = out
        for k in keys[:-1]:
            target = target.setdefault(k, {})
            if not isinstance(target, dict):
                break
        if not isinstance(target, dict) or isinstance(target.get(keys[-1]), dict):
            skipped.append(name)  # `a` and `a:b`: a key cannot be a value and a table
            continue
        target[keys[-1]] = value
    if skipped and warnings is not None:
        warnings.append(f"{prim.GetPath()}: palette attributes left out (not of a type the exporter "
                        f"writes, or a key both a value and a table): {', '.join(skipped[:5])}")
    return out


def _prototype_mesh(stage, proto_path, looks: MaterialReader | None = None) -> IndexedMesh | None:
    """The first UsdGeomMesh at or under a prototype, triangulated (fans), in its own units; with
    `looks`, its `st` and bound materials (triangles ordered by material, one part each)."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    root = stage.GetPrimAtPath(proto_path)
    if not root:
        return None
    for prim in Usd.PrimRange(root):
        if not prim.IsA(UsdGeom.Mesh):
            continue
        m = UsdGeom.Mesh(prim)
        points = np.asarray(m.GetPointsAttr().Get() or [], np.float32).reshape(-1, 3)
        counts = np.asarray(m.GetFaceVertexCountsAttr().Get() or [], np.int64)
        idx = np.asarray(m.GetFaceVertexIndicesAttr().Get() or [], np.int64)
        in_range = not len(idx) or 0 <= idx.min() <= idx.max() < len(points)
        if not len(points) or (counts < 0).any() or counts.sum() != len(idx) or not in_range:
            return None  # a negative count would index before its polygon
        faces, polygon_of = _fans(counts, idx)
        uvs, materials, parts = None, (), ()
        if looks is not None:
            uvs = read_st(prim, len(points))
            materials, per_triangle = mesh_looks(looks, prim, polygon_of)
            if per_triangle is not None:
                order = np.argsort(per_triangle, kind="stable")
                faces, per_triangle = faces[order], per_triangle[order]
                starts_of = np.r_[0, np.flatnonzero(np.diff(per_triangle)) + 1]
                ends = np.r_[starts_of[1:], len(per_triangle)]
                parts = tuple((int(per_triangle[a]), 3 * int(a), 3 * int(b - a))
                              for a, b in zip(starts_of, ends, strict=True))
        normals = np.zeros_like(points)
        if len(faces):
            p0 = points[faces[:, 0]]
            fn = np.cross(points[faces[:, 1]] - p0, points[faces[:, 2]] - p0)
            for c in range(3):
                np.add.at(normals, faces[:, c], fn)
        length = np.linalg.norm(normals, axis=1, keepdims=True)
        normals = np.where(length > 0, normals / np.maximum(length, 1e-30), np.array([0, 1, 0], np.float32))
        return IndexedMesh(prim.GetName(), points, normals.astype(np.float32),
                           faces.reshape(-1).astype(np.uint32), uvs=uvs, materials=materials, parts=parts)
    return None


def _fans(counts: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fan triangles (0, j, j+1) of each polygon and the polygon of each, ordered by j then polygon;
    at once, so a polygon of a million corners costs no more than a million triangles."""
    per = np.maximum(counts - 2, 0)
    polygon_of = np.repeat(np.arange(len(counts)), per)
    first = np.cumsum(per) - per  # each polygon's first triangle
    j = np.arange(len(polygon_of)) - first[polygon_of] + 1
    order = np.lexsort((polygon_of, j))
    polygon_of, j = polygon_of[order], j[order]
    s = (np.cumsum(counts) - counts)[polygon_of]
    return np.stack([idx[s], idx[s + j], idx[s + j + 1]], 1).reshape(-1, 3), polygon_of


def _world(xform) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """(3x3 column-vector rotation·scale, translation, uniform scale, is identity) of a prim's world."""
    from pxr import Usd

    g = np.array(xform.ComputeLocalToWorldTransform(Usd.TimeCode.Default()), np.float64)
    a, t = g[:3, :3].T, g[3, :3]  # Gf is row-vector: p' = p·G
    det = float(pmath.det3(a))
    return a, t, float(pmath.cbrt(det)) if det > 0 else 0.0, \
        bool(np.array_equal(g, np.eye(4)))


def read_usd_foliage(path: str | Path, progress: Progress | None = None) -> ImportedFoliage:
    """Every UsdGeomPointInstancer on the stage as records in the scene frame (metres, +Y up);
    FormatError on a file pxr cannot read or an instancer whose arrays disagree."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    path = Path(path)
    try:
        return _read_stage(path, progress)
    except Tf.ErrorException as e:  # a crate value is read when asked for: a broken one fails here
        raise FormatError(path, None, f"not a readable USD file: {_reason(e)}") from None
    except UnicodeDecodeError:  # a text value pxr hands over as it is in the file
        raise FormatError(path, None, "a text value in it is not UTF-8") from None


def _read_stage(path: Path, progress: Progress | None) -> ImportedFoliage:
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    stage = _open_stage(path)
    up = str(UsdGeom.GetStageUpAxis(stage)).lower()
    meters = float(UsdGeom.GetStageMetersPerUnit(stage))
    if up not in ("y", "z"):
        raise FormatError(path, "upAxis", f"unknown up axis {up!r}")
    if not (math.isfinite(meters) and meters > 0):
        raise FormatError(path, "metersPerUnit", f"must be positive, got {meters}")
    frame = Conventions(up, "right", "m")
    instancers = [p for p in stage.Traverse() if p.IsA(UsdGeom.PointInstancer)]
    # an instancer inside another's prototypes is part of that prototype, not foliage of its own
    paths = {p.GetPath() for p in instancers}
    instancers = [p for p in instancers if not any(a in paths for a in p.GetPath().GetAncestorsRange()
                                                   if a != p.GetPath())]
    result = ImportedFoliage()
    looks = MaterialReader(path, result.warnings)
    sizes = []
    for prim in instancers:
        attr = UsdGeom.PointInstancer(prim).GetProtoIndicesAttr()
        value = attr.Get(_when(attr)) if attr else None
        sizes.append(len(value) if value is not None else 0)
    plain = _prims_groups(stage)
    total = sum(sizes) + sum(len(children) for _, children in plain) or 1
    done = 0
    check_progress(progress, 0, total)
    for prim, n in zip(instancers, sizes, strict=True):
        where = str(prim.GetPath())
        inst = UsdGeom.PointInstancer(prim)
        protos = list(inst.GetPrototypesRel().GetTargets())
        proto_idx = _array(inst.GetProtoIndicesAttr(), np.int64, None, where, path, n)
        if proto_idx is None:
            proto_idx = np.zeros(n, np.int64)
        # float32 as stored (half the memory of float64); each block is widened as it is converted
        positions = _array(inst.GetPositionsAttr(), np.float32, 3, where, path, n)
        if positions is None:
            if n:
                raise FormatError(path, f"{where}.positions", "missing (it is required)")
            continue
        quats = _array(inst.GetOrientationsfAttr(), np.float32, 4, where, path)
        if quats is None or not len(quats):
            quats = _array(inst.GetOrientationsAttr(), np.float32, 4, where, path)
        if quats is None or not len(quats):
            quats = np.tile(np.array([0.0, 0.0, 0.0, 1.0], np.float32), (n, 1))
        elif len(quats) != n:
            raise FormatError(path, f"{where}.orientations", f"holds {len(quats)} values, expected {n}")
        scales = _array(inst.GetScalesAttr(), np.float32, 3, where, path)
        if scales is None or not len(scales):
            scales = np.ones((n, 3), np.float32)
        elif len(scales) != n:
            raise FormatError(path, f"{where}.scales", f"holds {len(scales)} values, expected {n}")
        if n and not 0 <= proto_idx.min() <= proto_idx.max() < len(protos):
            bad = int(np.argmax((proto_idx < 0) | (proto_idx >= len(protos))))
            raise FormatError(path, f"{where}.protoIndices[{bad}]",
                              f"index {int(proto_idx[bad])}, but {len(protos)} prototypes")
        zero = np.linalg.norm(np.nan_to_num(quats), axis=1) == 0
        for bad, label in ((~np.isfinite(positions).all(axis=1), "positions"),
                           (~np.isfinite(quats).all(axis=1) | zero, "orientations"),
                           (~np.isfinite(scales).all(axis=1), "scales")):
            if bad.any():
                raise FormatError(path, f"{where}.{label}[{int(np.argmax(bad))}]",
                                  "not a finite value" if label != "orientations" else
                                  "not a finite, non-zero quaternion")
        mask = inst.ComputeMaskAtTime(_when(inst.GetPositionsAttr()))
        if mask is not None and len(mask) == n and not all(mask):  # inactive ids: deleted instances
            keep = np.asarray(mask, bool)
            result.warnings.append(f"{where}: {int((~keep).sum())} inactive instances left out")
            positions, quats, scales = positions[keep], quats[keep], scales[keep]
            proto_idx = proto_idx[keep]
            kept_rows = keep
        else:
            kept_rows = None
        uniform = scales.mean(axis=1, dtype=np.float64)  # exact for (s, s, s)
        if len(scales) and np.abs(scales - uniform[:, None]).max() > 1e-6 * max(1.0, np.abs(uniform).max()):
            result.warnings.append(f"{where}: non-uniform scales became their mean (records hold one scale)")
        a, t, s, identity = _world(UsdGeom.Xformable(prim))
        if not identity:
            if s <= 0 or not np.allclose(a / s @ (a / s).T, np.eye(3), atol=1e-6):
                result.warnings.append(f"{where}: its transform shears or mirrors; instances placed by "
                                       "its rotation and mean scale only")
                s = abs(float(pmath.cbrt(abs(pmath.det3(a))))) or 1.0
            rot = a / s
        count = len(positions)
        primvars = UsdGeom.PrimvarsAPI(inst)
        kept = primvars.GetPrimvar(YPR_PRIMVAR).GetAttr() if primvars.HasPrimvar(YPR_PRIMVAR) else None
        ypr = _array(kept, np.float32, 3, where, path)
        if ypr is not None and len(ypr) != n:
            ypr = None  # not ours, or edited beyond recognition: the orientations say it all
        elif ypr is not None and kept_rows is not None:
            ypr = ypr[kept_rows]
        records = np.empty((count, 7), np.float32)
        changed = 0
        for start in range(0, count, BLOCK):  # in blocks: bounded temporaries, and progress on big files
            part = slice(start, min(count, start + BLOCK))
            p, q, u = positions[part].astype(np.float64), quats[part].astype(np.float64), uniform[part]
            if not identity:  # the instancer's own world transform
                q = quaternions(pmath.matmul(rot, quaternion_matrices(q)))
                p, u = pmath.matmul(p, a.T) + t, u * s
            rec = from_target(p * meters, q, u, frame)
            if ypr is not None:  # our exact angles, where they still describe the file's orientation
                probe = np.zeros((len(rec), 7), np.float32)
                probe[:, 3:6] = ypr[part]
                file_q, kept_q = quaternions(rotation_matrices(rec)), quaternions(rotation_matrices(probe))
                agree = np.abs(np.sum(file_q * kept_q, axis=1)) >= 1.0 - _YPR_TOLERANCE
                rec[agree, 3:6] = ypr[part][agree]
                changed += int((~agree).sum())
            records[part] = rec
            check_progress(progress, done + part.stop // 2, total)
        if changed:
            result.warnings.append(f"{where}: {changed} orientations were changed after export; their "
                                   "angles come from the orientations")
        base = _type_name(prim, prim.GetName())
        keys = _palette_keys(prim, result.warnings)
        mesh_attr = prim.GetAttribute(NS + "mesh")
        own_mesh = mesh_attr.Get() if mesh_attr and mesh_attr.HasAuthoredValue() else None
        # prototypes group by the type they name (our variants all name the instancer's type), so
        # variants never become types of their own and our records keep their order
        missing = [str(p) for p in protos if not stage.GetPrimAtPath(p)]
        if missing:
            result.warnings.append(f"{where}: prototypes name prims that are not on the stage "
                                   f"({', '.join(missing[:3])}); their instances stand in")
        by_name: dict[str, list[int]] = {}
        for k, proto in enumerate(protos):
            by_name.setdefault(base if len(protos) <= 1 else _type_name(
                stage.GetPrimAtPath(proto), f"{base}_{proto.name}"), []).append(k)
        if not by_name:
            by_name[base] = [0]
        for name, ks in by_name.items():
            rows = None if len(by_name) == 1 else np.flatnonzero(np.isin(proto_idx, ks))
            if rows is not None and not len(rows):
                continue
            k = ks[0]
            rec = records if rows is None else records[rows]
            if name in result.records:
                result.records[name] = np.concatenate([result.records[name], rec])
            else:
                result.records[name] = np.ascontiguousarray(rec)
            if keys:
                result.extras.setdefault(name, keys)
            if name not in result.meshes:
                if own_mesh and name == base and str(own_mesh).startswith("builtin:"):
                    result.meshes[name] = str(own_mesh)
                elif protos:  # a file mesh (or a foreign prototype): its geometry travels
                    geometry = _prototype_mesh(stage, protos[k], looks)
                    if geometry is not None:
                        result.meshes[name] = _to_scene_mesh(geometry, frame, meters)
                    elif own_mesh and name == base:
                        result.meshes[name] = str(own_mesh)
            for j in ks:  # our variants with file meshes: each prototype's geometry travels
                proto = stage.GetPrimAtPath(protos[j]) if j < len(protos) else None
                variant = proto.GetAttribute(NS + "variant") if proto else None
                mesh_name = proto.GetAttribute(NS + "mesh") if proto else None
                if not (variant and variant.HasAuthoredValue()
                        and mesh_name and mesh_name.HasAuthoredValue()):
                    continue
                number = variant.Get()
                if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < len(protos):
                    result.warnings.append(f"{protos[j]}.{NS}variant: {str(number)[:40]} is not a variant "
                                           f"number (0 to {len(protos) - 1}); its mesh is left out")
                    continue
                if not str(mesh_name.Get()).startswith("builtin:"):
                    geometry = _prototype_mesh(stage, protos[j], looks)
                    if geometry is not None:
                        result.variant_meshes.setdefault(name, {})[number] = \
                            _to_scene_mesh(geometry, frame, meters)
        done += n
        check_progress(progress, done, total)
    for group, children in plain:
        _read_prims(group, children, path, frame, meters, result)
        done += len(children)
        check_progress(progress, done, total)
    return result


def _prims_groups(stage) -> list:
    """(group, instance prims) of each type written as plain prims (`boscage:layout = "prims"`)."""
    from pxr import UsdGeom

    found = []
    for group in stage.Traverse():
        layout = group.GetAttribute(NS + "layout")
        if layout and layout.Get() == "prims":
            found.append((group, [c for c in group.GetChildren() if c.IsA(UsdGeom.Xformable)]))
    return found


def _read_prims(group, children: list, path: Path, frame: Conventions, meters: float,
                result: ImportedFoliage) -> None:
    """A type written as plain prims: each child Xform is an instance."""
    Gf, Sdf, Tf, Usd, UsdGeom, UsdUtils, Vt = _pxr()
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    name = _type_name(group, group.GetName())
    if not children:
        return
    g = np.array([np.array(cache.GetLocalToWorldTransform(c), np.float64) for c in children])
    a = np.transpose(g[:, :3, :3], (0, 2, 1))  # column-vector rotation·scale
    det = pmath.det3(a)
    if (det <= 0).any():
        bad = int(np.argmax(det <= 0))
        raise FormatError(path, str(children[bad].GetPath()),
                          "transform mirrors or collapses the instance")
    scale = pmath.cbrt(det)
    rot = a / scale[:, None, None]
    skew = np.abs(rot @ np.transpose(rot, (0, 2, 1)) - np.eye(3)).max(axis=(1, 2)) > 1e-5
    if skew.any():
        result.warnings.append(f"{group.GetPath()}: {int(skew.sum())} instances scaled unevenly or sheared; "
                               "placed by their rotation and mean scale")
    records = from_target(g[:, 3, :3] * meters, quaternions(rot), scale, frame)
    kept = [c.GetAttribute(YPR_ATTR) for c in children]
    if all(k and k.HasAuthoredValue() for k in kept):
        ypr = np.array([k.Get() for k in kept], np.float32).reshape(-1, 3)
        probe = np.zeros((len(ypr), 7), np.float32)
        probe[:, 3:6] = ypr
        file_q = quaternions(frame.basis.T @ rot @ frame.basis)
        kept_q = quaternions(rotation_matrices(probe))
        agree = np.abs(np.sum(file_q * kept_q, axis=1)) >= 1.0 - _YPR_TOLERANCE
        records[agree, 3:6] = ypr[agree]
    result.records[name] = np.concatenate([result.records[name], records]) if name in result.records \
        else records
    keys = _palette_keys(group, result.warnings)
    if keys:
        result.extras.setdefault(name, keys)
    mesh_attr = group.GetAttribute(NS + "mesh")
    if mesh_attr and mesh_attr.HasAuthoredValue():
        result.meshes.setdefault(name, str(mesh_attr.Get()))


def _to_scene_mesh(mesh: IndexedMesh, frame: Conventions, meters: float) -> IndexedMesh:
    """A prototype's geometry in the scene frame (metres, +Y up)."""
    if frame.is_identity and meters == 1.0:
        return mesh
    m = frame.basis
    positions = (mesh.positions.astype(np.float64) @ m * meters).astype(np.float32)
    normals = (mesh.normals.astype(np.float64) @ m).astype(np.float32)
    return replace(mesh, positions=positions, normals=normals)
