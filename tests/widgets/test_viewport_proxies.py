"""Far chunks drawn from their proxies: a hash-ordered handful of their own instances, grown to
cover for the rest. Real OpenGL (Xvfb + llvmpipe), pixels read back."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from model.demo import demo_resource_path
from model.foliage import FoliageType, foliage_of
from model.foliage.foliage_type import Variant
from model.formats.scene_file import load_scene
from tests.gui_helpers import render
from tests.widgets.test_viewport_foliage import flat_scene, records

COLOUR_TOLERANCE = 6.0  # mean colour difference (0..255 per channel) of the forest's pixels (measured 1.9)
SIGHT_PIXELS = 2.0  # an instance whose top clears the ground by less than this counts as hidden


def _dense_forest(scene, n: int = 1200):
    """`n` broadleaves over four 32 m cells: 300 a chunk, far more than a proxy keeps."""
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("tree", cull=(1.0, 2.0), hue=(-12.0, 12.0), value=(-0.1, 0.1),
                                    variants=(Variant("builtin:broadleaf", 2.0), Variant("builtin:conifer"))))
    rng = np.random.default_rng(9)
    xz = rng.uniform(0.5, 63.5, (n, 2)) - 32.0
    foliage.volume.add("tree", records(xz, 1.0))
    return foliage.volume


def _look(viewport, distance: float) -> None:
    cam = viewport.camera
    cam.target = np.array([0.0, 4.0, 0.0])
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(20.0), distance
    viewport.orbit_by_degrees(0.0, 0.0)


def _forest_pixels(viewport, qtbot, proxy_pixels: float, distance: float):
    """Mean colour and count of the pixels the forest changes, and the frame's levels."""
    viewport.set_scene(flat_scene(), frame=False)
    viewport.show_foliage_cover(False)
    _look(viewport, distance)
    bare = render(viewport, qtbot).astype(int)
    scene = flat_scene()
    _dense_forest(scene)
    viewport.set_scene(scene, frame=False)
    viewport.foliage_renderer.proxy_pixels = proxy_pixels
    _look(viewport, distance)
    drawn = render(viewport, qtbot).astype(int)
    mask = np.abs(drawn - bare).sum(axis=-1) > 24
    stats = viewport.stats
    return drawn[mask].mean(axis=0), int(mask.sum()), dict(stats.levels), stats.proxy_cards


def test_the_proxy_matches_the_full_instances_at_its_switch_distance(viewport, qtbot) -> None:
    viewport.resize(640, 360)
    distance = 420.0
    full_colour, full_pixels, full_levels, cards = _forest_pixels(viewport, qtbot, 0.0, distance)
    assert full_levels == {"impostor": 1200} and cards == 0  # proxies off: every instance a card
    # the proxy pixels that put the end of the impostors' dissolve into the proxies just before the camera
    height = viewport.height() * viewport.devicePixelRatioF()
    focal = float(viewport.camera.projection_matrix(1.0)[1, 1]) * height / 2
    nearest = float(np.linalg.norm(viewport.camera.eye())) - 32.0 * np.sqrt(2.0)  # the forest's near corner
    start = nearest / 1.07  # the band is 12 % wide around its start
    proxy_colour, proxy_pixels, levels, cards = _forest_pixels(viewport, qtbot, 32 * focal / start, distance)
    assert viewport.foliage_renderer.plan("tree").proxy.fade_in[1] < nearest
    assert levels == {"proxy": 1200}  # the proxies stand for every instance…
    assert 0 < cards <= 4 * 64  # …with at most 64 cards a chunk
    assert full_pixels > 500
    assert 0.85 < proxy_pixels / full_pixels < 1.15  # about the same cover (measured 0.97)
    diff = np.abs(full_colour - proxy_colour)
    assert diff.mean() < COLOUR_TOLERANCE, (full_colour, proxy_colour)


