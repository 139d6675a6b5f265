"""`boscage spawn SCENE [--name N] [--recipe FILE] [--region …] [--save]`: run a scene's spawners."""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from app.cli import UsageError, add_json_flag, emit, examples
from app.cli._batch import add_batch_flags, batch_options
from app.cli._lock import add_wait_flag, saving_locked
from app.cli._progress import TerminalProgress
from model.errors import FormatError, read_text_file


def refusal_lines(refused: list[dict], candidates: int, indent: str) -> list[str]:
    """Each refusal of a spawn-style report as a line: its condition, count and share."""
    lines = []
    for item in refused:
        share = 100.0 * item["count"] / candidates if candidates else 0.0
        lines.append(f"{indent}{item['reason']:<44} {item['count']:>9,}  {share:5.1f} %")
    return lines


def _region(text: str) -> tuple[float, float, float, float]:
    try:
        x0, z0, x1, z1 = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X0,Z0,X1,Z1, got {text!r}") from None
    if not (x0 < x1 and z0 < z1):
        raise argparse.ArgumentTypeError(f"expected X0 < X1 and Z0 < Z1, got {text!r}")
    return x0, z0, x1, z1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("spawn", help="run a scene's spawners and report every refusal per species",
                       description="Run the scene's spawners (or one) in their order and print, per "
                                   "species, the candidates, how many were placed and how many each "
                                   "condition refused. A spawner replaces exactly the instances it "
                                   "placed before; painted foliage is never touched.",
                       epilog=examples(
                           "boscage spawn forest.boscage",
                           "boscage spawn forest.boscage --recipe forest.toml --save",
                           "boscage spawn forest.boscage --name understory --region 0,0,256,256 --save",
                           "boscage spawn big.boscage --save --workers 2 --resume",
                           notes="--json prints {scene, spawners: [{spawner, region, candidates, placed, "
                                 "removed, added, species: [{type, candidates, placed, refused: [{reason, "
                                 "count}], missing_layers, sentence}]}], saved}."))
    p.add_argument("scene", type=Path, metavar="SCENE", help="a .boscage file")
    p.add_argument("--name", metavar="N", help="run only the spawner named N")
    p.add_argument("--recipe", type=Path, metavar="FILE",
                   help="a TOML file of [[spawners]] to add to the scene (replacing those of the same name)")
    p.add_argument("--region", type=_region, metavar="X0,Z0,X1,Z1",
                   help="re-run only this box (instances elsewhere keep their bytes)")
    p.add_argument("--save", action="store_true", help="write the result (and any --recipe) back to SCENE")
    add_wait_flag(p)
    add_batch_flags(p, tile_help="tile size in metres for a batch run (default 256)")
    add_json_flag(p)
    p.set_defaults(func=run)


def _recipe(path: Path) -> list:
    from model.foliage.spawner import spawners_from_toml

    try:
        doc = tomllib.loads(read_text_file(path))
    except tomllib.TOMLDecodeError as e:
        raise FormatError(path, None, f"bad TOML: {e}") from None
    except RecursionError:
        raise FormatError(path, None, "bad TOML: nested too deeply") from None
    if "spawners" not in doc:
        raise FormatError(path, None, "no [[spawners]] in this file")
    return spawners_from_toml(doc["spawners"], path, "spawners")


@saving_locked
def run(args: argparse.Namespace) -> int:
    from model.foliage.spawn_batch import DEFAULT_TILE, spawn_in_tiles
    from model.foliage.spawn_run import SpawnError
    from model.foliage.spawner_section import run_and_apply, spawners_of
    from model.formats.scene_file import load_scene, save_scene

    scene = load_scene(args.scene)
    section = spawners_of(scene)
    if args.recipe is not None:
        for spawner in _recipe(args.recipe):
            old = section.get(spawner.name)
            if old is None:
                section.spawners.append(spawner)
            else:
                section.spawners[section.spawners.index(old)] = spawner
    if not section.spawners:
        raise FormatError(args.scene, "spawners", "the scene has no spawners (add [[spawners]] to it, "
                                                  "or pass --recipe FILE)")
    chosen = section.spawners
    if args.name is not None:
        chosen = [s for s in section.spawners if s.name == args.name]
        if not chosen:
            known = ", ".join(s.name for s in section.spawners)
            raise UsageError(f"no spawner named {args.name!r} in {args.scene} (it has: {known})")
    batch = batch_options(args)
    if batch is not None and args.region is not None:
        raise UsageError("--region re-runs a small area in this process; it takes no --workers, "
                         "--scheduler or --resume")
    reports = []
    changed = args.recipe is not None
    for spawner in chosen:
        try:
            if batch is None:
                result, change = run_and_apply(scene, spawner, args.region)
            else:
                folder = args.tiles_dir or args.scene.with_name(f".{args.scene.stem}.spawn-{spawner.name}")
                with TerminalProgress(0, f"spawning {spawner.name}", "tiles") as bar:
                    result, change = spawn_in_tiles(scene, spawner, args.tile or DEFAULT_TILE, batch.workers,
                                                    batch.scheduler, folder, args.resume, bar.step)
        except SpawnError as e:
            raise FormatError(args.scene, f"spawners.{spawner.name}", str(e)) from None
        changed = changed or change.changes_scene
        reports.append({
            "spawner": spawner.name,
            "region": list(result.box),
            "candidates": result.candidates,
            "placed": result.placed,
            "removed": len(change.removed),
            "added": sum(len(v) for v in change.added.values()),
            "species": [{
                "type": s.type,
                "candidates": s.candidates,
                "placed": s.placed,
                "refused": [{"reason": label, "count": n} for label, n in s.counts()],
                "missing_layers": sorted(s.missing_layers),
                "sentence": s.sentence(),
            } for s in result.species],
        })
    saved = bool(args.save and changed)
    if args.save:  # writes only what differs: a re-run that changes nothing leaves every file as it is
        save_scene(scene, args.scene)  # (and still drops what a killed run left)
    doc = {"scene": str(args.scene), "spawners": reports, "saved": saved}

    def human() -> str:
        lines = []
        for r in reports:
            lines.append(f"{r['spawner']}: {r['candidates']:,} candidates, {r['placed']:,} placed "
                         f"({r['added']:,} added, {r['removed']:,} removed)")
            for s in r["species"]:
                lines.append(f"  {s['sentence']}")
                lines += refusal_lines(s["refused"], s["candidates"], "    ")
        if saved:
            lines.append(f"saved to {args.scene}")
        elif args.save:
            lines.append(f"nothing changed: {args.scene} left as it was")
        return "\n".join(lines)

    emit(args, human, doc)
    return 0
