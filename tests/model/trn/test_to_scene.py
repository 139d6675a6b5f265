"""Import as scene: heights → terrain, shader families → paint layers, flora → foliage types/instances."""

from __future__ import annotations

import numpy as np
import pytest

from model.trn import build
from model.trn.evaluator import Region, evaluate
from model.trn.palette import CURATED, family_palette, layer_color, readable_color
from model.trn.to_scene import ImportCancelled, trn_to_scene
from tests.model.trn.helpers import circle, doc_of, flora, height_const, radial, rect, shader


def _doc():
    trees = flora(4, density=1.0, children=(("pine_tree.apt", 1.0),))
    trees["children"][0].update(shouldScale=1, minScale=0.5, maxScale=2.0)
    return doc_of([
        build.layer("ground", [height_const(5),
                               build.item("ASCN", "0001", shaderFamily=1, useFeatherClampOverride=0,
                                          featherClampOverride=0.0)]),
        build.layer("hill", [circle(0, 0, 30), height_const(20),
                             build.item("ASCN", "0001", shaderFamily=2, useFeatherClampOverride=0,
                                        featherClampOverride=0.0),
                             build.item("AFSC", "0004", floraFamily=4, operation=1, removeAll=0,
                                        densityOverride=0, density=0.0)]),
        build.layer("meadow", [rect(40, -20, 60, 20),
                               build.item("AFSN", "0004", floraFamily=5, operation=1, removeAll=0,
                                          densityOverride=0, density=0.0),
                               build.item("AFDN", "0002", floraFamily=6, operation=1, removeAll=0,
                                          densityOverride=0, density=0.0)]),
    ], shaders=[shader(1, "dirt"), shader(2, "rock"), shader(3, "unused")],
        floras=[trees, flora(5, density=1.0, children=(("fern_bush.apt", 1.0),))], radials=[radial(6)])


def test_heights_layers_and_flora():
    doc = _doc()
    region = Region.from_bounds(-50, -50, 70, 50, 2.0)
    scene = trn_to_scene(doc, region, name="import")
    t = scene.terrain
    ev = evaluate(doc, region)
    np.testing.assert_array_equal(t.heights, ev.heights)
    assert t.origin == (-50.0, -50.0) and t.spacing == 2.0
    assert [la.name for la in t.layers] == ["dirt", "rock", "non-collidable: flora5", "radial near: radial6"]
    np.testing.assert_array_equal(t.layer("rock").weights == 255, ev.shader == 2)
    # readable colours by family (kind, then id), not the families' own tints (rock's is (80, 90, 30))
    palette = family_palette(doc)
    assert t.layer("dirt").color == palette[("shader", 1)] == CURATED[0]
    assert t.layer("rock").color == palette[("shader", 2)] == CURATED[1]
    assert t.layer("non-collidable: flora5").color == palette[("flora", 5)]
    assert t.layer("radial near: radial6").color == palette[("radial", 6)]
    assert len({la.color for la in t.layers}) == len(t.layers)
    foliage = scene.sections["foliage"]
    types = {ft.name: ft for ft in foliage.palette}
    assert types["flora4"].stored and types["flora4"].mesh == "builtin:conifer"
    assert types["flora5 (non-collidable)"].derived and types["flora5 (non-collidable)"].layer.name == \
        "non-collidable: flora5"
    assert types["radial6 (radial near)"].derived
    counts = foliage.counts()
    assert counts["flora4"] == int(np.count_nonzero(ev.flora["collidable"] == 4)) > 100
    rec = foliage.volume.all_records("flora4")
    assert np.all(np.hypot(rec[:, 0], rec[:, 2]) <= 31.5)  # inside the hill, within a pole's jitter
    assert 0.5 <= rec[:, 6].min() and rec[:, 6].max() <= 2.0 and np.ptp(rec[:, 6]) > 1
    np.testing.assert_allclose(rec[:, 1], t.height_at(rec[:, 0], rec[:, 2]), atol=1e-4)


