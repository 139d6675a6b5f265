"""TRN test files built by the project's own writer from the spec's layouts."""

from __future__ import annotations

from typing import Any

from model.trn import build, layouts
from model.trn.iff import Chunk, Form


def sample_values(layout, seed: int) -> dict[str, Any]:
    """Deterministic values for every field; floats are exact in f32 (multiples of 1/4)."""
    values: dict[str, Any] = {}
    for i, (name, kind) in enumerate(layout):
        k = seed * 31 + i * 7
        if kind in ("i32", "u32"):
            values[name] = k % 5
        elif kind == "f32":
            values[name] = (k % 97) / 4.0 - 3.0
        elif kind == "u8":
            values[name] = k % 256
        elif kind == "bool8":
            values[name] = bool(k % 2)
        elif kind == "cstr":
            values[name] = f"{name}_{k}" + "x" * (k % 3)  # vary parity: odd chunk sizes
        elif kind == "rgb":
            values[name] = (k % 256, (k * 3) % 256, (k * 5) % 256)
        elif kind == "xz*":
            values[name] = [((k + j) % 50 - 25.0, (k * j) % 40 - 20.0) for j in range(3 + k % 3)]
        elif kind == "f32*":
            values[name] = [float((k + j) % 9) for j in range(2 + k % 2)]
        else:
            values[name] = [sample_values(kind[1], seed * 3 + j + 1) for j in range(1 + k % 3)]
    return values


def every_item() -> list[tuple[str, str, dict[str, Any]]]:
    return [(tag, ver, sample_values(layout, n))
            for n, ((tag, ver), layout) in enumerate(layouts.ITEMS.items())]


def unknown_items() -> list[Form]:
    return [
        Form("XQZW", [Form("0000", [Chunk("DATA", b"\x01\x02\x03")])]),  # unknown tag, odd size
        Form("BCIR", [Form("0009", [build.ihdr("future circle"), Chunk("DATA", b"\x00" * 21)])]),
        Form("ARIB", [Form("0001", [build.ihdr("bank"), Chunk("DATA", b"abc")])]),
    ]


def kitchen_sink(version: str = "0014", top: str = "PTAT") -> Form:
    """Every item of every listed version, every layer version, nested layers, unknown blocks."""
    items = [build.item(tag, ver, name=f"{tag} {ver} item", active=(i % 4 != 3), **vals)
             for i, (tag, ver, vals) in enumerate(every_item())]
    items.append(build.item("AHCN", "0000", name="old header", ihdr_version="0000", operation=1, height=2.5))
    half = len(items) // 2
    inner = build.layer("inner", items[half:] + unknown_items(), version="0002", invert_filters=True)
    middle = build.layer("middle with notes", [inner, build.layer("v1", [], version="0001")],
                         version="0004", notes="odd notes")
    layers = [build.layer("top", items[:half] + [middle], invert_boundaries=True),
              build.layer("inactive", [], active=False)]
    fams = family_groups_all()
    return build.document(version, build.header_values(name="terrain/kitchen_sink.trn"), fams, layers,
                          baked_form=build.baked(3, 5), extra_tgen=[Form("ZZZZ", [Chunk("ODD1", b"q")])],
                          top=top)


def family_groups_all(radial_version: str = "0004") -> list[Form]:
    shaders = [sample_values(layouts.SFAM, 1), sample_values(layouts.SFAM, 2)]
    flora = [sample_values(layouts.FFAM, 3)]
    radial = [sample_values(layouts.RFAM[radial_version], 4), sample_values(layouts.RFAM[radial_version], 5)]
    envs = [sample_values(layouts.EFAM, 6)]
    fractals = [(sample_values(layouts.MFAM_FRACTAL, 7), sample_values(layouts.MFRC["0001"], 8), "0001"),
                (sample_values(layouts.MFAM_FRACTAL, 9), sample_values(layouts.MFRC["0000"], 10), "0000")]
    bitmaps = [sample_values(layouts.MFAM_BITMAP, 11)]
    return build.family_groups(shaders, flora, radial, envs, fractals, bitmaps, radial_version)
