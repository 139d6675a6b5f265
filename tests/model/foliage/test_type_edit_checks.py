"""The checks the palette form runs on an edited type, and the palette diff views follow."""

from __future__ import annotations

from dataclasses import replace

from model.foliage.foliage_type import FoliageType, Lod, Variant, edit_problem, mesh_places
from model.foliage.palette import Palette, changed_types


def test_an_edit_the_file_would_refuse_names_the_key_and_the_reason() -> None:
    base = FoliageType("oak", variants=(Variant("builtin:broadleaf"), Variant("builtin:bush")))
    assert edit_problem(base) is None
    zero = replace(base, variants=(Variant("builtin:broadleaf"), Variant("builtin:bush", 0.0)))
    assert edit_problem(zero, base).startswith("variants[1].weight: must be between")
    back = replace(base, lods=(Lod(60.0), Lod(40.0)))
    assert edit_problem(back, base) == "lods[1].distance: 40 must be greater than the level before (60)"
    assert edit_problem(replace(base, hue=(-200.0, 0.0)), base).startswith("hue[0]: must be between")


def test_a_newly_named_mesh_file_must_be_there(tmp_path) -> None:
    base = FoliageType("oak", mesh="meshes/oak.obj")  # missing, but already the type's own
    assert edit_problem(replace(base, density=2.0), base, tmp_path) is None
    far = replace(base, lods=(Lod(50.0, "meshes/oak_far.obj"),))
    assert edit_problem(far, base, tmp_path) == (
        f"lods[0].mesh: mesh file 'meshes/oak_far.obj' not found in {tmp_path}")
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "oak_far.obj").write_text("v 0 0 0\n")  # there, but no triangle
    assert edit_problem(far, base, tmp_path) == "lods[0].mesh: oak_far.obj: the file holds no triangles"
    (tmp_path / "meshes" / "oak_far.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert edit_problem(far, base, tmp_path) is None
    assert mesh_places(far) == [("mesh", "meshes/oak.obj"), ("lods[0].mesh", "meshes/oak_far.obj")]


def test_changed_types_names_added_removed_and_edited_types_only() -> None:
    palette = Palette([FoliageType("a"), FoliageType("b"), FoliageType("c")])
    changed, seen = changed_types({}, palette)
    assert changed == {"a", "b", "c"}
    palette.replace(replace(palette["b"], hue=(0.0, 5.0)))
    palette.remove("c")
    palette.add(FoliageType("d"))
    changed, seen = changed_types(seen, palette)
    assert changed == {"b", "c", "d"} and list(seen) == ["a", "b", "d"]
    assert changed_types(seen, palette)[0] == set()
