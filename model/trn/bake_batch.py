"""A TRN evaluation in tiles on any number of workers, pasted in tile order: the same bytes as
one `evaluate` of the whole region (the evaluator's windows see the same poles as the whole map).
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from model.batch import Task, TileStore, parameters_of, releases_gil, run_tasks, tiles_of
from model.trn.document import parse
from model.trn.evaluator import FLORA_SLOTS, Evaluation, Region, evaluate

DEFAULT_TILE = 512  # poles a side: ~0.6 s of work each on one core, small enough to spread
_GRIDS = ("heights", "color", "shader", "shader_child", "environment", "exclude", "passable")
_IDS = ("shader", "shader_child", "environment")


def _narrow(ids: np.ndarray) -> np.ndarray:
    """Family ids and child indices as int16 where they all fit (they nearly always do): a tile's
    trip back from a worker is then ~40% smaller, a large share of a fast bake's cost."""
    if ids.size and -32768 <= ids.min() and ids.max() <= 32767:
        return ids.astype(np.int16)
    return ids


_PARSED: dict[tuple[int, int], object] = {}  # per worker process: the job's document, parsed once


def _document(doc):
    """`doc`, or the document its TRN bytes hold (parsed once per process). Dask sends 160 kB of
    bytes in milliseconds, where a parsed ~1,400-item document took 0.1-0.3 s to scatter, before
    any worker could start; the format round-trips byte for byte, so the evaluation is the same."""
    if not isinstance(doc, (bytes, bytearray)):
        return doc
    key = (zlib.crc32(doc), len(doc))
    if key not in _PARSED:
        _PARSED.clear()
        _PARSED[key] = parse(bytes(doc))
    return _PARSED[key]


@releases_gil
def bake_tile(doc, bitmaps, region: Region) -> dict[str, np.ndarray]:
    """One tile's evaluation as arrays (a batch task: in a worker thread or process); `doc` may be
    the document's TRN bytes."""
    ev = evaluate(_document(doc), region, bitmaps=bitmaps, tile=max(region.rows, region.cols))
    out = {name: getattr(ev, name) for name in _GRIDS}
    for name in _IDS:
        out[name] = _narrow(out[name])
    for slot in FLORA_SLOTS:
        out[f"flora_{slot}"] = _narrow(ev.flora[slot])
        out[f"flora_child_{slot}"] = _narrow(ev.flora_child[slot])
    out["warnings"] = np.array(ev.warnings, dtype=str)
    return out


def _unfilled(region: Region) -> Evaluation:
    """The output arrays, not yet written: the tiles cover every pole (so nothing is faulted in
    before the first tile arrives)."""
    shape = region.shape
    ids = lambda: np.empty(shape, np.int32)  # noqa: E731
    return Evaluation(region, np.empty(shape, np.float32), np.empty(shape + (3,), np.float32), ids(), ids(),
                      {k: ids() for k in FLORA_SLOTS}, {k: ids() for k in FLORA_SLOTS}, ids(),
                      np.empty(shape, bool), np.empty(shape, bool))


def evaluate_in_tiles(doc, region: Region, bitmaps=None, tile: int = DEFAULT_TILE, workers: int | None = 1,
                      scheduler: str | None = None, store_folder: Path | None = None, resume: bool = False,
                      progress=None, file_id: str = "") -> Evaluation:
    """`evaluate(doc, region)` as a batch job of `tile`² poles per task (see `model.batch`)."""
    blocks = tiles_of(region.rows, region.cols, int(tile))
    tasks = [Task(f"tile_r{r0:06d}_c{c0:06d}",
                  (Region(region.ix0 + c0, region.iz0 + r0, cols, rows, region.spacing),))
             for r0, c0, rows, cols in blocks]
    store = None
    if store_folder is not None:
        store = TileStore(store_folder, "trn-bake", parameters_of(file=file_id, region=[
            region.ix0, region.iz0, region.cols, region.rows, region.spacing], tile=int(tile)))
        store.open(resume)
    out = _unfilled(region)
    at = {task.key: (r0, c0) for task, (r0, c0, _, _) in zip(tasks, blocks, strict=True)}
    warnings: dict[str, list[str]] = {}

    def paste(task: Task, arrays: dict[str, np.ndarray]) -> None:  # as tiles arrive, workers busy
        r0, c0 = at[task.key]
        rows, cols = arrays["heights"].shape
        rs, cs = slice(r0, r0 + rows), slice(c0, c0 + cols)
        for name in _GRIDS:  # narrowed ids widen in the assignment itself: one pass, no copy
            getattr(out, name)[rs, cs] = arrays[name]
        for slot in FLORA_SLOTS:
            out.flora[slot][rs, cs] = arrays[f"flora_{slot}"]
            out.flora_child[slot][rs, cs] = arrays[f"flora_child_{slot}"]
        warnings[task.key] = [str(w) for w in arrays["warnings"]]

    # a cluster's processes get the TRN bytes (parsed once each); local threads share the document
    shared = doc.to_bytes() if scheduler is not None else doc
    run_tasks(bake_tile, tasks, shared=(shared, bitmaps), workers=workers,
              scheduler=scheduler, store=store, progress=progress, on_result=paste)
    for task in tasks:  # warnings in tile order, whatever order the tiles came in
        out.warnings.extend(w for w in warnings[task.key] if w not in out.warnings)
    if store is not None:
        store.clear()
    return out
