"""Materials out to engines and back in: glTF and USD exports carry each type's materials, images and
texture coordinates, the terrain's look baked into a base-colour image per tile, and an import
brings a type's material back with the mesh it writes beside the scene."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from model.foliage import FoliageType, Palette, foliage_of
from model.foliage.materials import decode_image
from model.foliage.meshes import mesh_for
from model.formats.png import encode_png
from model.interchange import ExportOptions, export_scene, read_foliage
from model.interchange.geometry import BARE_COLOUR
from model.interchange.gltf_reader import _load
from model.interchange.merge import add_to_scene
from model.layer_material import LayerMaterial
from model.scene import Scene
from model.terrain import Terrain
from tests.gltf_cards import card_glb, card_texture

from .conftest import random_records

GROUND = (120, 60, 20)  # the textured layer's colour: its texture is tinted to average to it


def ground_texture() -> np.ndarray:
    """16 x 16 RGB: a dark left half and a light right half (mean about 0.5), stripes 2 m wide at
    a 4 m tiling, coarser than the bake's texels: the bake must show them, tinted to GROUND."""
    t = np.full((16, 16, 3), 64, np.uint8)
    t[:, 8:] = 191
    return t


def textured_scene(folder: Path, size: int = 41) -> Scene:
    """A card type (a textured, cut-out glTF mesh file), a built-in conifer, and a terrain whose
    left half is painted with a textured layer (the right half bare)."""
    card_glb(folder / "card.glb")
    (folder / "ground.png").write_bytes(encode_png(ground_texture()))
    heights = np.zeros((size, size), np.float32)
    terrain = Terrain(heights, 2.0, (-(size - 1), -(size - 1)))
    w = np.zeros(heights.shape, np.uint8)
    w[:, : size // 2] = 255
    layer = terrain.add_layer("ground", GROUND, w)
    layer.material = LayerMaterial(albedo="ground.png", tiling=4.0)
    scene = Scene(terrain=terrain, name="textured")
    scene.path = folder / "textured.boscage"
    palette = Palette([FoliageType("card", "card.glb"), FoliageType("conifer", "builtin:conifer")])
    foliage = foliage_of(scene, palette)
    foliage.volume.mesh_folder = folder
    foliage.volume.add("card", random_records(30, 1, 70.0))
    foliage.volume.add("conifer", random_records(20, 2, 70.0))
    return scene


def glb_document(path: Path) -> tuple[dict, bytes]:
    doc, blob = _load(path)
    return doc, bytes(blob)


def image_bytes(doc: dict, blob: bytes, index: int) -> bytes:
    view = doc["bufferViews"][doc["images"][index]["bufferView"]]
    return blob[view["byteOffset"]:view["byteOffset"] + view["byteLength"]]


def material_named(doc: dict, name: str) -> dict:
    return next(m for m in doc["materials"] if m["name"] == name)


def texture_image(doc: dict, info: dict) -> int:
    return doc["textures"][info["index"]]["source"]


def test_glb_carries_each_types_materials_images_and_uvs(tmp_path) -> None:
    scene = textured_scene(tmp_path)
    out = tmp_path / "out" / "forest.glb"
    export_scene(scene, out)  # the validator runs on it after the test (conftest)
    doc, blob = glb_document(out)
    card = next(m for m in doc["meshes"] if m["name"] == "card")
    [prim] = card["primitives"]
    assert "TEXCOORD_0" in prim["attributes"]
    mat = doc["materials"][prim["material"]]
    assert mat["alphaMode"] == "MASK" and mat.get("alphaCutoff", 0.5) == 0.5 and mat["doubleSided"] is True
    base = mat["pbrMetallicRoughness"]["baseColorTexture"]
    pixels = decode_image(image_bytes(doc, blob, texture_image(doc, base)))
    assert np.array_equal(pixels, card_texture())  # the very texels, alpha included
    # the card's texture coordinates as the file had them (v = 0 at the image's top)
    uv_accessor = doc["accessors"][prim["attributes"]["TEXCOORD_0"]]
    view = doc["bufferViews"][uv_accessor["bufferView"]]
    uv = np.frombuffer(blob, np.float32, uv_accessor["count"] * 2, view["byteOffset"]).reshape(-1, 2)
    assert sorted(map(tuple, uv.tolist())) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    # the built-in conifer: bark, crown and cut-out branch cards, each a primitive of its own
    conifer = next(m for m in doc["meshes"] if m["name"] == "conifer")
    names = [doc["materials"][p["material"]]["name"] for p in conifer["primitives"]]
    assert names == ["conifer/bark", "conifer/crown", "conifer/branches"]
    branches = material_named(doc, "conifer/branches")
    assert branches["alphaMode"] == "MASK" and branches["doubleSided"] is True
    assert "doubleSided" not in material_named(doc, "conifer/bark")
    branch_image = decode_image(image_bytes(doc, blob, texture_image(
        doc, branches["pbrMetallicRoughness"]["baseColorTexture"])))
    assert branch_image.shape == (128, 128, 4) and (branch_image[..., 3] == 0).any()  # cut texels travel
    assert material_named(doc, "conifer/crown")["pbrMetallicRoughness"].get("baseColorTexture") is None


def test_terrain_tiles_carry_their_baked_base_colour(tmp_path) -> None:
    scene = textured_scene(tmp_path)
    out = tmp_path / "terrain.glb"
    export_scene(scene, out, ExportOptions(types=()))
    doc, blob = glb_document(out)
    terrain_meshes = [m for m in doc["meshes"] if m["name"].startswith("terrain")]
    assert len(terrain_meshes) == 1  # 40 quads a side: one tile
    [prim] = terrain_meshes[0]["primitives"]
    assert {"TEXCOORD_0", "COLOR_0", "COLOR_1"} <= set(prim["attributes"])
    mat = doc["materials"][prim["material"]]
    base = mat["pbrMetallicRoughness"]["baseColorTexture"]
    image = decode_image(image_bytes(doc, blob, texture_image(doc, base)))
    assert image.shape == (160, 160, 4)  # 4 texels a quad
    painted, bare = image[:, :64, :3].astype(np.float64), image[:, 90:, :3].astype(np.float64)
    # the painted half (four repeats) shows the texture's stripes, tinted to average to the layer's colour
    assert np.abs(painted.reshape(-1, 3).mean(axis=0) - GROUND).max() < 6
    assert painted[..., 0].std() > 30
    # the bare half is the bare ground colour, as the viewport draws it
    assert np.abs(bare - np.floor(BARE_COLOUR * 255 + 0.5)).max() == 0
    # COLOR_0 multiplies the texture: white, so the tile shows the bake as it is
    colour = doc["accessors"][prim["attributes"]["COLOR_0"]]
    view = doc["bufferViews"][colour["bufferView"]]
    assert np.all(np.frombuffer(blob, np.uint8, view["byteLength"], view["byteOffset"]) == 255)


def test_gltf_writes_its_images_beside_it_and_names_them(tmp_path) -> None:
    scene = textured_scene(tmp_path)
    out = tmp_path / "out" / "forest.gltf"
    export_scene(scene, out)
    doc = json.loads(out.read_text())
    files = sorted(p.name for p in (tmp_path / "out" / "forest_textures").iterdir())
    assert sorted(Path(i["uri"]).name for i in doc["images"]) == files
    assert "card_card_basecolor.png" in files or any(f.startswith("card_") for f in files)
    for image in doc["images"]:
        assert (out.parent / image["uri"]).is_file()


def test_exports_with_materials_are_the_same_bytes_every_run(tmp_path) -> None:
    scene = textured_scene(tmp_path)

    def digest(folder: Path) -> dict[str, str]:
        return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(folder.rglob("*")) if p.is_file()}

    runs = []
    for run in ("a", "b"):
        folder = tmp_path / run
        for suffix in ("glb", "gltf", "usda", "usdz"):
            export_scene(scene, folder / f"forest.{suffix}")
        runs.append(digest(folder))
    assert runs[0] == runs[1]
    assert any(name.startswith("forest_textures/") for name in runs[0])


