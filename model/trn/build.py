"""Build TRN trees from values with the same layouts the reader uses (new files, tests, tools)."""

from __future__ import annotations

import struct
from typing import Any

from model.trn import iff, layouts
from model.trn.fields import encode
from model.trn.iff import Chunk, Form


def ihdr(name: str, active: bool = True, version: str = "0001",
         color: tuple[int, int, int] = (255, 255, 255)) -> Form:
    values = {"active": int(active), "name": name, "color": color}
    return Form("IHDR", [Form(version, [Chunk("DATA", encode(layouts.IHDR[version], values))])])


def item(tag: str, version: str, name: str = "", active: bool = True, ihdr_version: str = "0001",
         hdta: bytes = b"", **params: Any) -> Form:
    """A boundary, filter or affector form with its payload encoded from `params`."""
    payload = encode(layouts.ITEMS[(tag, version)], params)
    head = ihdr(name or tag, active, ihdr_version)
    if tag in layouts.PARM_ITEMS:
        body = [Form("DATA", [Chunk("PARM", payload)])]
    elif tag in layouts.NESTED_DATA_ITEMS:
        hd = Form("HDTA", [Form("0001", [Chunk("DATA", hdta)])])
        body = [Form("DATA", [hd, Chunk("DATA", payload)])]
    else:
        body = [Chunk("DATA", payload)]
    return Form(tag, [Form(version, [head, *body])])


def layer(name: str, children: list[Form] = (), active: bool = True, version: str = "0003",
          invert_boundaries: bool = False, invert_filters: bool = False, expanded: bool = True,
          notes: str = "") -> Form:
    adta = {"invertBoundaries": int(invert_boundaries), "invertFilters": int(invert_filters),
            "expanded": int(expanded), "notes": notes, "unused": 0}
    head = [ihdr(name, active), Chunk("ADTA", encode(layouts.ADTA[version], adta))]
    return Form("LAYR", [Form(version, head + list(children))])


def header_values(name: str = "terrain/test.trn", map_width: float = 4096.0, chunk_width: float = 8.0,
                  **overrides: Any) -> dict[str, Any]:
    values: dict[str, Any] = {
        "name": name, "mapWidth": map_width, "chunkWidth": chunk_width, "tilesPerChunk": 2,
        "useGlobalWaterTable": 0, "globalWaterHeight": 0.0, "globalWaterShaderSize": 2.0,
        "globalWaterShader": "terrain/water", "environmentCycleTime": 600.0, "legacyMap": False,
    }
    for i, kind in enumerate(("cstr", "cstr", "f32", "cstr", "f32", "cstr", "f32", "cstr", "f32", "i32",
                              "cstr")):
        values[f"legacy{i}"] = {"cstr": f"legacy{i}", "f32": float(i), "i32": i}[kind]
    for j, prefix in enumerate(layouts.FLORA_GROUP_PREFIXES):
        values.update({f"{prefix}.minDist": 8.0 * j, f"{prefix}.maxDist": 32.0 + 8 * j,
                       f"{prefix}.tileSize": 4.0, f"{prefix}.tileBorder": 1.0, f"{prefix}.seed": 100 + j})
    values.update(overrides)
    return values


def family_groups(shaders=(), flora=(), radial=(), environments=(), fractals=(), bitmaps=None,
                  radial_version: str = "0004") -> list[Form]:
    """Family groups from value dicts; fractals are (mfam_values, mfrc_values, mfrc_version)."""
    groups = [
        Form("SGRP", [Form("0006", [Chunk("SFAM", encode(layouts.SFAM, v)) for v in shaders])]),
        Form("FGRP", [Form("0008", [Chunk("FFAM", encode(layouts.FFAM, v)) for v in flora])]),
        Form("RGRP", [Form(radial_version, [Chunk("RFAM", encode(layouts.RFAM[radial_version], v))
                                            for v in radial])]),
        Form("EGRP", [Form("0002", [Form("EFAM", [Chunk("DATA", encode(layouts.EFAM, v))])
                                    for v in environments])]),
    ]
    mfams = []
    for fam, frc, ver in fractals:
        mfrc = Form("MFRC", [Form(ver, [Chunk("DATA", encode(layouts.MFRC[ver], frc))])])
        mfams.append(Form("MFAM", [Chunk("DATA", encode(layouts.MFAM_FRACTAL, fam)), mfrc]))
    groups.append(Form("MGRP", [Form("0000", mfams)]))
    if bitmaps is not None:
        bfams = [Form("MFAM", [Chunk("DATA", encode(layouts.MFAM_BITMAP, b))]) for b in bitmaps]
        groups.append(Form("MGRP", [Form("0000", bfams)]))
    return groups


def baked(width: int = 0, height: int = 0, map_width: float = 4096.0, chunk_width: float = 8.0) -> Form:
    if width == 0 or height == 0:
        return Form("0000", [])
    data = encode(layouts.BAKED_DATA, {"mapWidth": map_width, "chunkWidth": chunk_width,
                                       "width": width, "height": height})
    wmap = bytes((i * 7) & 0xFF for i in range(width * height))
    smap = bytes((i * 3) & 0xFF for i in range(width * height))
    return Form("0001", [Chunk("DATA", data), Chunk("WMAP", wmap), Chunk("SMAP", smap)])


def document(version: str = "0014", header: dict[str, Any] | None = None, groups: list[Form] | None = None,
             layers: list[Form] = (), baked_form: Form | None = None, extra_tgen: list[Form] = (),
             top: str = "PTAT") -> Form:
    """A whole TRN tree."""
    header = header or header_values()
    tgen_children = list(groups if groups is not None else family_groups())
    tgen_children += list(extra_tgen) + [Form("LYRS", list(layers))]
    body: list[iff.Node] = [Chunk("DATA", encode(layouts.HEADER[version], header)),
                            Form("TGEN", [Form("0000", tgen_children)]),
                            baked_form if baked_form is not None else baked()]
    if version == "0015":
        body += [Form("PIMP", [Chunk("DATA", struct.pack("<4i", 1, 2, 3, 4))]),
                 Form("PFPM", [Chunk("DATA", bytes(range(7)))])]
    return Form(top, [Form(version, body)])


def to_bytes(node: Form) -> bytes:
    return iff.serialize(node)
