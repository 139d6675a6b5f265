"""Impostors: far instances drawn as baked cards, so Frame All shows every stored instance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from model.foliage import FoliageType, foliage_of
from rendering.foliage_renderer import FoliageRenderer
from tests.gui_helpers import pixels, render
from tests.widgets.test_viewport_foliage import flat_scene, records
from tests.widgets.test_viewport_overview import _samples

COLOUR_TOLERANCE = 12.0  # mean colour difference (0..255 per channel) of an instance's pixels (measured
# at the switch: at most 3.3, a broadleaf from above)


def _forest(with_trees: bool, **kw):
    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("tree", mesh="builtin:broadleaf", cull=(40.0, 60.0), **kw))
    if with_trees:
        rng = np.random.default_rng(4)
        xz = np.stack([rng.uniform(-124, -8, 900), rng.uniform(-124, 124, 900)], axis=1)  # west half
        foliage.volume.add("tree", records(xz, 1.0))
    return scene


def test_frame_all_draws_every_instance_as_cards_where_the_forest_is_and_nothing_elsewhere(
        viewport, qtbot) -> None:
    viewport.resize(480, 360)
    viewport.set_scene(_forest(True))
    viewport.show_foliage_cover(False)  # the cards alone, without the ground tint
    QTest.keyClick(viewport, Qt.Key.Key_F)
    forest = render(viewport, qtbot).astype(int)
    levels = viewport.stats.levels
    assert set(levels) <= {"impostor", "proxy"} and sum(levels.values()) == 900  # every instance, a card
    assert viewport.stats.chunks_culled == 0
    cam = viewport.camera
    pose = (cam.target.copy(), cam.yaw, cam.pitch, cam.distance)
    viewport.set_scene(_forest(False), frame=False)
    cam.target, cam.yaw, cam.pitch, cam.distance = pose
    viewport.orbit_by_degrees(0.0, 0.0)
    bare = render(viewport, qtbot).astype(int)
    diff = np.abs(forest - bare).sum(axis=-1)
    west, east = _samples(viewport, -110, -25), _samples(viewport, 25, 110)
    patch = [diff[max(0, y - 4):y + 5, max(0, x - 4):x + 5].max() for x, y in west]
    assert np.mean(np.array(patch) > 30) > 0.9  # trees stand all over the west half
    assert (diff[east[:, 1], east[:, 0]] == 0).all()  # and none in the east


def test_a_type_without_impostors_still_ends_at_its_cull_distance(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    viewport.set_scene(_forest(True, impostor=False))
    QTest.keyClick(viewport, Qt.Key.Key_F)
    render(viewport, qtbot)
    assert viewport.stats.levels == {} and viewport.stats.chunks_drawn == 0
    viewport.set_scene(_forest(True, impostor_cull=20.0))  # cards end too
    QTest.keyClick(viewport, Qt.Key.Key_F)
    render(viewport, qtbot)
    assert viewport.stats.levels == {}


def _instance_colour(viewport, qtbot, ftype: FoliageType, distance: float, pitch: float = 12.0,
                     scene=None) -> tuple[np.ndarray, int, dict]:
    scene = flat_scene() if scene is None else scene
    foliage = foliage_of(scene)
    viewport.set_scene(scene, frame=False)
    viewport.show_foliage_cover(False)
    cam = viewport.camera
    cam.target = np.array([0.0, 4.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(pitch), distance
    bare = render(viewport, qtbot).astype(int)
    foliage.palette.add(ftype)
    xz = np.array([[x, 0.0] for x in np.linspace(-30, 30, 5)])
    rec = records(xz, 1.0)
    rec[:, 3] = np.linspace(0.0, 5.0, 5)  # several yaws: several views of the ring
    foliage.volume.add(ftype.name, rec)
    drawn = render(viewport, qtbot).astype(int)
    mask = np.abs(drawn - bare).sum(axis=-1) > 24
    return drawn[mask].mean(axis=0), int(mask.sum()), dict(viewport.stats.levels)


@pytest.mark.parametrize("pitch", [12.0, 50.0, 89.0])  # from the side, half way up, from straight above
def test_cards_match_the_mesh_at_the_switch_distance(viewport, qtbot, pitch) -> None:
    viewport.resize(640, 360)
    switch = 180.0
    for mesh in ("builtin:broadleaf", "builtin:conifer"):
        as_mesh = FoliageType("m", mesh=mesh, cull=(switch + 100, switch + 150))  # its last level
        as_card = FoliageType("c", mesh=mesh, cull=(1.0, 2.0))
        mesh_colour, mesh_pixels, lv_mesh = _instance_colour(viewport, qtbot, as_mesh, switch, pitch)
        card_colour, card_pixels, lv_card = _instance_colour(viewport, qtbot, as_card, switch, pitch)
        assert lv_mesh == {"LOD 2": 5} and lv_card == {"impostor": 5}
        assert mesh_pixels > 200
        assert 0.7 < card_pixels / mesh_pixels < 1.4, mesh  # about the same outline
        diff = np.abs(mesh_colour - card_colour)
        assert diff.mean() < COLOUR_TOLERANCE, (mesh, mesh_colour, card_colour)


def test_the_frame_statistics_overlay_counts_instances_per_level(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    viewport.set_scene(_forest(True))
    viewport.show_stats(True)
    cam = viewport.camera
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([-60.0, 0.0, 0.0]), 0.0, np.radians(25.0), 12.0
    viewport.orbit_by_degrees(0.0, 0.0)
    render(viewport, qtbot)
    levels = viewport.stats.levels
    assert levels.get("LOD 0", 0) > 0 and levels.get("impostor", 0) > 0
    assert sum(levels.values()) <= viewport.stats.instances
    render(viewport, qtbot)  # the label shows the frame before
    text = viewport.findChild(type(viewport._stats_label), "frame_stats").text()
    assert f"impostor {levels['impostor']:,}" in text and f"LOD 0 {levels['LOD 0']:,}" in text


def test_far_cards_drawn_as_points_look_like_the_quads(viewport, qtbot, monkeypatch) -> None:
    viewport.resize(640, 360)
    card = FoliageType("c", mesh="builtin:broadleaf", cull=(1.0, 2.0))
    monkeypatch.setattr(FoliageRenderer, "point_pixels", 1e-3)  # every card a quad
    quad_colour, quad_pixels, _ = _instance_colour(viewport, qtbot, card, 260.0)
    monkeypatch.setattr(FoliageRenderer, "point_pixels", 1e4)  # every card a point sprite
    point_colour, point_pixels, levels = _instance_colour(viewport, qtbot, card, 260.0)
    assert levels == {"impostor": 5} and quad_pixels > 100
    assert 0.8 < point_pixels / quad_pixels < 1.25
    assert np.abs(point_colour - quad_colour).mean() < 6.0



TOP, SIDES = (0.85, 0.12, 0.10), (0.10, 0.22, 0.85)  # a box's top face red, its four sides blue


def _two_colour_box(folder, name: str = "box.obj") -> str:
    """An OBJ box 4 m wide and 6 m tall standing on the origin: top face red, sides blue."""
    (folder / "box.mtl").write_text(f"newmtl top\nKd {' '.join(map(str, TOP))}\n"
                                    f"newmtl sides\nKd {' '.join(map(str, SIDES))}\n")
    lines, faces = ["mtllib box.mtl"], {"top": [], "sides": []}
    centre = np.array([0.0, 3.0, 0.0])
    half = np.array([2.0, 3.0, 2.0])
    for n, u in (((0, 1, 0), (1, 0, 0)), ((1, 0, 0), (0, 0, -1)), ((-1, 0, 0), (0, 0, 1)),
                 ((0, 0, 1), (1, 0, 0)), ((0, 0, -1), (-1, 0, 0)), ((0, -1, 0), (-1, 0, 0))):
        n, u = np.array(n, float), np.array(u, float)
        v = np.cross(n, u)  # u × v = n: counter-clockwise seen from outside
        corners = [centre + half * (n + a * u + b * v) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        faces["top" if n[1] > 0 else "sides"].append(corners)
    for part, quads in faces.items():
        lines.append(f"usemtl {part}")
        for quad in quads:
            first = sum(line.startswith("v ") for line in lines) + 1
            lines += [f"v {x} {y} {z}" for x, y, z in quad]
            lines.append("f " + " ".join(str(first + k) for k in range(4)))
    (folder / name).write_text("\n".join(lines) + "\n")
    return name


def _file_scene(folder):
    scene = flat_scene()
    scene.path = folder / "box.boscage"
    return scene


def _red_over_blue(colour: np.ndarray) -> float:
    return float(colour[0] / max(colour[2], 1.0))


def test_seen_from_straight_above_a_card_shows_the_crown_top_and_from_the_side_its_sides(
        viewport, qtbot, tmp_path) -> None:
    viewport.resize(640, 360)
    box = _two_colour_box(tmp_path)
    looks = {}
    for pitch in (89.0, 4.0):
        for kind, cull in (("mesh", (400.0, 450.0)), ("card", (1.0, 2.0))):
            ftype = FoliageType(kind, mesh=box, cull=cull)
            colour, pixels, levels = _instance_colour(viewport, qtbot, ftype, 200.0, pitch,
                                                      _file_scene(tmp_path))
            assert pixels > 60 and (levels == {"impostor": 5}) == (kind == "card"), levels
            looks[kind, pitch] = colour
    # from above, the top's red: the mesh's and the card's alike; from the side, the sides' blue
    assert _red_over_blue(looks["mesh", 89.0]) > 3.0 and _red_over_blue(looks["card", 89.0]) > 3.0, looks
    assert _red_over_blue(looks["mesh", 4.0]) < 0.5 and _red_over_blue(looks["card", 4.0]) < 0.5, looks
    for pitch in (89.0, 4.0):
        assert np.abs(looks["mesh", pitch] - looks["card", pitch]).mean() < COLOUR_TOLERANCE, looks


def test_the_atlas_holds_the_top_in_its_middle_frames_and_the_sides_round_its_edge(
        viewport, qtbot, tmp_path) -> None:
    from OpenGL import GL

    from rendering.impostors import FRAMES, nearest_frames

    viewport.resize(320, 240)
    scene = _file_scene(tmp_path)
    box = _two_colour_box(tmp_path)
    _two_colour_box(tmp_path, "copy.obj")
    foliage = foliage_of(scene)
    for name, mesh in (("a", box), ("b", "copy.obj"), ("c", "builtin:bush")):
        foliage.palette.add(FoliageType(name, mesh=mesh, cull=(1.0, 2.0)))
        foliage.volume.add(name, records(np.array([[0.0, 0.0]]), 1.0))
    viewport.set_scene(scene, frame=False)
    render(viewport, qtbot)
    fr = viewport.foliage_renderer
    viewport.makeCurrent()
    try:
        imp = fr.impostor(box)
        assert fr.impostor("copy.obj") is imp  # the same bytes under another name: one atlas
        assert fr.impostor("builtin:bush") is not imp and fr.bakes == 2
        GL.glBindTexture(GL.GL_TEXTURE_2D, imp.albedo)
        raw = GL.glGetTexImage(GL.GL_TEXTURE_2D, 0, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
    finally:
        viewport.doneCurrent()
    atlas = np.frombuffer(raw, np.uint8).reshape(imp.size, imp.size, 4).astype(float)

    def frame(cell) -> tuple[np.ndarray, float]:
        t = imp.texels
        texels = atlas[cell[1] * t:(cell[1] + 1) * t, cell[0] * t:(cell[0] + 1) * t].reshape(-1, 4)
        shown = texels[texels[:, 3] > 127]
        return shown[:, :3].mean(axis=0), len(shown) / len(texels)

    cells, weights = nearest_frames(np.array([0.0, 1.0, 0.0]))
    for cell in cells[weights > 0]:  # round the zenith: the top's red fills the square's middle
        colour, cover = frame(cell)
        assert colour[0] > 3 * colour[2] and 0.2 < cover < 0.6, (cell, colour, cover)
    for cell in ((0, 0), (0, FRAMES // 2), (FRAMES - 1, 3), (5, FRAMES - 1)):  # on the horizon
        colour, cover = frame(cell)
        assert colour[2] > 3 * colour[0] and cover > 0.2, (cell, colour, cover)
    bush = fr.impostor("builtin:bush")
    foliage.palette.replace(FoliageType("c", mesh="builtin:rock", cull=(1.0, 2.0)))
    render(viewport, qtbot)
    viewport.makeCurrent()
    try:  # an atlas no type draws any more is freed; the others are kept
        assert set(fr.impostors) == {box, "copy.obj", "builtin:rock"} and fr.bakes == 3
        assert all(kept is not bush for kept in fr._baked.values())
        rock = fr.impostor("builtin:rock")
        freed = {bush.albedo, bush.normals, bush.depth} - {rock.albedo, rock.normals, rock.depth}
        assert not any(GL.glIsTexture(t) for t in freed) and GL.glIsTexture(imp.albedo)
    finally:
        viewport.doneCurrent()


def _two_forests():
    """Broadleaves over the west half, spruces over the east half, both far past their cull."""
    scene = flat_scene()
    foliage = foliage_of(scene)
    rng = np.random.default_rng(5)
    for name, mesh, (x0, x1) in (("tree", "builtin:broadleaf", (-124, -8)),
                                 ("spruce", "builtin:conifer", (8, 124))):
        foliage.palette.add(FoliageType(name, mesh=mesh, cull=(40.0, 60.0)))
        xz = np.stack([rng.uniform(x0, x1, 600), rng.uniform(-124, 124, 600)], axis=1)
        foliage.volume.add(name, records(xz, 1.0))
    return scene


def test_the_first_frame_leaves_far_cards_for_later_frames_and_a_grab_draws_them_all(viewport, qtbot) -> None:
    from OpenGL import GL

    viewport.resize(480, 360)
    viewport.show_foliage_cover(False)  # the cards alone, without the ground tint
    frames: list[tuple[int, bool, np.ndarray]] = []  # (atlases baked, still pending, the frame's pixels)
    counted: list[tuple[int, int]] = []  # (instances per level, instances) in each frame's statistics

    def read_frame() -> None:  # inside paintGL: the viewport's framebuffer is bound
        w, h = viewport.width(), viewport.height()
        raw = GL.glReadPixels(0, 0, w, h, GL.GL_RGB, GL.GL_UNSIGNED_BYTE)
        rgb = np.frombuffer(raw, np.uint8).reshape(h, w, 3)[::-1].astype(int)
        frames.append((viewport.foliage_renderer.bakes, viewport.textures_pending(), rgb))
        counted.append((sum(viewport.stats.levels.values()), viewport.stats.instances))

    viewport.set_scene(_two_forests())
    viewport.camera.yaw, viewport.camera.pitch = 0.0, math.radians(80.0)  # from above: the halves apart
    viewport.frame_all()
    viewport.frame_rendered.connect(read_frame)
    viewport.update()
    # the frames after the first ask for themselves while atlases wait
    qtbot.waitUntil(lambda: bool(frames) and not frames[-1][1], timeout=30000)
    viewport.frame_rendered.disconnect(read_frame)
    assert [(b, p) for b, p, _ in frames] == [(0, True), (1, True), (2, False)]  # one atlas a frame
    west, east = _samples(viewport, -110, -25), _samples(viewport, 25, 110)

    def trees(rgb, samples) -> float:  # share of the sample points with a card round them
        diff = np.abs(rgb - frames[0][2]).sum(axis=-1)
        return float(np.mean([diff[max(0, y - 4):y + 5, max(0, x - 4):x + 5].max() > 30 for x, y in samples]))

    assert trees(frames[-1][2], west) > 0.8 and trees(frames[-1][2], east) > 0.8  # both forests in the end
    assert trees(frames[0][2], west) == trees(frames[0][2], east) == 0.0  # the first: no cards at all
    halfway = sorted([trees(frames[1][2], west), trees(frames[1][2], east)])
    assert halfway[0] == 0.0 and halfway[1] > 0.8  # one forest after the first bake
    assert viewport.stats.levels and sum(viewport.stats.levels.values()) == 1200
    assert counted == [(0, 0), (600, 600), (1200, 1200)]  # cards still waiting are not counted as drawn
    cam = viewport.camera
    pose = (cam.target.copy(), cam.yaw, cam.pitch, cam.distance)
    viewport.set_scene(_two_forests(), frame=False)
    cam.target, cam.yaw, cam.pitch, cam.distance = pose
    viewport.orbit_by_degrees(0.0, 0.0)
    grabbed = pixels(viewport.grabFramebuffer()).astype(int)  # a grab wants every card at once
    assert viewport.foliage_renderer.bakes == 2 and not viewport.textures_pending()
    assert np.abs(grabbed - frames[-1][2]).mean() < 1.0
