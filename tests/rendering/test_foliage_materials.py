"""Coverage-preserving mipmaps and colour bleeding of cut-out textures (numpy only, no GL)."""

from __future__ import annotations

import numpy as np

from rendering.foliage_materials import bleed, box_down, coverage, coverage_mips


def _needles(size: int = 64) -> np.ndarray:
    """Scattered needle-thin strokes (one texel wide, random lengths), under a third of the texels:
    a plain box filter halves their alpha at the first level and quarters it at the next."""
    rng = np.random.default_rng(7)
    t = np.zeros((size, size, 4), np.uint8)
    t[..., :3] = (40, 120, 30)
    for _ in range(120):
        x, y, n = rng.integers(0, size), rng.integers(0, size), rng.integers(4, 16)
        if rng.random() < 0.5:
            t[y, x:x + n, 3] = 255
        else:
            t[y:y + n, x, 3] = 255
    return t


def test_each_level_keeps_level_zeros_coverage() -> None:
    levels = coverage_mips(_needles(), 0.5)
    base = coverage(levels[0][..., 3], 0.5)
    assert [lv.shape[:2] for lv in levels][-1] == (1, 1) and len(levels) == 7
    for lv in levels[1:5]:  # down to 4 × 4 texels (texels of one alpha are kept or cut together)
        assert 0.6 * base < coverage(lv[..., 3], 0.5) < 1.8 * base
    plain = _needles()
    for _ in range(3):
        plain = box_down(plain)
    assert coverage(plain[..., 3], 0.5) < base / 2  # what the scaling prevents: needles fade away


def test_without_a_cutoff_the_mips_are_plain_averages() -> None:
    levels = coverage_mips(_needles(), None)
    assert abs(levels[1][..., 3].mean() - levels[0][..., 3].mean()) < 1.0


def test_cut_texels_take_their_neighbours_colour() -> None:
    t = np.zeros((4, 4, 4), np.uint8)
    t[..., :3] = (0, 255, 0)  # the cut area is painted green
    t[1:3, 1:3] = (200, 40, 40, 255)
    out = bleed(t, 0.5)
    assert np.all(out[..., :3] == (200, 40, 40)) and np.array_equal(out[..., 3], t[..., 3])


def test_a_built_in_images_levels_are_made_once_ahead_and_a_files_each_time() -> None:
    from model.foliage.materials import Texture
    from model.foliage.meshes import builtin_mesh
    from rendering.foliage_materials import mips_of, prepare_textures

    mesh = builtin_mesh("conifer")
    prepare_textures(mesh)
    cut = [m for m in mesh.materials if m.base_texture is not None and m.alpha_tested]
    assert cut  # the branch cards' cut-out image
    tex, cutoff = cut[0].base_texture, cut[0].alpha_cutoff
    ahead = mips_of(tex, cutoff)
    assert mips_of(tex, cutoff) is ahead  # made once, when prepared
    for made, fresh in zip(ahead, coverage_mips(tex.pixels, cutoff), strict=True):
        np.testing.assert_array_equal(made, fresh)
    assert mips_of(tex, None) is not ahead  # per cutoff
    file = Texture(_needles(), "leaves.png")
    assert mips_of(file, 0.5) is not mips_of(file, 0.5)  # a file's image may change on disk: not kept
