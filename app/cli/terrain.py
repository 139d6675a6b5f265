"""`boscage terrain erode|stamp|terrace|edit-layers`: procedural edit layers on a scene's terrain
(`spline` and `holes` live in `app.cli._terrain_paths`).

Each command adds an edit layer named after it (or recomputes the one of that name over the
heights beneath it); nothing is written without --save, and a save is atomic. Ctrl+C while a
command computes leaves the scene as it was.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples, parse_xz
from app.cli._batch import _positive_int
from app.cli._progress import TerminalProgress
from model.errors import FormatError

OUTPUTS = ("flow", "deposition", "wear")


def _region(text: str) -> tuple[float, float, float, float]:
    from app.cli.spawn import _region as region

    return region(text)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _outputs(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in OUTPUTS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"expected some of {','.join(OUTPUTS)}, got {text!r}")
    return names


def _common(p: argparse.ArgumentParser, layer: str) -> None:
    p.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    p.add_argument("--layer", metavar="NAME", default=layer,
                   help=f"the edit layer to add or recompute (default {layer!r})")
    p.add_argument("--save", action="store_true", help="write the result back to SCENE (atomically)")
    add_json_flag(p)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("terrain", help="erosion, stamps, terraces, auto-paint and the edit layers of a "
                                       "scene's terrain")
    t_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    from app.cli import _terrain_auto_paint  # an action in its own module

    _terrain_auto_paint.register(t_sub)

    er = t_sub.add_parser("erode", epilog=examples(
                              "boscage terrain erode forest.boscage --thermal --talus 32 --save",
                              "boscage terrain erode forest.boscage --hydraulic --seed 7 --workers 2 --save"),
                          help="erode the terrain into an edit layer (thermal or hydraulic)",
                          description="Thermal erosion lets material slide until no slope is steeper "
                                      "than the talus angle; hydraulic erosion rolls seeded rain "
                                      "droplets that carve channels and deposit sediment. The result is "
                                      "an edit layer over the heights beneath it: 'erode-thermal' or "
                                      "'erode-hydraulic' unless --layer names another. The same seed "
                                      "gives the same bytes on any number of workers.")
    # one of the two is needed; not argparse-required, so a bad SCENE is named first (exit 1)
    how = er.add_mutually_exclusive_group()
    how.add_argument("--thermal", action="store_true", help="talus-angle (thermal) erosion")
    how.add_argument("--hydraulic", action="store_true", help="droplet (hydraulic) erosion")
    er.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    er.add_argument("--layer", metavar="NAME", help="the edit layer to add or recompute")
    er.add_argument("--iterations", type=_positive_int, metavar="N",
                    help="thermal: relaxation steps (default 50); hydraulic: rounds of rain (default 1)")
    er.add_argument("--talus", type=_number, metavar="DEG",
                    help="thermal: the steepest stable slope (default 35)")
    er.add_argument("--seed", type=int, metavar="N", default=0,
                    help="hydraulic: the droplets' seed (default 0)")
    er.add_argument("--rain", type=_number, metavar="R",
                    help="hydraulic: droplets per sample per round (default 1)")
    er.add_argument("--region", type=_region, metavar="X0,Z0,X1,Z1", help="erode only this box (metres)")
    er.add_argument("--mask", metavar="LAYER", help="scale the erosion by this paint layer's weights")
    er.add_argument("--outputs", type=_outputs, metavar="LIST",
                    help="hydraulic: also write flow, deposition and/or wear into paint layers "
                         "'erosion_<name>' (comma-separated)")
    er.add_argument("--workers", type=_positive_int, metavar="N",
                    help="worker processes on this machine (a Dask LocalCluster); 1 runs in this process")
    er.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="use a running Dask cluster")
    er.add_argument("--save", action="store_true", help="write the result back to SCENE (atomically)")
    add_json_flag(er)
    er.set_defaults(func=run_erode)

    st = t_sub.add_parser("stamp", epilog=examples(
                              "boscage terrain stamp forest.boscage crater.png --at=-120,40 --radius 60 "
                              "--height 15 --mode min --save"),
                          help="place a heightmap stamp into an edit layer",
                          description="Read a heightmap (PNG16, R16, NPY, EXR, TIFF or R32), map its "
                                      "range to 0..--height metres and place it centred at --at, "
                                      "--radius metres to its edge, turned --rotation degrees. add: onto "
                                      "the ground; max/min: the higher/lower of the ground and the stamp "
                                      "standing at the ground's height at its centre; replace: the stamp.")
    _common(st, "stamp")
    st.add_argument("stamp", type=Path, metavar="STAMP", help="the heightmap file")
    st.add_argument("--at", type=parse_xz, metavar="X,Z", required=True, help="the stamp's centre (metres)")
    st.add_argument("--radius", type=_number, metavar="R", required=True, help="metres from centre to edge")
    st.add_argument("--rotation", type=_number, metavar="DEG", default=0.0, help="degrees (default 0)")
    st.add_argument("--height", type=_number, metavar="M", default=10.0, help="metres of relief (default 10)")
    st.add_argument("--mode", choices=("add", "max", "min", "replace"), default="add",
                    help="blend (default add)")
    st.set_defaults(func=run_stamp)

    te = t_sub.add_parser("terrace", epilog=examples(
                              "boscage terrain terrace forest.boscage --step 4 --sharpness 0.8 "
                              "--region=-200,-200,0,0 --save"),
                          help="cut the terrain into terraces in an edit layer")
    _common(te, "terrace")
    te.add_argument("--step", type=_number, metavar="M", required=True, help="metres between terraces")
    te.add_argument("--sharpness", type=_number, metavar="K", default=0.7,
                    help="0 (unchanged) to 1 (hard steps): the flat share of each step (default 0.7)")
    te.add_argument("--region", type=_region, metavar="X0,Z0,X1,Z1", help="terrace only this box (metres)")
    te.add_argument("--mask", metavar="LAYER", help="scale the terraces by this paint layer's weights")
    te.set_defaults(func=run_terrace)

    el = t_sub.add_parser("edit-layers", epilog=examples(
                              "boscage terrain edit-layers forest.boscage --json",
                              "boscage terrain edit-layers forest.boscage --disable erode-hydraulic --save"),
                          help="list the terrain's edit layers; show or hide them")
    el.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    el.add_argument("--enable", action="append", default=[], metavar="NAME", help="show this layer")
    el.add_argument("--disable", action="append", default=[], metavar="NAME", help="hide this layer")
    el.add_argument("--save", action="store_true", help="write the change back to SCENE (atomically)")
    add_json_flag(el)
    el.set_defaults(func=run_edit_layers)

    from app.cli._terrain_paths import register as register_paths

    register_paths(t_sub)


# ---- shared ------------------------------------------------------------------------------------
def _load(args: argparse.Namespace):
    from model.formats.scene_file import load_scene

    return load_scene(args.scene)


def _edit_error(args: argparse.Namespace, e: Exception) -> FormatError:
    return FormatError(args.scene, "edit_layers", str(e))


def _finish(args: argparse.Namespace, scene, doc: dict, human: list[str]) -> int:
    from model.edit_layers import describe
    from model.formats.scene_file import save_scene

    if args.save:
        save_scene(scene, args.scene)
        human.append(f"saved to {args.scene}")
    doc["saved"] = bool(args.save)
    doc["edit_layers"] = [{k: v for k, v in la.items() if k != "params"} | {"params": la["params"]}
                          for la in describe(scene.terrain.edits)]
    emit(args, "\n".join(human), doc)
    return 0


def _change(t, applied) -> dict:
    """How far the heights moved: the largest rise and fall, and the mean change, in metres. Read
    from the layer's new and old deltas tile by tile, where either holds any: no copy of the whole
    grid (on a 16 km world it would not fit beside the heights)."""
    import numpy as np

    from model.formats import tiles as tiling

    layer = applied.layer
    old = None if applied.old is None else applied.old[0]
    lo = hi = total = 0.0
    keys = layer.held_tiles() | (set() if old is None else old.held_tiles()) if layer.shows else set()
    for i, j in sorted(keys):
        rows, cols = tiling.tile_slices(i, j, t.rows, t.columns, layer.deltas.tile)
        d = layer.read(rows, cols).astype(np.float64)
        if old is not None:
            d -= old.read(rows, cols, 0)
        d *= layer.opacity
        lo, hi, total = min(lo, float(d.min())), max(hi, float(d.max())), total + float(d.sum())
    return {"max_rise": hi, "max_fall": -lo, "mean_change": total / (t.rows * t.columns)}


def _followed(follow) -> dict:
    return {"foliage_regrounded": follow.regrounded, "spawners_rerun": follow.respawned}


def _followed_text(follow) -> list[str]:
    if not (follow.regrounded or follow.respawned):
        return []
    return [f"{follow.regrounded:,} stored instances re-grounded, {follow.respawned} spawner(s) re-run "
            "over the ground it changed"]


# ---- commands ----------------------------------------------------------------------------------
def run_erode(args: argparse.Namespace) -> int:
    from model.batch import BatchCancelled
    from model.edit_layers import EditLayerError
    from model.erosion.run import Hydraulic, Thermal, erode, parameters
    from model.terrain_edits import mask_of, region_window, run_layer_following, write_outputs

    if args.workers is not None and args.scheduler is not None:
        raise UsageError("--workers and --scheduler exclude each other (a cluster has its own workers)")
    scene = _load(args)
    if not (args.thermal or args.hydraulic):
        raise UsageError("terrain erode needs --thermal or --hydraulic")
    if args.thermal:
        if args.rain is not None or args.outputs:
            raise UsageError("--rain and --outputs are hydraulic settings")
        how = Thermal(args.iterations or 50, 35.0 if args.talus is None else args.talus)
    else:
        if args.talus is not None:
            raise UsageError("--talus is a thermal setting")
        how = Hydraulic(iterations=args.iterations or 1, seed=args.seed,
                        rain=1.0 if args.rain is None else args.rain)
    try:
        how.check()
    except ValueError as e:
        raise UsageError(str(e)) from None
    name = args.layer or ("erode-thermal" if args.thermal else "erode-hydraulic")
    t = scene.terrain
    outputs: dict = {}
    try:
        area = region_window(t, args.region)
        mask = mask_of(t, args.mask)
        params = parameters(how) | ({"region": list(args.region)} if args.region else {}) | (
            {"mask": args.mask} if args.mask else {})

        def make(beneath):
            with TerminalProgress(0, "eroding", "tiles") as bar:
                result = erode(beneath, (t.rows, t.columns), t.spacing, how, area, mask,
                               workers=args.workers or 1, scheduler=args.scheduler, progress=bar.step,
                               outputs=bool(args.outputs))
            outputs.update(result.outputs, area=result.area)
            return result.deltas

        written: list[str] = []

        def output_layers() -> None:
            if args.outputs:
                written.extend(write_outputs(t, outputs, outputs["area"], args.outputs))

        applied, follow = run_layer_following(scene, name, "erosion", params, make, output_layers)
    except EditLayerError as e:
        raise _edit_error(args, e) from None
    except (KeyboardInterrupt, BatchCancelled):
        print(f"boscage: erosion cancelled; {args.scene} unchanged", file=sys.stderr)
        return 130
    change = _change(t, applied)
    doc = {"scene": str(args.scene), "layer": name, "created": applied.created, "method": params["method"],
           "parameters": params, "output_layers": written, **change, **_followed(follow)}
    human = [f"{'added' if applied.created else 'recomputed'} edit layer {name!r} ({params['method']} "
             f"erosion): ground raised up to {change['max_rise']:.2f} m, lowered up to "
             f"{change['max_fall']:.2f} m, mean change {change['mean_change']:+.4f} m"]
    if written:
        human.append(f"outputs in paint layers: {', '.join(written)}")
    return _finish(args, scene, doc, human + _followed_text(follow))


def run_stamp(args: argparse.Namespace) -> int:
    from model.edit_layers import EditLayerError
    from model.terrain_edits import run_layer_following
    from model.terrain_shapes import Stamp, stamp_deltas, stamp_image

    stamp = Stamp(args.at[0], args.at[1], args.radius, args.rotation, args.height, args.mode)
    try:
        stamp.check()
    except ValueError as e:
        raise UsageError(str(e)) from None
    scene = _load(args)
    t = scene.terrain
    x0, z0, x1, z1 = t.bounds()
    r = stamp.radius
    if not (x0 - r < stamp.x < x1 + r and z0 - r < stamp.z < z1 + r):
        raise UsageError(f"a stamp at {stamp.x:g},{stamp.z:g} with radius {r:g} m misses the terrain "
                         f"(which spans {x0:g},{z0:g} to {x1:g},{z1:g})")
    image = stamp_image(args.stamp)
    params = {"file": args.stamp.name, "x": stamp.x, "z": stamp.z, "radius": stamp.radius,
              "rotation": stamp.rotation, "height": stamp.height, "mode": stamp.mode}
    try:
        applied, follow = run_layer_following(scene, args.layer, "stamp", params, lambda beneath: (
            stamp_deltas(beneath, (t.rows, t.columns), t.spacing, t.origin, image, stamp)))
    except EditLayerError as e:
        raise _edit_error(args, e) from None
    change = _change(t, applied)
    doc = {"scene": str(args.scene), "layer": args.layer, "created": applied.created, "parameters": params,
           **change, **_followed(follow)}
    human = [f"{'added' if applied.created else 'recomputed'} edit layer {args.layer!r} (stamp "
             f"{args.stamp.name}, {stamp.mode}): ground raised up to {change['max_rise']:.2f} m, "
             f"lowered up to {change['max_fall']:.2f} m"]
    return _finish(args, scene, doc, human + _followed_text(follow))


def run_terrace(args: argparse.Namespace) -> int:
    from model.edit_layers import EditLayerError
    from model.terrain_edits import mask_of, region_window, run_layer_following
    from model.terrain_shapes import terrace_deltas

    if not args.step > 0:
        raise UsageError(f"--step must be a positive number of metres, got {args.step:g}")
    if not 0.0 <= args.sharpness <= 1.0:
        raise UsageError(f"--sharpness must be from 0 to 1, got {args.sharpness:g}")
    scene = _load(args)
    t = scene.terrain
    params = {"step": args.step, "sharpness": args.sharpness} | (
        {"region": list(args.region)} if args.region else {}) | ({"mask": args.mask} if args.mask else {})
    try:
        area = region_window(t, args.region)
        mask = mask_of(t, args.mask)
        applied, follow = run_layer_following(scene, args.layer, "terrace", params, lambda beneath: (
            terrace_deltas(beneath, (t.rows, t.columns), args.step, args.sharpness, area, mask)))
    except EditLayerError as e:
        raise _edit_error(args, e) from None
    change = _change(t, applied)
    doc = {"scene": str(args.scene), "layer": args.layer, "created": applied.created, "parameters": params,
           **change, **_followed(follow)}
    human = [f"{'added' if applied.created else 'recomputed'} edit layer {args.layer!r} (terraces every "
             f"{args.step:g} m, sharpness {args.sharpness:g})"]
    return _finish(args, scene, doc, human + _followed_text(follow))


def run_edit_layers(args: argparse.Namespace) -> int:
    from model.edit_layers import EditLayerError

    both = set(args.enable) & set(args.disable)
    if both:
        raise UsageError(f"--enable and --disable both name {sorted(both)[0]!r}")
    from model.ground_follow import GroundFollow, layer_window

    scene = _load(args)
    stack = scene.terrain.edits
    try:
        for name, on in [(n, True) for n in args.enable] + [(n, False) for n in args.disable]:
            if stack is None:
                raise EditLayerError(f"no edit layer named {name!r} (the terrain has none)")
            # the foliage follows the ground the layer shows or hides
            window = layer_window(scene.terrain, name) if stack.layer(name).visible != on else None
            follow = GroundFollow(scene, window)
            stack.set_visible(name, on)
            follow.after()
    except EditLayerError as e:
        raise _edit_error(args, e) from None
    layers = [] if stack is None else stack.layers
    human = [f"{k}: {la.name} ({la.kind}){'' if la.visible else ' — hidden'}"
             + (f", opacity {la.opacity:g}" if la.opacity != 1.0 else "") for k, la in enumerate(layers)]
    if not human:
        human = ["no edit layers (the heights are the base)"]
    return _finish(args, scene, {"scene": str(args.scene)}, human)
