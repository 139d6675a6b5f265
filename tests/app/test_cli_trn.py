"""`boscage trn info|roundtrip|sample|fractal|bake`, run in-process on files the writer builds."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import run_cli
from model.formats.heightmap import read_heightmap
from model.formats.png import read_png
from model.trn import build, iff
from model.trn import document as trn_document
from model.trn.evaluator import Region, evaluate
from tests.model.trn.builders import kitchen_sink
from tests.model.trn.helpers import circle, doc_of, flora, fractal, height_const, shader
from tests.model.trn.test_multifractal import CASES, DIVISION_CASE, LARGE_CASES, POINTS


def _write(tmp_path, node, name="t.trn"):
    path = tmp_path / name
    path.write_bytes(build.to_bytes(node))
    return path


def _hill_file(tmp_path):
    doc = doc_of([build.layer("hill", [circle(0, 0, 50, 3, 0.5), height_const(40),
                                       build.item("ASCN", "0001", shaderFamily=2, useFeatherClampOverride=0,
                                                  featherClampOverride=0.0),
                                       build.item("AFSC", "0004", floraFamily=8, operation=1, removeAll=0,
                                                  densityOverride=0, density=0.0)])],
                 shaders=[shader(2, "grass")], floras=[flora(8, 1.0)], fractals=[fractal(1)])
    path = tmp_path / "hill.trn"
    path.write_bytes(doc.to_bytes())
    return path


def test_info_json(tmp_path, capsys):
    path = _write(tmp_path, kitchen_sink("0015"))
    assert run_cli(["trn", "info", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["version"] == "0015" and d["header"]["name"] == "terrain/kitchen_sink.trn"
    assert d["families"]["shader"] == 2 and d["families"]["fractal"] == 2 and d["families"]["bitmap"] == 1
    tags = {(r["tag"], r["version"]): r["count"] for r in d["items_by_tag"]}
    assert tags[("BREC", "0003")] == 1 and tags[("LAYR", "0003")] == 2 and tags[("AHCN", "0000")] == 2
    assert {u["tag"] for u in d["unsupported"]} >= {"XQZW", "BCIR", "ARIB", "ZZZZ"}
    assert d["layers"]["top_level"] == 2 and d["layers"]["inactive"] > 0
    assert run_cli(["trn", "info", str(path)]) == 0
    text = capsys.readouterr().out
    assert "TRN version 0015" in text and "unsupported" in text


def test_info_tree(tmp_path, capsys):
    path = _write(tmp_path, kitchen_sink())
    assert run_cli(["trn", "info", str(path), "--tree", "--json"]) == 0
    tree = json.loads(capsys.readouterr().out)["tree"]
    assert [n["name"] for n in tree] == ["top", "inactive"] and tree[1]["active"] is False
    middle = tree[0]["children"][-1]
    assert middle["version"] == "0004" and middle["children"][0]["name"] == "inner"
    assert any("unsupported" in c for c in middle["children"][0]["children"])
    assert run_cli(["trn", "info", str(path), "--tree"]) == 0
    text = capsys.readouterr().out
    assert "- LAYR 0003  inactive" in text and "kept raw" in text


def test_roundtrip_is_identical(tmp_path, capsys):
    path = _write(tmp_path, kitchen_sink("0013"))
    out = tmp_path / "copy.trn"
    assert run_cli(["trn", "roundtrip", str(path), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["identical"] is True
    assert out.read_bytes() == path.read_bytes()


def test_bad_files_exit_1_with_offset(tmp_path, capsys):
    stat = tmp_path / "space.trn"
    stat.write_bytes(iff.serialize(iff.Form("STAT", [iff.Form("0000", [])])))
    assert run_cli(["trn", "info", str(stat)]) == 1
    err = capsys.readouterr().err
    assert "space.trn @ offset 8" in err and "not a TRN terrain generator" in err
    trunc = tmp_path / "cut.trn"
    trunc.write_bytes(build.to_bytes(kitchen_sink())[:-3])
    assert run_cli(["trn", "info", str(trunc), "--json"]) == 1
    assert "offset 4" in json.loads(capsys.readouterr().out)["error"]
    assert run_cli(["trn", "info", str(tmp_path / "missing.trn")]) == 1


def test_sample(tmp_path, capsys):
    path = _hill_file(tmp_path)
    assert run_cli(["trn", "sample", str(path), "--at", "0,0", "--at", "400,0", "--json"]) == 0
    pts = json.loads(capsys.readouterr().out)["points"]
    assert pts[0]["height"] == pytest.approx(40.0) and pts[0]["shader_name"] == "grass"
    assert pts[0]["flora"]["collidable"] == 8 and pts[0]["flora_names"]["collidable"] == "flora8"
    assert pts[1]["height"] == 0.0 and pts[1]["shader"] == -1
    assert run_cli(["trn", "sample", str(path), "--at", "0,0"]) == 0
    assert "grass" in capsys.readouterr().out


@pytest.mark.parametrize("case", range(len(CASES)))
def test_fractal_reproduces_reference_values(tmp_path, capsys, case):
    params, expected = CASES[case]
    node = build.document(groups=build.family_groups(fractals=[({"id": 3, "name": "ref"}, params, "0001")]))
    path = _write(tmp_path, node)
    args = ["trn", "fractal", str(path), "--family", "3", "--json"]
    for x, z in POINTS:
        args += ["--at", f"{x},{z}"]  # X may start with a minus sign, as a user types it
    assert run_cli(args) == 0
    got = [p["value"] for p in json.loads(capsys.readouterr().out)["points"]]
    np.testing.assert_allclose(got, expected, atol=1e-5)


@pytest.mark.parametrize("case", range(len(LARGE_CASES) + 1))
def test_fractal_reproduces_large_coordinate_reference_values(tmp_path, capsys, case):
    """Through the file (parameters stored as f32) and the CLI, the engine's float32 order holds."""
    params, points = [*LARGE_CASES, DIVISION_CASE][case]
    node = build.document(groups=build.family_groups(fractals=[({"id": 5, "name": "big"}, params, "0001")]))
    path = _write(tmp_path, node)
    args = ["trn", "fractal", str(path), "--family", "5", "--json"]
    for x, z, _ in points:
        args += ["--at", f"{x!r},{z!r}"]
    assert run_cli(args) == 0
    got = [p["value"] for p in json.loads(capsys.readouterr().out)["points"]]
    np.testing.assert_allclose(got, [p[2] for p in points], atol=1e-5, rtol=0)


