"""The evaluator's output, byte for byte, pinned: CRC-32s of every array of an evaluation (what a
bake writes) computed with the numpy evaluator before its per-core rewrite (compiled kernels). Any
change of arithmetic order, of a float32 step or of a random draw shows here."""

from __future__ import annotations

import zlib

import pytest

from model.trn.evaluator import FLORA_SLOTS, Region, evaluate
from model.trn.synthetic import planet_region, planet_stack, realistic_stack
from tests.model.trn.builders import kitchen_sink


def digest(ev) -> dict[str, str]:
    arrays = {name: getattr(ev, name) for name in ("heights", "color", "shader", "shader_child",
                                                   "environment", "exclude", "passable")}
    for slot in FLORA_SLOTS:
        arrays[f"flora_{slot}"] = ev.flora[slot]
        arrays[f"flora_child_{slot}"] = ev.flora_child[slot]
    out = {k: f"{zlib.crc32(a.tobytes()) & 0xFFFFFFFF:08x}" for k, a in arrays.items()}
    out["warnings"] = f"{zlib.crc32(repr(ev.warnings).encode()) & 0xFFFFFFFF:08x}"
    return out


def _planet():
    return planet_stack()


def _near(doc, layer_name: str, child: int, point: int):
    """A pole near the `point`-th point (or the centre) of a named top layer's `child`-th feature."""
    top = next(c for c in doc.layers if c.name == layer_name)
    feature = [c for c in top.children if c.tag == "LAYR"][child]
    for it in feature.children:
        if it.tag == "LAYR":
            continue
        p = it.params
        if p.get("points"):
            return p["points"][min(point, len(p["points"]) - 1)]
        if p.get("cx") is not None:
            return p["cx"], p["cz"]
        if p.get("x0") is not None:
            return p["x0"], p["z0"]
    raise AssertionError(layer_name)


