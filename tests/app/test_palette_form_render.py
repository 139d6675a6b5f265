"""Palette form edits reach the viewport: a variant's new mesh and a hue range change the pixels
of that type's instances, and the renderer redoes only that type (no chunk is sent again)."""

from __future__ import annotations

import numpy as np
import pytest

from app.foliage_commands import AddTypeCommand
from model.foliage import FoliageType, foliage_of
from model.foliage.foliage_type import Variant
from model.foliage.variants import variant_indices
from tests.gui_helpers import render

SHOWN_SIZE = (900, 700)


@pytest.fixture
def shown(shown):
    """Without the far cover overlay: its green would tint the instances these tests compare."""
    shown.viewport.show_foliage_cover(False)
    return shown


def planted(window, ftype: FoliageType, xz: np.ndarray, scale: float = 3.0) -> np.ndarray:
    """`ftype` added through the undo stack (as the palette does) with instances at `xz`."""
    scene = window.document.scene
    foliage = foliage_of(scene)
    window.document.undo_stack.push(AddTypeCommand(foliage.palette, ftype))
    rec = np.zeros((len(xz), 7), np.float32)
    rec[:, 0], rec[:, 2], rec[:, 6] = xz[:, 0], xz[:, 1], scale
    rec[:, 1] = scene.terrain.height_at(xz[:, 0], xz[:, 1])
    foliage.volume.add(ftype.name, rec)
    return rec


def screen_of(viewport, rec: np.ndarray, up: float) -> np.ndarray:
    p = rec[:, :3].astype(np.float64).copy()
    p[:, 1] += up  # a point on the mesh, above its foot
    return np.round(viewport.world_to_screen(p) * viewport.devicePixelRatioF()).astype(int)


def patch_mean(frame: np.ndarray, px: np.ndarray, half: int = 2) -> np.ndarray:
    """Mean colour (n, 3) of a small square around each pixel."""
    return np.array([frame[y - half:y + half + 1, x - half:x + half + 1].reshape(-1, 3).mean(axis=0)
                     for x, y in px])


GRID = np.array([[x, z] for x in range(-30, 31, 10) for z in range(-20, 21, 10)], float)


def test_a_variants_new_mesh_is_drawn_for_its_instances_only(shown, qtbot) -> None:
    window = shown
    viewport = window.viewport
    editor = window.foliage_editor
    mixed = FoliageType("mixed", variants=(Variant("builtin:rock"), Variant("builtin:rock")),
                        cull=(1000.0, 1200.0))
    rec = planted(window, mixed, GRID)
    other = planted(window, FoliageType("other", mesh="builtin:rock", cull=(1000.0, 1200.0)),
                    np.array([[-35.0, 25.0], [35.0, -25.0]]))
    which = variant_indices(rec, "mixed", (1.0, 1.0))
    assert 0 < which.sum() < len(which)  # both variants are drawn
    renderer = viewport.foliage_renderer
    render(viewport, qtbot)
    before = render(viewport, qtbot).astype(float)
    uploads, plans = sum(renderer.uploads.values()), dict(renderer.plans_built)
    px = screen_of(viewport, rec, 0.6)
    editor.palette_panel.select(["mixed"])
    form = editor.palette_panel.form
    form.variants.table.setCurrentCell(1, 0)
    form.variants.mesh.setCurrentText("builtin:bush")
    form.variants.mesh.activated.emit(2)
    assert foliage_of(window.document.scene).palette["mixed"].variants[1].mesh == "builtin:bush"
    after = render(viewport, qtbot).astype(float)
    c0, c1 = patch_mean(before, px), patch_mean(after, px)
    green = (c1[:, 1] - c1[:, [0, 2]].max(axis=1)) - (c0[:, 1] - c0[:, [0, 2]].max(axis=1))
    assert (green[which == 1] > 15).all()  # variant 2's rocks became green bushes
    assert (np.abs(c1 - c0).max(axis=1)[which == 0] < 3).all()  # variant 1's rocks are as they were
    op = screen_of(viewport, other, 0.6)
    assert np.abs(patch_mean(after, op) - patch_mean(before, op)).max() < 3  # the other type too
    # the renderer redid the edited type only: no chunk was sent again, no other plan was made
    assert sum(renderer.uploads.values()) == uploads
    assert renderer.plans_built["mixed"] == plans["mixed"] + 1
    assert renderer.plans_built["other"] == plans["other"]
    window.document.undo_stack.undo()
    undone = render(viewport, qtbot).astype(float)
    assert np.abs(patch_mean(undone, px) - c0).max() < 3  # undo puts the old look back


def test_a_hue_range_turns_the_instances_colour(shown, qtbot) -> None:
    window = shown
    viewport = window.viewport
    editor = window.foliage_editor
    rec = planted(window, FoliageType("shrub", mesh="builtin:bush", cull=(1000.0, 1200.0)), GRID)
    render(viewport, qtbot)
    before = render(viewport, qtbot).astype(float)
    editor.palette_panel.select(["shrub"])
    form = editor.palette_panel.form
    form.hue.high.setValue(120.0)
    form.hue.low.setValue(120.0)  # every instance turned a third of the way round the colour wheel
    assert foliage_of(window.document.scene).palette["shrub"].hue == (120.0, 120.0)
    after = render(viewport, qtbot).astype(float)
    px = screen_of(viewport, rec, 0.8)
    c0, c1 = patch_mean(before, px), patch_mean(after, px)
    assert (c0[:, 1] > c0[:, 2]).all() and (c1[:, 2] > c1[:, 1] + 10).all()  # green turned blue
    # brightness is kept (a turn about the grey axis), and the ground away from them is unchanged
    assert np.abs(c1.mean(axis=1) - c0.mean(axis=1)).max() < 12
    corner = before[5:40, 5:40]
    assert np.abs(after[5:40, 5:40] - corner).max() < 3
