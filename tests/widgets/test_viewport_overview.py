"""Frame All shows where the stored foliage is even when every instance is past its cull distance:
the ground under it takes the foliage's colour (issue 15, point 3)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from model.foliage import FoliageType, foliage_of
from tests.gui_helpers import render
from tests.widgets.test_viewport_foliage import flat_scene, records


def _forest_scene(with_trees: bool):
    scene = flat_scene()  # 256 m square, flat, centred on the origin
    foliage = foliage_of(scene)
    # without impostors: past the cull distance only the cover tint shows them
    foliage.palette.add(FoliageType("tree", mesh="builtin:broadleaf", cull=(40.0, 60.0), impostor=False))
    if with_trees:
        rng = np.random.default_rng(4)
        xz = np.stack([rng.uniform(-124, -8, 900), rng.uniform(-124, 124, 900)], axis=1)  # west half
        foliage.volume.add("tree", records(xz, 1.0))
    return scene


def _samples(viewport, x0: float, x1: float, z0: float = -110.0, z1: float = 110.0) -> np.ndarray:
    """Screen pixels (n, 2) of a grid of ground points with x0 <= x <= x1, z0 <= z <= z1."""
    gx, gz = np.meshgrid(np.linspace(x0, x1, 8), np.linspace(z0, z1, 12))
    pts = np.stack([gx.ravel(), np.zeros(gx.size), gz.ravel()], axis=1)
    return np.round(viewport.world_to_screen(pts) * viewport.devicePixelRatioF()).astype(int)


def test_frame_all_tints_the_forested_half_and_leaves_the_bare_half_alone(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    viewport.set_scene(_forest_scene(True))
    QTest.keyClick(viewport, Qt.Key.Key_F)
    forest = render(viewport, qtbot).astype(int)
    assert viewport.stats.instances == 0  # every instance is past its cull distance
    cam = viewport.camera
    pose = (cam.target.copy(), cam.yaw, cam.pitch, cam.distance)
    viewport.set_scene(_forest_scene(False), frame=False)  # the same ground, no trees, same view
    cam.target, cam.yaw, cam.pitch, cam.distance = pose
    viewport.orbit_by_degrees(0.0, 0.0)
    bare = render(viewport, qtbot).astype(int)
    h, w = forest.shape[:2]
    west = _samples(viewport, -110, -25)
    east = _samples(viewport, 25, 110)
    for pts in (west, east):
        assert ((pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)).all()
    diff = np.abs(forest - bare).sum(axis=-1)
    assert (diff[west[:, 1], west[:, 0]] > 20).mean() > 0.9  # the forest shows where it stands
    assert (diff[east[:, 1], east[:, 0]] == 0).all()  # and nowhere else
    viewport.set_scene(_forest_scene(True), frame=False)  # View ▸ Overlays ▸ Far Foliage Cover off
    cam.target, cam.yaw, cam.pitch, cam.distance = pose
    viewport.orbit_by_degrees(0.0, 0.0)
    viewport.show_foliage_cover(False)
    assert np.array_equal(render(viewport, qtbot).astype(int), bare)
    viewport.show_foliage_cover(True)
    green = forest[west[:, 1], west[:, 0]]
    ground = bare[west[:, 1], west[:, 0]]
    assert (green[:, 1] - green[:, 0]).mean() > (ground[:, 1] - ground[:, 0]).mean() + 10  # greener


def test_near_the_trees_the_overlay_is_gone_and_an_edit_updates_only_its_cells(viewport, qtbot) -> None:
    scene = _forest_scene(True)
    viewport.set_scene(scene, frame=False)
    bare_scene = _forest_scene(False)
    cam = viewport.camera
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([-60.0, 0.0, 0.0]), 0.0, np.radians(89.0), 20.0
    viewport.orbit_by_degrees(0.0, 0.0)
    near = render(viewport, qtbot).astype(int)
    assert viewport.stats.instances > 0  # close up the trees themselves are drawn…
    viewport.set_scene(bare_scene, frame=False)
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([-60.0, 0.0, 0.0]), 0.0, np.radians(89.0), 20.0
    viewport.orbit_by_degrees(0.0, 0.0)
    ground = render(viewport, qtbot).astype(int)
    # …and the ground between them is the bare ground's colour: no overlay under drawn trees
    between = (near[..., 1] - near[..., 0]) < 10  # grey ground, not a green crown
    assert 0.05 < between.mean() < 0.95
    assert (np.abs(near[between] - ground[between]).sum(axis=-1) == 0).mean() > 0.99

    viewport.set_scene(scene)
    QTest.keyClick(viewport, Qt.Key.Key_F)
    render(viewport, qtbot)
    density = viewport.terrain_renderer.density
    before = density.texels_updated
    foliage_of(scene).volume.add("tree", records(np.array([[70.0, 70.0], [72.0, 75.0]])))  # cell (2, 2)
    render(viewport, qtbot)
    per_cell = (32 // 8 + 1) ** 2
    assert 0 < density.texels_updated - before <= per_cell  # the touched cell's texels, no more
    assert density.cover[..., 3][int((70 + 128) // 8), int((70 + 128) // 8)] > 0