def test_a_far_proxy_draws_fewer_cards_and_an_edit_rebuilds_only_its_chunk(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    scene = flat_scene(size=257, spacing=4.0)  # 1 km
    volume = _dense_forest(scene)
    rng = np.random.default_rng(3)
    volume.add("tree", records(rng.uniform(-500, 500, (60_000, 2)), 1.0))  # and 60 a chunk all over
    viewport.set_scene(scene, frame=False)
    fr = viewport.foliage_renderer
    fr.proxy_pixels = 64.0
    cam = viewport.camera
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([0.0, 0.0, 0.0]), 0.0, np.radians(50.0), 700.0
    viewport.orbit_by_degrees(0.0, 0.0)
    render(viewport, qtbot)
    near_cards = viewport.stats.proxy_cards
    assert _by_proxy(viewport.stats) > 0
    cam.distance = 1400.0
    viewport.orbit_by_degrees(0.0, 0.0)
    viewport.show_stats(True)
    render(viewport, qtbot)
    stats = viewport.stats
    render(viewport, qtbot)  # the corner read-out shows the frame before
    text = viewport.findChild(type(viewport._stats_label), "frame_stats").text()
    for name, n in stats.levels.items():
        if name.startswith("proxy"):
            assert f"{name} {n:,} ({stats.level_cards.get(name, 0):,} cards)" in text
    assert sum(stats.levels.values()) == stats.instances > len(volume) * 0.9
    assert sum(stats.level_cards.values()) == stats.proxy_cards
    assert 0 < stats.proxy_cards < near_cards * 0.6  # twice as far: about a quarter of the cards
    ps = fr._proxies["tree"]
    before = ps.builds
    key = (volume.cell_of(300.0, 300.0), "tree")
    volume.add("tree", records(np.array([[300.0, 300.0], [301.0, 305.0]]), 1.0))
    render(viewport, qtbot)
    assert 0 < ps.builds - before <= len(ps.levels)  # only the nodes on the touched chunk's path
    assert ps.count[ps.row_of(key[0])] == len(volume.chunk(*key))
    assert sum(viewport.stats.levels.values()) == viewport.stats.instances
    gone = (volume.cell_of(-300.0, 200.0), "tree")  # a whole far chunk erased: its row goes
    volume.remove({gone: np.arange(len(volume.chunk(*gone)))})
    before = ps.builds
    render(viewport, qtbot)
    assert ps.row_of(gone[0]) < 0 and len(ps) == len(volume.keys())
    assert ps.builds - before <= len(ps.levels)
    assert sum(viewport.stats.levels.values()) == viewport.stats.instances
    volume.add("tree", records(np.array([[-300.0, 200.0]]), 1.0))  # and a new one made there
    render(viewport, qtbot)
    assert ps.count[ps.row_of(gone[0])] == 1


def _by_proxy(stats) -> int:
    return sum(n for k, n in stats.levels.items() if k.startswith("proxy"))


def _stored_removed(scene) -> None:
    volume = foliage_of(scene).volume
    volume.remove({key: np.arange(len(volume.chunk(*key))) for key in volume.keys()})


def test_frame_all_on_the_demo_shows_every_chunks_foliage_and_none_elsewhere(viewport, qtbot) -> None:
    viewport.resize(800, 560)
    scene = load_scene(demo_resource_path())
    volume = foliage_of(scene).volume
    viewport.set_scene(scene)
    viewport.show_foliage_cover(False)
    # the far ground's base colour is baked a few tiles a frame: without it both shots draw the
    # ground the same way, whichever frame each is taken on (this compares foliage alone)
    viewport.use_terrain_cache(False)
    viewport.camera.pitch = np.radians(50.0)  # from above: few chunks hide behind hills
    QTest.keyClick(viewport, Qt.Key.Key_F)
    forest = render(viewport, qtbot).astype(int)
    stats = viewport.stats
    assert sum(stats.levels.values()) == len(volume) == 4712
    assert _by_proxy(stats) > len(volume) // 2  # from that far, most by proxy (chunk or group)
    assert stats.chunks_drawn == len(volume.keys()) and stats.chunks_culled == 0
    cam = viewport.camera
    pose = (cam.target.copy(), cam.yaw, cam.pitch, cam.distance)
    bare_scene = load_scene(demo_resource_path())
    _stored_removed(bare_scene)
    viewport.set_scene(bare_scene, frame=False)
    cam.target, cam.yaw, cam.pitch, cam.distance = pose
    viewport.orbit_by_degrees(0.0, 0.0)
    bare = render(viewport, qtbot).astype(int)
    diff = np.abs(forest - bare).sum(axis=-1)
    h, w = diff.shape
    ratio = viewport.devicePixelRatioF()
    eye = cam.eye()
    focal = float(cam.projection_matrix(1.0)[1, 1]) * h / 2.0
    near_any = np.zeros((h, w), bool)
    seen = 0
    for key in volume.keys():  # every chunk's foliage shows where its instances stand
        rec = volume.chunk(*key).records
        pts = np.round(viewport.world_to_screen(rec[:, :3] + [0.0, 1.0, 0.0]) * ratio).astype(int)
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
        assert inside.all(), key
        # a proxy's cards grow to at most √n times the chunk's trees (n: its instances)
        tall = volume.extent_of(key[1])[1] * rec[:, 6] * focal / np.linalg.norm(rec[:, :3] - eye, axis=1)
        reach = np.ceil(3.0 + tall * np.sqrt(len(rec))).astype(int)
        for (x, y), r in zip(pts, reach, strict=True):
            near_any[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1] = True
        if _hidden_by_ground(scene, eye, rec, volume.extent_of(key[1])[1], focal).all():
            continue  # behind a hill or the plateau's cliff from here
        seen += 1
        x0, y0 = pts.min(axis=0) - 3
        x1, y1 = pts.max(axis=0) + 4
        assert diff[max(0, y0):y1, max(0, x0):x1].max() > 10, key  # a grey rock on rock is near its colour
    assert seen > 0.6 * len(volume.keys()), seen  # the rest: behind a crest, or a tip of a pixel over it
    assert 0.02 < near_any.mean() < 0.9
    assert (diff[~near_any] == 0).all()  # and nothing where there is none


def _hidden_by_ground(scene, eye, rec, height: float, focal: float) -> np.ndarray:
    """Per instance: whether the ground comes within `SIGHT_PIXELS` of the sight line from the eye
    to its top (a tip of a pixel is not a tree; the GPU's triangles are not the bilinear ground)."""
    top = rec[:, :3].astype(np.float64)
    top[:, 1] += height * rec[:, 6]
    length = np.linalg.norm(top - eye, axis=1, keepdims=True)
    margin = SIGHT_PIXELS * length / focal  # metres a pixel spans there
    back = np.concatenate([np.arange(0.5, 80.0, 0.5), np.linspace(80.0, 2000.0, 200)])[None, :]  # metres
    t = np.clip(1.0 - back / length, 0.0, 1.0)[..., None]  # finely just before the instance
    line = eye[None, None, :] + (top[:, None, :] - eye[None, None, :]) * t
    ground = scene.terrain.height_at(line[..., 0].ravel(), line[..., 2].ravel()).reshape(line.shape[:2])
    clear = np.where(back >= 4.0, margin, 0.0)  # the ground right under it may touch its line
    return (np.nan_to_num(ground, nan=-1e9) > line[..., 1] - clear).any(axis=1)


def test_a_far_chunk_with_a_selection_is_drawn_amber_from_its_proxy_not_kept_whole(viewport, qtbot) -> None:
    viewport.resize(480, 360)
    scene = flat_scene(size=257, spacing=4.0)  # 1 km
    volume = _dense_forest(scene)
    rng = np.random.default_rng(3)
    volume.add("tree", records(rng.uniform(-500, 500, (20_000, 2)), 1.0))
    viewport.set_scene(scene, frame=False)
    viewport.show_foliage_cover(False)
    fr = viewport.foliage_renderer
    fr.proxy_pixels = 64.0
    cam = viewport.camera
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([0.0, 0.0, 0.0]), 0.0, np.radians(50.0), 900.0
    viewport.orbit_by_degrees(0.0, 0.0)
    before = render(viewport, qtbot).astype(int)
    key = (volume.cell_of(-200.0, -200.0), "tree")
    assert key not in fr._gpu and not fr.proxy_selected  # far: drawn by proxy, not resident
    viewport.show_selection({key: np.arange(len(volume.chunk(*key)))})
    after = render(viewport, qtbot).astype(int)
    assert key in fr.proxy_selected and key not in fr._gpu  # its proxy's cards, amber: never uploaded whole
    stats = viewport.stats
    assert sum(stats.levels.values()) == stats.instances
    changed = np.abs(after - before).sum(axis=-1) > 24
    warmer = (after[..., 0] - after[..., 1]) - (before[..., 0] - before[..., 1])  # green to amber
    assert changed.sum() > 30 and (warmer[changed] > 20).mean() > 0.5, warmer[changed]
    rec = volume.chunk(*key).records
    centre = viewport.world_to_screen(rec[:, :3]).mean(axis=0) * viewport.devicePixelRatioF()
    x, y = np.round(centre).astype(int)
    ys, xs = np.nonzero(changed)
    assert np.hypot(xs - x, ys - y).max() < 40  # only there
    viewport.show_selection({})
    render(viewport, qtbot)
    assert not fr.proxy_selected and key not in fr._gpu  # deselected: the proxies alone


def test_a_palette_edit_remakes_only_that_types_proxies(viewport, qtbot) -> None:
    import dataclasses

    viewport.resize(480, 360)
    scene = flat_scene(size=257, spacing=4.0)
    volume = _dense_forest(scene)
    palette = foliage_of(scene).palette
    palette.add(FoliageType("shrub", mesh="builtin:bush", cull=(1.0, 2.0)))
    rng = np.random.default_rng(6)
    volume.add("shrub", records(rng.uniform(-500, 500, (5000, 2)), 1.0))
    viewport.set_scene(scene, frame=False)
    fr = viewport.foliage_renderer
    fr.proxy_pixels = 64.0
    cam = viewport.camera
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([0.0, 0.0, 0.0]), 0.0, np.radians(50.0), 900.0
    viewport.orbit_by_degrees(0.0, 0.0)
    render(viewport, qtbot)
    trees, shrubs = fr._proxies["tree"], fr._proxies["shrub"]
    built = shrubs.builds
    palette.replace(dataclasses.replace(palette["tree"], hue=(40.0, 60.0)))
    render(viewport, qtbot)
    assert fr._proxies["shrub"] is shrubs and shrubs.builds == built  # the other type is left alone
    assert fr._proxies["tree"] is not trees and fr._proxies["tree"].builds > 0
    assert sum(viewport.stats.levels.values()) == viewport.stats.instances


def _group_forest(scene, n: int = 2400):
    """`n` broadleaves over cells 0..1 × 0..1: one node of the first group level (2 × 2 cells)."""
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("tree", cull=(1.0, 2.0), hue=(-12.0, 12.0), value=(-0.1, 0.1),
                                    variants=(Variant("builtin:broadleaf", 2.0), Variant("builtin:conifer"))))
    rng = np.random.default_rng(12)
    foliage.volume.add("tree", records(rng.uniform(0.5, 63.5, (n, 2)), 1.0))
    return foliage.volume


