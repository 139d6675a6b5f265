"""A foliage type's materials read from its mesh file: glTF materials and images, OBJ .mtl maps."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from model.errors import FormatError
from model.foliage.materials import MAX_TEXTURE_SIDE, ImageError, decode_image
from model.foliage.meshes import MATERIAL, UV, builtin_mesh, load_mesh_file, lod_of
from model.formats.png import encode_png
from tests.gltf_cards import card_glb, card_gltf, card_texture, write_glb


def test_a_masked_card_brings_its_texture_cutoff_and_sides(tmp_path) -> None:
    mesh = load_mesh_file(card_glb(tmp_path / "card.glb", material={"alphaCutoff": 0.3}))
    assert mesh.triangles == 2 and not mesh.warnings
    m = mesh.material(0)
    assert m.alpha_mode == "MASK" and m.alpha_cutoff == pytest.approx(0.3) and m.double_sided
    assert np.array_equal(m.base_texture.pixels, card_texture())
    assert m.metallic == 0.0 and m.roughness == 1.0
    # corners keep their texture coordinates: the top-left corner samples the image's top-left
    top_left = mesh.vertices[(mesh.vertices[:, 0] < 0) & (mesh.vertices[:, 1] > 1)]
    assert np.allclose(top_left[:, UV], [0.0, 0.0]) and np.all(mesh.vertices[:, MATERIAL] == 0)
    assert np.allclose(mesh.vertices[:, 3:6], [0, 0, 1])  # the file's normals are kept


@pytest.mark.parametrize("mode", ["OPAQUE", "BLEND"])
def test_alpha_modes_and_the_default_cutoff(tmp_path, mode) -> None:
    m = load_mesh_file(card_glb(tmp_path / "c.glb", material={"alphaMode": mode, "doubleSided": False}))
    m = m.material(0)
    assert m.alpha_mode == mode and m.alpha_cutoff == 0.5 and not m.double_sided
    assert m.blended == (mode == "BLEND") and not m.alpha_tested


def test_an_unknown_alpha_mode_is_an_error_naming_the_place(tmp_path) -> None:
    with pytest.raises(FormatError, match=r"materials\[0\]\.alphaMode"):
        load_mesh_file(card_glb(tmp_path / "c.glb", material={"alphaMode": "CUTOUT"}))


def test_the_base_colour_factor_multiplies_vertex_colours(tmp_path) -> None:
    pbr = {"baseColorTexture": {"index": 0}, "baseColorFactor": [0.5, 1.0, 0.25, 0.8]}
    mesh = load_mesh_file(card_glb(tmp_path / "c.glb", material={"pbrMetallicRoughness": pbr}))
    assert np.allclose(mesh.vertices[:, 6:9], [0.5, 1.0, 0.25])
    assert mesh.material(0).base_color[3] == pytest.approx(0.8)


def test_texture_transform(tmp_path) -> None:
    ext = {"offset": [0.25, 0.5], "rotation": math.pi / 2, "scale": [2.0, 3.0]}
    mesh = load_mesh_file(card_glb(tmp_path / "c.glb", material={"pbrMetallicRoughness": {
        "baseColorTexture": {"index": 0, "extensions": {"KHR_texture_transform": ext}}}}))
    a, b, c, d, e, f = mesh.material(0).uv_transform
    u, v = 1.0, 0.0  # T·R·S of (1, 0): scaled to (2, 0), turned a quarter to (0, -2), offset
    assert (a * u + b * v + c, d * u + e * v + f) == pytest.approx((0.25, -1.5))


def test_an_image_outside_the_folder_is_refused_with_a_warning(tmp_path) -> None:
    outside = tmp_path / "secret.png"
    outside.write_bytes(encode_png(card_texture()))
    folder = tmp_path / "tree"
    folder.mkdir()
    for uri in ("../secret.png", str(outside)):
        mesh = load_mesh_file(card_glb(folder / "c.glb", uri=uri))
        assert mesh.material(0).base_texture is None
        assert len(mesh.warnings) == 1 and "refused" in mesh.warnings[0] and "secret.png" in mesh.warnings[0]


def test_a_link_leading_out_of_the_folder_is_refused(tmp_path) -> None:
    (tmp_path / "secret.png").write_bytes(encode_png(card_texture()))
    folder = tmp_path / "tree"
    folder.mkdir()
    os.symlink(tmp_path / "secret.png", folder / "leaves.png")
    mesh = load_mesh_file(card_glb(folder / "c.glb", uri="leaves.png"))
    assert mesh.material(0).base_texture is None and "outside" in mesh.warnings[0]


def test_a_missing_image_warns_once_naming_it_and_draws_with_the_factor(tmp_path) -> None:
    mesh = load_mesh_file(card_glb(tmp_path / "c.glb", uri="leaves.png"))
    assert mesh.material(0).base_texture is None
    assert len(mesh.warnings) == 1 and "leaves.png" in mesh.warnings[0] and "not found" in mesh.warnings[0]


def test_an_image_beside_the_file_is_read(tmp_path) -> None:
    (tmp_path / "leaves.png").write_bytes(encode_png(card_texture()))
    mesh = load_mesh_file(card_glb(tmp_path / "c.gltf", uri="leaves.png"))
    assert np.array_equal(mesh.material(0).base_texture.pixels, card_texture())


def test_a_damaged_image_warns(tmp_path) -> None:
    (tmp_path / "leaves.png").write_bytes(encode_png(card_texture())[:40])
    mesh = load_mesh_file(card_glb(tmp_path / "c.glb", uri="leaves.png"))
    assert mesh.material(0).base_texture is None and "leaves.png" in mesh.warnings[0]


def test_image_sizes_are_checked_before_decoding() -> None:
    huge = bytearray(encode_png(np.zeros((2, 2, 4), np.uint8)))
    huge[16:24] = (MAX_TEXTURE_SIDE + 1).to_bytes(4, "big") * 2
    with pytest.raises(ImageError, match="at most"):
        decode_image(bytes(huge))


def test_jpeg_images_decode() -> None:
    import imagecodecs

    rgb = np.full((16, 16, 3), (200, 100, 50), np.uint8)
    out = decode_image(imagecodecs.jpeg8_encode(rgb, level=95))
    assert out.shape == (16, 16, 4) and np.all(out[..., 3] == 255)
    assert np.abs(out[..., :3].astype(int) - (200, 100, 50)).max() < 6


def test_several_primitives_and_materials_are_sorted_into_runs(tmp_path) -> None:
    doc, binary = card_gltf(card_texture())
    prim = doc["meshes"][0]["primitives"][0]
    doc["meshes"][0]["primitives"] = [dict(prim, material=1), prim, dict(prim, material=1)]
    doc["materials"].append({"name": "bark", "pbrMetallicRoughness": {"baseColorFactor": [0.4, 0.3, 0.2, 1]}})
    mesh = load_mesh_file(write_glb(tmp_path / "c.glb", doc, binary))
    assert [m.name for m in mesh.materials] == ["bark", "material 0"]
    assert [(m, n) for m, _, n in mesh.material_ranges()] == [(0, 12), (1, 6)]


def test_node_transforms_place_the_mesh(tmp_path) -> None:
    doc, binary = card_gltf(card_texture())
    doc["nodes"] = [{"children": [1], "scale": [2, 2, 2]}, {"mesh": 0, "translation": [0, 1, 0]}]
    mesh = load_mesh_file(write_glb(tmp_path / "c.glb", doc, binary))
    lo, hi = mesh.bounds()
    assert lo[1] == pytest.approx(2.0) and hi[1] == pytest.approx(6.0) and hi[0] == pytest.approx(2.0)


def test_obj_takes_its_colour_and_cut_out_maps_from_the_mtl(tmp_path) -> None:
    (tmp_path / "leaf.png").write_bytes(encode_png(card_texture()[..., :3].copy()))
    mask = np.where(card_texture()[..., 3:] > 0, 255, 0).astype(np.uint8)[..., 0]
    (tmp_path / "leaf_mask.png").write_bytes(encode_png(mask))
    (tmp_path / "tree.mtl").write_text("newmtl leaf\nKd 1 1 1\nmap_Kd leaf.png\nmap_d leaf_mask.png\n")
    (tmp_path / "tree.obj").write_text(
        "mtllib tree.mtl\nv -1 0 0\nv 1 0 0\nv 1 2 0\nv -1 2 0\n"
        "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl leaf\nf 1/1 2/2 3/3 4/4\n")
    mesh = load_mesh_file(tmp_path / "tree.obj")
    m = mesh.material(1)
    assert m.alpha_mode == "MASK" and m.double_sided and not mesh.warnings
    assert np.array_equal(m.base_texture.pixels[..., 3], np.where(card_texture()[..., 3] > 0, 255, 0))
    top_left = mesh.vertices[(mesh.vertices[:, 0] < 0) & (mesh.vertices[:, 1] > 1)]
    assert np.allclose(top_left[:, UV], [0.0, 0.0])  # OBJ's v = 1 is the image's top


def test_obj_with_a_missing_map_warns(tmp_path) -> None:
    (tmp_path / "t.mtl").write_text("newmtl bark\nKd 0.4 0.3 0.2\nmap_Kd ../bark.png\n")
    (tmp_path / "t.obj").write_text("mtllib t.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl bark\nf 1 2 3\n")
    mesh = load_mesh_file(tmp_path / "t.obj")
    assert mesh.material(1).base_texture is None and "refused" in mesh.warnings[0]
    assert np.allclose(mesh.vertices[:, 6:9], [0.4, 0.3, 0.2])


def test_generated_levels_keep_textured_cards_whole(tmp_path) -> None:
    mesh = load_mesh_file(card_glb(tmp_path / "c.glb"))
    assert np.array_equal(lod_of(mesh, 2).vertices, mesh.vertices)
    assert lod_of(builtin_mesh("conifer"), 1).triangles < builtin_mesh("conifer").triangles


def test_the_base_texture_sampler_wrap_modes(tmp_path) -> None:
    doc, binary = card_gltf(card_texture())
    doc["samplers"] = [{"wrapS": 33071, "wrapT": 33648}]
    doc["textures"][0]["sampler"] = 0
    mesh = load_mesh_file(write_glb(tmp_path / "c.glb", doc, binary))
    assert mesh.material(0).wrap == ("clamp", "mirror")
    assert load_mesh_file(card_glb(tmp_path / "d.glb")).material(0).wrap == ("repeat", "repeat")


def test_damaged_card_files_are_one_format_error_or_a_warning(tmp_path) -> None:
    """Bytes flipped anywhere in a card .glb (header, JSON, buffers, the PNG): the mesh reads, maybe
    with a warning, or is refused with a FormatError naming the file; nothing else escapes."""
    import random

    good = card_glb(tmp_path / "good.glb").read_bytes()
    rng = random.Random(5)
    path = tmp_path / "bad.glb"
    outcomes = set()
    for _ in range(300):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data))
        try:
            load_mesh_file(path)
            outcomes.add("read")
        except FormatError as e:
            assert "bad.glb" in str(e)
            outcomes.add("refused")
    assert outcomes == {"read", "refused"}


def test_json_of_the_wrong_shapes_is_refused_naming_the_place(tmp_path) -> None:
    cases = [
        lambda d: d["materials"].__setitem__(0, {"alphaCutoff": "half"}),
        lambda d: d["materials"].__setitem__(0, {"pbrMetallicRoughness": {"baseColorFactor": [1, 2]}}),
        lambda d: d["meshes"][0]["primitives"][0].__setitem__("material", 7),
        lambda d: d["textures"].__setitem__(0, {"source": 9}),
        lambda d: d["nodes"].__setitem__(0, {"mesh": 0, "children": [0]}),
        lambda d: d["materials"].__setitem__(0, ["not", "an", "object"]),
        lambda d: d["meshes"][0]["primitives"][0].__setitem__("attributes", {"POSITION": 1, "TEXCOORD_0": 0}),
    ]
    for i, change in enumerate(cases):
        doc, binary = card_gltf(card_texture())
        change(doc)
        with pytest.raises(FormatError) as e:
            load_mesh_file(write_glb(tmp_path / f"c{i}.glb", doc, binary))
        assert f"c{i}.glb" in str(e.value)
