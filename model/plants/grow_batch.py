"""Growing many zones as one batch job: a zone per task, read and grown where it runs, written here.

Workers read the zone folder and the rules folder themselves (on a cluster both must be at the
same path on every machine); this process writes each grown zone as it arrives. A zone's output
depends only on its layers, the rules, the passes and the seed, so the files are the same bytes
whatever runs them and in whatever order they finish.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.batch import Task, TileStore, file_fingerprint, parameters_of, run_tasks
from model.plants.growth import GrowthOptions
from model.plants.loader import load_growable_rules
from model.plants.zone_growth import grow_zone
from model.zones import read_zone, write_zone
from model.zones.zone import Zone

NEEDS = ("altitude", "plants")


@dataclass(frozen=True)
class GrowJob:
    zones: Path
    rules: Path
    passes: int
    seed: int
    options: GrowthOptions


def workers_for(zones: int, workers: int | None = None) -> int | None:
    """The worker count a grow of `zones` zones runs with (the command line and the editor alike):
    as asked, else one per core for several zones (None) and this process for one (a cluster takes
    seconds to start, more than one zone's work is worth)."""
    if workers is not None:
        return workers
    return None if zones > 1 else 1


def grow_task(job: GrowJob, zone_id: int) -> dict[str, np.ndarray]:
    """One zone grown (a batch task): its layers as arrays, and the warnings reading it gave."""
    zone = read_zone(job.zones, zone_id, require=NEEDS)
    grown = grow_zone(zone, load_growable_rules(job.rules).rules, job.passes, job.seed, job.options)
    out = {f"layer_{name}": array for name, array in grown.layers.items()}
    out["warnings"] = np.array(zone.warnings, dtype=str)
    return out


def job_inputs(job: GrowJob, ids: list[int]) -> dict[str, str]:
    """What a resume must find unchanged: the size and CRC-32 of every layer file of each zone and
    of every file of the rules folder (their content, not their names or times)."""
    from model.zones.files import layer_folder, layer_paths

    where = layer_folder(job.zones)
    out = {f"zone {i}": ";".join(f"{p.name}={file_fingerprint(p)}"
                                 for _, p in sorted(layer_paths(where, i).items())) for i in ids}
    rules = sorted(p for p in Path(job.rules).iterdir() if p.is_file())
    out["the rules folder"] = ";".join(f"{p.name}={file_fingerprint(p)}" for p in rules)
    return out


def missing_rules_by_zone(job: GrowJob, ids: list[int]) -> dict[int, dict[str, int]]:
    """Per zone (those with any): plant types standing on it that have no rule in the job's rules
    folder → their tile counts, named as the single-zone grow names them; read before growing, so
    it can be said before a long job starts."""
    from model.plants.zone_growth import missing_rules

    rules = load_growable_rules(job.rules).rules
    out: dict[int, dict[str, int]] = {}
    for zone_id in ids:
        zone = read_zone(job.zones, zone_id, layers=("plants",))
        names = dict(zone.plant_names) | {i: r.name or r.type_name for i, r in rules.items()}
        missing = {names.get(k, f"#{k}"): n for k, n in missing_rules(zone, rules).items()}
        if missing:
            out[zone_id] = missing
    return out


def grow_zones(job: GrowJob, ids: list[int], out: Path, workers: int | None = 1, scheduler: str | None = None,
               store_folder: Path | None = None, resume: bool = False, progress=None) -> dict[int, list[str]]:
    """Grow every zone of `ids` into `out`; returns each zone's reading warnings."""
    tasks = [Task(f"zone_{i:05d}", (i,)) for i in ids]
    store = None
    if store_folder is not None:
        store = TileStore(store_folder, "plants-grow", parameters_of(
            zones=str(job.zones), rules=str(job.rules), passes=job.passes, seed=job.seed,
            options=vars(job.options), ids=ids), job_inputs(job, ids))
        store.open(resume)
    results = run_tasks(grow_task, tasks, shared=(job,), workers=workers, scheduler=scheduler, store=store,
                        progress=progress)
    warnings: dict[int, list[str]] = {}
    for task in tasks:  # written in id order, each from the zone as read (so its encoding is kept)
        zone_id = task.args[0]
        arrays = results[task.key]
        original = read_zone(job.zones, zone_id, require=NEEDS)
        grown = Zone(zone_id, original.width, original.height,
                     {k[len("layer_"):]: v for k, v in arrays.items() if k.startswith("layer_")},
                     original.plant_names, original.sources, original.folder)
        write_zone(grown, out)
        warnings[zone_id] = [str(w) for w in arrays["warnings"]]
    if store is not None:
        store.clear()
    return warnings
