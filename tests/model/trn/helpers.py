"""Small documents for evaluator tests, written with the project's own TRN writer."""

from __future__ import annotations

from model.trn import build, document
from model.trn.evaluator import Region, evaluate


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


def doc_of(layers, shaders=(), floras=(), radials=(), envs=(), fractals=(), bitmaps=None):
    groups = build.family_groups(shaders, floras, radials, envs, fractals, bitmaps)
    return document.parse(build.to_bytes(build.document("0014", None, groups, layers)))


def grid(doc, x0, z0, x1, z1, spacing=1.0, **kw):
    return evaluate(doc, Region.from_bounds(x0, z0, x1, z1, spacing), **kw)


def height_const(h: float, op: int = 0, **kw):
    return build.item("AHCN", "0000", operation=op, height=h, **kw)


def circle(cx, cz, r, fn=0, f=0.0, **kw):
    return build.item("BCIR", "0002", cx=cx, cz=cz, radius=r, featherFn=fn, feather=f, **kw)


def rect(x0, z0, x1, z1, fn=0, f=0.0, **kw):
    return build.item("BREC", "0002", x0=x0, z0=z0, x1=x1, z1=z1, featherFn=fn, feather=f, **kw)
