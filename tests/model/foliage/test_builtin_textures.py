"""The built-in trees' textures are generated in code with integer hashing and + - * / sqrt only:
the same bytes on every machine (pinned), and the trees carry them."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from model.foliage import builtin_textures
from model.foliage.meshes import builtin_mesh

PINNED = {
    "bark": "3a247920b2aa4460ddbfbc2b49f55f6bfc7fba037920e4d7d2ca256e56679efd",
    "spruce_branch": "4377272d506e132318184852ac8a0cf37f7510b4fb88cb9ffbe396f551d08a10",
    "leaf_cluster": "d80978e028f743e403452953450e29b3560b86a3e2cb12b9ab52525e584d1014",
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_textures_are_the_same_bytes_everywhere(name) -> None:
    pixels = getattr(builtin_textures, name)()
    assert pixels.dtype == np.uint8 and pixels.shape[2] == 4
    assert hashlib.sha256(pixels.tobytes()).hexdigest() == PINNED[name]


def test_cut_out_textures_have_both_shown_and_cut_texels() -> None:
    for name in ("spruce_branch", "leaf_cluster"):
        alpha = getattr(builtin_textures, name)()[..., 3]
        assert set(np.unique(alpha)) == {0, 255} and 0.15 < (alpha > 0).mean() < 0.6


@pytest.mark.parametrize("name, cards", [("conifer", "branches"), ("broadleaf", "leaves")])
def test_the_trees_have_bark_and_cut_out_cards(name, cards) -> None:
    mesh = builtin_mesh(name)
    by_name = {m.name: m for m in mesh.materials}
    assert by_name["bark"].base_texture is not None and not by_name["bark"].double_sided
    leaf = by_name[cards]
    assert leaf.alpha_mode == "MASK" and leaf.double_sided and leaf.base_texture is not None
    runs = {mesh.material(i).name: n for i, _, n in mesh.material_ranges()}
    assert runs[cards] >= 60 * 3 and runs["bark"] > 0


def test_bush_rock_and_grass_keep_the_default_look() -> None:
    for name in ("bush", "rock", "grass"):
        assert builtin_mesh(name).materials == () and not builtin_mesh(name).textured
