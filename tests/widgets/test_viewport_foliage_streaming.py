"""Foliage chunks stream by view distance: only chunks near the camera are on the GPU."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, foliage_of
from rendering.foliage_renderer import RELEASE_FACTOR
from tests.gui_helpers import is_sky, render
from tests.widgets.test_viewport_foliage import flat_scene, records

FADE = (60.0, 80.0)


def forest(side: float = 1536.0):
    """One bush every 8 m over `side` metres square: 2,304 chunks of 32 m."""
    scene = flat_scene(size=int(side / 4) + 1, spacing=4.0)
    foliage = foliage_of(scene)
    # impostors ending with the meshes: what streams is then bounded by the cull distance
    foliage.palette.add(FoliageType("bush", mesh="builtin:bush", cull=FADE, impostor=False))
    g = np.arange(-side / 2 + 4, side / 2, 8.0)
    x, z = np.meshgrid(g, g)
    foliage.volume.add("bush", records(np.stack([x.ravel(), z.ravel()], axis=1), 1.5))
    return scene, foliage.volume


def cells_within(volume, eye, reach: float) -> int:
    """Chunks whose cell lies within `reach` (plus the renderer's one-cell margin) of the eye."""
    n = 0
    for cell, _ in volume.keys():
        x0, z0, x1, z1 = volume.cell_box(cell)
        dx = max(x0 - eye[0], eye[0] - x1, 0.0)
        dz = max(z0 - eye[2], eye[2] - z1, 0.0)
        n += np.hypot(dx, dz) - volume.cell_size <= reach
    return n


def test_flying_keeps_only_the_chunks_near_the_camera_resident(viewport, qtbot) -> None:
    scene, volume = forest()
    total = len(volume.keys())
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(25.0), 40.0
    fr = viewport.foliage_renderer
    resident = []
    for z in np.linspace(-600.0, 600.0, 9):
        cam.target = np.array([0.0, 0.0, z])
        img = render(viewport, qtbot)
        eye = cam.eye()
        n = fr.resident_chunks
        resident.append(n)
        # everything that may be drawn is there, nothing past the release distance is
        assert cells_within(volume, eye, FADE[1]) <= n <= cells_within(volume, eye, FADE[1] * RELEASE_FACTOR)
        assert set(fr.visible) <= set(fr._gpu) and len(fr.visible) > 0
        assert viewport.stats.instances > 0 and not is_sky(img).all()
    assert max(resident) < total / 10  # bounded by the view distance, not by the scene
    assert sum(fr.released.values()) > total / 10  # chunks left behind went away
    # GPU bytes held follow the resident chunks
    held = sum(gc.capacity for gc in fr._gpu.values())
    assert held <= max(resident) * 16 * 28 * 1.5


def test_a_far_chunk_edited_out_of_reach_shows_its_edit_when_the_camera_comes(viewport, qtbot) -> None:
    scene, volume = forest(768.0)
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(60.0), 40.0
    cam.target = np.array([0.0, 0.0, -300.0])
    fr = viewport.foliage_renderer
    render(viewport, qtbot)
    far = volume.cell_of(4.0, 300.0)
    assert (far, "bush") not in fr._gpu
    volume.add("bush", records(np.array([[6.0, 302.0], [10.0, 310.0]]), 1.5))
    render(viewport, qtbot)
    assert (far, "bush") not in fr._gpu  # nothing sent for a chunk nobody sees
    cam.target = np.array([0.0, 0.0, 300.0])
    render(viewport, qtbot)
    assert fr._gpu[(far, "bush")].count == len(volume.chunk(far, "bush"))


def test_impostor_types_keep_far_chunks_as_proxies_only(viewport, qtbot) -> None:
    # cards to the horizon: far chunks are drawn from their proxies, their instances leave the GPU
    scene, volume = forest(768.0)
    palette = foliage_of(scene).palette
    palette.remove("bush")
    palette.add(FoliageType("bush", mesh="builtin:bush", cull=FADE))  # impostors on (the default)
    viewport.set_scene(scene, frame=False)
    fr = viewport.foliage_renderer
    fr.proxy_pixels = 48.0  # proxies from about 190 m in this small viewport
    cam = viewport.camera
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(25.0), 40.0
    cam.target = np.array([0.0, 0.0, 250.0])  # looking across the whole forest
    render(viewport, qtbot)
    end = fr.plan("bush").full_end()  # where the proxies have taken over
    assert end < 768.0 / 2
    n = fr.resident_chunks
    eye = cam.eye()
    assert cells_within(volume, eye, end) <= n <= cells_within(volume, eye, end * RELEASE_FACTOR)
    assert n < len(volume.keys()) / 2
    ps = fr._proxies["bush"]
    assert len(ps) == len(volume.keys())  # every chunk can be drawn by proxy…
    assert 0 < len(fr.proxy_visible) and set(fr.proxy_visible) - set(fr._gpu)  # …and far ones are
    # GPU bytes: the resident chunks' records plus the proxies' slots, not the whole scene
    held = sum(gc.capacity for gc in fr._gpu.values())
    assert held <= n * 16 * 28 * 1.5
    # the GPU holds the proxies of the nodes the frame drew (chunks or groups), no other
    assert sum(len(e.at) for e in ps.gpu) == sum(fr.proxy_nodes) > 0
    assert all(e.capacity <= max(256, 2 * e.end) for e in ps.gpu)
    row = ps.row_of(fr.proxy_visible[0][0])
    assert len(ps.reps(fr.volume, 0, np.array([row]))[0]) == 16  # a 16-bush chunk's proxy: those 16
