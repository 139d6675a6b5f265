"""Synthetic TRN content: family values and a layer stack of realistic shape and size.

Used by the benchmark, the browser's demo and the tests; written with the project's own writer.
"""

from __future__ import annotations

import numpy as np

from model.trn import build, document


def shader(fid: int, name: str = "", clamp: float = 0.0, children=(("a", 1.0),)) -> dict:
    return {"id": fid, "name": name or f"shader{fid}", "surfaceProperties": "",
            "color": (fid * 40 % 256, 90, 30),
            "shaderSize": 2.0, "featherClamp": clamp,
            "children": [{"shader": s, "weight": w} for s, w in children]}


def flora(fid: int, density: float = 1.0, children=(("tree.apt", 1.0),)) -> dict:
    kids = [{"appearance": s, "weight": w, "sway": 0, "displacement": 0.0, "period": 0.0, "alignToTerrain": 0,
             "shouldScale": 1, "minScale": 0.8, "maxScale": 1.2} for s, w in children]
    return {"id": fid, "name": f"flora{fid}", "color": (0, 200, 0), "density": density, "floats": 0,
            "children": kids}


def radial(fid: int, density: float = 1.0) -> dict:
    return {"id": fid, "name": f"radial{fid}", "color": (0, 120, 0), "density": density,
            "children": [{"shader": "grass.dds", "weight": 1.0, "distance": 8.0, "minWidth": 1.0,
                          "maxWidth": 2.0, "minHeight": 0.5, "maxHeight": 1.0, "keepAspect": 1, "sway": 1,
                          "displacement": 0.1, "period": 2.0, "alignToTerrain": 1, "createPlus": 0}]}


def env(fid: int, clamp: float = 0.0) -> dict:
    return {"id": fid, "name": f"env{fid}", "color": (10, 10, 10), "featherClamp": clamp}


def fractal(fid: int, **params) -> tuple:
    values = dict(seed=3, useBias=0, bias=0.5, useGain=0, gain=0.7, octaves=3, frequency=2.0, amplitude=0.5,
                  scaleX=0.01, scaleY=0.01, offsetX=0.0, offsetY=0.0, combinationRule=0)
    values.update(params)
    return ({"id": fid, "name": f"fractal{fid}"}, values, "0001")



def realistic_stack(n_layers: int = 40, seed: int = 1, extent: float = 2000.0):
    rng = np.random.default_rng(seed)
    shaders = [shader(i, clamp=0.2) for i in range(8)]
    floras = [flora(i, density=0.3, children=(("a", 1.0), ("b", 2.0))) for i in range(6)]
    radials = [radial(i, density=0.5) for i in range(4)]
    fractals = [fractal(i, seed=i + 1, octaves=3, scaleX=0.004, scaleY=0.004, combinationRule=i,
                        useBias=int(i == 1), bias=0.4, useGain=int(i == 2), gain=0.7) for i in range(3)]
    layers = [build.layer("base", [build.item("AHFR", "0003", fractalFamily=0, operation=0, scaleY=120.0),
                                   build.item("ASCN", "0001", shaderFamily=0, useFeatherClampOverride=0,
                                              featherClampOverride=0.0)])]

    def r(lo, hi):
        return float(rng.uniform(lo, hi))

    for i in range(n_layers):
        kind = i % 5
        items = []
        if kind == 0:
            items.append(build.item("BCIR", "0002", cx=r(-extent, extent), cz=r(-extent, extent),
                                    radius=r(50, 600), featherFn=i % 4, feather=r(0, 1)))
        elif kind == 1:
            x0, z0 = r(-extent, extent), r(-extent, extent)
            items.append(build.item("BREC", "0003", x0=x0, z0=z0, x1=x0 + r(50, 800), z1=z0 + r(50, 800),
                                    featherFn=i % 4, feather=r(0, 1), localWater=0, localGlobalWater=0,
                                    waterHeight=0.0, waterShaderSize=1.0, waterShader=""))
        elif kind == 2:
            c = rng.uniform(-extent, extent, 2)
            pts = [tuple(c + rng.uniform(-400, 400, 2)) for _ in range(6)]
            items.append(build.item("BPOL", "0007", points=pts, featherFn=i % 4, featherDistance=r(0, 40),
                                    localWater=0, waterHeight=0.0, waterShaderSize=1.0, waterType=0,
                                    waterShader=""))
        elif kind == 3:
            c = rng.uniform(-extent, extent, 2)
            pts = [tuple(c + rng.uniform(-500, 500, 2)) for _ in range(5)]
            items.append(build.item("BPLN", "0003", points=pts, featherFn=i % 4, feather=r(0, 1),
                                    width=r(10, 80)))
        if i % 3 == 0:
            items.append(build.item("FSLP", "0002", minAngle=r(0, 20), maxAngle=r(30, 90), featherFn=0,
                                    feather=r(0, 0.5)))
        if i % 4 == 1:
            items.append(build.item("FHGT", "0002", low=r(-50, 30), high=r(40, 200), featherFn=3,
                                    feather=0.3))
        if i % 9 == 4:
            items.append(build.item("FDIR", "0000", minAngle=r(0, 3), maxAngle=r(3.2, 6.3), featherFn=1,
                                    feather=0.2))
        if i % 6 == 2:
            items.append(build.item("FFRA", "0005", fractalFamily=int(rng.integers(0, 3)), featherFn=0,
                                    feather=0.2, low=0.3, high=0.9, scaleY=1.0))
        items.append(build.item("AHCN", "0000", operation=int(rng.integers(0, 3)), height=r(-20, 20)))
        items.append(build.item("ASCN", "0001", shaderFamily=int(rng.integers(0, 8)),
                                useFeatherClampOverride=0, featherClampOverride=0.0))
        items.append(build.item("AFSC", "0004", floraFamily=int(rng.integers(0, 6)), operation=1, removeAll=0,
                                densityOverride=0, density=0.0))
        items.append(build.item("AFDN", "0002", floraFamily=int(rng.integers(0, 4)), operation=1, removeAll=0,
                                densityOverride=1, density=0.6))
        if i % 7 == 3:
            items.append(build.item("AHFR", "0003", fractalFamily=int(rng.integers(0, 3)), operation=1,
                                    scaleY=r(5, 40)))
        if i % 8 == 5:
            sub = build.layer(f"sub {i}", [build.item("FSLP", "0002", minAngle=0.0, maxAngle=r(5, 25),
                                                      featherFn=0, feather=0.2),
                                           build.item("AFSN", "0004", floraFamily=1, operation=1, removeAll=0,
                                                      densityOverride=0, density=0.0),
                                           build.item("ACCN", "0000", operation=3, color=(200, 180, 150))])
            items.append(sub)
        layers.append(build.layer(f"layer {i}", items))
    groups = build.family_groups(shaders, floras, radials, [env(0)], fractals, None)
    return document.parse(build.to_bytes(build.document("0014", None, groups, layers)))


def item_count(doc) -> int:
    return sum(1 for _ in doc.items())
