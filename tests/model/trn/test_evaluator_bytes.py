"""The evaluator's output, byte for byte, pinned: CRC-32s of every array of an evaluation (what a
bake writes) computed with the numpy evaluator before its per-core rewrite (compiled kernels). Any
change of arithmetic order, of a float32 step or of a random draw shows here."""

from __future__ import annotations

import zlib

import pytest

from model.trn.evaluator import FLORA_SLOTS, Region, evaluate
from model.trn.synthetic import planet_region, planet_stack, realistic_stack
from tests.model.trn.builders import kitchen_sink

pytestmark = pytest.mark.bytes  # run again with the SIMD narrowed (scripts/portability.sh)


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
        "heights": "55ea3c7e", "color": "abd159ae", "shader": "25603cb8", "shader_child": "f9b50792",
        "environment": "d14884d8", "exclude": "8d146dc5", "passable": "a0e88677",
        "flora_collidable": "e342bdd7", "flora_child_collidable": "ecc14181",
        "flora_noncollidable": "eaebe2bf", "flora_child_noncollidable": "1379db90",
        "flora_radial_near": "6db260f2", "flora_child_radial_near": "f3ab7205",
        "flora_radial_far": "a2767f22", "flora_child_radial_far": "aec76119", "warnings": "0d4cbb29",
    },
    "planet_whole_map_tiled": {
        "heights": "dd75dc7a", "color": "03fb977a", "shader": "6b713f71", "shader_child": "6adbe019",
        "environment": "ca759555", "exclude": "03103719", "passable": "fb21a7b9",
        "flora_collidable": "c8f7f0d7", "flora_child_collidable": "3f0f0915",
        "flora_noncollidable": "7570c5ba", "flora_child_noncollidable": "bfa6fb96",
        "flora_radial_near": "ac9b2cbe", "flora_child_radial_near": "1e1a84c5",
        "flora_radial_far": "49b13c2e", "flora_child_radial_far": "92ca4e39", "warnings": "0d4cbb29",
    },
    "planet_river": {
        "heights": "4c780c36", "color": "e3c3f676", "shader": "10495551", "shader_child": "e72aa135",
        "environment": "6a591f41", "exclude": "bd8c77a2", "passable": "836034dd",
        "flora_collidable": "53f2786f", "flora_child_collidable": "36a2e0bf",
        "flora_noncollidable": "38db1f3b", "flora_child_noncollidable": "738e4852",
        "flora_radial_near": "89beffc4", "flora_child_radial_near": "7e3f1183",
        "flora_radial_far": "45926a35", "flora_child_radial_far": "e3ac2e5e", "warnings": "0d4cbb29",
    },
    "planet_road": {
        "heights": "a4469a81", "color": "3bdead2b", "shader": "31e39f0f", "shader_child": "9b1405fb",
        "environment": "51d89dce", "exclude": "9f457787", "passable": "836034dd",
        "flora_collidable": "16faabb0", "flora_child_collidable": "a81ce135",
        "flora_noncollidable": "fa317fea", "flora_child_noncollidable": "8a776c2e",
        "flora_radial_near": "ff8f51e1", "flora_child_radial_near": "41d1a4cd",
        "flora_radial_far": "10f0fa07", "flora_child_radial_far": "737f1c2f", "warnings": "0d4cbb29",
    },
    "planet_site_polygon": {
        "heights": "0ed6cad5", "color": "e1436547", "shader": "e4a07bbb", "shader_child": "c294b49b",
        "environment": "51d89dce", "exclude": "b61fc66b", "passable": "836034dd",
        "flora_collidable": "502f584b", "flora_child_collidable": "c656b4e4",
        "flora_noncollidable": "b257c3ac", "flora_child_noncollidable": "e37497fd",
        "flora_radial_near": "4c43905e", "flora_child_radial_near": "d6708641",
        "flora_radial_far": "506ab905", "flora_child_radial_far": "38f01fc2", "warnings": "0d4cbb29",
    },
    "planet_site_circle": {
        "heights": "45229b05", "color": "ef176c7e", "shader": "e73496b1", "shader_child": "371cf4a4",
        "environment": "51d89dce", "exclude": "836034dd", "passable": "9f457787",
        "flora_collidable": "51d89dce", "flora_child_collidable": "51d89dce",
        "flora_noncollidable": "51d89dce", "flora_child_noncollidable": "51d89dce",
        "flora_radial_near": "51d89dce", "flora_child_radial_near": "51d89dce",
        "flora_radial_far": "51d89dce", "flora_child_radial_far": "51d89dce", "warnings": "0d4cbb29",
    },
    "planet_region_edge": {
        "heights": "6cf13ba9", "color": "647dda0f", "shader": "f6d50cb8", "shader_child": "e65757a9",
        "environment": "8571b37d", "exclude": "54fc2599", "passable": "5f951424",
        "flora_collidable": "811a42f7", "flora_child_collidable": "cf931d70",
        "flora_noncollidable": "5f715fd5", "flora_child_noncollidable": "33158435",
        "flora_radial_near": "a4d816a5", "flora_child_radial_near": "47c2477a",
        "flora_radial_far": "a99127cf", "flora_child_radial_far": "4186b43d", "warnings": "0d4cbb29",
    },
    "planet_lake": {
        "heights": "d6f4e7d2", "color": "a0b41213", "shader": "708ceafe", "shader_child": "372e7ee0",
        "environment": "670c012d", "exclude": "6d203877", "passable": "836034dd",
        "flora_collidable": "82fe5ece", "flora_child_collidable": "c304cca1",
        "flora_noncollidable": "fd344aa9", "flora_child_noncollidable": "9b690609",
        "flora_radial_near": "f49acfb0", "flora_child_radial_near": "7c4ec0af",
        "flora_radial_far": "b095dfc9", "flora_child_radial_far": "adb1777c", "warnings": "0d4cbb29",
    },
    "planet_canyon": {
        "heights": "c6b5d50a", "color": "bf0ea46e", "shader": "ec88b897", "shader_child": "58727e4c",
        "environment": "c292157e", "exclude": "d6e65c21", "passable": "141c595d",
        "flora_collidable": "cd4d34de", "flora_child_collidable": "018bc209",
        "flora_noncollidable": "4eb46453", "flora_child_noncollidable": "245e528e",
        "flora_radial_near": "0313b936", "flora_child_radial_near": "d2d05b40",
        "flora_radial_far": "19ec8b59", "flora_child_radial_far": "aab2a3d5", "warnings": "0d4cbb29",
    },
    "realistic_60": {
        "heights": "e956afe0", "color": "d2615987", "shader": "7c759f80", "shader_child": "a738ea1c",
        "environment": "956bac74", "exclude": "e20eea22", "passable": "2aee53fe",
        "flora_collidable": "423314a9", "flora_child_collidable": "12ffb90a",
        "flora_noncollidable": "fee38080", "flora_child_noncollidable": "0ce76826",
        "flora_radial_near": "615878e6", "flora_child_radial_near": "b542ce2e",
        "flora_radial_far": "956bac74", "flora_child_radial_far": "956bac74", "warnings": "0d4cbb29",
    },
    "realistic_12": {
        "heights": "14142aea", "color": "045e756f", "shader": "52482351", "shader_child": "afe34ceb",
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
