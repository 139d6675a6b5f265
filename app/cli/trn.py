"""`boscage trn info|roundtrip|sample|fractal|bake|to-scene`: TRN terrain generator files, headless."""

from __future__ import annotations

import argparse
import json
import math
import re
import zlib
from pathlib import Path

import numpy as np

from app.cli import UsageError, add_json_flag, emit, examples, number_text, parse_xz
from app.cli._batch import Batch, add_batch_flags, batch_options
from app.cli._options import spacing_option
from app.cli._progress import TerminalProgress
from model.atomic import atomic_folder, atomic_write, atomic_write_text
from model.batch import MAX_TASKS
from model.extent import grid_problem, samples_across
from model.formats.heightmap import write_heightmap
from model.formats.png import write_png
from model.trn import document as trn_document
from model.trn.bake import finite_heights
from model.trn.bake_batch import DEFAULT_TILE as DEFAULT_BAKE_TILE
from model.trn.bake_batch import evaluate_in_tiles
from model.trn.bitmaps import load_bitmaps
from model.trn.evaluator import FLORA_SLOTS, Region, evaluate, sample
from model.trn.multifractal import Multifractal

MAX_BAKE_POLES = 8192 * 8192
# from here a bake without batch options starts a local cluster: starting one (~3 s) pays off
EMBEDDED_BATCH_POLES = 4_000_000
# coordinates such as "-333.3,512.7" are values, not options: argparse only knows plain negative numbers
_NEGATIVE_VALUE = re.compile(r"^-\.?\d")


