"""`boscage terrain spline|holes`: road and river splines as edit layers, and the hole mask.

A spline command adds an edit layer of kind "spline" (or reshapes the one of that name over the
heights beneath it); holes are painted into the terrain's hole mask. Nothing is written without
--save, and a save is atomic.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples, parse_xz
from model.errors import FormatError

MAX_PATH_BYTES = 16 * 1024 * 1024


def _number(text: str) -> float:
    from app.cli.terrain import _number as number

    return number(text)


def register(t_sub: argparse._SubParsersAction) -> None:
    sp = t_sub.add_parser(
        "spline", help="lay a road or carve a river along a path, as an edit layer", epilog=examples(
            "boscage terrain spline valley.boscage road.json --width 8 --max-grade 8 --paint road "
            "--clear-foliage --name main-road --save",
            "boscage terrain spline valley.boscage river.json --width 14 --kind river --depth 2.5 "
            "--paint water --save",
            notes="--json prints {scene, layer, created, kind, points, parameters, samples_changed, "
                  "foliage_removed, painted, edit_layers, saved}."),
        description="PATH.json holds {\"points\": [[x, z], ...]} (heights taken from the terrain) or "
                    "[[x, y, z], ...] (heights given), optionally with \"widths\" and \"falloffs\" "
                    "per point. A road is flat across its width, its grade kept within --max-grade by "
                    "cut and fill, blending into the ground over the falloff; a river carves a bed "
                    "--depth metres below a water line that never rises along its course. Both paint "
                    "--paint at full weight on their width and keep spawners off it. The edit layer "
                    "(--name, default 'spline') is added on top, or recomputed where it exists.")
    sp.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    sp.add_argument("path", type=Path, metavar="PATH.json", help="the control points")
    sp.add_argument("--width", type=_number, metavar="W", required=True, help="metres, edge to edge")
    sp.add_argument("--falloff", type=_number, metavar="F", default=4.0,
                    help="metres over which the ground blends back (default 4)")
    sp.add_argument("--kind", choices=("road", "river"), default="road", help="default road")
    sp.add_argument("--depth", type=_number, metavar="M",
                    help="river: metres of bed below the water (default 2)")
    sp.add_argument("--max-grade", type=_number, metavar="PERCENT",
                    help="road: the steepest grade along it (default 12)")
    sp.add_argument("--polyline", action="store_true", help="straight lines between the points (default: "
                    "a smooth Catmull-Rom curve through them)")
    sp.add_argument("--paint", metavar="LAYER", help="paint this layer on the spline (made if missing)")
    sp.add_argument("--clear-foliage", action="store_true",
                    help="remove stored foliage within the half-width plus 1 m")
    sp.add_argument("--name", default="spline", metavar="NAME", help="the edit layer (default 'spline')")
    sp.add_argument("--save", action="store_true", help="write the result back to SCENE (atomically)")
    add_json_flag(sp)
    sp.set_defaults(func=run_spline)

    ho = t_sub.add_parser("holes", help="paint or erase holes in the terrain (caves, tunnel mouths)",
                          epilog=examples(
                              "boscage terrain holes valley.boscage --paint 120,-40 --radius 6 --save",
                              "boscage terrain holes valley.boscage --paint 120,-40 --paint 126,-40 "
                              "--radius 3 --erase --save",
                              notes="The spawners re-run over the holes' ground (they grow nothing in a "
                                    "hole, and grow back where one is filled); stored foliage still "
                                    "standing in a new hole is removed. --json prints {scene, erase, "
                                    "changed, holes, foliage_removed, foliage_regrounded, spawners_rerun, "
                                    "saved}."),
                          description="Marks the samples within --radius of each --paint point as holes "
                                      "(or clears them with --erase): their cells are not drawn, picked "
                                      "or exported, and no foliage grows on them (the spawners re-run "
                                      "there, as after the editor's Holes tool; stored instances left "
                                      "in them are removed).")
    ho.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    ho.add_argument("--paint", type=parse_xz, metavar="X,Z", action="append", required=True,
                    help="a brush dab's centre (metres); repeat for more")
    ho.add_argument("--radius", type=_number, metavar="R", required=True, help="metres")
    ho.add_argument("--erase", action="store_true", help="clear holes instead of making them")
    ho.add_argument("--save", action="store_true", help="write the result back to SCENE (atomically)")
    add_json_flag(ho)
    ho.set_defaults(func=run_holes)


def read_path(path: Path, width: float, falloff: float):
    """(points (n, 3) with NaN heights where none, widths, falloffs) from PATH.json."""
    import numpy as np

    from model.json_doc import expect, field, read_json_file

    doc = read_json_file(path, MAX_PATH_BYTES, "spline path")
    where = ""
    widths = falloffs = None
    if isinstance(doc, dict):
        points = field(path, doc, "points", "array", "")
        where = "points"
        widths = field(path, doc, "widths", "array", "", None)
        falloffs = field(path, doc, "falloffs", "array", "", None)
    else:
        points = expect(path, doc, "array", "(the document)")
    if len(points) < 2:
        raise FormatError(path, where or "(the document)",
                          f"a spline needs at least 2 points, got {len(points)}")
    out = np.empty((len(points), 3), np.float64)
    for k, p in enumerate(points):
        place = f"{where}[{k}]"
        if not isinstance(p, list) or len(p) not in (2, 3):
            raise FormatError(path, place, "expected [x, z] or [x, y, z]")
        values = [float(expect(path, v, "number", f"{place}[{i}]")) for i, v in enumerate(p)]
        out[k] = (values[0], np.nan, values[1]) if len(values) == 2 else values
    per_point = []
    for key, given, default in (("widths", widths, width), ("falloffs", falloffs, falloff)):
        if given is None:
            per_point.append(np.full(len(points), default))
            continue
        if len(given) != len(points):
            raise FormatError(path, key, f"expected one value per point ({len(points)}), got {len(given)}")
        per_point.append(np.array([float(expect(path, v, "number", f"{key}[{k}]"))
                                   for k, v in enumerate(given)]))
    return out, per_point[0], per_point[1]


def _load(args: argparse.Namespace):
    from model.formats.scene_file import load_scene

    return load_scene(args.scene)


def _save(args: argparse.Namespace, scene, human: list[str]) -> None:
    from model.formats.scene_file import save_scene

    if args.save:
        save_scene(scene, args.scene)
        human.append(f"saved to {args.scene}")


def run_spline(args: argparse.Namespace) -> int:
    import numpy as np

    from model.edit_layers import EditLayerError, describe
    from model.layer_ops import LayerError
    from model.spline_edits import apply_spline
    from model.splines import Spline, SplineError

    if args.kind == "road" and args.depth is not None:
        raise UsageError("--depth is a river setting")
    if args.kind == "river" and args.max_grade is not None:
        raise UsageError("--max-grade is a road setting")
    scene = _load(args)
    points, widths, falloffs = read_path(args.path, args.width, args.falloff)
    spline = Spline(points, widths, falloffs, args.kind, not args.polyline,
                    2.0 if args.depth is None else args.depth,
                    12.0 if args.max_grade is None else args.max_grade,
                    paint=args.paint, clear_foliage=args.clear_foliage)
    try:
        spline.check()
    except SplineError as e:
        raise FormatError(args.path, "points", str(e)) from None
    t = scene.terrain
    x0, z0, x1, z1 = t.bounds()
    xs, zs = points[:, 0], points[:, 2]
    if xs.max() < x0 or xs.min() > x1 or zs.max() < z0 or zs.min() > z1:
        raise UsageError(f"the path misses the terrain (which spans {x0:g},{z0:g} to {x1:g},{z1:g})")
    try:
        existed = t.edits is not None and t.edits.get(args.name) is not None
        change = apply_spline(scene, args.name, spline, full=True)
    except (EditLayerError, LayerError, SplineError) as e:
        raise FormatError(args.scene, "edit_layers", str(e)) from None
    removed = 0 if change.removed is None else len(change.removed)
    follow = change.follow
    regrounded, respawned = (0, 0) if follow is None else (follow.regrounded, follow.respawned)
    area = sum(int(np.count_nonzero(old != new)) for _r, _c, old, new in change.deltas)
    doc = {"scene": str(args.scene), "layer": args.name, "created": not existed, "kind": args.kind,
           "points": len(points), "parameters": change.new_params, "samples_changed": area,
           "foliage_removed": removed, "foliage_regrounded": regrounded, "spawners_rerun": respawned,
           "painted": args.paint,
           "edit_layers": describe(t.edits)}
    human = [f"{'added' if not existed else 'recomputed'} {args.kind} spline {args.name!r} through "
             f"{len(points)} points ({area:,} height samples changed"
             + (f", {removed:,} stored instances cleared" if args.clear_foliage else "") + ")"]
    if regrounded or respawned:
        human.append(f"{regrounded:,} stored instances re-grounded beside it, {respawned} spawner(s) re-run "
                     "over the ground it changed")
    if args.paint:
        human.append(f"painted layer {args.paint!r}")
    _save(args, scene, human)
    doc["saved"] = bool(args.save)
    emit(args, "\n".join(human), doc)
    return 0


def run_holes(args: argparse.Namespace) -> int:
    from model.holes_stroke import paint_scene_holes

    if not args.radius > 0:
        raise UsageError(f"--radius must be a positive number of metres, got {args.radius:g}")
    scene = _load(args)
    t = scene.terrain
    # the dabs as one edit, as a drag of the editor's Holes tool through them: the same bytes
    stroke = paint_scene_holes(scene, args.paint, args.radius, args.erase)
    changed, removed, respawned = stroke.changed, stroke.removed_count, stroke.respawned
    holes = 0 if t.holes is None else t.holes.grid.nonzero(0)
    human = [f"{'cleared' if args.erase else 'made'} {changed:,} hole samples; the terrain has "
             f"{holes:,} in all" + (f"; {removed:,} stored instances in them removed" if removed else "")]
    if respawned:
        human.append(f"{respawned} spawner(s) re-run over the ground it changed")
    _save(args, scene, human)
    emit(args, "\n".join(human), {"scene": str(args.scene), "erase": args.erase, "changed": changed,
                                  "holes": holes, "foliage_removed": removed, "foliage_regrounded": 0,
                                  "spawners_rerun": respawned, "saved": bool(args.save)})
    return 0
