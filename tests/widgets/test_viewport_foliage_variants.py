"""Variants and colour variation on the GPU equal the CPU reference (`model.foliage.variants`)."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, foliage_of
from model.foliage.foliage_type import Variant
from model.foliage.variants import colour_shifts, variant_indices
from tests.gui_helpers import render
from tests.widgets.test_viewport_foliage import flat_scene, records, top_down

MIXED = FoliageType("mixed", variants=(Variant("builtin:rock", 1.0), Variant("builtin:bush", 2.0),
                                        Variant("builtin:conifer", 0.5)),
                    hue=(-20.0, 20.0), value=(-0.2, 0.15), cull=(500.0, 600.0))


def test_gpu_variants_and_colour_shifts_equal_the_cpu_reference(viewport, qtbot) -> None:
    scene = flat_scene()
    foliage_of(scene).palette.add(MIXED)
    viewport.set_scene(scene)
    render(viewport, qtbot)
    rng = np.random.default_rng(11)
    rec = records(np.stack([rng.uniform(-5000, 5000, 50_000), rng.uniform(-5000, 5000, 50_000)], axis=1))
    rec[:, 0] = np.round(rec[:, 0], 1)  # positions on a decimetre grid as painted ones often are
    viewport.makeCurrent()
    try:
        variant, shift = viewport.foliage_renderer.gpu_variation("mixed", rec)
    finally:
        viewport.doneCurrent()
    cpu = variant_indices(rec, "mixed", MIXED.weights)
    assert set(np.unique(cpu)) == {0, 1, 2}
    assert np.array_equal(variant, cpu)  # exactly the same mesh for every instance
    assert np.abs(shift - colour_shifts(rec, "mixed", MIXED.hue, MIXED.value)).max() < 1e-4


def test_each_instance_is_drawn_with_its_variant(viewport, qtbot) -> None:
    scene = flat_scene()
    foliage = foliage_of(scene)
    two = FoliageType("two", variants=(Variant("builtin:rock"), Variant("builtin:bush")), cull=(500.0, 600.0))
    foliage.palette.add(two)
    top_down(viewport, scene, distance=70.0)
    viewport.show_foliage_cover(False)
    xz = np.array([[x, z] for x in range(-24, 25, 6) for z in range(-18, 19, 6)], float)
    rec = records(xz, 1.2)
    foliage.volume.add("two", rec)
    frame = render(viewport, qtbot).astype(int)
    cpu = variant_indices(rec, "two", two.weights)
    assert 0 < cpu.sum() < len(cpu)
    tops = rec[:, :3].copy()
    tops[:, 1] = 1.0  # on the crown of either mesh
    px = np.round(viewport.world_to_screen(tops) * viewport.devicePixelRatioF()).astype(int)
    c = frame[px[:, 1], px[:, 0]]
    greenish = c[:, 1] - c[:, [0, 2]].max(axis=1) > 12  # the bush is green, the rock grey
    assert np.array_equal(greenish, cpu == 1)