def _values_may_start_with_minus(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser._negative_number_matcher = _NEGATIVE_VALUE
    return parser


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trn", help="inspect, round-trip, sample and bake TRN terrain generators")
    trn_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    info = trn_sub.add_parser("info", help="header, family counts, layer tree summary, unsupported items",
                              epilog=examples(
        "boscage trn info world.trn", "boscage trn info world.trn --tree",
        notes="--json prints {path, version, header, pole_spacing, families, family_list, group_versions, "
              "layers: {top_level, total, items, inactive}, items_by_tag, unsupported, baked} (and tree "
              "with --tree)."))
    info.add_argument("file", type=Path, metavar="FILE")
    info.add_argument("--tree", action="store_true", help="also list the whole layer tree")
    add_json_flag(info)
    info.set_defaults(func=run_info)

    rt = trn_sub.add_parser("roundtrip", help="read FILE and write it back to OUT (byte for byte)",
                            epilog=examples("boscage trn roundtrip world.trn copy.trn",
                                            notes="Exit 0 when OUT is byte-identical to IN. --json "
                                                  "prints {in, out, bytes, identical, unsupported}."))
    rt.add_argument("file", type=Path, metavar="IN")
    rt.add_argument("out", type=Path, metavar="OUT")
    add_json_flag(rt)
    rt.set_defaults(func=run_roundtrip)

    sm = trn_sub.add_parser("sample", help="height, shader family and flora at points",
                            epilog=examples("boscage trn sample world.trn --at 100,250 --at -5,3",
                                            notes="--json prints {file, points: [...]}, one entry per --at."))
    sm.add_argument("file", type=Path, metavar="FILE")
    sm.add_argument("--at", type=parse_xz, action="append", required=True, metavar="X,Z",
                    help="a point in metres; repeat for more")
    sm.add_argument("--spacing", type=float, help="pole spacing in metres (default: the file's)")
    add_json_flag(sm)
    _values_may_start_with_minus(sm)
    sm.set_defaults(func=run_sample)

    fr = trn_sub.add_parser("fractal", help="a fractal family's value at points",
                            epilog=examples("boscage trn fractal world.trn --family 3 --at 100,250",
                                            notes="Computed in the engine's exact float32 order. "
                                                  "--json prints {..., points: [{x, z, value}]}."))
    fr.add_argument("file", type=Path, metavar="FILE")
    fr.add_argument("--family", type=int, required=True, metavar="ID")
    fr.add_argument("--at", type=parse_xz, action="append", required=True, metavar="X,Z",
                    help="a point in metres; repeat for more")
    add_json_flag(fr)
    _values_may_start_with_minus(fr)
    fr.set_defaults(func=run_fractal)

    bk = trn_sub.add_parser("bake", help="heights (16-bit PNG and .npy) and family maps (PNG) for a region",
                            epilog="Poles whose height is NaN or infinite do not stop the bake: NaN and -inf "
                                   "become the lowest finite height, +inf the highest, in both height files; "
                                   "the output and legend.json count them and nonfinite.png marks them.\n\n"
                                   "Writes heights.png (16-bit), heights.npy, shader.png, flora_*.png, "
                                   "environment.png (16-bit: family id + 1, 0 where none), exclude.png, "
                                   "passable.png, color.npy and legend.json. From 4 M poles it runs on one "
                                   "worker per core.\n\n"
                                   "--json prints {out, files, columns, rows, height_range, "
                                   "non_finite_heights, warnings, ...}.\n\n"
                                   + examples("boscage trn bake world.trn --region 0,0,2048,2048 --spacing 2 "
                                              "--out bake",
                                              "boscage trn bake world.trn --region=-4096,-4096,4096,4096 "
                                              "--spacing 4 --out bake --workers 2 --resume"))
    bk.add_argument("file", type=Path, metavar="FILE")
    bk.add_argument("--region", type=_parse_region, required=True, metavar="X0,Z0,X1,Z1",
                    help="world rectangle in metres")
    bk.add_argument("--spacing", type=spacing_option, required=True, metavar="S")
    bk.add_argument("--out", type=Path, required=True, metavar="DIR")
    add_batch_flags(bk, tile_help="tile size in poles a side for a batch run (default 512)", poles=True)
    add_json_flag(bk)
    _values_may_start_with_minus(bk)
    bk.set_defaults(func=run_bake)

    ts = trn_sub.add_parser("to-scene", help="evaluate a region into a .boscage scene, written tile by tile",
                            epilog="Heights become the terrain, shader families paint layers, flora families "
                                   "foliage (as TRN as Scene in the editor). Memory stays at a few tiles "
                                   "whatever the region's size; Ctrl+C removes what was written (exit 130)."
                                   "\n\n--json prints {out, name, columns, rows, spacing, origin, "
                                   "height_range, layers, stored, derived, warnings}.\n\n"
                                   + examples("boscage trn to-scene world.trn --region 0,0,1024,1024 "
                                              "--spacing 2 --out valley.boscage",
                                              "boscage trn to-scene world.trn --region 0,0,16384,16384 "
                                              "--spacing 2 --out world.boscage --workers 2"))
    ts.add_argument("file", type=Path, metavar="FILE")
    ts.add_argument("--region", type=_parse_region, required=True, metavar="X0,Z0,X1,Z1",
                    help="world rectangle in metres")
    ts.add_argument("--spacing", type=spacing_option, required=True, metavar="S")
    ts.add_argument("--out", type=Path, required=True, metavar="SCENE.boscage")
    ts.add_argument("--name", help="scene name (default: the TRN file's stem)")
    ts.add_argument("--no-foliage", action="store_true", help="terrain and shader layers only")
    ts.add_argument("--workers", type=int, metavar="N",
                    help="worker threads of this process; 1 runs in one (default: one per core from "
                         f"{EMBEDDED_BATCH_POLES:,} poles)")
    ts.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="use a running Dask cluster")
    add_json_flag(ts)
    _values_may_start_with_minus(ts)
    ts.set_defaults(func=run_to_scene)


def _parse_region(text: str) -> tuple[float, float, float, float]:
    try:
        x0, z0, x1, z1 = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X0,Z0,X1,Z1, got {text!r}") from None
    return x0, z0, x1, z1