@pytest.mark.parametrize("suffix", [".usda", ".usdc", ".usdz"])
def test_usd_materials_name_textures_that_resolve(tmp_path, suffix) -> None:
    from pxr import Usd, UsdGeom, UsdShade

    scene = textured_scene(tmp_path)
    out = tmp_path / "out" / f"forest{suffix}"
    export_scene(scene, out)
    if suffix == ".usdz":
        with zipfile.ZipFile(out) as z:
            assert any(n.startswith("forest_textures/") for n in z.namelist())
        assert not (out.parent / "forest_textures").exists()  # everything travels in the package
    stage = Usd.Stage.Open(str(out))
    instancer = UsdGeom.PointInstancer(stage.GetPrimAtPath("/World/Foliage/card"))
    [proto] = instancer.GetPrototypesRel().GetTargets()
    card = stage.GetPrimAtPath(proto)
    assert card and card.IsA(UsdGeom.Mesh)
    assert UsdGeom.PrimvarsAPI(card).GetPrimvar("st").GetInterpolation() == UsdGeom.Tokens.vertex
    material, _ = UsdShade.MaterialBindingAPI(card).ComputeBoundMaterial()
    surface = material.ComputeSurfaceSource()[0]
    assert surface.GetIdAttr().Get() == "UsdPreviewSurface"
    assert surface.GetInput("opacityThreshold").Get() == pytest.approx(0.5)
    texture = UsdShade.Shader(surface.GetInput("diffuseColor").GetConnectedSources()[0][0].source.GetPrim())
    assert texture.GetIdAttr().Get() == "UsdUVTexture"
    assert surface.GetInput("opacity").GetConnectedSources()[0][0].source.GetPrim() == texture.GetPrim()
    reader = UsdShade.Shader(texture.GetInput("st").GetConnectedSources()[0][0].source.GetPrim())
    assert reader.GetIdAttr().Get() == "UsdPrimvarReader_float2" and reader.GetInput("varname").Get() == "st"
    asset = texture.GetInput("file").Get()
    assert asset.resolvedPath, asset.path  # the copied folder (or the package) holds it
    if suffix == ".usdz":
        outer, inner = asset.resolvedPath[:-1].split("[", 1)
        with zipfile.ZipFile(outer) as z:
            data = z.read(inner)
    else:
        assert Path(asset.resolvedPath).parent == out.parent / "forest_textures"
        data = Path(asset.resolvedPath).read_bytes()
    assert np.array_equal(decode_image(data), card_texture())
    # the terrain: one subset per tile, bound to its baked texture
    terrain = stage.GetPrimAtPath("/World/Terrain")
    subsets = UsdShade.MaterialBindingAPI(terrain).GetMaterialBindSubsets()
    assert len(subsets) == 1
    tile_material, _ = UsdShade.MaterialBindingAPI(subsets[0].GetPrim()).ComputeBoundMaterial()
    tile_surface = tile_material.ComputeSurfaceSource()[0]
    tile_texture = tile_surface.GetInput("diffuseColor").GetConnectedSources()[0][0].source
    assert UsdShade.Shader(tile_texture.GetPrim()).GetInput("file").Get().resolvedPath


