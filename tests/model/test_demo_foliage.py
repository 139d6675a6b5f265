"""The demo scene's sample palette and stored foliage: deterministic, and what the committed copy holds."""

from __future__ import annotations

import tomllib

import numpy as np

from model.demo import DEMO_FOLIAGE, build_demo_scene, demo_resource_path
from model.foliage import foliage_of
from model.foliage.palette import BUILTIN_ORDER
from model.formats.scene_file import load_scene


def test_the_committed_demo_holds_the_generated_sample_foliage() -> None:
    built = foliage_of(build_demo_scene(foliage=True))
    committed = foliage_of(load_scene(demo_resource_path()))
    assert committed.palette.names() == list(BUILTIN_ORDER)
    assert committed.palette == built.palette
    assert committed.counts() == built.counts()
    for name in DEMO_FOLIAGE:
        assert np.array_equal(committed.volume.all_records(name), built.volume.all_records(name))


def test_every_sample_type_has_instances_on_its_layer_and_the_file_is_small() -> None:
    scene = build_demo_scene(foliage=True)
    foliage = foliage_of(scene)
    counts = foliage.counts()
    assert set(counts) == set(DEMO_FOLIAGE) and min(counts.values()) > 50
    assert "grass" not in counts  # derived: never stored
    t = scene.terrain
    for name in DEMO_FOLIAGE:
        ftype = foliage.palette[name]
        rec = foliage.volume.all_records(name).astype(np.float64)
        w = t.layer_weight_at(ftype.layer.name, rec[:, 0], rec[:, 2])
        assert np.median(w) >= ftype.layer.min_weight
    manifest = tomllib.loads(demo_resource_path().read_text(encoding="utf-8"))
    side = demo_resource_path().with_name(manifest["foliage"]["instances"])
    assert side.stat().st_size < 300_000