# ---- info ----------------------------------------------------------------------------------
def info_document(doc: trn_document.TrnDocument) -> dict:
    counts = doc.tag_counts()
    layers = sum(1 for it in doc.items() if it.tag == "LAYR")
    return {
        "path": str(doc.path) if doc.path else None,
        "version": doc.version,
        "header": {k: v for k, v in doc.header.values.items()},
        "pole_spacing": doc.pole_spacing,
        "families": {kind: len(fams) for kind, fams in doc.families.items()},
        "family_list": {kind: [{"id": f.id, "name": f.name} for f in fams]
                        for kind, fams in doc.families.items()},
        "group_versions": doc.group_versions,
        "layers": {"top_level": len(doc.layers), "total": layers,
                   "items": sum(counts.values()) - layers,
                   "inactive": sum(1 for it in doc.items() if it.ihdr is not None and not it.active)},
        "items_by_tag": [{"tag": t, "version": v, "count": n} for (t, v), n in sorted(
            counts.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))],
        "unsupported": [u.as_dict() for u in doc.unsupported],
        "baked": doc.baked,
    }


def _info_text(d: dict) -> str:
    h = d["header"]
    lines = [f"{d['path']}: TRN version {d['version']}",
             f"  name          {h['name']}",
             f"  map width     {number_text(h['mapWidth'])} m, chunk width {number_text(h['chunkWidth'])} m, "
             f"poles every {number_text(d['pole_spacing'])} m",
             "  families      " + ", ".join(f"{k} {n}" for k, n in d["families"].items()),
             f"  layers        {d['layers']['total']} ({d['layers']['top_level']} top-level), "
             f"{d['layers']['items']} items, {d['layers']['inactive']} inactive",
             "  items by tag  " + ", ".join(f"{r['tag']} {r['version']} ×{r['count']}"
                                           for r in d["items_by_tag"])]
    if d["unsupported"]:
        lines.append(f"  unsupported   {len(d['unsupported'])}")
        for u in d["unsupported"]:
            lines.append(f"    {u['tag']} {u['version'] or ''} @ offset {u['offset']}: {u['reason']}")
    return "\n".join(lines)


def tree_of(item) -> dict:
    node = {"tag": item.tag, "version": item.version, "name": item.name, "active": item.active,
            "offset": item.offset}
    if item.unsupported:
        node["unsupported"] = item.unsupported
    if item.children:
        node["children"] = [tree_of(c) for c in item.children]
    return node


def _tree_text(nodes: list[dict], depth: int = 1) -> list[str]:
    lines = []
    for n in nodes:
        flag = " " if n["active"] else "-"
        raw = f"  [kept raw: {n['unsupported']}]" if "unsupported" in n else ""
        lines.append(f"{'  ' * depth}{flag} {n['tag']} {n['version'] or ''}  {n['name']}{raw}")
        lines += _tree_text(n.get("children", []), depth + 1)
    return lines


def run_info(args: argparse.Namespace) -> int:
    doc = trn_document.read(args.file)
    d = info_document(doc)
    if args.tree:
        d["tree"] = [tree_of(layer) for layer in doc.layers]
    emit(args, lambda: "\n".join([_info_text(d)] + (["  tree ('-' marks inactive)"]
                                                    + _tree_text(d["tree"], 2) if args.tree else [])), d)
    return 0


# ---- roundtrip -----------------------------------------------------------------------------
def run_roundtrip(args: argparse.Namespace) -> int:
    doc = trn_document.read(args.file)
    original = args.file.read_bytes()
    data = doc.to_bytes()
    atomic_write(args.out, data)
    same = data == original
    d = {"in": str(args.file), "out": str(args.out), "bytes": len(data), "identical": same,
         "unsupported": len(doc.unsupported)}
    verdict = "identical to" if same else "DIFFERS from"
    emit(args, f"wrote {args.out} ({len(data)} bytes, {verdict} {args.file})", d)
    return 0 if same else 1


