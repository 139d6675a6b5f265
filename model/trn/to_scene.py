"""A region of a TRN generator as an editable scene.

Heights become the terrain; each shader family that occurs becomes a named paint layer; flora
families become foliage types: collidable ones are stored, one instance per pole that carries the
family; non-collidable and radial ones are derived, growing on a paint layer of their poles.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from model.batch import BatchCancelled
from model.scene import Scene
from model.terrain import Terrain
from model.trn.bake import finite_heights
from model.trn.bitmaps import load_bitmaps
from model.trn.document import Family, TrnDocument
from model.trn.evaluator import Cancelled, Evaluation, Region, evaluate, pole_random
from model.trn.palette import family_palette, layer_color

Progress = Callable[[float, str], bool]  # (fraction done, what) → False to cancel
DERIVED_DENSITY = 200.0  # derived instances per 100 m² on a fully painted layer, scaled by family density
_SLOT_TITLES = {"noncollidable": "non-collidable", "radial_near": "radial near", "radial_far": "radial far"}
_MESH_WORDS = (("pine", "conifer"), ("fir", "conifer"), ("conifer", "conifer"), ("tree", "broadleaf"),
               ("bush", "bush"), ("shrub", "bush"), ("rock", "rock"), ("stone", "rock"), ("grass", "grass"))
MAX_IMPORT_POLES = 4096 * 4096


class ImportCancelled(Exception):
    """The progress callback asked to stop; nothing was changed."""


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        out = f"{name} ({n})"
        n += 1
    taken.add(out)
    return out


def mesh_for(family: Family | None, collidable: bool) -> str:
    """A built-in mesh guessed from the family's name and first appearance."""
    words = " ".join([family.name] + [str(c.get("appearance", c.get("shader", ""))) for c in family.children]
                     ).lower() if family else ""
    for word, mesh in _MESH_WORDS:
        if word in words:
            return f"builtin:{mesh}"
    return "builtin:broadleaf" if collidable else "builtin:grass"


def trn_to_scene(doc: TrnDocument, region: Region, progress: Progress | None = None,
                 name: str | None = None, foliage: bool = True,
                 bitmaps: dict[int, np.ndarray] | None = None,
                 warnings: list[str] | None = None, workers: int | None = 1) -> Scene:
    """A new scene from the poles of `region`; `progress` may cancel (ImportCancelled).

    Bitmap families' images are looked up beside the TRN file unless `bitmaps` is given. The
    evaluation's warnings (and poles whose height is not finite: a scene holds finite heights only,
    so they get the lowest or highest finite height) are appended to `warnings` when given.
    `workers` other than 1 evaluates as a batch job on that many local worker processes (None: one
    per core), the same bytes either way; a cancel stops the workers."""
    from model.foliage import SceneFoliage

    if region.rows < 2 or region.cols < 2:
        raise ValueError("the region must span at least 2 x 2 poles")
    if region.rows * region.cols > MAX_IMPORT_POLES:
        raise ValueError(f"{region.cols} x {region.rows} poles is more than an import allows "
                         f"({MAX_IMPORT_POLES}); choose a larger spacing")

    def step(fraction: float, what: str) -> None:
        if progress is not None and progress(fraction, what) is False:
            raise ImportCancelled(what)

    step(0.0, "evaluating")
    def tiles(done: int, total: int) -> bool:
        return progress is None or progress(0.8 * done / max(total, 1), "evaluating") is not False

    try:
        if bitmaps is None:
            bitmaps = load_bitmaps(doc)[0] if doc.path else {}
        if workers == 1:
            ev = evaluate(doc, region, progress=tiles, bitmaps=bitmaps)
        else:
            from model.trn.bake_batch import evaluate_in_tiles

            ev = evaluate_in_tiles(doc, region, bitmaps, workers=workers, progress=tiles)
    except (Cancelled, BatchCancelled):
        raise ImportCancelled("evaluating") from None
    step(0.8, "terrain")
    x0, z0, _, _ = region.bounds
    heights, _, replaced = finite_heights(ev.heights)
    if warnings is not None:
        warnings.extend(ev.warnings + ([replaced.sentence()] if replaced.total else []))
    terrain = Terrain(heights, spacing=region.spacing, origin=(x0, z0))
    taken: set[str] = set()
    colors = family_palette(doc)  # readable and distinct, not the families' own (often neon) tints
    for fam in doc.families["shader"]:
        mask = ev.shader == fam.id
        if mask.any():
            weights = np.where(mask, np.uint8(255), np.uint8(0))
            terrain.add_layer(_unique(fam.name or f"shader {fam.id}", taken),
                              layer_color(colors, "shader", fam.id), weights)
    scene = Scene(terrain=terrain, name=name or (doc.path.stem if doc.path else "TRN import"))
    # the scene's palette is made from this data only: an empty one when there is no flora, or
    # the editor would seed its demo types, which filter on layers this scene does not have
    scene.sections["foliage"] = SceneFoliage()
    if foliage:
        step(0.9, "flora")
        _add_flora(scene, doc, ev, taken, colors)
    step(1.0, "done")
    return scene


