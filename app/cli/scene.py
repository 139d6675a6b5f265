"""`boscage scene info SCENE [--json]` and `boscage scene new-demo OUT`."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli import add_json_flag, emit, examples
from model.scene import Scene


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("scene", help="inspect and create scenes")
    scene_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    info = scene_sub.add_parser("info", help="size, spacing, layers with coverage, foliage counts",
                                epilog=examples(
        "boscage scene info resources/demo/demo.boscage",
        "boscage scene info forest.boscage --json",
        notes="--json prints {path, name, file_version, columns, rows, spacing, origin, size_m, "
              "height_range, layers: [{name, color, painted, coverage}], foliage: {types, instances, "
              "by_type, derived_types}}. painted is the share of samples with any weight, coverage the mean "
              "weight (0..1)."))
    info.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    add_json_flag(info)
    info.set_defaults(func=run_info)

    demo = scene_sub.add_parser("new-demo", help="write the procedural demo scene to OUT", epilog=examples(
        "boscage scene new-demo my-demo/demo.boscage",
        notes="The same bytes every time, on every machine. --json prints {path, name}."))
    demo.add_argument("out", type=Path, metavar="OUT", help="the .boscage file to write")
    add_json_flag(demo)
    demo.set_defaults(func=run_new_demo)


def foliage_counts(scene: Scene) -> dict[str, int]:
    """Instances per foliage type (palette types with none included), from the foliage section."""
    section = scene.sections.get("foliage")
    if section is None:
        return {}
    out = {str(getattr(t, "name", t)): 0 for t in getattr(section, "palette", None) or ()}
    counts = getattr(section, "counts", None)
    if callable(counts):
        out.update({str(k): int(v) for k, v in dict(counts()).items()})
    elif hasattr(section, "__len__"):
        out["(all)"] = int(len(section))
    return out


def scene_summary(scene: Scene) -> dict:
    """The facts `scene info` reports, as one JSON-ready document."""
    t = scene.terrain
    cells = t.rows * t.columns
    lo, hi = t.height_range()
    foliage = foliage_counts(scene)
    section = scene.sections.get("foliage")
    derived = [str(t.name) for t in getattr(section, "palette", None) or ()
               if getattr(t, "storage", "stored") == "derived"]
    return {
        "path": str(scene.path) if scene.path else None,
        "name": scene.name,
        # the version read from disk (None: never saved); a save always writes version 2
        "file_version": getattr(scene, "file_version", None),
        "columns": t.columns,
        "rows": t.rows,
        "spacing": t.spacing,
        "origin": list(t.origin),
        "size_m": list(t.size),
        "height_range": [lo, hi],
        "layers": [
            {
                "name": layer.name,
                "color": "#{:02x}{:02x}{:02x}".format(*layer.color),
                # painted: share of samples with any weight; coverage: mean weight 0..1 (per tile
                # from the opening's pass where paged: nothing read again, nothing assembled)
                "painted": round(layer.painted_count() / cells, 6),
                "coverage": round(layer.weight_sum() / cells / 255.0, 6),
            }
            for layer in t.layers
        ],
        "foliage": {"types": len(foliage), "instances": sum(foliage.values()), "by_type": foliage,
                    # scattered on the fly from their rules, never stored: no instance count
                    "derived_types": derived},
    }


def _human(doc: dict) -> str:
    sx, sz = doc["size_m"]
    lines = [
        f"{doc['name']}  ({doc['path']})",
        *(["  file      version 1 (one side file each): written as version 2 (tiled) when saved"]
          if doc["file_version"] == 1 else []),
        f"  terrain   {doc['columns']} x {doc['rows']} samples, spacing {doc['spacing']:g} m, "
        f"{sx:g} x {sz:g} m, origin ({doc['origin'][0]:g}, {doc['origin'][1]:g})",
        f"  heights   {doc['height_range'][0]:.2f} .. {doc['height_range'][1]:.2f} m",
        f"  layers    {len(doc['layers'])}",
    ]
    if doc["layers"]:
        lines.append(f"    {'':<16} {'colour':<8} {'painted':>9}  {'mean weight':>11}")
    for layer in doc["layers"]:
        lines.append(f"    {layer['name']:<16} {layer['color']}  {layer['painted'] * 100:7.1f} %"
                     f"  {layer['coverage'] * 100:9.1f} %")
    fol = doc["foliage"]
    derived = set(fol.get("derived_types", ()))
    lines.append(f"  foliage   {fol['instances']} instances of {fol['types']} types")
    for name, count in fol["by_type"].items():
        lines.append(f"    {name:<16} {'derived (not stored)' if name in derived else count}")
    return "\n".join(lines)


def run_info(args: argparse.Namespace) -> int:
    from model.formats.scene_file import load_scene

    doc = scene_summary(load_scene(args.scene))
    emit(args, lambda: _human(doc), doc)
    return 0


def run_new_demo(args: argparse.Namespace) -> int:
    from model.atomic import make_folder
    from model.demo import build_demo_scene
    from model.demo_textures import write_demo_textures
    from model.formats.scene_file import save_scene

    scene = build_demo_scene(foliage=True)
    make_folder(Path(args.out).parent, args.out)  # a file in the way is named as the scene's problem
    write_demo_textures(Path(args.out).parent)  # the layers' maps, which the manifest names
    save_scene(scene, args.out)
    emit(args, f"wrote {args.out}", {"path": str(args.out), "name": scene.name})
    return 0