@pytest.mark.parametrize("suffix", [".glb", ".gltf", ".usda", ".usdz"])
def test_import_brings_the_types_material_back(tmp_path, suffix) -> None:
    scene = textured_scene(tmp_path)
    out = tmp_path / "out" / f"forest{suffix}"
    export_scene(scene, out)
    target_folder = tmp_path / "target"
    target_folder.mkdir()
    target = Scene(Terrain(np.zeros((8, 8), np.float32)))
    target.path = target_folder / "t.boscage"
    result = add_to_scene(target, read_foliage(out))
    card = next(t for t in result.new_types if t.name == "card")
    assert card.mesh.endswith(".glb") and (target_folder / card.mesh).is_file()
    mesh = mesh_for(card.mesh, target_folder)  # as the viewport loads it
    assert mesh.warnings == ()
    [material] = mesh.materials
    assert material.alpha_mode == "MASK" and material.alpha_cutoff == pytest.approx(0.5)
    assert material.double_sided
    assert np.array_equal(material.base_texture.pixels, card_texture())
    original = mesh_for("card.glb", tmp_path)
    # the same texels at the same corners: texture coordinates survived the trip
    def corners(m):
        v = m.vertices
        return sorted(tuple(np.round(r, 5)) for r in np.concatenate([v[:, :3], v[:, 9:11]], axis=1).tolist())
    assert corners(mesh) == corners(original)
    conifer = next(t for t in result.new_types if t.name == "conifer")
    assert conifer.mesh == "builtin:conifer"  # built-in meshes keep their own materials


