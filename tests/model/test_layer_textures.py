"""Layer textures decoded in the model: PNG, JPEG and EXR; sizes checked before allocating; a common
size per map kind with a mip chain; read once; a bad file is one warning naming it."""

from __future__ import annotations

from pathlib import Path

import imagecodecs
import numpy as np
import pytest

from model.errors import FormatError
from model.formats.texture_image import MAX_SIDE, image_size, read_texture
from model.layer_material import LayerMaterial
from model.layer_textures import TextureCache, array_sides, load_maps, resize, texture_requests


def two_colour(h: int = 64, w: int = 48) -> np.ndarray:
    img = np.zeros((h, w, 3), np.uint8)
    img[:, : w // 2] = (230, 20, 20)
    img[:, w // 2:] = (20, 20, 230)
    return img


def test_png_jpeg_and_exr_decode(tmp_path: Path) -> None:
    import OpenEXR

    img = two_colour()
    (tmp_path / "a.png").write_bytes(imagecodecs.png_encode(img))
    (tmp_path / "a.jpg").write_bytes(imagecodecs.jpeg8_encode(img, level=95))
    grey = np.linspace(0, 1, 64 * 48, dtype=np.float32).reshape(64, 48)
    with OpenEXR.File({"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage},
                      {"Y": grey}) as exr:
        exr.write(str(tmp_path / "h.exr"))
    png, jpg, exr = (read_texture(tmp_path / n) for n in ("a.png", "a.jpg", "h.exr"))
    assert png.dtype == np.uint8 and np.array_equal(png, img)
    assert jpg.shape == (64, 48, 3) and np.abs(jpg.astype(int) - img).mean() < 6
    assert exr.shape == (64, 48, 1) and np.array_equal(exr[..., 0], grey)
    assert image_size(tmp_path / "a.jpg")[:2] == (48, 64)


def test_a_header_claiming_a_huge_image_is_refused_before_decoding(tmp_path: Path, monkeypatch) -> None:
    data = bytearray(imagecodecs.png_encode(two_colour()))
    data[16:24] = (MAX_SIDE * 4).to_bytes(4, "big") * 2  # the IHDR width and height
    (tmp_path / "big.png").write_bytes(bytes(data))
    monkeypatch.setattr(imagecodecs, "png_decode", lambda *a: pytest.fail("decoded a refused image"))
    with pytest.raises(FormatError, match="big.png.*32768 x 32768"):
        read_texture(tmp_path / "big.png")


BROKEN_PNG = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x10\0\0\0\x10junk"


@pytest.mark.parametrize("content", [b"", b"not an image", BROKEN_PNG, b"\xff\xd8\xff\xe0\x00\x10JFIF"])
def test_a_broken_file_is_one_format_error_naming_it(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "bad.png").write_bytes(content)
    with pytest.raises(FormatError, match="bad.png"):
        read_texture(tmp_path / "bad.png")


def test_maps_share_a_power_of_two_size_per_kind_with_mips_and_bad_ones_warn_once(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(imagecodecs.png_encode(two_colour(300, 200)))
    (tmp_path / "b.png").write_bytes(imagecodecs.png_encode(two_colour(64, 64)))
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x10\0\0\0\x10junk")
    mats = [LayerMaterial(albedo="a.png"), LayerMaterial(albedo="b.png", height="missing.png"),
            LayerMaterial(albedo="broken.png")]
    warnings: list[str] = []
    requests = texture_requests(tmp_path, mats)
    sides, readable = array_sides(tmp_path, requests, warnings.append)
    assert sides == {"albedo": 256}
    cache = TextureCache()
    maps = list(load_maps(tmp_path, readable, sides, warnings.append, cache))
    assert [m.request.slot for m in maps] == [0, 1]
    assert len(warnings) == 2 and "missing.png" in warnings[0] and "broken.png" in warnings[1]
    levels = maps[0].levels
    assert [lv.shape for lv in levels] == [(256 >> k, 256 >> k, 4) for k in range(9)]
    left, right = levels[0][:, :100], levels[0][:, 156:]
    assert left[..., 0].min() > 200 and right[..., 2].min() > 200  # both colours survive the resize
    np.testing.assert_allclose(maps[0].mean[:3], [0.49, 0.08, 0.49], atol=0.03)
    again = list(load_maps(tmp_path, readable, sides, warnings.append, cache))
    assert cache.reads == 2 and all(a.levels is b.levels for a, b in zip(maps, again, strict=True))


def test_a_texture_linked_from_outside_the_scene_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.png").write_bytes(imagecodecs.png_encode(two_colour()))
    scene_folder = tmp_path / "scene"
    scene_folder.mkdir()
    (scene_folder / "tex").symlink_to(outside)
    warnings: list[str] = []
    requests = texture_requests(scene_folder, [LayerMaterial(albedo="tex/a.png")])
    sides, readable = array_sides(scene_folder, requests, warnings.append)
    assert not readable and "outside" in warnings[0]


def test_resize_wraps_and_keeps_constant_images_exact() -> None:
    flat = np.full((30, 50, 1), 0.25, np.float32)
    assert np.allclose(resize(flat, 64), 0.25)
    assert resize(flat, 64).shape == (64, 64, 1)
