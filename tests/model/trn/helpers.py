"""Small documents for evaluator tests, written with the project's own TRN writer."""

from __future__ import annotations

from model.trn import build, document
from model.trn.evaluator import Region, evaluate
from model.trn.synthetic import env, flora, fractal, radial, shader  # noqa: F401 - re-exported


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