def test_an_unreadable_layer_texture_is_a_warning_and_bakes_the_layers_colour(tmp_path) -> None:
    scene = textured_scene(tmp_path)
    (tmp_path / "ground.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    out = tmp_path / "broken.glb"
    report = export_scene(scene, out, ExportOptions(types=()))
    assert len(report.warnings) == 1 and "ground.png" in report.warnings[0]
    assert "baked in its colour" in report.warnings[0] and report.to_json()["warnings"] == report.warnings
    doc, blob = glb_document(out)
    # no layer texture left: nothing to bake, the tiles keep the viewport's vertex colours
    assert "images" not in doc
    [prim] = next(m for m in doc["meshes"] if m["name"].startswith("terrain"))["primitives"]
    assert "TEXCOORD_0" not in prim["attributes"]


def test_usd_import_reads_no_texture_outside_the_files_folder(tmp_path) -> None:
    from pxr import Sdf, Usd, UsdShade

    scene = textured_scene(tmp_path)
    inside = tmp_path / "in"
    out = inside / "forest.usda"
    export_scene(scene, out, ExportOptions(terrain=False, types=("card",)))
    secret = tmp_path / "secret.png"
    secret.write_bytes(encode_png(np.zeros((4, 4, 3), np.uint8)))
    stage = Usd.Stage.Open(str(out))
    for prim in stage.Traverse():
        shader = UsdShade.Shader(prim)
        if prim.IsA(UsdShade.Shader) and shader.GetIdAttr().Get() == "UsdUVTexture":
            shader.GetInput("file").Set(Sdf.AssetPath("../secret.png"))
    stage.GetRootLayer().Save()
    imported = read_foliage(out)
    assert any("refused" in w and "secret.png" in w for w in imported.warnings), imported.warnings
    [material] = imported.meshes["card"].materials
    assert material.base_texture is None  # drawn in its colour, nothing read from outside


def test_plain_prims_reach_their_materials_through_the_reference(tmp_path) -> None:
    from pxr import Usd, UsdGeom, UsdShade

    scene = textured_scene(tmp_path)
    out = tmp_path / "prims.usdc"
    export_scene(scene, out, ExportOptions(gpu_instancing=False, terrain=False, types=("card",)))
    stage = Usd.Stage.Open(str(out))
    instance = stage.GetPrimAtPath("/World/Foliage/card/i0")
    assert instance.IsInstance()
    [mesh] = [p for p in Usd.PrimRange(instance, Usd.TraverseInstanceProxies()) if p.IsA(UsdGeom.Mesh)]
    material, _ = UsdShade.MaterialBindingAPI(mesh).ComputeBoundMaterial()
    assert material, "the binding must stay inside the referenced class prim"
    surface = material.ComputeSurfaceSource()[0]
    texture = UsdShade.Shader(surface.GetInput("diffuseColor").GetConnectedSources()[0][0].source.GetPrim())
    assert np.array_equal(decode_image(Path(texture.GetInput("file").Get().resolvedPath).read_bytes()),
                          card_texture())


@pytest.mark.parametrize("material", [
    {"alphaCutoff": 10 ** 40},
    {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0, "extensions": []}}},
])
def test_a_malformed_material_in_an_imported_file_is_one_clear_error_or_ignored(tmp_path, material) -> None:
    from model.errors import FormatError
    from model.foliage.meshes import load_mesh_file

    path = card_glb(tmp_path / "bad_odd.glb", material=material)
    try:
        mesh = load_mesh_file(path)
    except FormatError as e:
        assert "odd.glb" in str(e) and "materials[0]" in str(e)
    else:
        assert mesh.materials[0].base_texture is not None  # an unreadable extension is left out


def test_a_texture_source_that_is_no_index_is_one_clear_error(tmp_path) -> None:
    from model.errors import FormatError
    from model.foliage.meshes import load_mesh_file
    from tests.gltf_cards import card_gltf, write_glb

    doc, binary = card_gltf(card_texture())
    doc["textures"][0]["source"] = {"a": 1}
    with pytest.raises(FormatError, match="is not an index"):
        load_mesh_file(write_glb(tmp_path / "bad_odd.glb", doc, binary))
