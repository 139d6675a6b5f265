"""`boscage plants inspect` and `plants grow`: plant rule folders and growth on a zone, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli import UsageError, add_json_flag, emit, emit_report, examples, non_finite_note
from app.cli._batch import add_batch_flags, batch_options
from app.cli._progress import TerminalProgress as _TerminalProgress
from model.errors import FormatError


def _nonnegative(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(text)


def _id_list(text: str) -> list[int]:
    try:
        ids = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected zone ids like 3,7,12, got {text!r}") from None
    if not ids or min(ids) < 0:
        raise argparse.ArgumentTypeError(f"expected zone ids like 3,7,12, got {text!r}")
    return sorted(set(ids))


def _percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage, got {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"fertility must be 0..100, got {text}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plants", help="plant rule files: inspect and lint them, grow a zone with them")
    plants_sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    inspect = plants_sub.add_parser("inspect", help="merged rules, the file each field came from, lints",
                                    epilog=examples(
                                        "boscage plants inspect resources/plants",
                                        "boscage plants inspect resources/plants pine reed --json",
                                        notes="--json prints {folder, rules: [{name, file, lints, fields, "
                                              "defaults, index, type, states, figures}], errors, warnings}. "
                                              "Exit 1 when any rule has an error."))
    inspect.add_argument("folder", type=Path, metavar="DIR", help="folder of rule files (*.txt)")
    inspect.add_argument("names", nargs="*", metavar="NAME",
                         help="only these rules (file names, .txt optional)")
    add_json_flag(inspect)
    inspect.set_defaults(func=run_inspect)

    grow = plants_sub.add_parser("grow", help="run growth passes over a zone's layers and write the result",
                                 epilog=examples(
                                     "boscage plants grow --zone zones --id 12 --rules rules --passes 20 "
                                     "--seed 1 --out grown",
                                     "boscage plants grow --zone zones --id 12 --rules rules --passes 20 "
                                     "--seed 1 --out grown --scene grown/zone12.boscage",
                                     "boscage plants grow --zones zones --all --rules rules --passes 20 "
                                     "--seed 1 --out grown --workers 2",
                                     notes="The same seed gives the same bytes. --json prints, for one "
                                           "zone, {zone_id, width, height, passes, seed, fertility, out, "
                                           "files, plants_before, plants_after, missing_rules, "
                                           "unknown_plants, warnings, scene}; for many, {zones, passes, "
                                           "seed, fertility, out, missing_rules, unknown_plants, "
                                           "warnings} keyed by zone id."))
    grow.add_argument("--zone", "--zones", dest="zone", type=Path, required=True, metavar="DIR",
                      help="folder of the zones' layer files")
    which = grow.add_mutually_exclusive_group()
    which.add_argument("--id", dest="zone_id", type=_nonnegative, metavar="N", help="grow zone N")
    which.add_argument("--ids", type=_id_list, metavar="A,B,…", help="grow these zones (a batch job)")
    which.add_argument("--all", action="store_true",
                       help="grow every zone of the folder that has altitude and plants layers (a batch job)")
    grow.add_argument("--rules", type=Path, required=True, metavar="DIR", help="plant rules folder")
    grow.add_argument("--passes", type=_nonnegative, required=True, metavar="K", help="nature passes to run")
    grow.add_argument("--seed", type=_nonnegative, required=True, metavar="S", help="random seed")
    grow.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for the grown layers")
    grow.add_argument("--fertility", type=_percent, default=None, metavar="P",
                      help="zone fertility in percent of tiles holding blocking plants (default 10)")
    grow.add_argument("--no-wall-decay", action="store_true", help="walls do not decay (an alpha zone)")
    grow.add_argument("--drop-unknown-plants", action="store_true",
                      help="remove plants whose type has no rule in the set (the game's validation); "
                           "by default they are kept as they are")
    grow.add_argument("--scene", type=Path, metavar="SCENE.boscage",
                      help="also write the grown zone as a scene: blocking plants as stored foliage, "
                           "the rest as derived grass")
    add_batch_flags(grow, tile_help="(not used: a zone is one task)")
    add_json_flag(grow)
    grow.set_defaults(func=run_grow)


# ---- inspect -------------------------------------------------------------------------------------
def _rule_doc(name: str, load: Any, lints: list, folder: Path) -> dict:
    from model.plants.genxy import plain
    from model.plants.markov import figures
    from model.plants.rule import FIELDS

    doc: dict[str, Any] = {"name": name, "file": str(folder / f"{name}.txt"),
                           "lints": [lint.as_dict() for lint in lints]}
    error = load.errors.get(name)
    if error is not None:
        doc["error"] = str(error)
    settings = load.settings.get(name)
    if settings is not None:
        doc["fields"] = {key: {"value": plain(s.value), "raw": s.value.raw, "type": s.value.kind,
                               "from": s.path.name, "line": s.line} for key, s in settings.items()}
        doc["defaults"] = {f.key: (list(f.default) if isinstance(f.default, tuple) else f.default)
                           for f in FIELDS if f.key not in settings and f.key != "source"}
    rule = load.rules.get(name)
    if rule is not None:
        doc["index"] = rule.index
        doc["type"] = rule.type_name
        doc["states"] = [{"state": s, "next": list(rule.states[s]), "action": list(rule.actions[s]),
                          "health": rule.health[s], "blocking_height": rule.blocking_height[s]}
                         for s in range(rule.state_count)]
        doc["figures"] = figures(rule).as_dict()
    return doc


def _inspect_text(doc: dict) -> str:
    lines = [f"{doc['folder']}: {len(doc['rules'])} rules, {doc['errors']} errors, "
             f"{doc['warnings']} warnings"]
    for r in doc["rules"]:
        head = f"\n{r['name']}"
        if "index" in r:
            head += f" — index {r['index']} ({r['type']}), {len(r['states'])} states"
        lines.append(head)
        if "error" in r:
            lines.append(f"  ERROR {r['error']}")
        for key, f in r.get("fields", {}).items():
            lines.append(f"  {key:<24} {f['raw']:<28} {f['from']}:{f['line']}{non_finite_note(f['value'])}")
        if r.get("defaults"):
            lines.append("  defaults: " + ", ".join(f"{k}={v}" for k, v in r["defaults"].items()))
        if "figures" in r:
            fig = r["figures"]
            fruit = fig["ticks_to_fruit"]
            lines.append(f"  expected lifetime {fig['lifetime']} ticks (death {fig['death_share']:.0%}), "
                         f"ticks to fruit {'never' if fruit is None else fruit}, "
                         f"state shares {', '.join(f'{x:.2f}' for x in fig['stationary'])}")
        for lint in r["lints"]:
            where = f"{Path(lint['file']).name}:{lint['line'] or '-'}" if lint["file"] else "-"
            key = f"{lint['key']}: " if lint["key"] else ""
            lines.append(f"  {lint['severity']}: {where}: {key}{lint['message']}")
    return "\n".join(lines)


def run_inspect(args: argparse.Namespace) -> int:
    from model.plants.lints import ERROR, lint_folder
    from model.plants.loader import load_folder, no_rules_error, rule_name_of

    load = load_folder(args.folder)
    lints = lint_folder(load)
    known = set(load.files) | set(load.errors)
    if not known:
        raise no_rules_error(load.folder)
    names = [rule_name_of(n) for n in args.names] or sorted(known)
    missing = [n for n in names if n not in known]
    if missing:
        raise FormatError(args.folder, None, f"no rule file {', '.join(m + '.txt' for m in missing)} here")
    rules = [_rule_doc(n, load, lints.get(n, []), load.folder) for n in names]
    errors = sum(("error" in r) + sum(lint["severity"] == ERROR for lint in r["lints"]) for r in rules)
    warnings = sum(lint["severity"] != ERROR for r in rules for lint in r["lints"])
    doc = {"folder": str(args.folder), "rules": rules, "errors": errors, "warnings": warnings}
    return emit_report(args, lambda: _inspect_text(doc), doc, args.folder, errors,
                       "in its rules (each listed in the report)")


# ---- grow ----------------------------------------------------------------------------------------
def _counts(types: Any, names: dict[int, str]) -> dict[str, int]:
    import numpy as np

    counts = np.bincount(types.reshape(-1), minlength=256)
    return {names.get(int(i), f"#{int(i)}"): int(counts[i]) for i in np.flatnonzero(counts) if i}


def _missing_text(rules: Path, missing: dict[str, int], dropped: bool) -> str:
    """'no rule in RULES for 2 plant types on the zone: GrassB 1,200 tiles, Reed 40 tiles; kept …'."""
    from model.plants.zone_growth import missing_rules_text

    kinds = missing_rules_text(missing)
    what = ("removed (--drop-unknown-plants)" if dropped
            else "kept as they are (--drop-unknown-plants removes them)")
    return (f"{rules}: no rule for {len(missing)} plant type{'s' if len(missing) != 1 else ''} "
            f"on the zone: {kinds}; {what}")


def run_grow(args: argparse.Namespace) -> int:
    from model.plants.growth import GrowthOptions
    from model.plants.loader import load_growable_rules
    from model.plants.zone_growth import grow_zone, missing_rules
    from model.zones import read_zone, write_zone
    from model.zones.names import PLANT_TYPES

    try:
        same = args.out.resolve() == args.zone.resolve()
    except (OSError, RuntimeError) as e:  # a link loop, a name the OS refuses
        raise FormatError(args.zone, None, f"cannot follow this path: {getattr(e, 'strerror', None) or e}") \
            from None
    if same:
        raise UsageError("--out must differ from --zone: the grown layers would replace the originals")
    if not args.rules.is_dir():
        raise FormatError(args.rules, None, "plant rules folder not found")
    growable = load_growable_rules(args.rules)  # a broken file is left out, not the whole folder
    rules = growable.rules
    ids = _zone_ids(args)
    batch = batch_options(args)
    broken = growable.broken_text(dict(PLANT_TYPES) | {i: r.name or r.type_name for i, r in rules.items()})
    if broken is not None and not args.json:  # said first: a long grow should not hide it
        print(f"boscage: warning: {broken}", file=sys.stderr)
    if len(ids) > 1 or batch is not None:
        return _grow_batch(args, ids, batch, growable, broken)
    zone = read_zone(args.zone, ids[0], require=("altitude", "plants"))
    options = GrowthOptions(fertility=10.0 if args.fertility is None else args.fertility,
                            damage_walls=not args.no_wall_decay, drop_unknown=args.drop_unknown_plants)
    names = dict(PLANT_TYPES) | {i: r.name or r.type_name for i, r in rules.items()}
    before = _counts(zone.plants["type"], names)
    missing = {names.get(k, f"#{k}"): n for k, n in missing_rules(zone, rules).items()}
    warnings = list(zone.warnings) + ([broken] if broken is not None else [])
    if missing:
        warnings.append(_missing_text(args.rules, missing, options.drop_unknown))
    if not args.json:  # said before growing: a long run should not hide it until the end
        for warning in warnings:
            if warning is broken:
                continue  # said already
            print(f"boscage: warning: {warning}", file=sys.stderr)
    bar = _TerminalProgress(args.passes)
    try:
        grown = grow_zone(zone, rules, args.passes, args.seed, options, progress=bar)
    except KeyboardInterrupt:  # Ctrl+C while growing: nothing has been written yet
        bar.close()
        print("boscage: growth cancelled; nothing written", file=sys.stderr)
        return 130
    bar.close()
    written = write_zone(grown, args.out)
    doc: dict[str, Any] = {"zone_id": zone.zone_id, "width": zone.width, "height": zone.height,
                           "passes": args.passes, "seed": args.seed, "fertility": options.fertility,
                           "out": str(args.out), "files": [str(p) for p in written],
                           "plants_before": before, "plants_after": _counts(grown.plants["type"], names),
                           "missing_rules": missing, **_broken_doc(growable),
                           "unknown_plants": "dropped" if options.drop_unknown else "kept",
                           "warnings": warnings}
    if args.scene is not None:
        from model.formats.scene_file import save_scene
        from model.zones.scene_import import zone_to_scene

        scene = zone_to_scene(grown, rules=rules, name=args.scene.stem)
        save_scene(scene, args.scene)
        foliage = scene.sections.get("foliage")
        doc["scene"] = {"out": str(args.scene), "stored": foliage.volume.counts() if foliage else {},
                        "derived": [t.name for t in foliage.palette if t.derived] if foliage else []}

    def text() -> str:
        lines = [f"grew zone {zone.zone_id} ({zone.width} x {zone.height}) for {args.passes} passes, "
                 f"seed {args.seed}, fertility {options.fertility:g}% → {args.out}"]
        for name in sorted(set(before) | set(doc["plants_after"])):
            lines.append(f"  {name:<16} {before.get(name, 0):>10,} → {doc['plants_after'].get(name, 0):>10,}")
        if "scene" in doc:
            s = doc["scene"]
            lines.append(f"wrote {s['out']}: {sum(s['stored'].values()):,} stored plants, "
                         f"{len(s['derived'])} derived types")
        return "\n".join(lines)

    emit(args, text, doc)
    return 0


def _broken_doc(growable: Any) -> dict[str, Any]:
    """The JSON report's account of the rule files left out and the plant types they leave bare."""
    return {"broken_rules": {f"{name}.txt": str(e) for name, e in sorted(growable.broken.items())},
            "plants_without_rule": {f"{name}.txt": i for name, i in sorted(growable.orphaned.items())}}