def _group_pixels(viewport, qtbot, proxy_pixels: float, distance: float, max_level: int):
    def look() -> None:
        cam = viewport.camera
        cam.target = np.array([32.0, 4.0, 32.0])
        cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(20.0), distance
        viewport.orbit_by_degrees(0.0, 0.0)

    viewport.set_scene(flat_scene(), frame=False)
    viewport.show_foliage_cover(False)
    look()
    bare = render(viewport, qtbot).astype(int)
    scene = flat_scene()
    _group_forest(scene)
    viewport.set_scene(scene, frame=False)
    fr = viewport.foliage_renderer
    fr.proxy_pixels, fr.proxy_max_level = proxy_pixels, max_level
    look()
    drawn = render(viewport, qtbot).astype(int)
    mask = np.abs(drawn - bare).sum(axis=-1) > 24
    stats = viewport.stats
    return drawn[mask].mean(axis=0), int(mask.sum()), dict(stats.levels), dict(stats.level_cards)


def test_a_group_proxy_matches_its_chunks_proxies_at_its_switch_distance(viewport, qtbot) -> None:
    viewport.resize(640, 360)
    distance = 420.0
    height = viewport.height() * viewport.devicePixelRatioF()
    focal = float(viewport.camera.projection_matrix(1.0)[1, 1]) * height / 2
    viewport.camera.target = np.array([32.0, 4.0, 32.0])
    viewport.camera.distance = distance
    nearest = float(np.linalg.norm(viewport.camera.eye() - [32.0, 0.0, 32.0])) - 32.0 * np.sqrt(2.0)
    group_start = nearest / 1.07  # the first group level's band (12 % wide) ends before the forest
    pixels = 32 * focal / (group_start / 2)  # level 0 takes over at half that distance
    chunk_colour, chunk_pixels, levels, _ = _group_pixels(viewport, qtbot, pixels, distance, 0)
    assert levels == {"proxy": 2400}  # chunk proxies alone…
    group_colour, group_pixels, levels, cards = _group_pixels(viewport, qtbot, pixels, distance, 1)
    fr = viewport.foliage_renderer
    assert fr.proxy_levels(fr.plan("tree"), 2)[1].fade_in[1] < nearest
    assert levels == {"proxy 1": 2400}  # …and the group, standing for all of them
    assert 0 < cards["proxy 1"] <= 64 and fr.proxy_nodes[:2] == [0, 1]  # one node, at most 64 cards
    assert chunk_pixels > 300
    assert 0.8 < group_pixels / chunk_pixels < 1.2, (group_pixels, chunk_pixels)  # about the same cover
    diff = np.abs(chunk_colour - group_colour)
    print(f"group switch: cover {group_pixels / chunk_pixels:.3f}, colour {diff.mean():.2f}, cards {cards}")
    assert diff.mean() < COLOUR_TOLERANCE, (chunk_colour, group_colour)