# ---- sample / fractal ----------------------------------------------------------------------
def _family_name(doc, kind: str, fid: int) -> str | None:
    fam = doc.family(kind, fid) if fid >= 0 else None
    return fam.name if fam else None


COORD_LIMIT = 1e9  # metres; far past any map, and where single-precision noise still has meaning


def _check_points(points, what: str = "--at") -> None:
    for p in points:
        if not all(math.isfinite(v) and abs(v) <= COORD_LIMIT for v in p):
            raise UsageError(f"{what} {','.join(f'{v:g}' for v in p)}: coordinates must be finite numbers "
                             f"within ±{COORD_LIMIT:g} m")


def _check_spacing(spacing: float | None) -> None:
    if spacing is not None and not (math.isfinite(spacing) and spacing > 0):
        raise UsageError("--spacing must be a positive number of metres")


def _region(args: argparse.Namespace, most: int, scene: bool = False) -> Region:
    """--region at --spacing as poles, counted in float64 before anything is rounded (a tiny
    spacing over a wide region is refused here, not an overflow later); `scene`: the grid must
    also be one the scene reader opens (the same range check)."""
    _check_spacing(args.spacing)
    _check_points([args.region[:2], args.region[2:]], "--region")
    x0, z0, x1, z1 = args.region
    cols, rows = samples_across(x0, x1, args.spacing), samples_across(z0, z1, args.spacing)
    if not cols * rows <= most:
        raise UsageError(f"--region at --spacing {args.spacing:g} m is {_count(cols)} x {_count(rows)} "
                         f"poles, more than {most:,}; use a larger spacing or a smaller region")
    region = Region.from_bounds(*args.region, args.spacing)
    if scene:
        problem = grid_problem(region.cols, region.rows, region.spacing, region.bounds[:2])
        if problem is not None:
            raise UsageError(f"--region at --spacing {args.spacing:g} m cannot be a scene's terrain: "
                             f"{problem[1]}")
    return region


