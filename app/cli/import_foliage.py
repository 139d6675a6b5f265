"""`boscage import-foliage SCENE IN [--save] [--json]`: foliage from glTF, USD, CSV or JSON into a
scene's volume (types matched by name, new ones created with their mesh)."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli import add_json_flag, emit, examples
from app.cli._lock import add_wait_flag, saving_locked


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import-foliage", help="add foliage instances from glTF, USD, CSV or JSON to a scene",
        description="Read foliage instances (glTF EXT_mesh_gpu_instancing or instanced nodes, USD "
                    "point instancers, our CSV/JSON) into SCENE's volume. Without --save nothing is "
                    "written: the command says what would be added.",
        epilog=examples(
            "boscage import-foliage forest.boscage edited.glb",
            "boscage import-foliage forest.boscage trees.csv --save",
            notes="--json prints {scene, source, saved, instances, types, new_types, mesh_files, warnings}."))
    p.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    p.add_argument("source", type=Path, metavar="IN", help=".glb .gltf .usda .usdc .usdz .csv .json")
    p.add_argument("--save", action="store_true",
                   help="write the scene back with the instances (and new types' mesh files beside it)")
    add_wait_flag(p)
    add_json_flag(p)
    p.set_defaults(func=run)


@saving_locked
def run(args: argparse.Namespace) -> int:
    from app.cli._progress import TerminalProgress
    from model.errors import FormatError
    from model.formats.scene_file import load_scene, save_scene
    from model.interchange import read_foliage
    from model.interchange.merge import add_to_scene

    scene = load_scene(args.scene)
    bar = TerminalProgress(0, "reading", "")
    try:
        imported = read_foliage(args.source, bar.step)
    except ImportError as e:  # USD needs the usd-core package
        raise FormatError(args.source, None, f"cannot read it here: {e}") from None
    finally:
        bar.close()
    result = add_to_scene(scene, imported, args.scene.parent, write_meshes=args.save)
    if args.save:
        save_scene(scene, args.scene)
    doc = {"scene": str(args.scene), "source": str(args.source), "saved": args.save,
           "instances": result.total, "types": result.counts,
           "new_types": [t.name for t in result.new_types],
           "mesh_files": [str(p) for p in result.mesh_files], "warnings": result.warnings}

    def human() -> str:
        verb = "added" if args.save else "would add (use --save to write)"
        types = ", ".join(f"{n} {c}" for n, c in result.counts.items()) or "nothing"
        lines = [f"{verb} {result.total} instances to {args.scene}: {types}"]
        if result.new_types:
            lines.append("new types: " + ", ".join(f"{t.name} ({t.mesh})" for t in result.new_types))
        lines += [f"warning: {w}" for w in result.warnings]
        return "\n".join(lines)

    emit(args, human, doc)
    return 0
