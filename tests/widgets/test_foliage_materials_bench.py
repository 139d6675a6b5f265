"""The foliage materials' bench case runs (quick size) and meets its budget on this machine."""

from __future__ import annotations

import pytest

from app.bench import foliage_materials


@pytest.mark.slow
@pytest.mark.parametrize("case", foliage_materials.CASES, ids=lambda c: c.name)
def test_foliage_materials_bench_case_meets_its_budget(case, qapp) -> None:
    ratio = case.run(True)
    assert ratio == ratio, "the case could not run (no OpenGL display?)"
    assert case.ok(ratio), f"{case.name}: {ratio:.3f} against a budget of {case.budget}"


def test_the_bench_cards_read_back_as_cut_out_and_plain(tmp_path) -> None:
    from model.foliage.meshes import load_mesh_file

    for textured in (True, False):
        path = tmp_path / f"{textured}.glb"
        path.write_bytes(foliage_materials.card_glb(textured))
        mesh = load_mesh_file(path)
        assert mesh.triangles == 4 and not mesh.warnings
        assert mesh.material(0).alpha_mode == ("MASK" if textured else "OPAQUE")
        assert (mesh.material(0).base_texture is not None) == textured
