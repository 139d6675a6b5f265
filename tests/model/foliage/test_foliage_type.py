import math

import pytest

from model.errors import FormatError
from model.foliage.foliage_type import (
    Extent,
    FoliageType,
    LayerFilter,
    dumps_foliage_type,
    load_foliage_type,
    parse_foliage_type,
    save_foliage_type,
)
from model.foliage.palette import (
    Palette,
    builtin_palette,
    load_palette_file,
    load_palette_folder,
    save_palette_file,
)

FULL = """
name = "fir"
mesh = "meshes/fir.obj"
storage = "stored"
density = 2.5
spacing = 3.0
scale = [0.5, 1.5]
yaw = [0.0, 180.0]
tilt = [1.0, 4.0]
align = 0.25
sink = [0.1, 0.3]
slope = [5.0, 40.0]
altitude = [10.0, 90.0]
layer = { name = "forest_floor", min_weight = 0.4 }
extent = { radius = 2.0, height = 12.0 }
activation_radius = 25.0
cull = [100.0, 140.0]
"""


def test_every_key_is_read():
    t = parse_foliage_type(FULL, "fir.vxfoliage")
    assert t == FoliageType("fir", "meshes/fir.obj", "stored", 2.5, 3.0, (0.5, 1.5), (0.0, 180.0),
                            (1.0, 4.0), 0.25, (0.1, 0.3), (5.0, 40.0), (10.0, 90.0),
                            LayerFilter("forest_floor", 0.4), Extent(2.0, 12.0), 25.0, (100.0, 140.0))


def test_defaults_follow_the_spec():
    t = parse_foliage_type('name = "x"')
    assert (t.mesh, t.storage, t.density) == ("builtin:conifer", "stored", 1.0)
    assert (t.spacing, t.scale) == (0.0, (1, 1))
    assert (t.yaw, t.tilt, t.align, t.sink, t.slope) == ((0, 360), (0, 0), 0.0, (0, 0), (0, 90))
    assert t.altitude == (-math.inf, math.inf) and t.layer is None and t.extent is None
    assert (t.activation_radius, t.cull) == (0.0, (150, 200))
    assert t.resolved_extent().height > 5  # a conifer's extent comes from its mesh


def test_round_trip_through_a_file(tmp_path):
    t = parse_foliage_type(FULL)
    save_foliage_type(t, tmp_path / "fir.vxfoliage")
    assert load_foliage_type(tmp_path / "fir.vxfoliage") == t
    partial = FoliageType("p", altitude=(-math.inf, 50.0), storage="derived")
    assert parse_foliage_type(dumps_foliage_type(partial)) == partial
    assert "spacing" not in dumps_foliage_type(partial)  # defaults left out: small diffs


@pytest.mark.parametrize("text, place", [
    ('name = "a"\nspacng = 2', "spacng"),
    ('name = "a"\nlayer = { name = "g", weight = 1 }', "layer.weight"),
    ('name = "a"\ndensity = "lots"', "density"),
    ('name = "a"\ndensity = -1', "density"),
    ('name = "a"\nalign = 1.5', "align"),
    ('name = "a"\nscale = [2.0, 1.0]', "scale"),
    ('name = "a"\nslope = [0, 95]', "slope[1]"),
    ('name = "a"\nstorage = "ephemeral"', "storage"),
    ('name = "a"\nmesh = "builtin:palm"', "mesh"),
    ('name = "a"\nmesh = "../outside/tree.obj"', "mesh"),
    ('name = "a"\nmesh = "/abs/tree.obj"', "mesh"),
    ('name = "a"\nextent = { radius = 1 }', "extent.height"),
    ('name = "a"\ncull = [1]', "cull"),
    ("density = 1", "name"),
    ('name = "a"\ndensity = nan', "density"),
])
def test_bad_keys_and_values_name_the_file_and_key(text, place):
    with pytest.raises(FormatError) as e:
        parse_foliage_type(text, "bad.vxfoliage")
    assert e.value.path == "bad.vxfoliage" and e.value.place == place
    assert "bad.vxfoliage" in str(e.value) and place in str(e.value)


SPEC_SAMPLE = """
name = "meadow oak"
mesh = "builtin:broadleaf"
density = 0.6
spacing = 7
scale = [0.8, 1.25]
tilt = [-4, 4]
align = 0.15
sink = [0.2, 0.4]
slope = [0, 25]
altitude = [-inf, 60]
layer = { name = "grass", min_weight = 0.5 }
activation_radius = 30
cull = [250, 320]
"""


def test_a_hand_written_file_in_the_spec_style_loads_and_is_written_back_line_for_line(tmp_path):
    p = tmp_path / "oak.vxfoliage"
    p.write_text(SPEC_SAMPLE)
    t = load_foliage_type(p)
    assert t.tilt == (-4.0, 4.0)  # a lean either way
    assert t.altitude == (-math.inf, 60.0) and t.layer == LayerFilter("grass", 0.5)
    save_foliage_type(t, p)
    text = p.read_text()
    # one line per key, arrays and tables inline, as an author writes them: a diff shows one line
    assert "layer = { name = \"grass\", min_weight = 0.5 }" in text
    assert "altitude = [-inf, 60.0]" in text and "cull = [250.0, 320.0]" in text
    assert "[layer]" not in text and len(text.strip().splitlines()) == len(SPEC_SAMPLE.strip().splitlines())
    assert load_foliage_type(p) == t


