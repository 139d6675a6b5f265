"""Terrain level of detail in the real viewport: no cracks between levels, triangles that follow the
screen rather than the terrain, and edits that re-mesh only the tiles they touched."""

from __future__ import annotations

import numpy as np

from model.scene import Scene
from model.terrain import Terrain
from rendering.terrain_lod import PIXEL_ERROR
from tests.gui_helpers import is_sky, render


def steep(n: int, spacing: float = 1.0) -> Scene:
    """Ridges 240 m high with 30 m slopes of up to 60 degrees and a 16 m ripple, centred on 0."""
    z, x = (np.mgrid[0:n, 0:n].astype(np.float64) - (n - 1) / 2) * spacing
    h = 120 * np.sin(x / 97.0) * np.cos(z / 131.0) + 40 * np.sin((x + z) / 23.0) \
        + 8 * np.sin(x / 5.3) * np.sin(z / 7.1)
    half = (n - 1) * spacing / 2
    t = Terrain(h.astype(np.float32), spacing, (-half, -half))
    t.add_layer("grass", (90, 140, 60), np.full((n, n), 255, np.uint8))
    t.add_layer("rock", (200, 60, 40), np.zeros((n, n), np.uint8))
    return Scene(terrain=t, name="Steep")


def grazing(viewport, target=(0.0, 60.0, 0.0), distance: float = 400.0) -> None:
    cam = viewport.camera
    cam.target = np.array(target)
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(4.0), distance


def sky_under_ground(img: np.ndarray) -> int:
    """Sky pixels below the first ground pixel of their column: a heightfield seen from above it
    never shows the background there unless its surface has a gap."""
    sky = is_sky(img, tol=3)
    ground_above = np.maximum.accumulate(~sky, axis=0)
    return int((sky & ground_above).sum())


def test_a_steep_terrain_at_a_grazing_view_has_no_cracks_and_looks_like_full_detail(viewport, qtbot) -> None:
    scene = steep(1025)
    viewport.set_scene(scene, frame=False)
    grazing(viewport)
    tr = viewport.terrain_renderer
    tr.pixel_error = 8.0  # coarse levels, wide gaps to fill: the skirts still close them
    coarse = render(viewport, qtbot).astype(int)
    assert len({k[0] for k in tr.drawn}) >= 3 and sky_under_ground(coarse) == 0
    tr.pixel_error = PIXEL_ERROR
    lod = render(viewport, qtbot).astype(int)
    assert not tr.full_detail and len({k[0] for k in tr.drawn}) >= 3  # several levels meet here
    assert (~is_sky(lod)).mean() > 0.4
    assert sky_under_ground(lod) == 0
    lod_triangles = tr.triangles
    for pitch in (45.0, 70.0):  # looking down, a gap would show the void under the surface
        viewport.camera.pitch = np.radians(pitch)
        assert sky_under_ground(render(viewport, qtbot).astype(int)) == 0
    grazing(viewport)
    tr.full_detail_triangles = 10 ** 9  # the same view, every sample drawn
    full = render(viewport, qtbot).astype(int)
    assert tr.triangles > 5 * lod_triangles
    # at the default error the coarse tiles do not show: silhouettes and shades match
    assert (is_sky(lod) != is_sky(full)).mean() < 0.01
    assert np.abs(lod - full).mean() < 2.0


def test_without_skirts_the_same_view_shows_cracks(viewport, qtbot, monkeypatch) -> None:
    """The crack test above can fail: with the skirts flat, the gaps between levels let the sky in."""
    from rendering.terrain_lod import LodPyramid

    monkeypatch.setattr(LodPyramid, "skirt_depth", lambda self, key: 0.0)
    viewport.set_scene(steep(1025), frame=False)
    grazing(viewport)
    viewport.camera.pitch = np.radians(45.0)
    assert sky_under_ground(render(viewport, qtbot).astype(int)) > 0


