"""`boscage grasslib info FILE` and `boscage grasslib pick FILE --material M --block4 V --block5 V`."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli import add_json_flag, emit, examples
from model.grasslib import pick, read_library
from model.grasslib.library import TAIL_SIZE
from model.grasslib.summary import library_summary, rule_fields


def byte_value(text: str) -> int:
    """0..255, decimal or 0x-prefixed hex."""
    try:
        v = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a byte (0..255 or 0x00..0xFF), got {text!r}") from None
    if not 0 <= v <= 255:
        raise argparse.ArgumentTypeError(f"{text} is outside 0..255")
    return v


def tail_size(text: str) -> int | None:
    """`any` or a byte count of at least 256 (the table)."""
    if text.lower() == "any":
        return None
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a byte count or 'any', got {text!r}") from None
    if v < 256:
        raise argparse.ArgumentTypeError(f"a tail holds the 256-entry table: {v} is too small")
    return v


def _add_tail_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tail-size", type=tail_size, default=TAIL_SIZE, metavar="N|any",
                   help=f"bytes after the last group (default {TAIL_SIZE}, the examined library's); "
                        "'any' takes whatever follows the groups, at least the 256-entry table")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("grasslib", help="inspect a grass pattern library and its terrain picker")
    gsub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    info = gsub.add_parser("info", help="counts of models, groups and rules, classes, table, flags",
                           epilog=examples("boscage grasslib info grass.bin",
                                           "boscage grasslib info grass.bin --tail-size any --json",
                                           notes="--json prints {path, size, models, groups, rules, "
                                                 "groups_by_rule_count, tail_bytes, ..., rule_fields}."))
    info.add_argument("file", type=Path, metavar="FILE", help="a grass pattern library")
    _add_tail_flag(info)
    add_json_flag(info)
    info.set_defaults(func=run_info)

    pk = gsub.add_parser("pick", help="the group, weight and rules one terrain node reaches",
                         epilog=examples("boscage grasslib pick grass.bin --material 12 --block4 6 "
                                         "--block5 0xFE",
                                         notes="--json prints {material, block4, block5, table_group, group, "
                                               "source, weight, active, rules, rules_with_missing_models, "
                                               "explanation}."))
    pk.add_argument("file", type=Path, metavar="FILE", help="a grass pattern library")
    pk.add_argument("--material", type=byte_value, required=True, help="material byte (0..255)")
    pk.add_argument("--block4", type=byte_value, required=True, help="block-4 value: weight = value >> 1")
    pk.add_argument("--block5", type=byte_value, required=True,
                    help="block-5 value: group override; 0xFE keeps the material's group, 0xFF none")
    _add_tail_flag(pk)
    add_json_flag(pk)
    pk.set_defaults(func=run_pick)


def info_text(doc: dict) -> str:
    sizes = ", ".join(f"{n} with {k}" for k, n in doc["groups_by_rule_count"].items())
    lines = [
        f"{doc['path']}: {doc['size']} bytes",
        f"models: {doc['models']}   groups: {doc['groups']}   rules: {doc['rules']}",
        f"groups by rule count: {sizes or '-'}",
        f"tail: {doc['tail_bytes']} bytes (last 256: material -> group table)",
        f"table: {doc['table_entries_no_group']} entries no group (0xFF); "
        + (", ".join(f"material {m} -> group {g}" for m, g in doc["table_entries_with_group"].items())
           or "none with a group"),
    ]
    for role, names in doc["classes"].items():
        lines.append(f"class of {role.replace('_', ' ')}: {', '.join(names) or '-'}")
    lines.append("LOD tables (inferred): "
                 + ", ".join(f"{k} x{v}" for k, v in doc["lod_tables_inferred"].items()))
    lines.append("distances m (inferred): "
                 + ", ".join(f"{k} x{v}" for k, v in doc["distance_triples_inferred"].items()))
    missing = doc["rules_with_missing_models"]
    lines.append(f"rules naming missing models: {len(missing)}"
                 + "".join(f"\n  group {m['group']} rule {m['rule']}: model {m['model']}" for m in missing))
    lines += [f"note: {n}" for n in doc["notes"]]
    return "\n".join(lines)


def run_info(args: argparse.Namespace) -> int:
    lib = read_library(args.file, args.tail_size)
    doc = library_summary(lib, str(args.file))
    emit(args, lambda: info_text(doc), doc)
    return 0


def run_pick(args: argparse.Namespace) -> int:
    lib = read_library(args.file, args.tail_size)
    result = pick(lib, args.material, args.block4, args.block5)
    rules = []
    if result.active:
        rules = [rule_fields(r, lib.model_count) for r in lib.groups[result.group].rules]
    doc = result.as_json() | {"rule_fields": rules}

    def text() -> str:
        lines = [f"material {args.material} (0x{args.material:02X}), block 4 0x{args.block4:02X}, "
                 f"block 5 0x{args.block5:02X}", result.explanation]
        for k, r in zip(result.rules, rules, strict=True):
            flag = "  MISSING MODEL" if r["missing_model"] else ""
            lines.append(f"  rule {k}: model {r['model']}, tiling {r['tiling_log_count']}, density "
                         f"{r['density']}, tilt {r['tilt_factor']}, scale {r['scale']}, height scale "
                         f"{r['height_scale']}{flag}")
        return "\n".join(lines)

    emit(args, text, doc)
    return 0