def test_import_is_deterministic_and_cancellable():
    doc = _doc()
    region = Region.from_bounds(-50, -50, 70, 50, 2.0)
    a = trn_to_scene(doc, region)
    b = trn_to_scene(doc, region)
    assert a.sections["foliage"].counts() == b.sections["foliage"].counts()
    seen = []
    with pytest.raises(ImportCancelled):
        trn_to_scene(doc, region, progress=lambda f, what: seen.append(what) or what != "terrain")
    assert seen[0] == "evaluating"
    with pytest.raises(ValueError):
        trn_to_scene(doc, Region(0, 0, 1, 5, 1.0))


def test_non_finite_heights_import_as_finite_terrain_and_are_reported(tmp_path):
    """A scene holds finite heights only (a saved scene with NaN would not reopen): NaN and −inf
    poles take the lowest finite height, +inf the highest, and the import says so."""
    from model.formats.scene_file import load_scene, save_scene

    doc = doc_of([build.layer("base", [height_const(5)]),
                  build.layer("hole", [circle(0, 0, 6), height_const(float("nan"))]),
                  build.layer("spike", [circle(20, 0, 3), height_const(float("inf"))]),
                  build.layer("hill", [circle(0, 20, 4), height_const(25)])])
    region = Region.from_bounds(-30, -30, 30, 30, 2.0)
    ev = evaluate(doc, region)
    nan, pos = np.isnan(ev.heights), ev.heights == np.inf
    assert nan.any() and pos.any()
    warnings: list[str] = []
    scene = trn_to_scene(doc, region, warnings=warnings)
    h = scene.terrain.heights
    assert np.isfinite(h).all() and (h[nan] == 5.0).all() and (h[pos] == 25.0).all()
    assert warnings == [f"{int(nan.sum() + pos.sum())} poles not finite ({int(nan.sum())} NaN, "
                        f"{int(pos.sum())} +inf): NaN written as the lowest finite height (5 m); "
                        "+inf as the highest (25 m)"]
    save_scene(scene, tmp_path / "holes.boscage")
    np.testing.assert_array_equal(load_scene(tmp_path / "holes.boscage").terrain.heights, h)


def test_layer_palette_is_readable_distinct_and_deterministic():
    """Neon tints (the synthetic shader's (200, 90, 30), flora's pure (0, 200, 0)) are not used; the
    colours are mid-lightness, muted, and no two families of a file share one."""
    import colorsys

    doc = doc_of([], shaders=[shader(i, f"s{i}") for i in (9, 3, 14, 1)],
                 floras=[flora(i) for i in (2, 7)], radials=[radial(4)])
    palette = family_palette(doc)
    assert list(palette) == [("shader", 1), ("shader", 3), ("shader", 9), ("shader", 14), ("flora", 2),
                             ("flora", 7), ("radial", 4)]
    assert len(set(palette.values())) == len(palette)
    assert family_palette(doc) == palette  # same file, same colours
    many = [readable_color(i) for i in range(60)]
    assert len(set(many)) == 60
    for r, g, b in many:
        light = colorsys.rgb_to_hls(r / 255, g / 255, b / 255)[1]
        sat = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[1]
        # no pure hue (neon yellow (255, 255, 0) and green (0, 200, 0) have saturation 1), nothing
        # near black or white
        assert 0.18 <= light <= 0.82 and sat <= 0.85, (r, g, b)
    # an id the file does not declare still gets a fixed colour
    assert layer_color(palette, "shader", 99) == layer_color({}, "shader", 99)


def test_a_scene_without_flora_gets_an_empty_palette_of_its_own():
    """No flora in the data: the scene still carries a (empty) foliage palette, so the editor does
    not seed its demo types, which would filter on layers this scene lacks."""
    doc = doc_of([build.layer("ground", [height_const(5), build.item(
        "ASCN", "0001", shaderFamily=1, useFeatherClampOverride=0, featherClampOverride=0.0)])],
        shaders=[shader(1, "dirt")])
    for with_foliage in (True, False):
        scene = trn_to_scene(doc, Region.from_bounds(-8, -8, 8, 8, 2.0), foliage=with_foliage)
        assert len(scene.sections["foliage"].palette) == 0