def test_negative_coordinates_need_no_equals_sign(tmp_path, capsys):
    path = _write(tmp_path, build.document(layers=[build.layer("l", [build.item(
        "AHCN", "0000", operation=0, height=3.0)])]))
    assert run_cli(["trn", "sample", str(path), "--at", "-10,-20", "--json"]) == 0
    (pt,) = json.loads(capsys.readouterr().out)["points"]
    assert (pt["x"], pt["z"], pt["height"]) == (-10.0, -20.0, 3.0)
    out = tmp_path / "bake"
    bake = ["trn", "bake", str(path), "--region", "-8,-8,8,8", "--spacing", "4", "--out", str(out)]
    assert run_cli(bake) == 0 and (out / "heights.npy").exists()
    assert run_cli(["trn", "sample", str(path), "--at", "-1,2", "--bogus"]) == 2  # real options still checked


def test_fractal_unknown_family_is_a_usage_error(tmp_path, capsys):
    path = _hill_file(tmp_path)
    assert run_cli(["trn", "fractal", str(path), "--family", "99", "--at", "0,0"]) == 2
    assert "no fractal family 99" in capsys.readouterr().err


def test_bake(tmp_path, capsys):
    path = _hill_file(tmp_path)
    out = tmp_path / "baked"
    assert run_cli(["trn", "bake", str(path), "--region=-60,-40,60,40", "--spacing", "4",
                    "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["columns"], d["rows"]) == (31, 21)
    heights = np.load(out / "heights.npy")
    assert heights.shape == (21, 31) and heights[10, 15] == pytest.approx(40.0) and heights[0, 0] == 0
    png = read_heightmap(out / "heights.png")
    np.testing.assert_allclose(png.heights, heights, atol=40 / 65535 * 1.01)
    shader_ids = read_png(out / "shader.png").pixels
    assert shader_ids.dtype == np.uint16 and shader_ids[10, 15] == 3 and shader_ids[0, 0] == 0
    assert read_png(out / "flora_collidable.png").pixels[10, 15] == 9
    legend = json.loads((out / "legend.json").read_text())
    assert legend["families"]["shader"][0]["name"] == "grass"


def _non_finite_file(tmp_path):
    """Ground at 10 m; a NaN constant over a circle, −inf over another, +inf over a third."""
    doc = doc_of([build.layer("base", [height_const(10)]),
                  build.layer("hole", [circle(0, 0, 6), height_const(float("nan"))]),
                  build.layer("pit", [circle(20, 0, 4), height_const(float("-inf"))]),
                  build.layer("spike", [circle(-20, 0, 2), height_const(float("inf"))]),
                  build.layer("hill", [circle(0, 20, 4), height_const(30)])])
    path = tmp_path / "holes.trn"
    path.write_bytes(doc.to_bytes())
    return path


def test_bake_maps_finite_heights_and_reports_non_finite_poles(tmp_path, capsys):
    """NaN and −inf poles become the lowest finite height, +inf the highest, in the PNG and the
    .npy alike; the output, the JSON and legend.json say how many of each, nonfinite.png where."""
    path = _non_finite_file(tmp_path)
    out = tmp_path / "baked"
    argv = ["trn", "bake", str(path), "--region=-32,-32,32,32", "--spacing", "2", "--out", str(out)]
    assert run_cli(argv + ["--json"]) == 0
    text = capsys.readouterr().out
    d = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in JSON output"))
    ev_heights = evaluate(trn_document.read(path), Region.from_bounds(-32, -32, 32, 32, 2.0)).heights
    nan, neg, pos = np.isnan(ev_heights), ev_heights == -np.inf, ev_heights == np.inf
    assert nan.sum() and neg.sum() and pos.sum()  # the file really evaluates to all three
    assert d["non_finite_heights"] == {"count": int(nan.sum() + neg.sum() + pos.sum()), "nan": int(nan.sum()),
                                       "-inf": int(neg.sum()), "+inf": int(pos.sum()),
                                       "nan_and_-inf_written_as": 10.0, "+inf_written_as": 30.0}
    assert d["height_range"] == [10.0, 30.0] and "nonfinite.png" in d["files"]
    heights = np.load(out / "heights.npy")
    assert np.isfinite(heights).all()
    assert (heights[nan | neg] == 10.0).all() and (heights[pos] == 30.0).all()
    png = read_heightmap(out / "heights.png")
    assert png.mapping == (10.0, 20.0)  # spans the finite heights only
    np.testing.assert_allclose(png.heights, heights, atol=20 / 65535 * 1.01)
    mask = read_png(out / "nonfinite.png").pixels
    np.testing.assert_array_equal(mask == 255, nan | neg | pos)
    legend = json.loads((out / "legend.json").read_text())
    assert legend["non_finite_heights"] == d["non_finite_heights"]
    assert any("not finite" in w for w in legend["warnings"])
    assert run_cli(argv) == 0
    human = capsys.readouterr().out
    assert (f"warning: {int(nan.sum() + neg.sum() + pos.sum())} poles not finite ({int(nan.sum())} NaN, "
            f"{int(neg.sum())} −inf, {int(pos.sum())} +inf): NaN and −inf written as the lowest finite "
            "height (10 m); +inf as the highest (30 m); nonfinite.png marks them") in human
    # a later bake of finite heights into the same folder leaves no stale mask behind
    assert run_cli(["trn", "bake", str(_hill_file(tmp_path)), "--region=-8,-8,8,8", "--spacing", "4",
                    "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["non_finite_heights"]["count"] == 0 and not (out / "nonfinite.png").exists()


def test_bake_refuses_huge_regions(tmp_path, capsys):
    path = _hill_file(tmp_path)
    assert run_cli(["trn", "bake", str(path), "--region", "0,0,100000,100000", "--spacing", "1",
                    "--out", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_bench_case_meets_its_quick_budget():
    from app.bench.trn import CASES as BENCH

    ratio = BENCH[0].run(True)
    assert np.isfinite(ratio) and BENCH[0].ok(ratio, quick=True), ratio


@pytest.mark.parametrize("args", [
    ["sample", "--at", "nan,0"], ["sample", "--at", "0,0", "--spacing", "inf"],
    ["fractal", "--family", "3", "--at", "inf,0"], ["sample", "--at", "1e300,0"],
    ["bake", "--region", "0,0,1e30,1", "--spacing", "1", "--out", "x"],
    ["bake", "--region", "0,0,8,8", "--spacing", "inf", "--out", "x"]])
def test_non_finite_numbers_are_usage_errors(tmp_path, capsys, args):
    path = _write(tmp_path, build.document())
    assert run_cli(["trn", args[0], str(path), *args[1:]]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_to_scene_writes_the_whole_import_tile_by_tile(tmp_path, capsys, monkeypatch):
    from model.formats import tiles
    from model.formats.scene_file import load_scene, save_scene
    from model.trn.to_scene import trn_to_scene

    monkeypatch.setattr(tiles, "TILE", 16)
    path = _hill_file(tmp_path)
    out = tmp_path / "scene" / "hill.boscage"
    assert run_cli(["trn", "to-scene", str(path), "--region=-60,-60,60,40", "--spacing", "2",
                    "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["columns"], doc["rows"]) == (61, 51) and doc["layers"]
    region = Region.from_bounds(-60, -60, 60, 40, 2.0)
    save_scene(trn_to_scene(trn_document.read(path), region, name="hill"), tmp_path / "ref" / "hill.boscage")
    files = {p.name: p.read_bytes() for p in sorted(out.parent.iterdir())}
    assert files == {p.name: p.read_bytes() for p in sorted((tmp_path / "ref").iterdir())}
    assert load_scene(out).terrain.height_range()[1] == pytest.approx(40.0)
    assert run_cli(["trn", "to-scene", str(path), "--region=0,0,1,1", "--spacing", "2",
                    "--out", str(out)]) == 2  # one pole is no terrain
