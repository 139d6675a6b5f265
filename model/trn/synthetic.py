"""Synthetic TRN content: family values and a layer stack of realistic shape and size.

Used by the benchmark, the browser's demo and the tests; written with the project's own writer.
"""

from __future__ import annotations

import math

import numpy as np

from model import portable_math as pmath
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


# ---- a real planet's composition -------------------------------------------------------------
# Real planet files are not in the repository. The figures below come from the documents where they
# give one (seed 003 = shared/seeds/003_f7e7019f2324991d.txt, spec = shared/spec/trn.md, ref =
# shared/spec/trn-reference.md); the rest are marked "assumed". The one measured anchor is issue 18's:
# a real planet's bake ran at ~135 k poles/s where `realistic_stack` ran at 270-365 k, so real stacks
# cost 2-2.7x that one per pole. This stack costs ~4x it (numpy evaluator: ~100 k against 410 k
# poles/s over the whole map, same machine, same hour): heavier than the anchor, so a rate reached on
# it holds on the planet with room to spare. Fractals dominate it, as they dominate real terrain.
PLANET_MAP_WIDTH = 16384.0  # seed 003 header (dantooine.trn): mapWidth 0x46800000; spec: 4096-32768
PLANET_CHUNK_WIDTH = 8.0  # seed 003 header: chunkWidth 8, tilesPerChunk 2 -> poles 2 m apart


def _star_polygon(rng, cx: float, cz: float, radius: float, n: int) -> list[tuple[float, float]]:
    """A simple (non-crossing) outline: n points at increasing angles, radii jittered."""
    ang = np.sort(rng.uniform(0.0, 2 * np.pi, n))
    rad = radius * rng.uniform(0.55, 1.0, n)
    xs, zs = cx + rad * pmath.cos(ang), cz + rad * pmath.sin(ang)
    return [(float(x), float(z)) for x, z in zip(xs, zs, strict=True)]


def _walk(rng, x: float, z: float, n: int, step: float) -> list[tuple[float, float]]:
    """A wandering line of n points `step` metres apart (roads, rivers, canyons)."""
    heading = rng.uniform(0.0, 2 * np.pi)
    pts = [(x, z)]
    for _ in range(n - 1):
        heading += rng.uniform(-0.6, 0.6)  # a normal draw's tail calls libm's exp and log
        x, z = x + step * float(pmath.cos(heading)), z + step * float(pmath.sin(heading))
        pts.append((float(x), float(z)))
    return pts


