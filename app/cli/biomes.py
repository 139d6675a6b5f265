"""`boscage biomes info DIR [OVERLAY_DIR…]` and `boscage biomes export DIR [OVERLAY_DIR…] --asset K -o F`."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from app.cli import (
    EXIT_OK,
    UsageError,
    add_json_flag,
    emit,
    emit_report,
    examples,
    non_finite_note,
    number_text,
)
from model.biomes import export_flattened, format_path, load_biome_set
from model.biomes.asset import CHAIN_SHOWN
from model.biomes.summary import set_document
from model.errors import FormatError

VALUE_WIDTH = 60


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("biomes", help="inspect WorldGen biome assets: inheritance, overlays, validation")
    bsub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    info = bsub.add_parser("info", help="resolved assets with the file behind every field, errors, "
                                        "warnings and the zone order table; exit 1 if any error",
                        epilog=examples(
                            "boscage biomes info worldgen/biomes",
                            "boscage biomes info worldgen/biomes mods/biomes --asset Forest_Temperate",
                            notes="Later folders overlay same-key files of earlier ones. --json prints "
                                  "{folders, counts: {assets, tile, custom, resolved, valid, errors, "
                                  "warnings}, assets: [...], ...}; each asset lists its parent, "
                                  "chain_length, chain_end and the first 64 links of its chain. Exit 1 "
                                  "when the set has an error."))
    _folders(info)
    info.add_argument("--asset", action="append", default=[], metavar="KEY",
                      help="show only this asset (repeatable); errors and zones still cover the set")
    add_json_flag(info)
    info.set_defaults(func=run_info)

    ex = bsub.add_parser("export", help="write one resolved asset as standalone JSON (no Parent)",
                         epilog=examples("boscage biomes export worldgen/biomes --asset Forest_Temperate "
                                         "-o forest.json"))
    _folders(ex)
    ex.add_argument("--asset", required=True, metavar="KEY", help="the asset to flatten")
    ex.add_argument("-o", "--out", required=True, type=Path, metavar="FILE", help="the JSON file to write")
    add_json_flag(ex)
    ex.set_defaults(func=run_export)


def _folders(p: argparse.ArgumentParser) -> None:
    p.add_argument("folders", nargs="+", type=Path, metavar="DIR",
                   help="the base folder of *.json biome assets, then overlay folders in order")


def _nothing_read(biomes) -> FormatError | None:
    """Why a set with no readable asset is no set at all (an empty folder, only broken files)."""
    if any(a.resolved for a in biomes.assets.values()):
        return None
    if not biomes.assets:
        return FormatError(biomes.folders[0], None, "no biome assets (*.json) here")
    first = biomes.errors[0] if biomes.errors else None
    why = f"; the first: {first.message}" if first is not None else ""
    return FormatError(biomes.folders[0], None, f"no biome asset here could be read{why}")


def run_info(args: argparse.Namespace) -> int:
    biomes = load_biome_set(args.folders)
    if not biomes.assets:
        raise _nothing_read(biomes)
    doc = set_document(biomes)
    unknown = [k for k in args.asset if k not in biomes]
    if unknown:
        raise UsageError(f"no asset named {', '.join(map(repr, unknown))} in this set")
    if args.asset:
        doc["assets"] = [a for a in doc["assets"] if a["key"] in args.asset]
    return emit_report(args, lambda: info_text(doc), doc, args.folders[0], len(doc["errors"]),
                       "in the set (each listed in the report)")


def run_export(args: argparse.Namespace) -> int:
    biomes = load_biome_set(args.folders)
    if args.asset not in biomes:
        broken = _nothing_read(biomes)
        if broken is not None:  # the folder is the problem, not the name asked for
            raise broken
        raise UsageError(f"no asset named {args.asset!r} in this set")
    asset = biomes[args.asset]
    export_flattened(asset, args.out)
    emit(args, f"wrote {args.out} (flattened {asset.key}: {asset.chain_text()})",
         {"asset": asset.key, "chain": asset.chain, "out": str(args.out)})
    return EXIT_OK


def _chain(a: dict) -> str:
    """The asset's chain as `A → B → C`, elided in the middle when long (as messages show it)."""
    keys, n = a["chain"], a["chain_length"]
    if n <= 2 * CHAIN_SHOWN + 1:
        return " → ".join(keys) or a["key"]
    return f"{' → '.join(keys[:CHAIN_SHOWN])} → … {n - CHAIN_SHOWN - 1:,} more … → {a['chain_end']}"


def _value(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return number_text(value)
    text = json.dumps(value, ensure_ascii=False)
    text = text if len(text) <= VALUE_WIDTH else text[:VALUE_WIDTH - 1] + "…"
    return text + non_finite_note(value)


def info_text(doc: dict) -> str:
    c = doc["counts"]
    lines = [f"biome set: {' + '.join(doc['folders'])}",
             f"{c['assets']} assets ({c['tile']} Tile, {c['custom']} Custom), {c['resolved']} resolved, "
             f"{c['valid']} valid; {c['errors']} errors, {c['warnings']} warnings"]
    for a in doc["assets"]:
        lines.append("")
        state = "unresolved" if a["resolved"] is None else f"{len(a['errors'])} errors"
        lines.append(f"{a['key']}  [{a['type'] or '?'}]  {a['map_color']}  "
                     f"chain: {_chain(a)}  ({state})")
        values = dict(_walk(a["resolved"] or {}, ()))
        for path, origin in a["provenance"].items():
            lines.append(f"  {path} = {_value(values.get(path))}   ← {origin}")
        if a["tags"]:
            lines.append(f"  tags: {', '.join(a['tags'])}")
    if doc["zones"]:
        lines += ["", "zone order (converted memberships by Order; ! = conflict):"]
        for zone, rows in doc["zones"].items():
            cells = [f"{'!' if r['conflict'] else ''}{r['order']} {r['asset']}"
                     for r in rows if r["converted"]]
            rest = [r["asset"] for r in rows if not r["converted"]]
            lines.append(f"  {zone}: {', '.join(cells) or '-'}"
                         + (f"; unpinned: {', '.join(rest)}" if rest else ""))
    for title in ("errors", "warnings"):
        if doc[title]:
            lines += ["", f"{title} ({len(doc[title])}):"]
            lines += [f"  {i['asset']}: {i['message']}" for i in doc[title]]
    return "\n".join(lines)


def _walk(node: dict, prefix: tuple):
    """(display path, value) for every object field, as the provenance map names them."""
    for k, v in node.items():
        path = prefix + (k,)
        yield format_path(path), v
        if isinstance(v, dict):
            yield from _walk(v, path)