def _zone_ids(args: argparse.Namespace) -> list[int]:
    """The zones asked for: --id N, --ids A,B,… or --all (those with altitude and plants)."""
    from model.plants.grow_batch import NEEDS
    from model.zones import no_zone_with, zone_ids

    if not args.zone.is_dir():
        raise FormatError(args.zone, None, "zone folder not found")
    if args.all:
        ids = zone_ids(args.zone, needs=NEEDS)
        if not ids:
            raise no_zone_with(args.zone, NEEDS)
        return ids
    if args.ids:
        return args.ids
    if args.zone_id is None:
        raise UsageError("say which zones to grow: --id N, --ids A,B,… or --all")
    return [args.zone_id]


def _grow_batch(args: argparse.Namespace, ids: list[int], batch, growable: Any, broken: str | None) -> int:
    """Several zones (or one, with batch options) as a batch job: each grown where it runs, written here."""
    from model.plants.grow_batch import GrowJob, grow_zones, missing_rules_by_zone, workers_for
    from model.plants.growth import GrowthOptions

    if args.scene is not None:
        raise UsageError("--scene writes one zone's scene: give --id N without batch options")
    options = GrowthOptions(fertility=10.0 if args.fertility is None else args.fertility,
                            damage_walls=not args.no_wall_decay, drop_unknown=args.drop_unknown_plants)
    job = GrowJob(args.zone, args.rules, args.passes, args.seed, options)
    folder = args.tiles_dir or args.out.parent / f".{args.out.name}.grow"
    scheduler = batch.scheduler if batch is not None else None
    workers = workers_for(len(ids), batch.workers if batch is not None else None)
    # said before growing, as for one zone: a long job should not hide it until the end
    missing = missing_rules_by_zone(job, ids)
    said = {k: [_missing_text(args.rules, m, options.drop_unknown)] for k, m in missing.items()}
    if not args.json:
        for zone_id, found in said.items():
            for w in found:
                print(f"boscage: warning: zone {zone_id}: {w}", file=sys.stderr)
    with _TerminalProgress(len(ids), "growing", "zones") as bar:
        warnings = grow_zones(job, ids, args.out, workers, scheduler, folder, args.resume, bar.step)
    every = {k: warnings.get(k, []) + said.get(k, []) for k in ids}
    doc = {"zones": ids, "passes": args.passes, "seed": args.seed, "fertility": options.fertility,
           "out": str(args.out), "missing_rules": {str(k): m for k, m in missing.items()},
           **_broken_doc(growable), "rules_warning": broken,
           "unknown_plants": "dropped" if options.drop_unknown else "kept",
           "warnings": {str(k): v for k, v in every.items() if v}}
    if not args.json:
        for zone_id, found in warnings.items():
            for w in found:
                print(f"boscage: warning: zone {zone_id}: {w}", file=sys.stderr)
    emit(args, lambda: f"grew {len(ids)} zone{'s' if len(ids) != 1 else ''} ({', '.join(map(str, ids))}) "
                       f"for {args.passes} passes, seed {args.seed} → {args.out}", doc)
    return 0
