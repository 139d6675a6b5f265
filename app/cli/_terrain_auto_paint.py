"""`boscage terrain auto-paint SCENE --layer L [--slope A,B] [--height A,B] [--curvature A,B]
[--feather F] [--replace] [--save] [--json]`: a layer's weights from slope, height and curvature bands."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples
from app.cli._lock import add_wait_flag, saving_locked


def parse_band(text: str) -> tuple[float, float]:
    """'A,B' → (a, b), finite, a <= b."""
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN,MAX, got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise argparse.ArgumentTypeError(f"expected two finite numbers MIN,MAX with MIN <= MAX, got {text!r}")
    return lo, hi


def register(actions: argparse._SubParsersAction) -> None:
    p = actions.add_parser(
        "auto-paint", help="paint a layer where the ground's slope, height and curvature fall in bands",
        description="Give a layer weight wherever the ground's slope, height and curvature lie in the bands "
                    "given (each optional, at least one): full weight inside, none outside, a soft edge "
                    "inside each band. A weight-blended layer takes its weight from the other weight-"
                    "blended layers, as painting does; spawners' layer conditions then see it.",
        epilog=examples(
            "boscage terrain auto-paint forest.boscage --layer rock --slope 35,90 --save",
            "boscage terrain auto-paint forest.boscage --layer snow --height 180,400 --feather 0.2 --save",
            "boscage terrain auto-paint forest.boscage --layer moss --curvature=-1,-0.02 --slope 0,25 --json",
            notes="Slope in degrees (0 flat, 90 vertical), height in metres, curvature in 1/m (positive on "
                  "ridges and peaks, negative in valleys); write --curvature=-1,0 for a negative MIN. "
                  "--feather is each band's soft edge as a share of its width (0 hard .. 0.5, default 0.1). "
                  "Without --replace the layer is only raised (what is painted by hand stays). Without "
                  "--save nothing is written: the command reports what the rule would paint."
                  "\n\n--json prints {layer, bands, feather, replace, changed_samples, painted_share, "
                  "took_from, saved}."))
    p.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    p.add_argument("--layer", required=True, metavar="L", help="the paint layer to give weight")
    p.add_argument("--slope", type=parse_band, metavar="A,B", help="slope band, degrees 0..90")
    p.add_argument("--height", type=parse_band, metavar="A,B", help="height band, metres")
    p.add_argument("--curvature", type=parse_band, metavar="A,B",
                   help="curvature band, 1/m (negated Laplacian of the heights: + ridges, - valleys)")
    p.add_argument("--feather", type=float, default=0.1, metavar="F",
                   help="soft edge of each band as a share of its width, 0..0.5 (default 0.1)")
    p.add_argument("--replace", action="store_true",
                   help="set the layer to the rule's weights (default: only raise them)")
    p.add_argument("--save", action="store_true", help="write the painted weights back to SCENE")
    add_wait_flag(p)
    add_json_flag(p)
    p.set_defaults(func=run)


@saving_locked
def run(args: argparse.Namespace) -> int:
    from app.cli._progress import TerminalProgress
    from model.auto_paint import AutoPaintError, AutoPaintRule, apply_auto_paint, check_rule
    from model.formats.scene_file import load_scene, save_scene
    from model.layer_ops import LayerPaintStroke

    scene = load_scene(args.scene)  # first: a bad scene is named whatever the options
    terrain = scene.terrain
    rule = AutoPaintRule(args.layer, args.slope, args.height, args.curvature, args.feather, args.replace)
    try:
        check_rule(terrain, rule)
    except AutoPaintError as e:
        raise UsageError(str(e)) from None
    with TerminalProgress(0, f"auto-painting {args.layer}", "windows") as bar:
        summary = apply_auto_paint(terrain, rule, LayerPaintStroke(terrain, args.layer), bar.step)
    layer = terrain.layer(args.layer)
    share = layer.painted_count() / (terrain.rows * terrain.columns)
    if args.save:
        save_scene(scene, args.scene)
    bands = {name: list(band) for name, band in rule.bands().items()}
    doc = {"layer": args.layer, "bands": bands, "feather": rule.feather, "replace": rule.replace,
           "changed_samples": summary.changed, "painted_share": share, "took_from": summary.others,
           "saved": bool(args.save)}

    def human() -> str:
        text = ", ".join(f"{name} {lo:g}..{hi:g}" for name, (lo, hi) in rule.bands().items())
        lines = [f"{args.layer}: {summary.changed:,} samples changed ({text}, feather {rule.feather:g}); "
                 f"painted on {share * 100:.1f} % of the terrain"]
        if summary.others:
            lines.append(f"  took weight from {', '.join(summary.others)}")
        lines.append(f"  saved to {args.scene}" if args.save else "  not saved (add --save to write it)")
        return "\n".join(lines)

    emit(args, human, doc)
    return 0
