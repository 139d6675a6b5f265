"""Imported foliage into a scene as one exactly revertible step."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType, foliage_of
from model.foliage.meshes import mesh_for
from model.interchange import ExportOptions, export_scene, read_foliage
from model.interchange.merge import add_to_scene, reapply, revert
from model.scene import Scene
from model.terrain import Terrain

from .conftest import small_scene


def snapshot(scene):
    f = foliage_of(scene)
    return ([t for t in f.palette], {k: c.records.copy() for k, c in f.volume.chunks()})


def same(a, b) -> bool:
    return a[0] == b[0] and a[1].keys() == b[1].keys() and all(np.array_equal(a[1][k], b[1][k]) for k in a[1])


def test_into_an_empty_scene_creates_the_types_with_their_palette_keys(tmp_path) -> None:
    source = small_scene()
    out = tmp_path / "f.glb"
    export_scene(source, out)
    target = Scene(Terrain(np.zeros((8, 8), np.float32)))
    target.path = tmp_path / "target.boscage"
    before = snapshot(target)
    result = add_to_scene(target, read_foliage(out))
    assert result.counts == {"conifer": 40, "rock": 25} and result.total == 65
    palette = foliage_of(target).palette
    assert [t.name for t in result.new_types] == ["conifer", "rock"]
    assert palette["rock"] == source.sections["foliage"].palette["rock"]  # every key came along
    for name in ("conifer", "rock"):
        assert np.array_equal(foliage_of(target).volume.all_records(name),
                              source.sections["foliage"].volume.all_records(name))
    after = snapshot(target)
    removed = revert(target, result)
    assert same(snapshot(target), before)
    reapply(target, result, removed)
    assert same(snapshot(target), after)


def test_matching_names_add_to_existing_types(tmp_path) -> None:
    scene = small_scene()
    out = tmp_path / "f.csv"
    export_scene(scene, out, ExportOptions(types=("rock",)))
    before = snapshot(scene)
    result = add_to_scene(scene, read_foliage(out))
    assert result.new_types == [] and result.counts == {"rock": 25}
    rock = foliage_of(scene).volume.all_records("rock")
    assert len(rock) == 50
    revert(scene, result)
    assert same(snapshot(scene), before)


def test_a_mesh_carried_by_the_file_is_written_beside_the_scene(tmp_path) -> None:
    source = small_scene({"stump": 4})
    (tmp_path / "stump.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 2 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n")
    foliage_of(source).palette.replace(FoliageType("stump", "stump.obj"))
    foliage_of(source).volume.mesh_folder = tmp_path
    export_scene(source, tmp_path / "stump.glb", ExportOptions(terrain=False))
    dest = tmp_path / "dest"
    dest.mkdir()
    target = Scene(Terrain(np.zeros((8, 8), np.float32)))
    target.path = dest / "t.boscage"
    result = add_to_scene(target, read_foliage(tmp_path / "stump.glb"))
    ftype = foliage_of(target).palette["stump"]
    assert result.mesh_files == [dest / "stump.glb"] and ftype.mesh == "stump.glb"
    mesh = mesh_for(ftype.mesh, dest)
    assert mesh.triangles == 2 and np.isclose(mesh.bounds()[1][1], 2.0)


def test_an_unsaved_scene_gets_a_stand_in_mesh_and_a_warning(tmp_path) -> None:
    source = small_scene({"stump": 4})
    (tmp_path / "stump.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 2 0\nf 1 2 3\n")
    foliage_of(source).palette.replace(FoliageType("stump", "stump.obj"))
    foliage_of(source).volume.mesh_folder = tmp_path
    export_scene(source, tmp_path / "s.glb", ExportOptions(terrain=False))
    target = Scene(Terrain(np.zeros((8, 8), np.float32)))
    result = add_to_scene(target, read_foliage(tmp_path / "s.glb"))
    assert foliage_of(target).palette["stump"].mesh == "builtin:bush"
    assert any("stands in" in w for w in result.warnings)


def test_bad_records_are_refused_before_anything_is_added(tmp_path) -> None:
    from model.errors import FormatError
    from model.interchange.options import ImportedFoliage

    good = np.array([[0, 0, 0, 0, 0, 0, 1]], np.float32)
    source = tmp_path / "in.usda"
    for bad, reason in (([np.nan, 0, 0, 0, 0, 0, 1], "x not a finite number"),
                        ([1, 0, 0, 0, 0, 0, 0], "scale 0 is not above 0"),
                        ([3.4e38, 0, 0, 0, 0, 0, 1], "position (3.4e+38, 0, 0) lies beyond ±1e+07 m")):
        target = Scene(Terrain(np.zeros((8, 8), np.float32)))
        imported = ImportedFoliage({"a": good, "b": np.array([good[0], bad], np.float32)}, source=source)
        with pytest.raises(FormatError) as e:
            add_to_scene(target, imported)
        assert str(e.value) == f"{source}: instance 1: type 'b': {reason}"
        assert "foliage" not in target.sections or len(foliage_of(target).volume) == 0


def test_open_ranges_survive_json_extras(tmp_path) -> None:
    import math

    source = small_scene({"reed": 3})
    reed = FoliageType("reed", "builtin:grass", altitude=(-math.inf, 40.0), cull=(10.0, 20.0))
    foliage_of(source).palette.replace(reed)
    for suffix in (".glb", ".json"):
        out = tmp_path / f"reed{suffix}"
        export_scene(source, out, ExportOptions(terrain=False))
        target = Scene(Terrain(np.zeros((8, 8), np.float32)))
        add_to_scene(target, read_foliage(out))
        assert foliage_of(target).palette["reed"] == reed, suffix
