"""`boscage export SCENE OUT.{glb,gltf,usda,usdc,usdz,csv,json} [...]`: terrain and foliage out to
an engine, in the axes and units it expects."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples
from model.interchange.conventions import ENGINE_PRESETS, HANDEDNESS, UNITS, UP_AXES


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError("expected type names separated by commas")
    return names


def _region(text: str) -> tuple[float, float, float, float]:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 4:
        raise argparse.ArgumentTypeError(f"expected X0,Z0,X1,Z1, got {text!r}")
    return values  # type: ignore[return-value]


def _engine(text: str) -> str:
    for name in ENGINE_PRESETS:
        if name.lower() == text.lower():
            return name
    raise argparse.ArgumentTypeError(f"unknown engine {text!r} (known: {', '.join(ENGINE_PRESETS)})")


def register(sub: argparse._SubParsersAction) -> None:
    engines = ", ".join(f"{n} ({c.up}-up {c.handedness} {c.units})" for n, c in ENGINE_PRESETS.items())
    p = sub.add_parser(
        "export", help="export terrain and foliage to glTF, USD, CSV or JSON",
        description="Write a scene's terrain and foliage for an engine: .glb/.gltf (glTF 2.0, foliage "
                    "with EXT_mesh_gpu_instancing), .usda/.usdc/.usdz (USD point instancers), "
                    ".csv/.json (one row per instance). The format follows OUT's suffix.",
        epilog=examples(
            "boscage export forest.boscage forest.glb",
            "boscage export forest.boscage forest.glb --plain-nodes --terrain-step 2",
            "boscage export forest.boscage trees.csv --engine unreal --matrix --no-terrain",
            "boscage export forest.boscage forest.usdc --engine omniverse --types conifer,broadleaf",
            notes="--json prints {path, instances, types, terrain_vertices, bytes, format, "
                  "conventions: {up, handedness, units}, gpu_instancing}."))
    p.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    p.add_argument("out", type=Path, metavar="OUT",
                   help="output file: .glb .gltf .usda .usdc .usdz .csv .json")
    p.add_argument("--engine", type=_engine, metavar="NAME",
                   help=f"set up axis, handedness and units for an engine: {engines}")
    p.add_argument("--up", choices=UP_AXES, help="up axis (default y, or the engine's)")
    p.add_argument("--handedness", choices=HANDEDNESS, help="default right, or the engine's")
    p.add_argument("--units", choices=tuple(UNITS), help="m or cm (default m, or the engine's)")
    p.add_argument("--types", type=_names, metavar="A,B", help="only these foliage types")
    p.add_argument("--region", type=_region, metavar="X0,Z0,X1,Z1",
                   help="only instances and terrain in this box, scene metres (write --region=-5,… "
                        "for a negative X0)")
    p.add_argument("--no-terrain", action="store_true", help="foliage only")
    p.add_argument("--terrain-step", type=int, default=1, metavar="N",
                   help="keep every Nth terrain sample (default 1: full resolution)")
    p.add_argument("--plain-nodes", action="store_true",
                   help="glTF: one plain node per instance instead of EXT_mesh_gpu_instancing; "
                        "USD: one instanceable prim per instance instead of a PointInstancer")
    p.add_argument("--matrix", action="store_true", help="CSV/JSON: add a 4x4 matrix per instance")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.cli._progress import TerminalProgress
    from model.errors import FormatError
    from model.formats.scene_file import load_scene
    from model.interchange import Conventions, ExportOptions, export_scene, format_of

    try:
        suffix = format_of(args.out)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.terrain_step < 1:
        raise UsageError(f"--terrain-step must be 1 or more, got {args.terrain_step}")
    base = ENGINE_PRESETS[args.engine] if args.engine else Conventions()
    conv = Conventions(args.up or base.up, args.handedness or base.handedness, args.units or base.units)
    try:
        options = ExportOptions(conventions=conv, types=args.types, region=args.region,
                                terrain=not args.no_terrain, terrain_step=args.terrain_step,
                                gpu_instancing=not args.plain_nodes, matrix=args.matrix)
    except ValueError as e:
        raise UsageError(str(e)) from None
    scene = load_scene(args.scene)
    from model.interchange.instances import selected_types

    try:
        selected_types(scene, options)
    except ValueError as e:
        raise UsageError(str(e)) from None
    bar = TerminalProgress(0, "exporting", "")
    try:
        report = export_scene(scene, args.out, options, bar.step)
    except ImportError as e:  # USD needs the usd-core package
        raise FormatError(args.out, None, f"{suffix} export is not available: {e}") from None
    finally:
        bar.close()
    doc = {**report.to_json(), "format": suffix.lstrip("."),
           "conventions": {"up": conv.up, "handedness": conv.handedness, "units": conv.units},
           "gpu_instancing": options.gpu_instancing if suffix in (".glb", ".gltf") else None}

    def human() -> str:
        types = ", ".join(f"{n} {c}" for n, c in report.types.items()) or "no foliage"
        lines = [f"wrote {report.path} ({report.bytes} bytes): {report.instances} instances ({types})",
                 f"frame: +{conv.up.upper()} up, {conv.handedness}-handed, {conv.units}"]
        if report.terrain_vertices:
            lines.append(f"terrain: {report.terrain_vertices} vertices (every {args.terrain_step}. sample)")
        lines += [f"warning: {w}" for w in report.warnings]
        return "\n".join(lines)

    emit(args, human, doc)
    return 0