def planet_stack(seed: int = 7, scale: float = 1.0):
    """A layer tree of a real planet's composition on a 16 km map (about 1,400 items).

    `scale` multiplies the counts of local features (regions, cities, lakes, roads, rivers):
    0.25 gives a quick variant of the same structure."""
    rng = np.random.default_rng(seed)
    half = PLANET_MAP_WIDTH / 2

    def r(lo, hi):
        return float(rng.uniform(lo, hi))

    def pick(n):
        return int(rng.integers(0, n))

    def count(n):
        return max(1, round(n * scale))

    # families. seed 003 shows SFAM id 34 (snow_mtnspeak: shaderSize 2, featherClamp 1, 1 child), FFAM
    # "ferns" (density 1, 2 children), RFAM "grassy plains" (density 1, 4 children), EFAM main_base
    # (featherClamp 1); the counts are assumed (at least 35 shader families, as id 34 exists)
    n_sh, n_fl, n_ra, n_env, n_fr = 40, 30, 20, 6, 32
    shaders = [shader(i, clamp=float(rng.choice([0.0, 0.25, 0.5, 1.0])),
                      children=tuple((f"s{i}_{k}", r(0.5, 2.0)) for k in range(1 + i % 4)))
               for i in range(n_sh)]
    floras = [flora(i, density=r(0.05, 1.0),
                    children=tuple((f"f{i}_{k}.apt", r(0.5, 2.0)) for k in range(1 + i % 4)))
              for i in range(n_fl)]
    radials = [radial(i, density=r(0.2, 1.0)) for i in range(n_ra)]
    envs = [env(i, clamp=float(rng.choice([0.0, 1.0]))) for i in range(n_env)]
    # MFRC: seed 003's example is 2 octaves, frequency 4, amplitude 0.5, scale 0.01, rule 0; ref's
    # large-coordinate cases are 4-6 octaves, frequency 2.5-4, amplitude 0.39-0.67; the noise module
    # notes real files use up to about 10 octaves. Big landforms use small scales (assumed).
    # The first 8 are the map-wide ones (base relief 6 octaves, the rest 3-4: assumed).
    fractals = []
    for i in range(n_fr):
        octaves = (6, 4, 3, 4, 4, 3, 3, 4)[i] if i < 8 else int(rng.choice([2, 3, 4, 4, 6, 6, 8]))
        sc = float(rng.choice([0.0005, 0.001, 0.002, 0.005, 0.01, 0.02]))
        fractals.append(fractal(i, seed=int(rng.integers(0, 2**31)), octaves=octaves,
                                frequency=r(2.0, 4.0), amplitude=r(0.35, 0.65), scaleX=sc,
                                scaleY=sc * r(0.7, 1.4), offsetX=r(-40, 40), offsetY=r(-40, 40),
                                combinationRule=int(rng.choice([0, 0, 1, 2, 3, 4, 5])),
                                useBias=int(rng.random() < 0.25), bias=r(0.3, 0.7),
                                useGain=int(rng.random() < 0.25), gain=r(0.5, 0.9)))

    def I(tag, ver, **kw):  # noqa: E743, N802 - short local constructor
        return build.item(tag, ver, **kw)

    def hfr(fid, op, sy):
        return I("AHFR", "0003", fractalFamily=fid, operation=op, scaleY=sy)

    def hcn(op, h):
        return I("AHCN", "0000", operation=op, height=h)

    def ascn(fid):
        return I("ASCN", "0001", shaderFamily=fid, useFeatherClampOverride=0, featherClampOverride=0.0)

    def fl(tag, fid, op=1, remove=0, dens=None):
        ver = "0004" if tag in ("AFSC", "AFSN") else "0002"
        return I(tag, ver, floraFamily=fid, operation=op, removeAll=remove,
                 densityOverride=int(dens is not None), density=float(dens or 0.0))

    def ffra(fid, lo, hi, f=0.2):
        return I("FFRA", "0005", fractalFamily=fid, featherFn=pick(4), feather=f, low=lo, high=hi, scaleY=1.0)

    def fslp(lo, hi, f=0.2):
        return I("FSLP", "0002", minAngle=lo, maxAngle=hi, featherFn=0, feather=f)

    def fhgt(lo, hi, f=0.3):
        return I("FHGT", "0002", low=lo, high=hi, featherFn=3, feather=f)

    def bcir(cx, cz, rad, f):
        return I("BCIR", "0002", cx=cx, cz=cz, radius=rad, featherFn=pick(4), feather=f)

    def brec(x0, z0, w, h, f):
        return I("BREC", "0003", x0=x0, z0=z0, x1=x0 + w, z1=z0 + h, featherFn=pick(4), feather=f,
                 localWater=0, localGlobalWater=0, waterHeight=0.0, waterShaderSize=2.0, waterShader="")

    def bpol(pts, fd, water=0):
        return I("BPOL", "0007", points=pts, featherFn=pick(4), featherDistance=fd, localWater=water,
                 waterHeight=r(-20, 5), waterShaderSize=2.0, waterType=0,
                 waterShader="wter_spec" if water else "")

    def bpln(pts, width, f):
        return I("BPLN", "0003", points=pts, featherFn=pick(4), feather=f, width=width)

    L = build.layer  # noqa: N806
    layers = []
    # 1. unbounded terrain: base relief, ranges and detail, all fractal (assumed: 3 + 3 sub-layers)
    terrain = [hfr(0, 0, 600.0), hfr(1, 1, 120.0), hfr(2, 1, 8.0)]
    for k in range(2):
        terrain.append(L(f"ranges {k}", [ffra(3 + k, r(0.3, 0.5), r(0.7, 0.95)), hfr(7 + k, 1, r(60, 250))]))
    terrain.append(L("terraces", [ffra(3, 0.6, 0.9), I("AHTR", "0004", flatRatio=0.6, height=12.0)]))
    layers.append(L("terrain", terrain))
    # 2. unbounded surface: base shader and colour, then slope/height/direction/fractal shaders
    # (FSLP, FHGT, FDIR, FFRA are the filters seed 003 lists; counts assumed). Fractal families are
    # shared by several rules ("for reuse within different rules", seed 003)
    surface = [ascn(0), I("ACRH", "0000", operation=0, low=-100.0, high=700.0, rampImage="ramp_height.tga"),
               I("ACRF", "0001", fractalFamily=7, operation=3, rampImage="ramp_fractal.tga")]
    for k in range(4):
        surface.append(L(f"steep {k}", [fslp(r(20, 40), r(45, 90)), ascn(1 + k), fl("AFDN", pick(n_ra), 0)]))
    for k in range(3):
        surface.append(L(f"height band {k}", [fhgt(r(100, 300), r(350, 900)), ascn(7 + k)]))
    surface.append(L("north faces", [I("FDIR", "0000", minAngle=-45.0, maxAngle=45.0, featherFn=1,
                                         feather=0.2), fslp(10, 60), ascn(10)]))
    for k in range(5):
        surface.append(L(f"patches {k}", [ffra(3 + k % 3, r(0.2, 0.5), r(0.6, 0.9)), ascn(11 + k),
                                          I("ACCN", "0000", operation=3, color=(pick(256), pick(256), 90))]))
    layers.append(L("surface", surface))
    # 3. unbounded flora: fractal patches of collidable / non-collidable flora and radial grass,
    # kept off steep ground (assumed: 8 patch layers, two filter levels)
    flora_layer = [fl("AFDN", 0, dens=0.6), fl("AFDF", 1, dens=0.4)]
    for k in range(8):
        sub = [ffra(6 + k % 2, r(0.3, 0.55), r(0.6, 0.95)), fl("AFSC", pick(n_fl)), fl("AFSN", pick(n_fl)),
               fl("AFDN", pick(n_ra))]
        if k % 2 == 0:
            sub.append(L("flat only", [fslp(0.0, r(15, 35)), fl("AFSC", pick(n_fl)), fl("AFDF", pick(n_ra))]))
        if k % 3 == 0:
            sub.append(L("below snow", [fhgt(-200.0, r(300, 600)), fl("AFSN", pick(n_fl))]))
        flora_layer.append(L(f"flora {k}", sub))
    layers.append(L("flora", flora_layer))

    # 4. biome regions: 12 large polygons (assumed; 16-64 points, feather 30-200 m) with their own
    # shaders, flora and relief, and sub-layers with filters
    regions = []
    for k in range(count(12)):
        pts = _star_polygon(rng, r(-half, half), r(-half, half), r(800, 3000), int(rng.integers(16, 65)))
        kids = [bpol(pts, r(30, 200)), ascn(pick(n_sh)), hfr(8 + pick(n_fr - 8), 1, r(10, 80)),
                fl("AFSC", pick(n_fl)), fl("AFSN", pick(n_fl)), fl("AFDN", pick(n_ra)),
                fl("AFDF", pick(n_ra)),
                I("AENV", "0000", environmentFamily=pick(n_env), useOverride=0, override=0.0)]
        kids.append(L("region steep", [fslp(r(25, 40), 90.0), ascn(pick(n_sh))]))
        kids.append(L("region patches", [ffra(8 + pick(n_fr - 8), 0.4, 0.8), fl("AFSC", pick(n_fl)),
                                         I("ACCN", "0000", operation=1, color=(20, 10, 0))]))
        regions.append(L(f"region {k}", kids))
    layers.append(L("regions", regions))
    # 5. mountains and peaks: circles with a crest fractal added (assumed 20, radius 300-1500 m)
    peaks = []
    for k in range(count(20)):
        peaks.append(L(f"peak {k}", [bcir(r(-half, half), r(-half, half), r(300, 1500), r(0.3, 0.9)),
                                     hfr(8 + pick(n_fr - 8), 1, r(50, 300)),
                                     L("peak rock", [fslp(30.0, 90.0), ascn(pick(n_sh))])]))
    layers.append(L("peaks", peaks))
    # 6. lakes: water polygons (seed 003's BPOL example is a 4-point water area; assumed 6-16 points)
    lakes = []
    for k in range(count(12)):
        pts = _star_polygon(rng, r(-half, half), r(-half, half), r(100, 600), int(rng.integers(6, 17)))
        lakes.append(L(f"lake {k}", [bpol(pts, r(20, 80), water=1), hcn(2, r(5, 25)), ascn(pick(n_sh)),
                                     fl("AFSC", 0, remove=1), fl("AFSN", 0, remove=1)]))
    layers.append(L("lakes", lakes))
    # 7. canyons and ridges along polylines (seed 003's BPLN example: 8 points, width 10; assumed
    # 8-30 points, width 10-60 m)
    lines = []
    for k in range(count(16)):
        pts = _walk(rng, r(-half, half), r(-half, half), int(rng.integers(8, 31)), r(40, 150))
        lines.append(L(f"canyon {k}", [bpln(pts, r(10, 60), r(0.2, 0.8)), hcn(2, r(5, 40)),
                                       ascn(pick(n_sh))]))
    layers.append(L("canyons", lines))
    # 8. cities and points of interest: flatten, clear flora, city shader, exclude (the format page's
    # worked example clears a circle; assumed 80 sites, radius 40-400 m, a third of them polygons)
    sites = []
    for k in range(count(80)):
        cx, cz = r(-half, half), r(-half, half)
        kind = k % 3
        if kind == 0:
            bound = bcir(cx, cz, r(40, 400), r(0.1, 0.5))
        elif kind == 1:
            bound = brec(cx, cz, r(80, 600), r(80, 600), r(0.1, 0.5))
        else:
            bound = bpol(_star_polygon(rng, cx, cz, r(60, 400), int(rng.integers(8, 21))), r(10, 60))
        kids = [bound, hcn(0, r(-20, 200)), fl("AFSC", 0, remove=1), fl("AFSN", 0, remove=1),
                fl("AFDN", 0, remove=1), fl("AFDF", 0, remove=1), ascn(pick(n_sh)), I("AEXC", "0000")]
        if k % 4 == 0:
            kids.append(I("APAS", "0000", passable=False, threshold=0.5))
        if k % 5 == 0:
            kids.append(L("streets", [brec(cx, cz, r(20, 80), r(20, 80), 0.0), ascn(pick(n_sh))]))
        sites.append(L(f"site {k}", kids))
    layers.append(L("sites", sites))
    # 9. roads (AROA: points with heights; assumed 10-60 points, width 8-16 m)
    roads = []
    for k in range(count(16)):
        n = int(rng.integers(10, 61))
        pts = _walk(rng, r(-half, half), r(-half, half), n, r(60, 200))
        roads.append(L(f"road {k}", [I("AROA", "0006", points=pts, heights=[r(0, 150) for _ in range(n)],
                                       width=r(8, 16), shaderFamily=pick(n_sh), featherFn=pick(4),
                                       feather=r(0.2, 0.6), featherFnShader=0, featherShader=r(0.0, 0.4),
                                       fixedHeights=int(rng.random() < 0.5))]))
    layers.append(L("roads", roads))
    # 10. rivers (ARIV: assumed 20-100 points, width 16-60 m)
    rivers = []
    for k in range(count(8)):
        n = int(rng.integers(20, 101))
        pts = _walk(rng, r(-half, half), r(-half, half), n, r(60, 200))
        rivers.append(L(f"river {k}", [I("ARIV", "0006", points=pts, width=r(16, 60), bankFamily=pick(n_sh),
                                         bottomFamily=pick(n_sh), featherFn=pick(4), feather=r(0.3, 0.7),
                                         trenchDepth=r(2, 10), velocity=1.0, hasWater=1, waterDepth=2.0,
                                         waterWidth=8.0, waterShaderSize=2.0, waterShader="wter_river",
                                         waterType=0)]))
    layers.append(L("rivers", rivers))

    groups = build.family_groups(shaders, floras, radials, envs, fractals, None)
    header = build.header_values("terrain/planet_like.trn", PLANET_MAP_WIDTH, PLANET_CHUNK_WIDTH)
    return document.parse(build.to_bytes(build.document("0014", header, groups, layers)))


def planet_region(poles: int = 1_000_000):
    """A whole-map bake of about `poles` poles: each layer's share of the poles is the share of the
    map its boundaries cover, as in a bake of every pole of the planet."""
    from model.trn.evaluator import Region

    side = math.isqrt(poles)
    side += poles - side * side > side  # rounded to the nearest, in integers
    spacing = PLANET_MAP_WIDTH / side
    return Region(-side // 2, -side // 2, side, side, spacing)
