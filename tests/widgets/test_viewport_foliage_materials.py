"""Textured, alpha-tested foliage in the real viewport (Xvfb + Mesa): a card mesh written as a .glb
with an embedded PNG, seen close up."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, foliage_of
from tests.gltf_cards import card_glb, card_texture
from tests.gui_helpers import render
from tests.widgets.test_viewport_foliage import flat_scene, records

SCALE = 4.0  # the 2 m card drawn 8 m tall


def _shot(viewport, qtbot, tmp_path, texture, material=None, with_card=True) -> np.ndarray:
    scene = flat_scene()
    scene.path = tmp_path / "scene.boscage"
    card_glb(tmp_path / "card.glb", texture, material)
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("card", mesh="card.glb", cull=(500.0, 600.0), yaw=(0.0, 0.0)))
    if with_card:
        foliage.volume.add("card", records(np.array([[0.0, 0.0]]), SCALE))
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.target = np.array([0.0, 4.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(5.0), 16.0
    errors = []
    viewport.gl_failed.connect(errors.append)
    frame = render(viewport, qtbot).astype(int)
    assert not errors
    return frame


def _region(viewport, x0, x1, y0, y1) -> tuple[slice, slice]:
    """Screen rows and columns inside the card's part from x0..x1, y0..y1 (card metres at scale 1),
    a little inset so edges do not count."""
    pts = np.array([[x0, y0, 0.0], [x1, y1, 0.0]]) * SCALE
    (a, b), (c, d) = viewport.world_to_screen(pts)
    xs, ys = sorted((a, c)), sorted((b, d))
    pad_x, pad_y = (xs[1] - xs[0]) * 0.12, (ys[1] - ys[0]) * 0.12
    return slice(int(ys[0] + pad_y), int(ys[1] - pad_y)), slice(int(xs[0] + pad_x), int(xs[1] - pad_x))


def red(rgb):
    return (rgb[..., 0] > rgb[..., 1] + 60) & (rgb[..., 0] > rgb[..., 2] + 60)


def blue(rgb):
    return (rgb[..., 2] > rgb[..., 0] + 80) & (rgb[..., 2] > rgb[..., 1] + 70)


def green(rgb):
    return (rgb[..., 1] > rgb[..., 0] + 60) & (rgb[..., 1] > rgb[..., 2] + 60)


def test_a_cut_out_card_shows_both_colours_and_none_of_the_cut_texels(viewport, qtbot, tmp_path) -> None:
    viewport.resize(400, 300)
    background = _shot(viewport, qtbot, tmp_path, card_texture(), with_card=False)
    frame = _shot(viewport, qtbot, tmp_path, card_texture())
    # the texture's rows 0-4 of 8 are shown (v = 0 is the top): red on the left, blue on the right
    rows, left = _region(viewport, -1.0, 0.0, 2.0 * 3 / 8, 2.0)
    _, right = _region(viewport, 0.0, 1.0, 2.0 * 3 / 8, 2.0)
    assert red(frame[rows, left]).mean() > 0.9 and blue(frame[rows, right]).mean() > 0.9
    # rows 5-7 are cut: the ground and sky behind show through, unchanged, and no green anywhere
    cut_rows, whole = _region(viewport, -1.0, 1.0, 0.0, 2.0 * 3 / 8)
    assert np.abs(frame[cut_rows, whole] - background[cut_rows, whole]).max() <= 2
    assert green(frame).sum() == 0


def test_the_same_card_with_those_texels_opaque_shows_them(viewport, qtbot, tmp_path) -> None:
    viewport.resize(400, 300)
    texture = card_texture()
    texture[..., 3] = 255
    frame = _shot(viewport, qtbot, tmp_path, texture)
    cut_rows, whole = _region(viewport, -1.0, 1.0, 0.0, 2.0 * 3 / 8)
    assert green(frame[cut_rows, whole]).mean() > 0.9


def test_an_opaque_material_ignores_the_texture_alpha(viewport, qtbot, tmp_path) -> None:
    viewport.resize(400, 300)
    frame = _shot(viewport, qtbot, tmp_path, card_texture(), {"alphaMode": "OPAQUE"})
    cut_rows, whole = _region(viewport, -1.0, 1.0, 0.0, 2.0 * 3 / 8)
    assert green(frame[cut_rows, whole]).mean() > 0.9


def test_a_blended_card_lets_half_the_background_through(viewport, qtbot, tmp_path) -> None:
    viewport.resize(400, 300)
    texture = card_texture()
    texture[..., 3] = 255
    background = _shot(viewport, qtbot, tmp_path, texture, with_card=False)
    opaque = _shot(viewport, qtbot, tmp_path, texture)
    texture[..., 3] = np.where(card_texture()[..., 3] > 0, 128, 0)
    frame = _shot(viewport, qtbot, tmp_path, texture, {"alphaMode": "BLEND"})
    rows, left = _region(viewport, -1.0, 0.0, 2.0 * 3 / 8, 2.0)
    half = (opaque[rows, left] + background[rows, left]) / 2.0
    assert np.abs(frame[rows, left] - half).mean() < 4.0
    assert np.abs(frame[rows, left] - background[rows, left]).mean() > 30.0
    # the cut rows (clear of the half texel the filter blends across their edges, the bottom one
    # with the top row: the sampler repeats) stay background
    cut_rows, whole = _region(viewport, -1.0, 1.0, 2.0 * 1 / 8, 2.0 * 2 / 8)
    assert np.abs(frame[cut_rows, whole] - background[cut_rows, whole]).max() <= 2


def _from_behind(viewport, qtbot) -> np.ndarray:
    viewport.camera.yaw = np.pi
    return render(viewport, qtbot).astype(int)


def test_a_single_sided_card_is_not_drawn_from_behind(viewport, qtbot, tmp_path) -> None:
    viewport.resize(400, 300)
    texture = card_texture()
    texture[..., 3] = 255
    _shot(viewport, qtbot, tmp_path, texture, with_card=False)
    background = _from_behind(viewport, qtbot)
    frame = _shot(viewport, qtbot, tmp_path, texture, {"doubleSided": False})
    assert red(frame).sum() > 500
    assert np.abs(_from_behind(viewport, qtbot) - background).max() <= 2
    _shot(viewport, qtbot, tmp_path, texture)  # double-sided
    assert (np.abs(_from_behind(viewport, qtbot) - background).sum(axis=-1) > 30).sum() > 2000


def test_a_leaf_card_seen_against_the_sun_is_lit_through(viewport, qtbot, tmp_path) -> None:
    """The back of a two-sided cut-out card, in its own shade, still shows its colour: the sun
    comes through the leaf (a solid double-sided surface stays dark there)."""
    viewport.resize(400, 300)
    texture = card_texture()
    texture[..., 3] = 255
    rows_left = None
    means = []
    for mode in ("MASK", "OPAQUE"):
        _shot(viewport, qtbot, tmp_path, texture, {"alphaMode": mode})
        back = _from_behind(viewport, qtbot)
        if rows_left is None:
            rows_left = _region(viewport, -1.0, 0.0, 2.0 * 3 / 8, 2.0)  # the red half
        means.append(back[rows_left].mean(axis=(0, 1)))
    through, solid = means
    assert through[0] > solid[0] + 10


def test_textures_go_to_the_gpu_once_per_image(viewport, qtbot, tmp_path) -> None:
    viewport.resize(400, 300)
    _shot(viewport, qtbot, tmp_path, card_texture())
    fr = viewport.foliage_renderer
    uploads = fr.textures.uploads
    assert uploads == 1
    fr.scene.sections["foliage"].volume.add("card", records(np.array([[5.0, 0.0]]), SCALE))
    render(viewport, qtbot)
    assert fr.textures.uploads == uploads