def _window(doc, layer_name, child, point, cols=300, rows=260, spacing=2.0) -> Region:
    x, z = _near(doc, layer_name, child, point)
    return Region(round(x / spacing) - cols // 2, round(z / spacing) - rows // 2, cols, rows, spacing)


def cases():
    """(name, document factory, region factory, tile) of every pinned evaluation."""
    return [
        ("planet_whole_map", _planet, lambda d: planet_region(256 * 256), 512),
        ("planet_whole_map_tiled", _planet, lambda d: planet_region(200 * 200), 64),
        ("planet_river", _planet, lambda d: _window(d, "rivers", 0, 10), 128),
        ("planet_road", _planet, lambda d: _window(d, "roads", 1, 5), 512),
        ("planet_site_polygon", _planet, lambda d: _window(d, "sites", 2, 0), 512),
        ("planet_site_circle", _planet, lambda d: _window(d, "sites", 0, 0, spacing=1.0), 512),
        ("planet_region_edge", _planet, lambda d: _window(d, "regions", 0, 3, spacing=4.0), 100),
        ("planet_lake", _planet, lambda d: _window(d, "lakes", 0, 2), 512),
        ("planet_canyon", _planet, lambda d: _window(d, "canyons", 0, 4), 512),
        ("realistic_60", lambda: realistic_stack(60), lambda d: Region(-256, -256, 512, 512, 8.0), 512),
        ("realistic_12", lambda: realistic_stack(12, seed=3, extent=600.0),
         lambda d: Region.from_bounds(-300, -250, 280, 200, 4.0), 100),
        ("kitchen_sink", lambda: _kitchen(), lambda d: Region.from_bounds(-40, -30, 40, 30, 0.5), 512),
    ]


def _kitchen():
    from model.trn import build, document
    return document.parse(build.to_bytes(kitchen_sink()))


PINNED: dict[str, dict[str, str]] = {
    "planet_whole_map": {
        "heights": "16a323ab", "color": "06a533c4", "shader": "d32e77ab", "shader_child": "71274cdc",
        "environment": "d14884d8", "exclude": "924eca07", "passable": "5bb56fe6",
        "flora_collidable": "96871902", "flora_child_collidable": "f619af73",
        "flora_noncollidable": "f23e61d6", "flora_child_noncollidable": "a346de97",
        "flora_radial_near": "6e491f59", "flora_child_radial_near": "38f22c0c",
        "flora_radial_far": "7c74ba11", "flora_child_radial_far": "c05d2afd", "warnings": "0d4cbb29",
    },
    "planet_whole_map_tiled": {
        "heights": "f481dd43", "color": "408e8e28", "shader": "2f827b6c", "shader_child": "7c17fb77",
        "environment": "ca759555", "exclude": "01e3a52b", "passable": "7071430b",
        "flora_collidable": "6ad08469", "flora_child_collidable": "1332108d",
        "flora_noncollidable": "2e4393a8", "flora_child_noncollidable": "15628557",
        "flora_radial_near": "93f7894b", "flora_child_radial_near": "427c906e",
        "flora_radial_far": "57946c93", "flora_child_radial_far": "23013199", "warnings": "0d4cbb29",
    },
    "planet_river": {
        "heights": "1f4b9f9a", "color": "3088d426", "shader": "30f2f3f6", "shader_child": "039b4b4f",
        "environment": "1fdcdc5e", "exclude": "9f457787", "passable": "836034dd",
        "flora_collidable": "665b865a", "flora_child_collidable": "117720c3",
        "flora_noncollidable": "4457e225", "flora_child_noncollidable": "06d2a694",
        "flora_radial_near": "7363c568", "flora_child_radial_near": "6bc26514",
        "flora_radial_far": "f7a5a758", "flora_child_radial_far": "42ca4ba4", "warnings": "0d4cbb29",
    },
    "planet_road": {
        "heights": "10957a77", "color": "26757eae", "shader": "050b46a4", "shader_child": "f1886564",
        "environment": "51d89dce", "exclude": "9f457787", "passable": "836034dd",
        "flora_collidable": "e61ea212", "flora_child_collidable": "75f3aa56",
        "flora_noncollidable": "e8018f1d", "flora_child_noncollidable": "1c35ba36",
        "flora_radial_near": "e1f62404", "flora_child_radial_near": "8dfed507",
        "flora_radial_far": "0a288803", "flora_child_radial_far": "09ddecdc", "warnings": "0d4cbb29",
    },
    "planet_site_polygon": {
        "heights": "8a4c00fd", "color": "f8da948e", "shader": "92a065ec", "shader_child": "1ffbabfd",
        "environment": "51d89dce", "exclude": "f694f35f", "passable": "836034dd",
        "flora_collidable": "aab022db", "flora_child_collidable": "5f3cabaa",
        "flora_noncollidable": "5dd746c0", "flora_child_noncollidable": "0cf82508",
        "flora_radial_near": "263a5ae2", "flora_child_radial_near": "92754859",
        "flora_radial_far": "5385db6e", "flora_child_radial_far": "df89290e", "warnings": "0d4cbb29",
    },
    "planet_site_circle": {
        "heights": "8f291e3e", "color": "3a0de357", "shader": "10f7d9fc", "shader_child": "9ebea109",
        "environment": "51d89dce", "exclude": "94935b57", "passable": "1e3561bc",
        "flora_collidable": "101028cd", "flora_child_collidable": "87dc3b85",
        "flora_noncollidable": "cbbfefe8", "flora_child_noncollidable": "fe469118",
        "flora_radial_near": "0b7d562b", "flora_child_radial_near": "0a8496ce",
        "flora_radial_far": "cc6e7ce9", "flora_child_radial_far": "e8018b52", "warnings": "0d4cbb29",
    },
    "planet_region_edge": {
        "heights": "88a350e3", "color": "0baf27e1", "shader": "62f803fa", "shader_child": "155184cb",
        "environment": "8571b37d", "exclude": "618a250a", "passable": "836034dd",
        "flora_collidable": "4616c438", "flora_child_collidable": "5b796e07",
        "flora_noncollidable": "dfbb4949", "flora_child_noncollidable": "66dbce4a",
        "flora_radial_near": "60ab5042", "flora_child_radial_near": "34d95f7b",
        "flora_radial_far": "9c209ded", "flora_child_radial_far": "9b4ad442", "warnings": "0d4cbb29",
    },
    "planet_lake": {
        "heights": "a7fd1429", "color": "69dd0348", "shader": "7080f873", "shader_child": "e577398d",
        "environment": "670c012d", "exclude": "46b7e246", "passable": "836034dd",
        "flora_collidable": "f15a9f8e", "flora_child_collidable": "e59ab427",
        "flora_noncollidable": "15eeedc0", "flora_child_noncollidable": "5ba5e44e",
        "flora_radial_near": "c5b9c884", "flora_child_radial_near": "1569238a",
        "flora_radial_far": "34d2bd22", "flora_child_radial_far": "1bccb7c3", "warnings": "0d4cbb29",
    },
    "planet_canyon": {
        "heights": "27d3b33f", "color": "2b9f5a65", "shader": "cd5a16d7", "shader_child": "b1796a00",
        "environment": "c292157e", "exclude": "9f457787", "passable": "836034dd",
        "flora_collidable": "be1c52a8", "flora_child_collidable": "553ec1ea",
        "flora_noncollidable": "5e4a6238", "flora_child_noncollidable": "9a224d63",
        "flora_radial_near": "9646222e", "flora_child_radial_near": "12af952b",
        "flora_radial_far": "9ad81504", "flora_child_radial_far": "930e90a2", "warnings": "0d4cbb29",
    },
    "realistic_60": {
        "heights": "be6db228", "color": "fc0c56b4", "shader": "7c759f80", "shader_child": "a738ea1c",
        "environment": "956bac74", "exclude": "e20eea22", "passable": "2aee53fe",
        "flora_collidable": "8e836104", "flora_child_collidable": "de4fcca7",
        "flora_noncollidable": "fee38080", "flora_child_noncollidable": "0ce76826",
        "flora_radial_near": "615878e6", "flora_child_radial_near": "b542ce2e",
        "flora_radial_far": "956bac74", "flora_child_radial_far": "956bac74", "warnings": "0d4cbb29",
    },
    "realistic_12": {
        "heights": "df0be0f2", "color": "045e756f", "shader": "52482351", "shader_child": "afe34ceb",
        "environment": "2d902104", "exclude": "297c50ce", "passable": "dd783104",
        "flora_collidable": "fcdd036b", "flora_child_collidable": "fb6f8852",
        "flora_noncollidable": "2d902104", "flora_child_noncollidable": "2d902104",
        "flora_radial_near": "b14218da", "flora_child_radial_near": "4eb874fb",
        "flora_radial_far": "2d902104", "flora_child_radial_far": "2d902104", "warnings": "0d4cbb29",
    },
    "kitchen_sink": {
        "heights": "a236f750", "color": "23993614", "shader": "92fa7118", "shader_child": "92fa7118",
        "environment": "92fa7118", "exclude": "88a17dbf", "passable": "d56a16fa",
        "flora_collidable": "92fa7118", "flora_child_collidable": "92fa7118",
        "flora_noncollidable": "92fa7118", "flora_child_noncollidable": "92fa7118",
        "flora_radial_near": "92fa7118", "flora_child_radial_near": "92fa7118",
        "flora_radial_far": "92fa7118", "flora_child_radial_far": "92fa7118", "warnings": "ce528862",
    },
}


@pytest.fixture(scope="module")
def docs():
    return {}


@pytest.mark.parametrize("name,make_doc,make_region,tile", cases(), ids=[c[0] for c in cases()])
def test_evaluation_bytes_are_pinned(docs, name, make_doc, make_region, tile):
    key = make_doc.__name__ if make_doc is _planet else name
    doc = docs.get(key) or docs.setdefault(key, make_doc())
    ev = evaluate(doc, make_region(doc), tile=tile)
    assert digest(ev) == PINNED[name]