def _add_flora(scene: Scene, doc: TrnDocument, ev: Evaluation, taken: set[str],
               colors: dict[tuple[str, int], tuple[int, int, int]]) -> None:
    from model.foliage import FoliageType, LayerFilter

    result = scene.sections["foliage"]
    names: set[str] = set()
    terrain = scene.terrain
    xs, zs = ev.region.coords()
    spacing = ev.region.spacing
    ids = ev.flora["collidable"].ravel()
    kids = ev.flora_child["collidable"].ravel()
    for fid in np.unique(ids[ids >= 0]):
        fam = doc.family("flora", int(fid))
        label = _unique(fam.name if fam else f"flora {fid}", names)
        result.palette.add(FoliageType(label, mesh=mesh_for(fam, True)))
        at = np.nonzero(ids == fid)[0]
        px, pz = xs[at], zs[at]
        # jitter within the pole's cell so a forest is not a lattice; hashed, so imports repeat exactly
        jx = (pole_random(px, pz, np.uint64(0x7A11)) - 0.5) * spacing
        jz = (pole_random(px, pz, np.uint64(0x7A12)) - 0.5) * spacing
        x = np.clip(px + jx, *terrain.bounds()[0::2])
        z = np.clip(pz + jz, *terrain.bounds()[1::2])
        records = np.zeros((at.size, 7), np.float32)
        records[:, 0] = x
        records[:, 1] = terrain.height_at(x, z)
        records[:, 2] = z
        records[:, 3] = pole_random(px, pz, np.uint64(0x7A13)) * (2 * math.pi)
        records[:, 6] = _scales(fam, kids[at], pole_random(px, pz, np.uint64(0x7A14)))
        result.volume.add(label, records, copy=False)
    for slot, title in _SLOT_TITLES.items():
        kind = "flora" if slot == "noncollidable" else "radial"
        grid = ev.flora[slot]
        for fid in np.unique(grid[grid >= 0]):
            fam = doc.family(kind, int(fid))
            base = fam.name if fam else f"{kind} {fid}"
            layer = _unique(f"{title}: {base}", taken)
            terrain.add_layer(layer, layer_color(colors, kind, int(fid)),
                              np.where(grid == fid, np.uint8(255), np.uint8(0)))
            density = DERIVED_DENSITY * (float(fam.record["density"]) if fam else 1.0)
            result.palette.add(FoliageType(_unique(f"{base} ({title})", names), mesh=mesh_for(fam, False),
                                           storage="derived", density=max(density, 0.0),
                                           layer=LayerFilter(layer, 0.5)))


def _scales(fam: Family | None, child: np.ndarray, draw: np.ndarray) -> np.ndarray:
    """Scale between the chosen child's min and max scale where it asks to be scaled, else 1."""
    out = np.ones(child.size)
    if fam is None:
        return out
    for i, c in enumerate(fam.children):
        if not c.get("shouldScale"):
            continue
        lo, hi = float(c.get("minScale", 1.0)), float(c.get("maxScale", 1.0))
        if not (lo > 0 and hi >= lo):
            continue
        sel = child == i
        out[sel] = lo + (hi - lo) * draw[sel]
    return out
