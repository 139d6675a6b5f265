"""Variant meshes, colour variation and levels of detail: keys, CPU reference, generated levels."""

import numpy as np
import pytest

from model.errors import FormatError
from model.foliage.foliage_type import (
    FoliageType,
    Lod,
    Variant,
    dumps_foliage_type,
    parse_foliage_type,
)
from model.foliage.hashing import position_hashes, type_key
from model.foliage.variants import (
    colour_shifts,
    instance_hashes,
    shifted_colours,
    variant_indices,
    variant_thresholds,
)

TEXT = """name = "mixed"
variants = [{ mesh = "builtin:conifer", weight = 2.0 }, { mesh = "builtin:broadleaf", weight = 1.0 }]
hue = [-12.0, 12.0]
value = [-0.15, 0.1]
lods = [{ distance = 40.0 }, { distance = 90.0, mesh = "lod2.obj" }]
impostor = false
impostor_cull = 2000.0
"""


def records(n: int, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    r = np.zeros((n, 7), np.float32)
    r[:, 0] = rng.uniform(-500, 500, n)
    r[:, 2] = rng.uniform(-500, 500, n)
    r[:, 6] = 1.0
    return r


def test_the_new_keys_are_read_and_written_back_line_for_line():
    t = parse_foliage_type(TEXT)
    assert t.variants == (Variant("builtin:conifer", 2.0), Variant("builtin:broadleaf", 1.0))
    assert t.meshes == ("builtin:conifer", "builtin:broadleaf") and t.weights == (2.0, 1.0)
    assert (t.hue, t.value) == ((-12.0, 12.0), (-0.15, 0.1))
    assert t.lods == (Lod(40.0), Lod(90.0, "lod2.obj"))
    assert (t.impostor, t.impostor_cull) == (False, 2000.0)
    assert dumps_foliage_type(t) == TEXT
    plain = FoliageType("plain")
    assert plain.meshes == ("builtin:conifer",) and plain.impostor and plain.impostor_cull is None
    # the largest variant bounds the chunk
    assert t.resolved_extent().radius == 4.5


@pytest.mark.parametrize("line, place", [
    ('variants = "builtin:rock"', "variants"),
    ("variants = []", "variants"),
    ('variants = [{ weight = 1.0 }]', "variants[0].mesh"),
    ('variants = [{ mesh = "builtin:tree" }]', "variants[0].mesh"),
    ('variants = [{ mesh = "builtin:rock", weight = 0 }]', "variants[0].weight"),
    ('variants = [{ mesh = "builtin:rock", colour = 1 }]', "variants[0].colour"),
    ("hue = [10.0, -10.0]", "hue"),
    ("hue = [0.0, 400.0]", "hue[1]"),
    ("value = [-2.0, 0.0]", "value[0]"),
    ("lods = [{ distance = 50.0 }, { distance = 40.0 }]", "lods[1].distance"),
    ('lods = [{ mesh = "a.obj" }]', "lods[0].distance"),
    ('lods = [{ distance = 5.0, mesh = "../a.obj" }]', "lods[0].mesh"),
    ('impostor = "yes"', "impostor"),
    ("impostor_cull = -1.0", "impostor_cull"),
])
def test_bad_new_keys_name_the_key(line, place):
    with pytest.raises(FormatError) as e:
        parse_foliage_type(f'name = "x"\n{line}\n', "x.vxfoliage")
    assert e.value.place == place and "x.vxfoliage" in str(e.value)


def test_the_hash_is_the_position_hash_of_the_record():
    r = records(100)
    assert np.array_equal(instance_hashes(r, "oak"), position_hashes(r[:, 0], r[:, 2], type_key("oak")))
    moved = r.copy()
    moved[:, 1] += 5.0  # height, rotation and scale do not change the look
    moved[:, 3:] = 0.7
    assert np.array_equal(variant_indices(moved, "oak", (1, 1, 1)), variant_indices(r, "oak", (1, 1, 1)))


def test_variants_follow_their_weights_and_are_deterministic():
    r = records(60_000)
    v = variant_indices(r, "mixed", (2.0, 1.0, 1.0))
    assert v.dtype == np.int32 and set(np.unique(v)) == {0, 1, 2}
    share = np.bincount(v) / len(v)
    assert np.allclose(share, [0.5, 0.25, 0.25], atol=0.01)
    assert np.array_equal(v, variant_indices(r.copy(), "mixed", (2.0, 1.0, 1.0)))
    assert not np.array_equal(v, variant_indices(r, "other", (2.0, 1.0, 1.0)))  # the type salts it
    assert np.all(variant_indices(r, "one", (3.0,)) == 0)
    assert variant_thresholds((1, 1))[-1] == 1 << 24


def test_colour_shifts_stay_in_their_ranges_and_keep_grey_grey():
    r = records(10_000)
    s = colour_shifts(r, "mixed", (-12.0, 12.0), (-0.15, 0.1))
    assert s.dtype == np.float32
    assert s[:, 0].min() >= -12 and s[:, 0].max() <= 12 and s[:, 0].std() > 5
    assert s[:, 1].min() >= -0.15 and s[:, 1].max() <= 0.1
    assert np.all(colour_shifts(r, "mixed", (0, 0), (0, 0)) == 0)
    grey = shifted_colours(np.full((len(s), 3), 0.5), s)
    assert np.allclose(grey[:, 0], grey[:, 1]) and np.allclose(grey[:, 1], grey[:, 2])
    green = shifted_colours(np.tile([0.2, 0.5, 0.2], (2, 1)), np.array([[30.0, 0.0], [-30.0, 0.0]]))
    assert green[0, 2] > green[0, 0] and green[1, 0] > green[1, 2]  # turned towards blue, towards red


def test_variant_and_level_meshes_are_rebased_with_the_type(tmp_path):
    t = FoliageType("oak", mesh="m/oak.obj", variants=(Variant("m/oak.obj"), Variant("builtin:bush")),
                    lods=(Lod(30.0, "m/oak_lod1.obj"), Lod(60.0)))
    moved = t.rebased(tmp_path / "types", tmp_path)
    assert moved.mesh == "types/m/oak.obj"
    assert [v.mesh for v in moved.variants] == ["types/m/oak.obj", "builtin:bush"]
    assert [lv.mesh for lv in moved.lods] == ["types/m/oak_lod1.obj", None]
    outside = FoliageType("x", variants=(Variant("../../far.obj"),))
    assert outside.rebased(tmp_path / "a", tmp_path / "b") is None
