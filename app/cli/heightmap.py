"""`boscage heightmap export|import|export-layer`: terrain heights and layer weights as image files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples
from app.cli._options import height_option, height_scale_option, spacing_option
from model.errors import FormatError
from model.extent import height_mapping_problem
from model.formats.heightmap import (
    FORMATS,
    export_heights,
    holes_mask_path,
    write_layer_png,
    write_scene_from_heightmap,
)
from model.formats.scene_file import load_scene


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("heightmap", help="export and import heightmaps (PNG16, R16, .npy, EXR, TIFF, R32)")
    hm_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    ex = hm_sub.add_parser("export", help="write a scene's heights as a heightmap file", epilog=examples(
        "boscage heightmap export forest.boscage heights.png",
        "boscage heightmap export forest.boscage heights.exr",
        "boscage heightmap export forest.boscage heights.r16 --offset 0 --scale 500",
        notes="A 16-bit PNG carries its offset, scale and spacing; EXR and TIFF carry the spacing. "
              "--json prints {out, columns, rows, spacing, offset, scale} (offset and scale of the "
              "16-bit mapping, null for float formats)."))
    ex.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    ex.add_argument("out", type=Path, metavar="OUT",
                    help=".png (16-bit), .r16/.raw, .npy, .exr, .tif or .r32 (float32)")
    ex.add_argument("--format", choices=FORMATS, help="override the format the suffix implies")
    _mapping_options(ex, "default: the terrain's lowest height", "default: its height range")
    add_json_flag(ex)
    ex.set_defaults(func=run_export)

    im = hm_sub.add_parser("import", help="make a new scene from a heightmap file", epilog=examples(
        "boscage heightmap import island.png island.boscage",
        "boscage heightmap import island.r16 island.boscage --size 4097x4097 --spacing 2 --scale 800",
        "boscage heightmap import gaea.exr valley.boscage --name valley",
        notes="The file is read a band of rows at a time and the scene written tile by tile; Ctrl+C "
              "removes what was written (exit 130). A float file holding NaN or infinity exits 1 "
              "naming the first such sample. --json prints {out, name, columns, rows, spacing, "
              "height_range}."))
    im.add_argument("heightmap", type=Path, metavar="HEIGHTMAP",
                    help=".png, .r16/.raw, .npy, .exr, .tif/.tiff or .r32")
    im.add_argument("out", type=Path, metavar="OUT", help="the .boscage scene to write")
    im.add_argument("--format", choices=FORMATS, help="override the format the suffix implies")
    im.add_argument("--size", type=_size, metavar="COLSxROWS",
                    help="grid size of a RAW R16/R32 file (default: a square inferred from the file size)")
    _mapping_options(im, "default: the PNG's own, else 0", "default: the PNG's own, else 100")
    im.add_argument("--spacing", type=spacing_option, metavar="M",
                    help="metres between samples (default: the PNG/EXR/TIFF's own, else 1)")
    im.add_argument("--name", help="scene name (default: the file's stem)")
    add_json_flag(im)
    im.set_defaults(func=run_import)

    lay = hm_sub.add_parser("export-layer", help="write one paint layer's weights as an 8-bit PNG",
                           epilog=examples("boscage heightmap export-layer forest.boscage rock rock.png",
                                           notes="--json prints {out, layer, columns, rows}."))
    lay.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    lay.add_argument("layer", metavar="LAYER", help="the layer's name")
    lay.add_argument("out", type=Path, metavar="OUT", help="the .png to write")
    add_json_flag(lay)
    lay.set_defaults(func=run_export_layer)


def _mapping_options(p: argparse.ArgumentParser, offset_help: str, scale_help: str) -> None:
    p.add_argument("--offset", type=height_option, metavar="M",
                   help=f"height of 16-bit value 0 ({offset_help})")
    p.add_argument("--scale", type=height_scale_option, metavar="M",
                   help=f"metres spanned by the full 16-bit range ({scale_help})")


def _size(text: str) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected COLSxROWS such as 1025x1025, got {text!r}") from None
    return cols, rows


def run_export(args: argparse.Namespace) -> int:
    scene = load_scene(args.scene)
    try:
        mapping = export_heights(scene.terrain, args.out, args.format, args.offset, args.scale)
    except ValueError as e:
        raise UsageError(str(e)) from None
    t = scene.terrain
    doc = {"out": str(args.out), "columns": t.columns, "rows": t.rows, "spacing": t.spacing,
           "offset": mapping.offset if mapping else None, "scale": mapping.scale if mapping else None}
    human = f"wrote {args.out}: {t.columns} x {t.rows} samples"
    mask = holes_mask_path(args.out)
    if t.holes is not None and t.holes.grid.nonzero(0):
        doc["holes_mask"] = str(mask)
        human += f"; the hole mask in {mask}"
    if mapping:
        human += f", height = {mapping.offset:g} + {mapping.scale:g} m × value / 65535"
    emit(args, human, doc)
    return 0


def run_import(args: argparse.Namespace) -> int:
    if args.spacing is not None and not args.spacing > 0:
        raise UsageError(f"--spacing must be positive, got {args.spacing}")
    if args.scale is not None and not args.scale > 0:
        raise UsageError(f"--scale must be positive, got {args.scale}")
    # each alone: the parser; with the file's own: the model, before it reads a sample
    if args.offset is not None and args.scale is not None:
        problem = height_mapping_problem(args.offset, args.scale)
        if problem is not None:
            raise UsageError(f"--{problem[0]}: {problem[1]}")
    from app.cli._progress import TerminalProgress

    # read a band and written tile by tile: a 16 km terrain needs tens of MB, not its grid's size
    try:
        with TerminalProgress(0, "importing", "tiles") as bar:
            scene = write_scene_from_heightmap(args.heightmap, args.out, args.format, args.size, args.offset,
                                               args.scale, args.spacing, args.name,
                                               progress=lambda done, total, what: bar.step(done, total))
    except KeyboardInterrupt:  # Ctrl+C: every tile written so far was removed again
        print(f"boscage: import cancelled; {args.out} not written", file=sys.stderr)
        return 130
    t = scene.terrain
    lo, hi = t.height_range()
    doc = {"out": str(args.out), "name": scene.name, "columns": t.columns, "rows": t.rows,
           "spacing": t.spacing, "height_range": [lo, hi]}
    emit(args, f"wrote {args.out}: {t.columns} x {t.rows} samples, spacing {t.spacing:g} m, "
               f"heights {lo:.2f} .. {hi:.2f} m", doc)
    return 0


def run_export_layer(args: argparse.Namespace) -> int:
    scene = load_scene(args.scene)
    layer = scene.terrain.layer(args.layer)
    if layer is None:
        names = ", ".join(repr(x.name) for x in scene.terrain.layers) or "none"
        raise FormatError(args.scene, "layers", f"no layer named {args.layer!r} (layers: {names})")
    write_layer_png(args.out, layer.weights)
    doc = {"out": str(args.out), "layer": layer.name, "columns": scene.terrain.columns,
           "rows": scene.terrain.rows}
    emit(args, f"wrote {args.out}: layer {layer.name!r}, 8-bit", doc)
    return 0