def test_the_proxy_budget_is_shared_by_the_types_and_what_it_drops_changes_no_pixel(viewport, qtbot) -> None:
    viewport.resize(480, 360)

    def frame(budget_mb: float):
        scene = flat_scene(size=257, spacing=4.0)
        volume = _dense_forest(scene)
        palette = foliage_of(scene).palette
        palette.add(FoliageType("shrub", mesh="builtin:bush", cull=(1.0, 2.0)))
        rng = np.random.default_rng(6)
        volume.add("shrub", records(rng.uniform(-500, 500, (5000, 2)), 1.0))
        volume.add("tree", records(rng.uniform(-500, 500, (20_000, 2)), 1.0))
        viewport.set_scene(scene, frame=False)
        viewport.show_foliage_cover(False)
        fr = viewport.foliage_renderer
        fr.proxy_pixels, fr.proxy_budget_mb = 64.0, budget_mb
        cam = viewport.camera
        cam.target, cam.yaw, cam.pitch, cam.distance = np.array([0.0, 0.0, 0.0]), 0.0, np.radians(50.0), 900.0
        viewport.orbit_by_degrees(0.0, 0.0)
        return render(viewport, qtbot).astype(int), fr

    roomy, fr = frame(48.0)
    assert all(t.evicted == 0 for t in fr._proxies.values())
    tight, fr = frame(0.05)
    trees = list(fr._proxies.values())
    assert len(trees) == 2 and all(t.budget_bytes == 25_000 for t in trees)  # shared equally
    for t in trees:  # within its share, or holding only what this frame drew
        assert t.cache_bytes <= t.budget_bytes or set(t.cache) <= t._protected
        assert sum(len(e.at) for e in t.gpu) <= len(t._protected)  # the GPU: the nodes drawn
    assert sum(t.evicted for t in trees) > 0
    assert np.array_equal(roomy, tight)  # dropped proxies are remade the same: the same picture


