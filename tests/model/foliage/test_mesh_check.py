"""A mesh file that cannot be drawn is named, with what is wrong, where it is chosen."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, Palette
from model.foliage.foliage_type import Variant, edit_problem
from model.foliage.mesh_check import mesh_file_problem, palette_mesh_problems
from tests.model.foliage.test_mesh_extent import OBJ


def junk(folder, name: str = "junk.glb") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(np.random.default_rng(7).integers(0, 256, 4000, dtype=np.uint8).tobytes())


def test_random_bytes_are_refused_with_one_sentence_naming_the_file(tmp_path):
    junk(tmp_path)
    (tmp_path / "tree.obj").write_text(OBJ)
    said = mesh_file_problem("junk.glb", tmp_path)
    assert said is not None and said.startswith("junk.glb: not a glTF file") and "\n" not in said
    assert mesh_file_problem("tree.obj", tmp_path) is None
    assert mesh_file_problem("builtin:rock", tmp_path) is None
    assert "was not found" in mesh_file_problem("gone.obj", tmp_path)
    assert "outside the scene's folder" in mesh_file_problem("../x.obj", tmp_path / "level")


def test_an_edit_naming_a_bad_file_is_refused_and_the_palette_names_the_type(tmp_path):
    junk(tmp_path)
    (tmp_path / "tree.obj").write_text(OBJ)
    old = FoliageType("oak", mesh="tree.obj")
    said = edit_problem(FoliageType("oak", mesh="junk.glb"), old, tmp_path)
    assert said.startswith("mesh: junk.glb: not a glTF file")
    mixed = FoliageType("oak", variants=(Variant("tree.obj", 1.0), Variant("junk.glb", 1.0)))
    assert edit_problem(mixed, old, tmp_path).startswith("variants[1].mesh: junk.glb: ")
    assert edit_problem(FoliageType("oak", mesh="tree.obj", density=3.0), old, tmp_path) is None
    problems = palette_mesh_problems(Palette([old, mixed.renamed("mix")]), tmp_path)
    assert list(problems) == ["mix"] and problems["mix"].startswith("junk.glb")