def test_triangles_drawn_follow_the_view_not_the_terrain_size(viewport, qtbot) -> None:
    from rendering.terrain_lod import MAX_TILES, TILE

    """A fly-over view (60 degrees down, about 280 m up) whose ground lies inside both terrains draws
    about the same over 4 km of terrain as over 1 km; a grazing view out to the horizon, which sees
    more of the larger terrain, stays in the budget."""
    budget = MAX_TILES * (2 * TILE * TILE + 8 * TILE)
    drawn = {}
    for n in (1025, 4097):
        viewport.set_scene(steep(n), frame=False)
        cam = viewport.camera
        cam.target, cam.yaw = np.array([0.0, 60.0, 0.0]), 0.0
        cam.pitch, cam.distance = np.radians(60.0), 250.0
        render(viewport, qtbot)
        drawn[n] = viewport.terrain_renderer.triangles
        grazing(viewport)
        render(viewport, qtbot)
        assert 0 < viewport.terrain_renderer.triangles <= budget
    assert 0 < drawn[4097] <= budget
    assert 0.8 * drawn[1025] <= drawn[4097] <= 1.25 * drawn[1025]  # 16 x the samples


def test_a_sculpt_stamp_reuploads_only_the_tiles_it_touched_at_every_level(viewport, qtbot) -> None:
    from model.brush import Brush
    from model.sculpt import TerrainStroke, raise_lower

    scene = steep(1025)
    viewport.set_scene(scene, frame=False)
    cam = viewport.camera
    tr = viewport.terrain_renderer
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([0.0, 0.0, 0.0]), 0.3, np.radians(50.0), 1500.0
    render(viewport, qtbot)  # coarse tiles over the whole terrain
    cam.distance = 120.0
    render(viewport, qtbot)  # fine ones around the target: both stay resident
    levels = {k[0] for k in tr.tile_uploads}
    assert len(levels) >= 3
    before = dict(tr.tile_uploads)
    resident_before = set(tr._tiles)
    stroke = TerrainStroke(scene.terrain)
    stroke.apply(raise_lower(scene.terrain, Brush(radius=6.0, strength=1.0), 3.0, -2.0, 8.0))
    stroke.finish()
    edited = render(viewport, qtbot).astype(int)
    again = {k for k, n in tr.tile_uploads.items() if n > before.get(k, 0)}
    # the stamp's samples: 512 + 3 ± 6 columns, 512 - 2 ± 6 rows
    p = tr.pyramid

    def reaches(key) -> bool:
        lv, i, j = key
        span, s = 64 << lv, 1 << lv
        return i * span - s <= 510 + 7 and (i + 1) * span + s >= 510 - 7 and \
            j * span - s <= 515 + 7 and (j + 1) * span + s >= 515 - 7

    touched = {k for k in resident_before if reaches(k)}
    patched = again & resident_before
    assert patched <= touched  # nothing far from the stamp is sent again
    assert touched & set(tr.drawn) <= patched  # and every touched tile on screen is
    assert len(patched) <= 4 * p.levels
    # touched tiles not on screen wait, marked, for the frame that draws them: every level
    assert touched - patched <= set(tr._dirty) and len({k[0] for k in touched}) >= 3
    cam.distance = 1500.0
    render(viewport, qtbot)
    far_patched = {k for k, n in tr.tile_uploads.items() if n > before.get(k, 0)} & resident_before
    assert far_patched <= touched and len({k[0] for k in far_patched}) >= 2
    assert touched & set(tr.drawn) <= far_patched
    cam.distance = 120.0
    edited = render(viewport, qtbot).astype(int)
    # tiles newly built are those the edit's new errors refined, next to the stamp
    assert len(again - resident_before) <= 8
    viewport.set_scene(scene, frame=False)  # built from scratch on the edited terrain
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([0.0, 0.0, 0.0]), 0.3, np.radians(50.0), 120.0
    fresh = render(viewport, qtbot).astype(int)
    assert np.abs(fresh - edited).max() <= 2


def test_the_tile_cache_stays_within_its_bytes_while_flying(viewport, qtbot) -> None:
    scene = steep(2049)
    viewport.set_scene(scene, frame=False)
    tr = viewport.terrain_renderer
    tr.cache_bytes = 12 << 20
    cam = viewport.camera
    cam.yaw, cam.pitch, cam.distance = 0.0, np.radians(20.0), 150.0
    resident = []
    for z in np.linspace(-900.0, 900.0, 7):
        cam.target = np.array([0.0, 40.0, z])
        img = render(viewport, qtbot)
        assert sky_under_ground(img.astype(int)) == 0
        resident.append(tr.resident_bytes)
        assert tr.resident_bytes <= tr.cache_bytes
    assert len(tr.tile_uploads) > 1.5 * len(tr._tiles)  # tiles left behind were evicted