def test_the_statistics_count_no_proxies_whose_atlas_a_later_frame_bakes(viewport, qtbot) -> None:
    """The editor's first frames leave far cards for later (one atlas a frame): until a type's
    atlas is in, its proxies are neither drawn nor counted."""
    viewport.resize(640, 480)
    scene = load_scene(demo_resource_path())
    volume = foliage_of(scene).volume
    counted: list[tuple[int, int, int, bool]] = []  # (per level, instances, by proxy, still pending)

    def read_frame() -> None:
        s = viewport.stats
        counted.append((sum(s.levels.values()), s.instances, _by_proxy(s), viewport.textures_pending()))

    viewport.set_scene(scene)
    viewport.camera.pitch = np.radians(50.0)
    QTest.keyClick(viewport, Qt.Key.Key_F)
    viewport.frame_rendered.connect(read_frame)
    viewport.update()
    qtbot.waitUntil(lambda: bool(counted) and not counted[-1][3], timeout=60000)
    viewport.frame_rendered.disconnect(read_frame)
    assert all(levels == instances for levels, instances, _, _ in counted)
    assert counted[0][2] == 0 and counted[0][0] < len(volume)  # the first frame: no atlas, no proxy
    assert counted[-1][0] == len(volume) and counted[-1][2] > len(volume) // 2