def _bake_tile(args: argparse.Namespace, region: Region) -> int:
    """--tile (poles a side) for a batch bake of `region`: a whole number making at most MAX_TASKS tiles."""
    tile = int(args.tile) if args.tile else DEFAULT_BAKE_TILE
    tasks = -(-region.rows // tile) * -(-region.cols // tile)
    if tasks > MAX_TASKS:
        raise UsageError(f"--tile {tile} makes {tasks:,} tiles of {region.cols} x {region.rows} poles "
                         f"(at most {MAX_TASKS:,}); use a larger tile")
    return tile


def _count(n: float) -> str:
    return f"{n:,.0f}" if n < 1e15 else f"{n:.3g}"


def run_sample(args: argparse.Namespace) -> int:
    _check_spacing(args.spacing)
    _check_points(args.at)
    doc = trn_document.read(args.file)
    bitmaps, _missing = load_bitmaps(doc)
    rows = sample(doc, args.at, args.spacing, bitmaps)
    for r in rows:
        r["shader_name"] = _family_name(doc, "shader", r["shader"])
        r["flora_names"] = {k: _family_name(doc, "flora" if k in FLORA_SLOTS[:2] else "radial", v)
                            for k, v in r["flora"].items()}

    def text() -> str:
        out = []
        for r in rows:
            flora = ", ".join(f"{k} {r['flora_names'][k] or '-'}" for k in r["flora"])
            out.append(f"({r['x']:g}, {r['z']:g})  height {r['height']:.3f}  shader "
                       f"{r['shader_name'] or '-'} ({r['shader']})  {flora}")
        return "\n".join(out)

    emit(args, text, {"file": str(args.file), "points": rows})
    return 0


def run_fractal(args: argparse.Namespace) -> int:
    _check_points(args.at)
    doc = trn_document.read(args.file)
    fam = doc.family("fractal", args.family)
    if fam is None or fam.fractal is None:
        have = ", ".join(str(f.id) for f in doc.families["fractal"]) or "none"
        raise UsageError(f"{args.file} has no fractal family {args.family} (families: {have})")
    mf = Multifractal.from_values(fam.fractal.values)
    xs = np.array([p[0] for p in args.at])
    zs = np.array([p[1] for p in args.at])
    values = mf.value(xs, zs)
    rows = [{"x": float(x), "z": float(z), "value": float(v)} for x, z, v in zip(xs, zs, values, strict=True)]
    emit(args, lambda: "\n".join(f"({r['x']:g}, {r['z']:g})  {r['value']:.7f}" for r in rows),
         {"file": str(args.file), "family": fam.id, "name": fam.name, "parameters": fam.fractal.values,
          "points": rows})
    return 0


# ---- bake ----------------------------------------------------------------------------------
def _file_id(path: Path, bitmaps: dict | None = None) -> str:
    """What a resume must find unchanged: the TRN file's name, size and CRC-32, and the content of
    the bitmap families' images it reads."""
    data = path.read_bytes()
    images = "".join(f";bitmap {k}:{zlib.crc32(np.ascontiguousarray(v).tobytes()) & 0xFFFFFFFF:08x}"
                     for k, v in sorted((bitmaps or {}).items()))
    return f"{path.name}:{len(data)}:{zlib.crc32(data) & 0xFFFFFFFF:08x}{images}"


def _id_png(ids: np.ndarray) -> np.ndarray:
    """Family ids as 16-bit grey: id + 1, 0 where none."""
    return np.clip(ids.astype(np.int64) + 1, 0, 65535).astype(np.uint16)


def _write_bake(folder: Path, files: list[str], args: argparse.Namespace, region: Region, doc, ev) -> tuple:
    """Every file of a bake into `folder` (what will become OUT), named in `files`; the heights
    written and what stood in for non-finite ones."""

    def put(name: str) -> Path:
        files.append(name)
        return folder / name

    # non-finite poles get finite stand-ins in every output (counted, masked), never a refusal
    heights, not_finite, replaced = finite_heights(ev.heights)
    if replaced.total:
        ev.warnings.append(replaced.sentence() + "; nonfinite.png marks them")
    mapping = write_heightmap(put("heights.png"), heights, "png16", spacing=args.spacing)
    write_heightmap(put("heights.npy"), heights, "npy")
    if replaced.total:
        write_png(put("nonfinite.png"), not_finite.astype(np.uint8) * 255)
    write_png(put("shader.png"), _id_png(ev.shader))
    for slot in FLORA_SLOTS:
        write_png(put(f"flora_{slot}.png"), _id_png(ev.flora[slot]))
    write_png(put("environment.png"), _id_png(ev.environment))
    write_png(put("exclude.png"), ev.exclude.astype(np.uint8) * 255)
    write_png(put("passable.png"), ev.passable.astype(np.uint8) * 255)
    atomic_write(put("color.npy"), lambda f: np.save(f, ev.color, allow_pickle=False))
    legend = {
        "file": str(args.file), "bounds": list(region.bounds), "spacing": region.spacing,
        "columns": region.cols, "rows": region.rows,
        "height_png": {"offset": mapping.offset, "scale": mapping.scale} if mapping else None,
        "id_png": "16-bit grey: family id + 1, 0 where none",
        "non_finite_heights": replaced.to_json(),
        "families": {kind: [{"id": f.id, "name": f.name, "color": list(f.color)} for f in doc.families[kind]]
                     for kind in ("shader", "flora", "radial", "environment")},
        "warnings": ev.warnings,
    }
    atomic_write_text(put("legend.json"), json.dumps(legend, indent=2))
    return heights, replaced


def run_bake(args: argparse.Namespace) -> int:
    region = _region(args, MAX_BAKE_POLES)
    tile = _bake_tile(args, region)  # every option checked before the file is read
    batch = batch_options(args)
    doc = trn_document.read(args.file)
    bitmaps, missing = load_bitmaps(doc)
    if batch is None and region.rows * region.cols >= EMBEDDED_BATCH_POLES:
        batch = Batch(None, None)  # a big bake runs on one worker per core unless told otherwise
    if batch is None:
        with TerminalProgress(0, "evaluating", "tiles") as bar:
            ev = evaluate(doc, region, progress=bar.step, bitmaps=bitmaps)
    else:
        folder = args.tiles_dir or args.out.parent / f".{args.out.name}.tiles"
        with TerminalProgress(0, "evaluating", "tiles") as bar:
            ev = evaluate_in_tiles(doc, region, bitmaps, tile, batch.workers, batch.scheduler, folder,
                                   args.resume, bar.step, file_id=_file_id(args.file, bitmaps))
    ev.warnings[:0] = missing
    out: Path = args.out
    files: list[str] = []
    # written into a temp folder beside OUT and moved in only when whole: a full disk or a kill
    # leaves OUT as it was (its earlier bake intact), never a partial bake
    written: list[tuple] = []
    atomic_folder(out, lambda folder: written.append(_write_bake(folder, files, args, region, doc, ev)))
    heights, replaced = written[0]
    if not replaced.total:
        (out / "nonfinite.png").unlink(missing_ok=True)  # an earlier bake's mask would mislead
    d = {"out": str(out), "files": files, "columns": region.cols, "rows": region.rows,
         "height_range": [float(heights.min()), float(heights.max())],
         "non_finite_heights": replaced.to_json(), "warnings": ev.warnings}
    summary = f"baked {region.cols} x {region.rows} poles into {out}: " + ", ".join(files)
    emit(args, lambda: "\n".join([summary, *(f"warning: {w}" for w in ev.warnings)]), d)
    return 0


# ---- to-scene ------------------------------------------------------------------------------
def run_to_scene(args: argparse.Namespace) -> int:
    import sys

    from model.trn.to_scene import MAX_STREAM_POLES, write_trn_scene

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("--workers and --scheduler exclude each other (a cluster has its own workers)")
    region = _region(args, MAX_STREAM_POLES, scene=True)
    if region.rows < 2 or region.cols < 2 or region.rows * region.cols > MAX_STREAM_POLES:
        raise UsageError(f"region of {region.cols} x {region.rows} poles: a scene needs 2 x 2 to "
                         f"{MAX_STREAM_POLES:,} poles; change the spacing or the region")
    doc = trn_document.read(args.file)
    bitmaps, missing = load_bitmaps(doc)
    workers = args.workers
    if workers is None and args.scheduler is None:
        workers = None if region.rows * region.cols >= EMBEDDED_BATCH_POLES else 1
    warnings: list[str] = list(missing)
    try:
        with TerminalProgress(0, "importing", "tiles") as bar:
            scene = write_trn_scene(doc, region, args.out, name=args.name or args.file.stem,
                                    foliage=not args.no_foliage, bitmaps=bitmaps, warnings=warnings,
                                    workers=workers, scheduler=args.scheduler,
                                    progress=lambda done, total, what: bar.step(done, total))
    except KeyboardInterrupt:  # Ctrl+C: every tile written so far was removed again
        print(f"boscage: import cancelled; {args.out} not written", file=sys.stderr)
        return 130
    t = scene.terrain
    foliage = scene.sections["foliage"]
    lo, hi = t.height_range()
    d = {"out": str(args.out), "name": scene.name, "columns": t.columns, "rows": t.rows,
         "spacing": t.spacing, "origin": list(t.origin), "height_range": [lo, hi],
         "layers": [layer.name for layer in t.layers], "stored": foliage.volume.counts(),
         "derived": [ft.name for ft in foliage.palette if ft.derived], "warnings": warnings}
    summary = (f"wrote {args.out}: {t.columns} x {t.rows} poles, {len(d['layers'])} layers, "
               f"{sum(d['stored'].values()):,} stored instances ({len(d['stored'])} types), "
               f"{len(d['derived'])} derived types")
    emit(args, lambda: "\n".join([summary, *(f"warning: {w}" for w in warnings)]), d)
    return 0
