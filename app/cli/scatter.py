"""`boscage scatter SCENE --type NAME --at X,Z --radius R [...]`: one paint stamp, and why it refused;
`--whole` scatters the type over the whole scene as a tiled batch job."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples, parse_xz
from app.cli._batch import add_batch_flags, batch_options
from app.cli._lock import add_wait_flag, saving_locked
from app.cli.spawn import refusal_lines


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("scatter", help="paint one foliage stamp into a scene and report every refusal",
                       description="Run one paint stamp of a foliage type and print the candidates, "
                                   "how many were placed and how many each rule refused.",
                       epilog=examples(
                           "boscage scatter forest.boscage --type conifer --at 120,80 --radius 20",
                           "boscage scatter forest.boscage --type conifer --at=-40,15 --radius 20 --save",
                           "boscage scatter forest.boscage --type broadleaf --whole --save --workers 2",
                           notes="Refusal reasons: NO_GROUND, SLOPE, ALTITUDE, LAYER, SPACING, BRUSH. A "
                                 "derived type (grass) is refused: it is never stored. Write --at=-5,3 for "
                                 "a negative X.\n\n--json prints {type, candidates, placed, refused, "
                                 "missing_layer, added_to_palette, saved}; with --whole {type, whole, "
                                 "region, candidates, placed, refused: [{reason, count}], missing_layers, "
                                 "added_to_palette, saved, added}."))
    p.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    p.add_argument("--type", required=True, metavar="NAME", dest="type_name",
                   help="foliage type name (from the scene's palette, else the built-in one)")
    p.add_argument("--at", type=parse_xz, metavar="X,Z", help="stamp centre, metres")
    p.add_argument("--radius", type=float, metavar="R", help="brush radius, metres")
    p.add_argument("--whole", action="store_true",
                   help="scatter the type over the whole scene instead of one stamp (hashed candidates, "
                        "blue-noise spacing; split into tiles with the batch options below)")
    p.add_argument("--strength", type=float, default=1.0, metavar="S", help="0..1 (default 1)")
    p.add_argument("--falloff", type=float, default=0.5, metavar="F",
                   help="fraction of the radius that fades out (default 0.5)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="stroke seed (default 0)")
    p.add_argument("--save", action="store_true", help="write the placed instances back to SCENE")
    add_wait_flag(p)
    add_batch_flags(p, tile_help="tile size in metres for --whole (default 256)")
    add_json_flag(p)
    p.set_defaults(func=run)


@saving_locked
def run(args: argparse.Namespace) -> int:
    from model.foliage import builtin_palette, foliage_of
    from model.foliage.report import stroke_sentence
    from model.foliage.scatter import FoliageScatter, Stamp
    from model.formats.scene_file import load_scene, save_scene

    batch = batch_options(args)
    if args.whole:
        if args.at is not None or args.radius is not None:
            raise UsageError("--whole scatters over the whole scene: it takes no --at or --radius")
    elif batch is not None:
        raise UsageError("one stamp runs in this process: --workers, --scheduler, --tile, --tiles-dir "
                         "and --resume go with --whole")
    if args.radius is not None and not args.radius > 0:
        raise UsageError(f"--radius must be positive, got {args.radius:g}")
    if not 0.0 <= args.strength <= 1.0:
        raise UsageError(f"--strength must be within 0..1, got {args.strength:g}")
    if not 0.0 <= args.falloff <= 1.0:
        raise UsageError(f"--falloff must be within 0..1, got {args.falloff:g}")
    scene = load_scene(args.scene)  # first: a bad scene is named even when the stamp is not given
    if not args.whole and (args.at is None or args.radius is None):
        raise UsageError("say where: --at X,Z and --radius R for one stamp, or --whole for the whole scene")
    foliage = foliage_of(scene)
    added_type = False
    if args.type_name not in foliage.palette:
        builtin = builtin_palette()
        if args.type_name not in builtin:
            known = sorted(set(foliage.palette.names()) | set(builtin.names()))
            raise UsageError(f"no foliage type named {args.type_name!r} (known: {', '.join(known)})")
        foliage.palette.add(builtin[args.type_name])
        added_type = True
    if foliage.palette[args.type_name].derived:
        raise UsageError(f"{args.type_name!r} is a derived type: it grows from its layer on the GPU, "
                         "is never stored and cannot be painted")
    if args.whole:
        return _run_whole(args, scene, foliage, added_type, batch)
    stamp = Stamp(args.at, args.radius, args.falloff, args.strength, args.seed, 0)
    result = FoliageScatter(scene.terrain, foliage.volume).paint([args.type_name], stamp, apply=args.save)
    if args.save:
        save_scene(scene, args.scene)
    doc = {
        "type": args.type_name,
        "candidates": result.candidates,
        "placed": result.placed,
        "refused": result.refused(),
        "missing_layer": result.missing_layers.get(args.type_name),
        "added_to_palette": added_type,
        "saved": bool(args.save),
    }

    def human() -> str:
        lines = [f"{args.type_name} at ({args.at[0]:g}, {args.at[1]:g}), radius {args.radius:g} m: "
                 f"{stroke_sentence(result, scene.terrain, foliage.palette)}"]
        lines += [f"  {name:<10} {n}" for name, n in doc["refused"].items()]
        if added_type:
            lines.append(f"  (type {args.type_name!r} taken from the built-in palette)")
        if args.save:
            lines.append(f"  saved {result.placed} new instances to {args.scene}")
        return "\n".join(lines)

    emit(args, human, doc)
    return 0


def _run_whole(args: argparse.Namespace, scene, foliage, added_type: bool, batch) -> int:
    """The type over the whole scene as a batch job of tiles (in this process unless asked)."""
    from app.cli._progress import TerminalProgress
    from model.errors import FormatError
    from model.foliage.spawn_batch import DEFAULT_TILE, scatter_in_tiles
    from model.foliage.spawn_run import SpawnError
    from model.formats.scene_file import save_scene

    folder = args.tiles_dir or args.scene.with_name(f".{args.scene.stem}.scatter-{args.type_name}")
    try:
        with TerminalProgress(0, f"scattering {args.type_name}", "tiles") as bar:
            result, added = scatter_in_tiles(
                scene, args.type_name, args.seed, args.strength, args.tile or DEFAULT_TILE,
                batch.workers if batch is not None else 1, batch.scheduler if batch is not None else None,
                folder, args.resume, bar.step, apply=args.save)
    except SpawnError as e:
        raise FormatError(args.scene, f"palette.{args.type_name}", str(e)) from None
    if args.save:
        save_scene(scene, args.scene)
    [species] = result.species or [None]
    doc = {
        "type": args.type_name,
        "whole": True,
        "region": list(result.box),
        "candidates": result.candidates,
        "placed": result.placed,
        "refused": [{"reason": label, "count": n} for label, n in species.counts()] if species else [],
        "missing_layers": sorted(species.missing_layers) if species else [],
        "added_to_palette": added_type,
        "saved": bool(args.save),
        "added": sum(len(v) for v in added.values()),
    }

    def human() -> str:
        lines = [f"{args.type_name} over the whole scene, seed {args.seed}: "
                 + (species.sentence().split(": ", 1)[1] if species else "no ground to scatter on")]
        lines += refusal_lines(doc["refused"], doc["candidates"], "  ")
        if added_type:
            lines.append(f"  (type {args.type_name!r} taken from the built-in palette)")
        if args.save:
            lines.append(f"  saved {doc['added']:,} new instances to {args.scene}")
        return "\n".join(lines)

    emit(args, human, doc)
    return 0