def test_layer_min_weight_defaults_to_a_half_and_errors_explain_the_form():
    assert parse_foliage_type('name = "a"\nlayer = { name = "g" }').layer == LayerFilter("g", 0.5)
    with pytest.raises(FormatError, match=r"layer: expected a table like \{ name = "):
        parse_foliage_type('name = "a"\nlayer = "g"', "a.vxfoliage")
    with pytest.raises(FormatError, match="unknown key 'colour' \\(known: name, mesh, storage"):
        parse_foliage_type('name = "a"\ncolour = 3', "a.vxfoliage")


def test_palette_file_is_written_in_the_inline_style(tmp_path):
    p = tmp_path / "scene.palette.toml"
    save_palette_file(builtin_palette(), p)
    text = p.read_text()
    assert text.count("[[types]]") == 5 and "layer = { name = \"forest_floor\", min_weight = 0.4 }" in text
    assert load_palette_file(p) == builtin_palette()


def test_bad_toml_names_the_line(tmp_path):
    p = tmp_path / "x.vxfoliage"
    p.write_text('name = "a"\ndensity = = 2\n')
    with pytest.raises(FormatError) as e:
        load_foliage_type(p)
    assert e.value.place == "line 2, column 11"  # the same place format as the scene manifest
    with pytest.raises(FormatError, match="not found"):
        load_foliage_type(tmp_path / "missing.vxfoliage")


def test_builtin_palette_has_the_demo_types():
    pal = builtin_palette()
    assert pal.names() == ["conifer", "broadleaf", "bush", "rock", "grass"]
    assert pal["grass"].derived and all(pal[n].stored for n in pal.names()[:4])
    demo_layers = {"grass", "rock", "forest_floor", "sand"}
    assert all(t.layer is None or t.layer.name in demo_layers for t in pal)


def test_palette_keeps_order_and_unique_names(tmp_path):
    pal = Palette([FoliageType("b"), FoliageType("a", density=3)])
    assert pal.names() == ["b", "a"]
    with pytest.raises(ValueError):
        pal.add(FoliageType("a"))
    save_palette_file(pal, tmp_path / "p.palette.toml")
    assert load_palette_file(tmp_path / "p.palette.toml") == pal
    (tmp_path / "dup.palette.toml").write_text('[[types]]\nname = "a"\n[[types]]\nname = "a"\n')
    with pytest.raises(FormatError) as e:
        load_palette_file(tmp_path / "dup.palette.toml")
    assert e.value.place == "types[1].name"
    folder = tmp_path / "types"
    folder.mkdir()
    save_foliage_type(FoliageType("x"), folder / "x.vxfoliage")
    (folder / "y.vxfoliage").write_text('name = "y"\nbogus = 1\n')
    with pytest.raises(FormatError) as e:
        load_palette_folder(folder)
    assert e.value.path.endswith("y.vxfoliage") and e.value.place == "bogus"


def test_palette_events_and_replace():
    pal = Palette([FoliageType("a")])
    seen = []
    pal.changed.connect(lambda: seen.append(1))
    old = pal.replace(FoliageType("a", density=5))
    assert old.density == 1 and pal["a"].density == 5 and seen == [1]
    pal.remove("a")
    assert len(pal) == 0 and seen == [1, 1]


def test_a_mesh_path_is_rebased_from_the_type_file_to_the_scene_folder(tmp_path):
    scene_dir = tmp_path / "level"
    (scene_dir / "types" / "meshes").mkdir(parents=True)
    t = FoliageType("fir", mesh="meshes/fir.obj")
    assert t.rebased(scene_dir / "types", scene_dir).mesh == "types/meshes/fir.obj"
    assert t.rebased(scene_dir, scene_dir) == t
    assert t.rebased(tmp_path / "elsewhere", scene_dir) is None  # would leave the scene's folder
    builtin = FoliageType("oak", mesh="builtin:broadleaf")
    assert builtin.rebased(tmp_path / "elsewhere", scene_dir) is builtin


@pytest.mark.parametrize("deep", ["[" * 1000 + "]" * 1000, "{a = " * 1000 + "1" + "}" * 1000])
def test_a_vxfoliage_or_palette_nested_a_thousand_levels_is_one_error(tmp_path, deep):
    vx = tmp_path / "deep.vxfoliage"
    vx.write_text(f'name = "a"\ndensity = {deep}\n')
    with pytest.raises(FormatError) as e:
        load_foliage_type(vx)
    assert e.value.path == str(vx) and e.value.place.startswith("line 2, column ")
    assert "nested deeper than" in e.value.reason
    pal = tmp_path / "deep.palette.toml"
    pal.write_text(f'[[types]]\nname = "a"\nextent = {deep}\n')
    with pytest.raises(FormatError) as e:
        load_palette_file(pal)
    assert e.value.path == str(pal) and e.value.place.startswith("line 3, column ")
