"""Stored foliage in the viewport: instanced chunks, culling, fade, re-upload of changed chunks only."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType, foliage_of
from model.scene import Scene
from model.terrain import Terrain
from tests.gui_helpers import render
from widgets.viewport import Viewport


def flat_scene(size: int = 129, spacing: float = 2.0) -> Scene:
    terrain = Terrain(np.zeros((size, size), np.float32), spacing,
                      (-(size - 1) * spacing / 2, -(size - 1) * spacing / 2))
    terrain.add_layer("grey", (150, 150, 150), np.full((size, size), 255, np.uint8))
    return Scene(terrain=terrain, name="Flat")


def records(xz: np.ndarray, scale: float = 1.0) -> np.ndarray:
    r = np.zeros((len(xz), 7), np.float32)
    r[:, 0], r[:, 2], r[:, 6] = xz[:, 0], xz[:, 1], scale
    return r


def top_down(viewport: Viewport, scene: Scene, distance: float = 90.0) -> None:
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.target = np.array([0.0, 0.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(89.0), distance


def test_instances_painted_in_a_region_change_only_that_regions_pixels(viewport, qtbot) -> None:
    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("bush", mesh="builtin:bush", cull=(500.0, 600.0)))
    top_down(viewport, scene)
    before = render(viewport, qtbot).astype(int)
    rng = np.random.default_rng(1)
    xz = np.stack([rng.uniform(8, 22, 40), rng.uniform(-20, -6, 40)], axis=1)
    foliage.volume.add("bush", records(xz, 1.5))
    after = render(viewport, qtbot).astype(int)
    changed = np.abs(after - before).sum(axis=-1) > 30
    corners = np.array([[8 - 3, 0, -20 - 3], [22 + 3, 0, -6 + 3], [8 - 3, 3, -6 + 3], [22 + 3, 3, -20 - 3]])
    box = viewport.world_to_screen(corners)
    (x0, y0), (x1, y1) = box.min(axis=0), box.max(axis=0)
    ys, xs = np.nonzero(changed)
    assert len(xs) > 200  # the bushes show
    inside = (xs >= x0 - 2) & (xs <= x1 + 2) & (ys >= y0 - 2) & (ys <= y1 + 2)
    assert inside.all()  # and nothing changed anywhere else
    assert viewport.stats.instances == 40 and viewport.stats.chunks_drawn >= 1


def test_a_chunk_behind_the_camera_is_not_drawn(viewport, qtbot) -> None:
    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("tree", mesh="builtin:conifer", cull=(900.0, 1000.0)))
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    cam.target = np.array([0.0, 2.0, -40.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(10.0), 40.0  # eye near z = 0, looking -Z
    foliage.volume.add("tree", records(np.array([[0.0, -60.0], [3.0, -50.0]])))  # in front
    foliage.volume.add("tree", records(np.array([[0.0, 90.0], [5.0, 100.0]])))  # behind the eye
    render(viewport, qtbot)
    fr = viewport.foliage_renderer
    behind = {k for k in foliage.volume.keys() if k[0][1] >= 2}
    assert behind and not (behind & set(fr.visible))
    assert viewport.stats.chunks_culled == len(behind)
    assert viewport.stats.chunks_drawn == len(foliage.volume.keys()) - len(behind)
    assert viewport.stats.instances == 2
    cam.yaw, cam.target = np.pi, np.array([0.0, 2.0, 40.0])  # same eye, turned round
    render(viewport, qtbot)
    assert behind == set(fr.visible)  # now those are drawn and the others culled


def test_instances_fade_out_between_the_cull_distances(viewport, qtbot) -> None:
    scene = flat_scene()
    foliage = foliage_of(scene)
    near_type = FoliageType("bush", mesh="builtin:bush", cull=(30.0, 40.0), impostor=False)
    foliage.palette.add(near_type)
    top_down(viewport, scene, distance=90.0)  # every bush is about 90 m from the eye
    viewport.show_foliage_cover(False)  # the instances' own fade, without the far cover tint
    base = render(viewport, qtbot).astype(int)
    xz = np.array([[x, z] for x in range(-20, 21, 5) for z in range(-15, 16, 5)], float)
    foliage.volume.add("bush", records(xz, 2.0))

    def coverage() -> int:
        return int((np.abs(render(viewport, qtbot).astype(int) - base).sum(axis=-1) > 30).sum())

    assert coverage() == 0  # beyond the fade end: gone
    assert viewport.stats.chunks_drawn == 0  # and the chunks are not even drawn
    foliage.palette.replace(near_type.__class__(**{**near_type.__dict__, "cull": (150.0, 200.0)}))
    full = coverage()
    assert full > 500  # well inside the fade start: all there
    foliage.palette.replace(near_type.__class__(**{**near_type.__dict__, "cull": (60.0, 120.0)}))
    half = coverage()
    assert 0.25 * full < half < 0.75 * full  # half way through the fade: dithered away in part


def test_a_changed_chunk_is_reuploaded_alone(viewport, qtbot) -> None:
    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("rock", mesh="builtin:rock"))
    top_down(viewport, scene)
    xz = np.array([[x, z] for x in range(-100, 100, 16) for z in range(-100, 100, 16)], float)
    foliage.volume.add("rock", records(xz))
    render(viewport, qtbot)
    fr = viewport.foliage_renderer
    assert set(fr.uploads) == set(foliage.volume.keys()) and set(fr.uploads.values()) == {1}
    render(viewport, qtbot)
    assert sum(fr.uploads.values()) == len(foliage.volume.keys())  # a plain redraw uploads nothing
    foliage.volume.add("rock", records(np.array([[5.0, 5.0]])))
    render(viewport, qtbot)
    touched = ((0, 0), "rock")
    assert fr.uploads[touched] == 2
    assert sum(fr.uploads.values()) == len(foliage.volume.keys()) + 1
    removed = foliage.volume.remove({touched: np.arange(len(foliage.volume.records(*touched)))})
    render(viewport, qtbot)
    assert touched not in fr._gpu
    foliage.volume.restore(removed)
    render(viewport, qtbot)
    assert touched in fr._gpu and fr._gpu[touched].count == len(foliage.volume.records(*touched)) == 5


def test_foliage_added_to_the_scene_later_is_followed(viewport, qtbot) -> None:
    scene = flat_scene()
    top_down(viewport, scene)
    render(viewport, qtbot)
    foliage = foliage_of(scene)  # the section appears after the scene was shown
    foliage.palette.add(FoliageType("bush", mesh="builtin:bush"))
    foliage.volume.add("bush", records(np.array([[0.0, 0.0]]), 3.0))
    render(viewport, qtbot)
    assert viewport.stats.instances == 1


def test_an_unreadable_mesh_file_is_reported_and_a_placeholder_drawn(viewport, qtbot, tmp_path) -> None:
    scene = flat_scene()
    scene.path = tmp_path / "s.boscage"
    (tmp_path / "broken.obj").write_bytes(b"\x00garbage")
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("odd", mesh="broken.obj"))
    foliage.volume.add("odd", records(np.array([[0.0, 0.0]]), 3.0))
    top_down(viewport, scene)
    # said as a mesh problem, not as a drawing failure: nothing is switched off
    with qtbot.waitSignal(viewport.mesh_failed, timeout=5000) as failed, \
            qtbot.assertNotEmitted(viewport.gl_failed, wait=100):
        render(viewport, qtbot)
    assert "broken.obj" in failed.args[0]
    assert viewport.stats.instances == 1


@pytest.mark.parametrize("pitch, roll", [(np.pi / 2, 0.0), (0.0, np.pi / 2), (0.6, -0.4)])
def test_the_shader_turns_instances_as_the_model_says(viewport, qtbot, pitch, roll) -> None:
    from model.foliage.scatter import up_of

    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("tree", mesh="builtin:conifer", cull=(500.0, 600.0)))
    top_down(viewport, scene, distance=60.0)
    base = render(viewport, qtbot).astype(int)
    rec = np.array([[0.0, 0.5, 0.0, 0.3, pitch, roll, 1.0]], np.float32)
    foliage.volume.add("tree", rec)
    img = render(viewport, qtbot).astype(int)
    ys, xs = np.nonzero(np.abs(img - base).sum(axis=-1) > 30)
    up = up_of(rec)[0]
    # the tree's tip, where the model's up vector puts it, is covered; the opposite side is not
    tip = viewport.world_to_screen(np.array([rec[0, :3] + up * 10.0]))[0]
    away = viewport.world_to_screen(np.array([rec[0, :3] - up * 10.0]))[0]
    near_tip = np.hypot(xs - tip[0], ys - tip[1]).min()
    near_away = np.hypot(xs - away[0], ys - away[1]).min()
    assert near_tip < 4 and near_away > 15


def test_an_edit_refreshes_the_culling_rows_of_its_chunks_only(viewport, qtbot, monkeypatch) -> None:
    """A sculpt stamp re-grounds a few chunks: the frame recomputes their bounds, not every chunk's
    (issue 15, point 13), and what it draws is what a fresh renderer draws."""
    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("rock", mesh="builtin:rock"))
    top_down(viewport, scene)
    xz = np.array([[x, z] for x in range(-100, 100, 16) for z in range(-100, 100, 16)], float)
    foliage.volume.add("rock", records(xz))
    render(viewport, qtbot)
    volume = foliage.volume
    asked = []
    real = type(volume).bounds

    def counted(self, cell, type_name):
        asked.append((cell, type_name))
        return real(self, cell, type_name)

    monkeypatch.setattr(type(volume), "bounds", counted)
    key = sorted(volume.keys())[3]
    idx = {key: np.array([0])}
    moved = volume.at(idx).copy()
    moved[:, 1] += 5.0  # lifted, as a sculpt stamp lifts what stands on the ground
    volume.remove(idx)
    volume.add("rock", moved)
    edited = render(viewport, qtbot).astype(int)
    assert 0 < len(set(asked)) <= 2 and len(volume.keys()) > 40
    viewport.set_scene(scene, frame=False)
    assert np.array_equal(render(viewport, qtbot).astype(int), edited)
