"""`boscage zone info`, `zone slope` and `zone to-scene`: a zone's layer files, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples
from app.cli._options import spacing_option
from model.atomic import atomic_write
from model.errors import FormatError
from model.extent import grid_problem
from model.formats.png import encode_png
from model.zones import parse_size, read_zone, zone_statistics
from model.zones.names import plant_names_from_rules


def _size(text: str) -> tuple[int, int]:
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _zone_id(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"zone id must be a non-negative integer, got {text!r}")
    return int(text)


def _zone_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", type=Path, metavar="DIR", help="folder holding {layer}.{id:04d}.bin[.gz] files")
    p.add_argument("--id", dest="zone_id", type=_zone_id, required=True, metavar="N", help="zone id")
    p.add_argument("--size", type=_size, metavar="W[xH]",
                   help="zone size in tiles (default: square, from the altitude file's size)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("zone", help="inspect a zone's layer files")
    zone_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    info = zone_sub.add_parser("info", help="dimensions and per-layer statistics", epilog=examples(
        "boscage zone info zones --id 12",
        "boscage zone info zones --id 12 --size 256 --rules rules --json",
        notes="A layer file whose size does not fit the zone is left out with a warning (on stderr; "
              "warnings in JSON). --json prints {zone_id, width, height, tiles, layers, slope, ..., "
              "warnings}."))
    _zone_args(info)
    add_json_flag(info)
    info.add_argument("--rules", type=Path, metavar="RULES_DIR",
                      help="name plant types from this plant rules folder (each rule's name by index)")
    info.set_defaults(func=run_info)

    slope = zone_sub.add_parser("slope", help="write the derived slope layer as a grey PNG (0..255)",
                                epilog=examples("boscage zone slope zones --id 12 --out slope12.png",
                                                notes="--json prints {zone_id, width, height, out, "
                                                      "slope_min, slope_max}."))
    _zone_args(slope)
    slope.add_argument("--out", type=Path, required=True, metavar="FILE.png", help="the PNG to write")
    add_json_flag(slope)
    slope.set_defaults(func=run_slope)

    scene = zone_sub.add_parser("to-scene", help="import the zone as a .boscage scene (terrain, ground "
                                "layers, plants as foliage)", epilog=examples(
        "boscage zone to-scene zones --id 12 --out zone12.boscage --rules rules",
        notes="Altitude becomes the terrain (1 unit = 1 m), ground types paint layers, blocking plants "
              "stored foliage, grass derived types. Ctrl+C removes what was written (exit 130). --json "
              "prints {out, ..., stored, derived, warnings}."))
    _zone_args(scene)
    scene.add_argument("--out", type=Path, required=True, metavar="SCENE.boscage", help="the scene to write")
    scene.add_argument("--tile", type=spacing_option, default=1.0, metavar="M",
                       help="tile size in metres (default 1): the terrain's spacing")
    scene.add_argument("--rules", type=Path, metavar="RULES_DIR",
                       help="plant rules folder: which types block, and their names")
    add_json_flag(scene)
    scene.set_defaults(func=run_to_scene)


def _counts(title: str, counts: dict, indent: str = "  ") -> list[str]:
    if not counts:
        return [f"{indent}{title}: none"]
    width = max(len(str(k)) for k in counts)
    return [f"{indent}{title}:"] + [f"{indent}  {str(k):<{width}} {v:>10,}" for k, v in counts.items()]


def _spread(histogram: dict) -> str:
    """A histogram with many values, in one line: the most common ones."""
    if not histogram:
        return "none"
    top = sorted(histogram.items(), key=lambda kv: -kv[1])[:8]
    return ", ".join(f"{k}: {v:,}" for k, v in top) + (" …" if len(histogram) > 8 else "")


def info_text(doc: dict) -> str:
    lines = [f"zone {doc['zone_id']}: {doc['width']} x {doc['height']} tiles "
             f"({doc['tiles']:,}); layers: {', '.join(doc['layers'])}"]
    for layer in ("altitude", "altitude_original", "altitude_blend"):
        if layer in doc:
            a = doc[layer]
            lines.append(f"{layer}: {a['min_units']:.2f} .. {a['max_units']:.2f} units "
                         f"(raw {a['raw_min']} .. {a['raw_max']}), mean {a['mean_units']:.2f}")
    if "slope" in doc:
        s = doc["slope"]
        lines.append(f"slope: {s['min']} .. {s['max']}, mean {s['mean']:.2f}")
    if "blocks" in doc:
        b = doc["blocks"]
        lines.append(f"blocks: height {b['height_min']} .. {b['height_max']}")
        lines += _counts("flag counts", b["flag_counts"])
    if "control" in doc:
        c = doc["control"]
        lines.append(f"control: PlantAllowed {c['plant_allowed']:,} tiles, "
                     f"DevrinolAllowed {c['devrinol_allowed']:,} tiles")
        lines += _counts("bit counts", c["bit_counts"])
    if "plants" in doc:
        p = doc["plants"]
        lines.append(f"plants: {p['plant_tiles']:,} plant tiles, {p['sterile_tiles']:,} sterile (spawn 0)")
        lines += _counts("plant types", p["type_counts"])
        lines.append(f"  states: {_spread(p['state_histogram'])}")
        lines.append(f"  spawn bytes: {_spread(p['spawn_histogram'])}")
        lines += _counts("ground types", p["ground_type_counts"])
    return "\n".join(lines)


def warn(args: argparse.Namespace, warnings: list[str]) -> None:
    """Layer files left out (and other warnings) on stderr; with --json they are in the document."""
    if not getattr(args, "json", False):
        for warning in warnings:
            print(f"boscage: warning: {warning}", file=sys.stderr)


def _rules_folder(args: argparse.Namespace) -> Path | None:
    if args.rules is not None and not args.rules.is_dir():
        raise FormatError(args.rules, None, "plant rules folder not found")
    return args.rules


def run_info(args: argparse.Namespace) -> int:
    rules = _rules_folder(args)
    names = plant_names_from_rules(rules) if rules is not None else None
    zone = read_zone(args.folder, args.zone_id, size=args.size, plant_names=names)
    doc = zone_statistics(zone)
    doc["warnings"] = list(zone.warnings)
    warn(args, zone.warnings)
    emit(args, lambda: info_text(doc), doc)
    return 0


def run_slope(args: argparse.Namespace) -> int:
    zone = read_zone(args.folder, args.zone_id, size=args.size, layers=("altitude",))
    slope = zone.slope()
    atomic_write(args.out, encode_png(slope))
    doc = {"zone_id": zone.zone_id, "width": zone.width, "height": zone.height, "out": str(args.out),
           "slope_min": int(slope.min()), "slope_max": int(slope.max())}
    emit(args, f"wrote {args.out}: slope of zone {zone.zone_id}, {zone.width} x {zone.height}, "
               f"values {doc['slope_min']} .. {doc['slope_max']}", doc)
    return 0


def run_to_scene(args: argparse.Namespace) -> int:
    from app.cli._progress import TerminalProgress
    from model.plants.loader import load_rules
    from model.zones.scene_import import write_zone_scene

    if not args.tile > 0:
        raise UsageError(f"--tile must be positive, got {args.tile}")
    rules_folder = _rules_folder(args)
    rules = load_rules(rules_folder) if rules_folder is not None else None
    zone = read_zone(args.folder, args.zone_id, size=args.size, require=("altitude",))
    warn(args, zone.warnings)
    problem = grid_problem(zone.width, zone.height, args.tile)  # as the scene reader will check it
    if problem is not None:
        raise UsageError(f"--tile {args.tile:g} m: a {zone.width} x {zone.height} zone cannot be a "
                         f"scene's terrain: {problem[1]}")
    try:  # written a band of tiles at a time, with a bar on a terminal
        with TerminalProgress(0, "importing", "tiles") as bar:
            scene = write_zone_scene(zone, args.out, tile_size=args.tile, rules=rules, name=args.out.stem,
                                     progress=lambda done, total, what: bar.step(done, total))
    except KeyboardInterrupt:  # Ctrl+C: the tiles written so far were removed again
        print(f"boscage: import cancelled; {args.out} not written", file=sys.stderr)
        return 130
    foliage = scene.sections.get("foliage")
    doc = {"out": str(args.out), "columns": scene.terrain.columns, "rows": scene.terrain.rows,
           "spacing": scene.terrain.spacing, "layers": [layer.name for layer in scene.terrain.layers],
           "stored": foliage.volume.counts() if foliage else {},
           "derived": [t.name for t in foliage.palette if t.derived] if foliage else [],
           "warnings": list(zone.warnings)}
    emit(args, lambda: (f"wrote {args.out}: {doc['columns']} x {doc['rows']} terrain, "
                        f"{len(doc['layers'])} layers, {sum(doc['stored'].values()):,} stored plants "
                        f"({len(doc['stored'])} types), {len(doc['derived'])} derived types"), doc)
    return 0
